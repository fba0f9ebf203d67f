// Shared lint rules for every package: typescript-eslint's recommended set, plus the rules that keep
// the layers honest (core reads no environment and no clock).
import tseslint from "typescript-eslint";

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
    files: ["packages/core/src/**/*.ts"],
    ignores: ["**/*.test.ts"],
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
