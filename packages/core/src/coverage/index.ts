// Coverage reports: the coverage model, the readers (coverage.py JSON, Cobertura, LCOV, Istanbul), shard
// merging, contexts, the frozen-only lines, patch coverage and the lease cost.
// May import: common.
export * from "./cobertura-reader.js";
export * from "./contexts.js";
export * from "./coverage-json.js";
export * from "./coverage-keys.js";
export * from "./coverage-model.js";
export * from "./coveragepy-json-reader.js";
export * from "./coveragepy-phantoms.js";
export * from "./detect-format.js";
export * from "./frozen-only.js";
export * from "./istanbul-final-reader.js";
export * from "./istanbul-summary-reader.js";
export * from "./lcov-reader.js";
export * from "./lease-cost.js";
export * from "./merge-shards.js";
export * from "./patch-coverage.js";
export * from "./read-coverage.js";
export * from "./read-options.js";
export * from "./report-issues.js";
export * from "./shared-json.js";
