// The report as shown: the terminal and Markdown renderings (text fitting, the frozen-only view), the JSON,
// the HTML view and the badge, the CI platforms and their snippets.
// May import: common, coverage, model, python, patch, proof-run.
export * from "./badge.js";
export * from "./ci-snippet.js";
export * from "./fit-text.js";
export * from "./frozen-only-view.js";
export * from "./html-escape.js";
export * from "./html-report.js";
export * from "./platform.js";
export * from "./render.js";
export * from "./report-json.js";
