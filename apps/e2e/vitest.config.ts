import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { testReporters } from "../../tooling/vitest-reporters.js";

// Real pytest, pytest-cov and coverage.py: slow, so only `pnpm e2e` runs it (not the unit `pnpm test`).
export default defineConfig({
  test: {
    name: "e2e",
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["src/**/*.e2e.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    ...testReporters(),
  },
});
