// The pytest plugins' Python as string constants (generated.ts, from the .py files beside it; see
// packages/core/scripts/pytest-plugins.mjs) and the slots the renderers fill.
// May import: nothing.
export * from "./generated.js";
export * from "./slots.js";
