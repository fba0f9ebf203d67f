// Shared vocabulary every folder uses: the gate's errors (GateIssue, GateError), ISO dates, the reason
// codes and the decision table's signals, text and JSON-lines helpers, repository paths, revision names.
// May import: nothing.
export * from "./dates.js";
export * from "./errors.js";
export * from "./json-lines.js";
export * from "./reasons.js";
export * from "./repo-path.js";
export * from "./revisions.js";
export * from "./signals.js";
export * from "./text-lines.js";
