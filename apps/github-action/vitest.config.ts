import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "github-action",
    include: ["src/**/*.test.ts"],
    // Real processes (the action, the bundled CLI, git) on a 2-core machine: slow is not failed.
    testTimeout: 120_000,
  },
});
