// proofgate's gate as a library: evaluateGate (the one pipeline from inputs to a typed report, behind
// small ports) and runGate (the fail-closed envelope that also writes and publishes the report).
// Node implementations of the ports: `@proofgate/gate/node`.
export {
  evaluateGate,
  type GateRequest,
  type CheckRequest,
  type DecideRequest,
  type GateClock,
  type GateTrace,
} from "./evaluate.js";
export { runGate, issuesOf, type RunGateOptions, type GateRun } from "./run-gate.js";
export { silentLog, type GateLog, type LogStep } from "./log.js";
export type {
  GatePorts,
  GitPort,
  FilePort,
  FixtureHasher,
  FixtureSettings,
  FixtureCheck,
  CoverageDataReader,
  CommandRunner,
  SeedWriter,
  InputBytes,
  InputFile,
  FileStamp,
} from "./ports.js";
export { CommandTimedOut } from "./ports.js";
export type { GitRange, RangeResolution, ChangedPath, TreeEntry, BlameLine, AddedLinesFilter } from "./git-types.js";
export {
  loadProvenCoverage,
  type CoverageSources,
  type CoveragePorts,
  type LoadedCoverage,
} from "./sources/coverage.js";
export {
  loadLedger,
  loadUniverse,
  loadResults,
  loadPropertyResults,
  parseUniverseText,
  type Loaded,
} from "./sources/inputs.js";
export { loadPatchEvidence, type LoadedPatch, type PatchRequest } from "./sources/patch.js";
export { verifyHumanSignatures, type PlatformVerifier, type VerifiedCommits } from "./sources/signatures.js";
export { readWorkTreeConfig, CONFIG_FILE } from "./sources/config.js";
export {
  runConfiguredCommands,
  runCommandStep,
  PLUGIN_MODULE,
  type RunCommandsOptions,
} from "./sources/run-commands.js";
export {
  loadBaseUniverse,
  loadBaseSkips,
  collectionFilesAt,
  ONLY_PLUGIN_MODULE,
  type BaseTestsOptions,
  type BaseUniverseRead,
  type BaseSkipsRead,
  type HeadRun,
} from "./sources/base-tests.js";
export { asText } from "./input-text.js";
export { recordEvidence, readStamps, requireBoundEvidence, type RecordOptions } from "./sources/evidence-binding.js";
export { renderViews, readViewSources, MAX_VIEW_SOURCE_BYTES, MAX_VIEW_TOTAL_BYTES } from "./views.js";
export { scopeGit, pathScope, SHARED_CI_PATHS, type PathScope } from "./scoped-git.js";
