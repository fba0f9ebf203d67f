export {
  GateError,
  formatIssue,
  orThrow,
  type GateErrorCode,
  type GateIssue,
  type GateErrorLocation,
} from "./common/errors.js";
export { parseIsoDate, daysBetween, addDays, utcDateOf, type IsoDate } from "./common/dates.js";
export {
  parseLedger,
  classifyLeases,
  type Lease,
  type Ledger,
  type LedgerParseResult,
  type LeaseClasses,
} from "./ledger/ledger.js";
export {
  parseCollectOnly,
  mergeUniverses,
  type Universe,
  type UniverseParseResult,
  type CollectionError,
} from "./evidence/universe.js";
export {
  parseVitestList,
  looksLikeVitestList,
  leaseShapeIssues,
  idShape,
  VITEST_ID_SEPARATOR,
  type TestRunner,
} from "./evidence/universe-vitest.js";
export { CloseIdIndex, type CloseId } from "./ledger/close-ids.js";
export {
  planDeselection,
  findUnknownLeases,
  findPrefixCollateral,
  planDeselectionOnBytes,
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
} from "./evidence/deselect.js";
export { parseCoveragePyJson, type CoverageTotals, type CoverageParseResult } from "./coverage/coverage-json.js";
export { decide, type DecideInput } from "./decide.js";
export {
  coverageDrop,
  coverageDroppedFindings,
  parseBaseCoverageReport,
  type CoverageDropEvidence,
} from "./coverage-drop.js";
export {
  judgeTestChanges,
  skipsAtHead,
  goneSinceBase,
  rootdirMoved,
  pairRenames,
  commandFiles,
  collectionConfigMatcher,
  renderOnlyPlugin,
  renderSkipMarksPlugin,
  parseSkipMarkedIds,
  parseXpassedIds,
  COLLECTION_CONFIG_PATTERNS,
  isDocumentation,
  type TestChangeEvidence,
  type TestChangeContext,
  type TestChangeJudgement,
  type BaseUniverse,
  type BaseSkips,
  type FileRename,
  type TestChange,
} from "./evidence/test-changes.js";
export {
  importsHypothesis,
  judgePropertyIds,
  parsePropertyIds,
  renderPropertyIdsPlugin,
  PROPERTY_IDS_PLUGIN_MODULE,
  type PropertyIdEvidence,
  type PropertyIdContext,
  type PropertyIdJudgement,
} from "./evidence/property-tests.js";
export {
  BASE_IMPORTS_PLUGIN_MODULE,
  basePythonPath,
  renderBaseImportsPlugin,
  parseBaseImports,
  baseImportIssues,
  type BaseImportsSetup,
  type BaseImportsLine,
} from "./evidence/base-imports.js";
export {
  judgePropertySettings,
  parsePropertySettingsFile,
  readPropertySettings,
  weakerSettings,
  type PropertySettings,
  type PropertySettingsById,
  type WeakerSetting,
} from "./evidence/property-settings.js";
export { REASON_CODES, RULE_REASONS, type ReasonCode, type Decision } from "./common/reasons.js";
export {
  REPORT_SCHEMA_VERSION,
  type GateReport,
  type Finding,
  type InputDigest,
  type InputRole,
  type ProvenCoverage,
  type CommandOutcome,
  type BaseCommandStep,
  type CommandStep,
  type PropertyEvidence,
  type ReportLease,
  type LedgerSection,
  type CoverageSection,
  type AccountingSection,
  type UniverseSection,
  type PropertiesSection,
} from "./model/report.js";
export { RULES, type Rule, type GateFacts, type ProofResults, type PropertySource } from "./rules.js";
export { buildReport, errorReport } from "./build-report.js";
export { leaseCostObject, reportJson, reportObject } from "./report/report-json.js";
export { fitText, sizeOf, type FitOptions, type SizeUnit } from "./report/fit-text.js";
export { FULL_SHA, isFullSha, shortRevision } from "./common/revisions.js";
export {
  SIGNALS,
  buildSignals,
  type Signal,
  type SignalId,
  type SignalResult,
  type SignalMeasure,
} from "./common/signals.js";
export {
  renderText,
  renderMarkdown,
  markdownFrozenOnly,
  MARKDOWN_FROZEN_RANGES,
  terminalSafe,
  markdownSafe,
  palette,
  type Palette,
} from "./report/render.js";
export {
  frozenOnlyRanges,
  rangesByPriority,
  frozenOnlyCounts,
  frozenTestText,
  hiddenDebtFacts,
  leaseLookup,
  lineSpan,
  type FrozenOnlyRangeView,
  type FrozenTestView,
} from "./report/frozen-only-view.js";
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
  type VerifyTools,
} from "./report/platform.js";
export { DEFAULT_GATE_NAME, gateNameIssue } from "./config/gate-name.js";
export {
  REPORT_DIR,
  proofgateCommand,
  isRelease,
  packageFlags,
  shellQuote,
  testSetupLine,
  type CiSnippet,
  type SnippetOptions,
} from "./report/ci-snippet.js";
export { toPythonJson, PyFloat } from "./python/python-json.js";
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
} from "./evidence/junit.js";
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
} from "./evidence/evidence.js";
export {
  provenCoverageFromContexts,
  provenCoverageFromContextShards,
  numbitsToNums,
  frozenContextNames,
  type CoverageDbRows,
  type ContextsCoverageResult,
  type ContextShard,
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
} from "./coverage/coverage-model.js";
export { readCoverage } from "./coverage/read-coverage.js";
export { detectCoverageFormat, COVERAGE_REPORT_FORMATS } from "./coverage/detect-format.js";
export { readCoveragePyJson } from "./coverage/coveragepy-json-reader.js";
export { readLcov, LcovStreamReader } from "./coverage/lcov-reader.js";
export { readCobertura } from "./coverage/cobertura-reader.js";
export { readIstanbulFinal } from "./coverage/istanbul-final-reader.js";
export { readIstanbulSummary } from "./coverage/istanbul-summary-reader.js";
export { mergeCoverageShards, CoverageShardMerger } from "./coverage/merge-shards.js";
export {
  branchLine,
  buildCoverageMap,
  frozenOnlyFiles,
  frozenOnlyLines,
  isLineBased,
  type CoverageMap,
  type FileLines,
  type FrozenOnlyBranch,
  type FrozenOnlyFile,
  type FrozenOnlyRange,
} from "./coverage/frozen-only.js";
export {
  patchCoverage,
  lineRanges,
  type ChangedFileLines,
  type PatchCoverage,
  type PatchFileCoverage,
} from "./coverage/patch-coverage.js";
export {
  byCost,
  leaseCosts,
  RERUN_COST_WHY,
  type LeaseCost,
  type LeaseCostFile,
  type LeaseCosts,
} from "./coverage/lease-cost.js";
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
} from "./fixtures/fixtures-lock.js";
export {
  DEFAULT_AGENT_PATTERNS,
  CO_AUTHOR_TRAILER_KEYS,
  formatIdentity,
  matchAgentPattern,
  isAgentIdentity,
  coAuthors,
  classifyCommit,
  hasHumanTrailer,
  carriesHumanTrailer,
  carriesAnyHumanTrailer,
  type Identity,
  type Trailer,
  type Commit,
  type CommitClass,
  type CommitSignature,
} from "./model/authorship.js";
export {
  commitsNeedingSignatures,
  principalMatches,
  allowedSignersFor,
  judgeSignatureCheck,
  withPlatformVerdict,
  type SignatureFormat,
  type SignatureCheck,
  type CommitVerification,
  type SignaturePolicy,
  type SignersFor,
} from "./patch/signatures.js";
export { leaseLength, leaseTooLongFindings, type LeaseLength } from "./ledger/lease-length.js";
export {
  parseConfig,
  defaultConfig,
  CONFIG_SCHEMA,
  normalizeRepoPath,
  protectedPaths,
  DEFAULT_PROTECTED_PATHS,
  DEFAULT_MEASUREMENT_EXEMPT,
  DEFAULT_COMMAND_TIMEOUT,
  MAX_COMMAND_TIMEOUT,
  DEFAULT_PUBLISH_TIMEOUT,
  MAX_PUBLISH_TIMEOUT,
  type GateConfig,
  type HumanSignatures,
  type TrailerKeys,
  type ConfigParseResult,
} from "./config/config.js";
export { diffLedgers, looseningKey, describeLoosening, type LedgerLoosening } from "./ledger/ledger-diff.js";
export {
  leaseFindings,
  unlockedFindings,
  fixtureDigestFindings,
  seedsEmptyFindings,
  seedRewriteFindings,
  propertyTestFindings,
  protectedPathFindings,
  unverifiedTrailerFindings,
  shallowFindings,
  agentAddedLeaseCount,
  fixtureDelta,
  pathMatcher,
  judgePatch,
  needsTrailer,
  type SectionTouch,
  mergeOwnChanges,
  type PatchSource,
  type PatchJudgement,
  type PatchEvidence,
  type PatchPolicy,
  type CommitLedgerChanges,
  type CommitPaths,
  type PropertyTestTouch,
  type InlineSnapshotTouch,
  type LockDelta,
} from "./patch/patch.js";
export {
  isSnapshotPath,
  isScriptPath,
  inlineSnapshots,
  inlineSnapshotsRemoved,
  type TouchedSource,
} from "./patch/snapshots.js";
export { evidencePaths, unexpectedChanges } from "./config/work-tree.js";
export {
  addStampRun,
  BOUND_ROLES,
  EVIDENCE_STAMP_FORMAT,
  judgeEvidenceBinding,
  parseEvidenceStamp,
  renderEvidenceStamp,
  type BindingInput,
  type EvidenceStamp,
  type StampRun,
} from "./evidence/evidence-stamp.js";
export {
  readIni,
  parseIni,
  iniList,
  type IniDocument,
  type IniSection,
  type IniEntry,
  type IniProblem,
  type IniFile,
} from "./python/ini.js";
export { pythonRegex, type PythonRegexResult } from "./python/python-regex.js";
export { fnmatch, fnmatchRegex } from "./python/fnmatch.js";
export {
  readCoverageConfig,
  diffCoverageConfigs,
  coverageChangeKey,
  coverageConfigCandidates,
  exclusionPatterns,
  omittedBy,
  tomlLine,
  DEFAULT_EXCLUDE_LINES,
  DEFAULT_PARTIAL_BRANCHES,
  DEFAULT_PARTIAL_BRANCHES_ALWAYS,
  type CoverageConfig,
  type CoverageConfigResult,
  type CoverageConfigProblem,
  type CoverageSetting,
  type CoverageChange,
  type CoverageChangeKind,
} from "./python/coverage-config.js";
export {
  DEFAULT_PROTECTED_SECTIONS,
  PYTEST_SETTINGS_FILES,
  DEFAULT_PYTHON_FILES,
  parseSectionSpec,
  readSection,
  diffSection,
  sectionFileMatcher,
  invokedFiles,
  simpleCommands,
  pytestTomlTable,
  pytestTableOf,
  readPytestSettings,
  readPytestPythonpath,
  isTestFile,
  testFolderOf,
  testFilesOf,
  type SectionSpec,
  type SectionState,
  type SectionValues,
  type SectionDiff,
  type InvokedFiles,
  type PytestSettings,
} from "./python/runner-config.js";
export {
  ROOTDIR_IS_ROOT,
  testIdFile,
  testIdPaths,
  type RootdirFacts,
  type TestIdPaths,
} from "./python/test-id-paths.js";
export {
  judgeMeasurement,
  matchExclusions,
  runMeasurementFacts,
  type HeadModule,
  type MeasurementRunRecord,
  type MeasurementEvidence,
  type MeasurementJudgement,
  type CommitCoverageChanges,
  type ExcludedLine,
  type ChangedSource,
  type AddedLine,
  type ExclusionPattern,
  type ExclusionMatch,
} from "./patch/measurement.js";
export { importedModules, importGraph, moduleNames } from "./python/python-imports.js";
export { parseGitDiff, unquoteGitPath, type DiffFile, type ParsedDiff } from "./patch/git-diff.js";
export { scriptHasRuntimeCode, SCRIPT_FILE } from "./patch/script-code.js";
export {
  renderHtmlReport,
  HTML_REPORT_CSP,
  type HtmlReportInput,
  type HtmlSource,
  type PatchView,
} from "./report/html-report.js";
export { escapeHtml, scriptJson, scriptHashSource } from "./report/html-escape.js";
export { badgeOf, badgeJson, badgeSvg, BADGE_COLORS, BADGE_LABEL, type Badge } from "./report/badge.js";
export { repoPathOf } from "./common/repo-path.js";
