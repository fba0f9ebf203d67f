import { defineConfig } from "vitest/config";
import { testReporters } from "./tooling/vitest-reporters.js";

// One vitest run for the unit suites of every package, the release trees and the release tooling; the end-to-end suite (real pytest, real git)
// has its own config in apps/e2e and runs with `pnpm e2e`.
export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      "apps/github-action/vitest.config.ts",
      "apps/gitlab-component/vitest.config.ts",
      "apps/buildkite-plugin/vitest.config.ts",
      "tooling/release/vitest.config.ts",
    ],
    ...testReporters(),
  },
});
