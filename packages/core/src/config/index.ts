// proofgate.toml: its parsing and defaults (GateConfig), the gate's name, and which work-tree changes the
// gate tolerates.
// May import: common, python.
export * from "./config.js";
export * from "./gate-name.js";
export * from "./work-tree.js";
