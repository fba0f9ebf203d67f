// Shared lint rules for every package: typescript-eslint's recommended set, plus the rules that keep
// the layers honest (core reads no environment and no clock; the environment is read once, at the cli's
// entry). Import cycles, type imports included, are madge's job (each package's `lint` script).
import tseslint from "typescript-eslint";

const TESTS = ["**/*.test.ts", "**/__fixtures__/**", "**/testing/**"];

export default tseslint.config(
  // Only the coverage output folders, not src/coverage/ (the report readers).
  { ignores: ["**/dist/**", "**/node_modules/**", "coverage/**", "packages/*/coverage/**", "apps/*/coverage/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // The environment is read once, in the cli's entry (bin.ts), and handed down (CliIo.env).
    files: ["packages/*/src/**/*.ts"],
    ignores: ["packages/cli/src/bin.ts", ...TESTS],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "take the environment as an argument (CliIo.env, Env)" },
      ],
    },
  },
  {
    files: ["packages/core/src/**/*.ts"],
    ignores: TESTS,
    rules: {
      "no-restricted-globals": [
        "error",
        { name: "process", message: "core is pure: the caller passes env, paths and today" },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: "core never reads the clock: take `today` as an argument",
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: "core never reads the clock: take `today` as an argument",
        },
      ],
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*", "fs", "path", "child_process"], message: "core does no I/O: read files in the caller" },
          ],
        },
      ],
    },
  },
);
