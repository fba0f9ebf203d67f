import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "buildkite",
    include: ["src/**/*.test.ts"],
  },
});
