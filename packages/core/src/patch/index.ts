// What the patch did, commit by commit: authorship of each change and its trailers, signatures, measurement
// (coverage.py's settings and pragmas judged by the lease rule), unified diffs.
// May import: common, model, python, config, ledger.
export * from "./git-diff.js";
export * from "./measurement.js";
export * from "./script-code.js";
export * from "./patch.js";
export * from "./signatures.js";
export * from "./snapshots.js";
