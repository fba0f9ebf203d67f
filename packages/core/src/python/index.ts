// The Python tools' settings as they read them: pytest and coverage.py configuration, the ini and JSON
// readers, Python's regex and fnmatch ported, protected config sections, Python imports.
// May import: common.
export * from "./coverage-config.js";
export * from "./fnmatch.js";
export * from "./ini.js";
export * from "./protect-sections.js";
export * from "./python-imports.js";
export * from "./python-json.js";
export * from "./python-regex.js";
export * from "./runner-config.js";
export * from "./test-id-paths.js";
