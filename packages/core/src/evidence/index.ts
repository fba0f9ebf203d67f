// The test evidence: the universe (pytest, vitest), JUnit results and their accounting, removed and newly
// skipped tests, deselection, the base's imports, evidence stamps, property tests and their settings.
// May import: common, model, python, ledger, patch, pytest-plugins.
export * from "./base-imports.js";
export * from "./deselect.js";
export * from "./evidence.js";
export * from "./evidence-stamp.js";
export * from "./junit.js";
export * from "./property-settings.js";
export * from "./property-tests.js";
export * from "./test-changes.js";
export * from "./universe.js";
export * from "./universe-vitest.js";
