import { defineConfig } from "vitest/config";
import { testReporters } from "./tooling/vitest-reporters.js";

// One vitest run for the unit suites of every package; the end-to-end suite (real pytest, real git)
// has its own config in apps/e2e and runs with `pnpm e2e`.
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts"],
    ...testReporters(),
  },
});
