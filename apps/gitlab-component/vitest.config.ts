import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "gitlab-component",
    include: ["src/**/*.test.ts"],
    // Real processes (bash, git, the bundled CLI) on a 2-core machine: slow is not failed.
    testTimeout: 120_000,
  },
});
