import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "release",
    include: ["src/**/*.test.ts"],
    // Real processes (pnpm pack, npm install, git) on a 2-core machine: slow is not failed.
    testTimeout: 120_000,
  },
});
