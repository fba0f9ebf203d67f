// The proof run's record (issue 15): the pytest plugin that writes it, its verification, and the judges
// of what it says. Pure, like the rest of core; the caller runs pytest and reads the file.
// May import: common, model, python, ledger, patch, evidence, pytest-plugins.
export {
  PROOF_PLUGIN_VERSION,
  PROOF_RUN_RECORD_FORMAT,
  PROOF_RUN_RECORD_VERSION,
  PROOF_RUN_ENV,
  renderProofPlugin,
  proofPluginModuleName,
  proofRunEnvironment,
  type ProofPluginMount,
  type ProofPluginOptions,
  type ProofRunSetup,
} from "./plugin.js";
export {
  VITEST_REPORTER_ENV,
  VITEST_RUN_ENV,
  leasedByFile,
  renderVitestReporter,
  renderVitestRunner,
  renderVitestSettingsReporter,
  vitestReporterFile,
  vitestRunnerFile,
  vitestSettingsReporterFile,
  VITEST_SETTINGS_FORMAT,
} from "./vitest.js";
export {
  diffVitestCoverage,
  diffVitestCoverageRun,
  isVitestConfigPath,
  parseVitestSettingsFile,
  readVitestCoverageSettings,
  type VitestCoverageSettings,
} from "./vitest-coverage.js";
export {
  verifyRunRecord,
  type RunRecord,
  type RunRecordResult,
  type RunRecordIssue,
  type RunRecordProblem,
  type ExpectedRun,
  type RunTest,
  type RunTestOutcome,
  type RunPhase,
  type RaisedKind,
  type SkipOrigin,
  type RunCollectionEntry,
  type RunFile,
  type RunHook,
  type RunReplacement,
  type RunXdist,
  type VitestCoverageAtEnd,
  type RunXdistWorker,
} from "./record.js";
export { verifyDistributedRun, mergeWorkerRecords, workerRecordFile, workerRecordDir } from "./workers.js";
export { listSome, type RunFinding, type RunFindingCode, type RunFindingLine } from "./findings.js";
export {
  judgeRunIntegrity,
  phaseTampering,
  listSkips,
  describeSkipOrigin,
  judgeSkips,
  judgeSelection,
  skippedUnlisted,
  testsNotRun,
  judgeFileReads,
  isOutsidePath,
  isPythonFile,
  judgeSeedReads,
  judgeRunnerHooks,
  DEFAULT_READ_ALLOW,
  RESULT_HOOKS,
  type RunSkip,
  type SkipJudgeOptions,
  type SelectionOptions,
  type FixtureReadPolicy,
  type SeedReadOptions,
  type RunnerHookOptions,
} from "./judges.js";
export {
  findToolShadows,
  importRoots,
  pytestImportRoot,
  shadowMadeBy,
  topLevelModule,
  RUNNER_MODULES,
  STDLIB_MODULES,
  type ShadowOptions,
  type ShadowTrees,
  type TopLevelModule,
} from "./shadow.js";
export {
  runnerIntegrityWarnings,
  runnerParts,
  runnerPartsOfProject,
  type RunnerIntegrityInput,
  type RunnerPart,
} from "./runner-integrity.js";
export { scanRunnerTampering, type ScannedFile } from "./scan.js";
export { testsNotProven, withRecordedXpasses, xpassedTests } from "./outcomes.js";
export {
  diffWorkTree,
  expectedWrite,
  recordedWrites,
  repositoryWriteFindings,
  EXPECTED_RUN_WRITES,
  type WorkTreeEntry,
  type RunWritePolicy,
  type StepWrites,
  type RepositoryWriteEvidence,
} from "./repository-writes.js";
export {
  judgeShippedReplacements,
  scanShippedReplacement,
  sourceDefinitions,
  type ChangedSourceFile,
  type ShippedEvidence,
  type SourceDefinition,
} from "./shipped.js";
export { canonicalJson, pythonJsonString } from "./canonical-json.js";
export { sha256, hmacSha256, toHex, fromHex } from "./hmac.js";
export {
  runnerTamperingFindings,
  unlockedReadFindings,
  propertyWeakenedFindings,
  shippedCodeFindings,
  type ChangedRead,
  type RunnerEvidence,
  type StepRecord,
  type CommitScan,
} from "./evidence.js";
