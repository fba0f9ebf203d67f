import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "gate",
    include: ["src/**/*.test.ts"],
    // CI machines here have 2 cores shared with git and pytest subprocesses: slow is not failed.
    testTimeout: 60_000,
  },
});
