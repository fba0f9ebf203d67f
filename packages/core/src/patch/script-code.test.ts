import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scriptHasRuntimeCode } from "./script-code.js";

const DECLARATIONS = [
  "export interface User {\n  id: string;\n  name?: string;\n  greet(other: User): void;\n}\n",
  'import type { Config } from "./config.js";\nexport type Options = Partial<Config> & { debug: boolean };\n',
  'type Mode =\n  | "a"\n  | "b";\n\ntype Pair<T = {}> = [T, T]\n',
  "export type Handler = (event: { kind: string }) => Promise<void>\n",
  'declare module "virtual:thing" {\n  export const value: number;\n}\n',
  "declare global {\n  interface Window { app: unknown }\n}\nexport {};\n",
  "export declare function load(path: string): Buffer;\nexport declare const VERSION: string;\n",
  'export type { Config } from "./config.js";\nexport type * from "./more.js";\n',
  "interface A\n  extends B,\n    C {\n  x: `prefix-${string}`;\n}\n",
  "export default interface Shape {\n  area(): number\n}\n",
  "/* only a comment */\n// and another\n",
  "",
  "type Cond<T> = T extends string ? 'yes' : T extends number ? 'n' : never;\ntype Keys = keyof Cond<1>\n",
];

const CODE = [
  "export const x = 1;\n",
  "export function f() {\n  return 1;\n}\n",
  'import { readFileSync } from "node:fs";\n',
  'import "./side-effect.js";\n',
  "export enum Color {\n  Red,\n}\n",
  "export default {};\n",
  'export * from "./values.js";\n',
  'export { value } from "./values.js";\n',
  "type = 1;\n",
  "declare(x);\n",
  "type\nfoo();\n",
  "interface.call();\n",
  "type A = string; console.log(1);\n",
  "type A = { a: 1 }\nconst x = 1;\n",
  "type A = B\n[1, 2].forEach((n) => n);\n",
  "type A = B\n(function () {})();\n",
  "type A = B\n<T>() => void;\n",
  "const re = /a/;\n",
  "#!/usr/bin/env node\n",
  "/* unclosed\ntype A = 1;\n",
  'type A = "unclosed;\n',
  "type A = { a: 1 ;\n",
  "type A = 1 }\n",
  "@decorator\nclass C {}\n",
  "namespace N {\n  export type T = 1;\n}\n",
  "abstract class Base {}\n",
  "type A = `x${`nested`}`;\n",
];

describe("scriptHasRuntimeCode", () => {
  it.each(DECLARATIONS)("a TypeScript file of declarations alone runs nothing: %j", (text) => {
    expect(scriptHasRuntimeCode("src/types.ts", text)).toBe(false);
    expect(scriptHasRuntimeCode("src/types.mts", text)).toBe(false);
  });

  it.each(CODE)("a TypeScript file with a statement that runs: %j", (text) => {
    expect(scriptHasRuntimeCode("src/code.ts", text)).toBe(true);
  });

  it("a JavaScript file runs code unless it holds only comments; a Vue or Svelte file always does", () => {
    expect(scriptHasRuntimeCode("src/a.js", "// nothing\n/* here */\n")).toBe(false);
    expect(scriptHasRuntimeCode("src/a.js", "")).toBe(false);
    expect(scriptHasRuntimeCode("src/a.js", "interface A {}\n")).toBe(true);
    expect(scriptHasRuntimeCode("src/a.mjs", "export type A = 1;\n")).toBe(true);
    expect(scriptHasRuntimeCode("src/App.vue", "<template></template>\n")).toBe(true);
  });

  it("declarations followed by any statement that runs are code, whatever the declarations", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...DECLARATIONS), { minLength: 1, maxLength: 4 }),
        // Whole statements: a shebang belongs first, and an unclosed comment is closed by a later one.
        fc.constantFrom(...CODE.filter((c) => !c.startsWith("#!") && !c.startsWith("/* unclosed"))),
        fc.constantFrom("\n", ";\n", "\n\n"),
        (declarations, code, separator) => {
          const text = declarations.join("\n") + separator + code;
          expect(scriptHasRuntimeCode("src/t.ts", text)).toBe(true);
          expect(scriptHasRuntimeCode("src/t.ts", code + separator + declarations.join("\n"))).toBe(true);
        },
      ),
      { numRuns: 1000, seed: 20261207 },
    );
  });

  it("answers for any text, at once (never throws; 1 MB in well under a second)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        expect(typeof scriptHasRuntimeCode("src/x.ts", text)).toBe("boolean");
      }),
      { numRuns: 1000, seed: 20261207 },
    );
    const big = "export interface I { a: string }\n".repeat(32_000);
    const started = performance.now();
    expect(scriptHasRuntimeCode("src/big.ts", big)).toBe(false);
    expect(scriptHasRuntimeCode("src/big.ts", `${big}export const x = 1;\n`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
