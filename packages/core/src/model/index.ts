// The model every judge shares: the gate's report as a type (Finding, GateReport and its sections) and the
// commit model (Commit, identities, agent or human, trailers).
// May import: common, coverage.
export * from "./authorship.js";
export * from "./report.js";
