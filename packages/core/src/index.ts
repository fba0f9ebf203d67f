export {
  GateError,
  formatIssue,
  orThrow,
  type GateErrorCode,
  type GateIssue,
  type GateErrorLocation,
} from "./errors.js";
export { parseIsoDate, daysBetween, utcDateOf, type IsoDate } from "./dates.js";
export {
  parseLedger,
  classifyLeases,
  type Lease,
  type Ledger,
  type LedgerParseResult,
  type LeaseClasses,
} from "./ledger.js";
export {
  parseCollectOnly,
  mergeUniverses,
  type Universe,
  type UniverseParseResult,
  type CollectionError,
} from "./universe.js";
export { CloseIdIndex, type CloseId } from "./close-ids.js";
export {
  planDeselection,
  findUnknownLeases,
  findPrefixCollateral,
  renderDeselectArgs,
  renderDeselectPlugin,
  renderContextsRegex,
  deselectionJson,
  pythonString,
  pythonRegexEscape,
  type DeselectionPlan,
  type UnknownLease,
  type JudgedLeases,
  type PrefixCollateral,
} from "./deselect.js";
export { parseCoveragePyJson, type CoverageTotals, type CoverageParseResult } from "./coverage-json.js";
export { decide, type DecideInput } from "./decide.js";
export {
  judgeTestChanges,
  skipsAtHead,
  goneSinceBase,
  pairRenames,
  commandFiles,
  collectionConfigMatcher,
  renderOnlyPlugin,
  COLLECTION_CONFIG_PATTERNS,
  type TestChangeEvidence,
  type TestChangeContext,
  type TestChangeJudgement,
  type BaseUniverse,
  type BaseSkips,
  type FileRename,
  type TestChange,
} from "./test-changes.js";
export { REASON_CODES, RULE_REASONS, type ReasonCode, type Decision } from "./reasons.js";
export {
  REPORT_SCHEMA_VERSION,
  type GateReport,
  type Finding,
  type InputDigest,
  type InputRole,
  type ProvenCoverage,
  type CommandOutcome,
  type CommandStep,
  type PropertyEvidence,
  type ReportLease,
  type LedgerSection,
  type CoverageSection,
  type AccountingSection,
  type UniverseSection,
  type PropertiesSection,
} from "./report.js";
export { RULES, type Rule, type GateFacts, type ProofResults, type PropertySource } from "./rules.js";
export { buildReport, errorReport } from "./build-report.js";
export { reportJson, reportObject } from "./report-json.js";
export { fitText, sizeOf, type FitOptions, type SizeUnit } from "./fit-text.js";
export { FULL_SHA, isFullSha, shortRevision } from "./revisions.js";
export { SIGNALS, buildSignals, type Signal, type SignalId, type SignalResult, type SignalMeasure } from "./signals.js";
export { renderText, renderMarkdown, terminalSafe, markdownSafe, palette, type Palette } from "./render.js";
export {
  PROVIDERS,
  localPlatform,
  selectPlatform,
  mergeContext,
  shallowHistoryFixFor,
  publishedDecision,
  type Provider,
  type Env,
  type CiContext,
  type Platform,
  type PublishableReport,
  type PublishTools,
  type PublishOutcome,
} from "./platform.js";
export { DEFAULT_GATE_NAME, gateNameIssue } from "./gate-name.js";
export { REPORT_DIR, proofgateCommand, isRelease, type CiSnippet } from "./ci-snippet.js";
export { toPythonJson, PyFloat } from "./python-json.js";
export {
  parseJunitXml,
  mergeJunitResults,
  universeFromJunit,
  pytestJunitNames,
  type TestResult,
  type TestOutcome,
  type JunitProducer,
  type IdMapping,
  type JunitParseOptions,
  type JunitParseResult,
  type JunitMergeResult,
} from "./junit.js";
export {
  accountEvidence,
  countPropertyResults,
  testsFailed,
  missingEvidence,
  skipBudget,
  unledgeredSkipCount,
  EVIDENCE_CLASSES,
  type EvidenceAccounting,
  type EvidenceClass,
} from "./evidence.js";
export {
  provenCoverageFromContexts,
  numbitsToNums,
  frozenContextNames,
  type CoverageDbRows,
  type ContextsCoverageResult,
} from "./coverage/contexts.js";
export {
  summarizeCoverage,
  coveragePercent,
  summaryFromCounts,
  normalizeCoveragePath,
  fileCounts,
  hasSets,
  type CoverageFormat,
  type FileCoverage,
  type FileCounts,
  type CoverageData,
  type CoverageReadResult,
  type CoverageSummary,
} from "./coverage-model.js";
export { readCoverage } from "./coverage/read-coverage.js";
export { detectCoverageFormat, COVERAGE_REPORT_FORMATS } from "./coverage/detect-format.js";
export { readCoveragePyJson } from "./coverage/coveragepy-json-reader.js";
export { readLcov, LcovStreamReader } from "./coverage/lcov-reader.js";
export { readCobertura } from "./coverage/cobertura-reader.js";
export { readIstanbulFinal } from "./coverage/istanbul-final-reader.js";
export { readIstanbulSummary } from "./coverage/istanbul-summary-reader.js";
export { mergeCoverageShards, CoverageShardMerger } from "./coverage/merge-shards.js";
export { type CoverageReadOptions, type ReadCoverageOptions } from "./coverage/read-options.js";
export {
  parseFixturesLock,
  formatFixturesLock,
  fixtureLockLine,
  diffFixturesLocks,
  compareLockToTree,
  fixtureDeltaCount,
  fixturePathProblem,
  compareUtf8,
  sortFixtureEntries,
  type FixtureLockEntry,
  type FixtureDigest,
  type FixturePathOptions,
  type FixturesLockParseResult,
  type FixturesLockDiff,
  type LockTreeComparison,
} from "./fixtures-lock.js";
export {
  DEFAULT_AGENT_PATTERNS,
  CO_AUTHOR_TRAILER_KEYS,
  formatIdentity,
  matchAgentPattern,
  isAgentIdentity,
  coAuthors,
  classifyCommit,
  hasHumanTrailer,
  type Identity,
  type Trailer,
  type Commit,
  type CommitClass,
} from "./authorship.js";
export {
  parseConfig,
  defaultConfig,
  normalizeRepoPath,
  protectedPaths,
  DEFAULT_PROTECTED_PATHS,
  type GateConfig,
  type TrailerKeys,
  type ConfigParseResult,
} from "./config.js";
export { diffLedgers, looseningKey, describeLoosening, type LedgerLoosening } from "./ledger-diff.js";
export {
  leaseFindings,
  unlockedFindings,
  fixtureDigestFindings,
  seedsEmptyFindings,
  seedRewriteFindings,
  protectedPathFindings,
  shallowFindings,
  agentAddedLeaseCount,
  fixtureDelta,
  pathMatcher,
  judgePatch,
  mergeOwnChanges,
  type PatchSource,
  type PatchJudgement,
  type PatchEvidence,
  type PatchPolicy,
  type CommitLedgerChanges,
  type CommitPaths,
  type LockDelta,
} from "./patch.js";
export { evidencePaths, unexpectedChanges } from "./work-tree.js";
