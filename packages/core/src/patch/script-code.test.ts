import fc from "fast-check";
import ts from "typescript";
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
  // magic-regexp's src/core/types/join.ts: strings and a conditional inside a template literal type.
  "export type Join<T extends string[], P extends string = '', J extends string = '|'> = T extends [infer F, ...infer R]\n  ? `${P}${F & string}${R extends string[] ? Join<R, J, J> : ''}`\n  : ''\n",
  "type A = `x${`nested ${'deep'}`}`;\n",
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
  "type A = `x${1 / 2}`;\n",
  "type A = `unclosed ${string}\n",
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

  // The TypeScript compiler is the oracle: whenever this reader says "nothing runs", the compiled module is
  // empty. (The reverse may differ: what it does not follow counts as code.)
  // Whether TypeScript compiles `text` to a module that runs something; undefined for a text with a syntax
  // error (it cannot be loaded, so what it would run does not matter).
  const emits = (text: string): boolean | undefined => {
    const out = ts.transpileModule(text, {
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, isolatedModules: true },
    });
    if ((out.diagnostics ?? []).length > 0) return undefined;
    return (
      out.outputText
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "")
        .replace(/export \{\};?/g, "")
        // An empty statement runs nothing.
        .replace(/;/g, "")
        .trim() !== ""
    );
  };

  it("agrees with TypeScript's compiler on every case above, and never says nothing runs where it emits code", () => {
    for (const text of DECLARATIONS) expect(emits(text), text).toBe(false);
    for (const text of CODE) if (!scriptHasRuntimeCode("src/c.ts", text)) expect(emits(text), text).not.toBe(true);
    // Mostly whole statements (so that TypeScript reads most texts), joined with or without a break, and
    // now and then a stray token.
    const fragment = fc.oneof(
      { arbitrary: fc.constantFrom(...DECLARATIONS), weight: 8 },
      { arbitrary: fc.constantFrom(...CODE), weight: 1 },
      {
        arbitrary: fc.constantFrom(
          "\n",
          ";",
          "}",
          "{",
          "`",
          "${",
          "'",
          "type",
          "interface",
          "declare",
          " = ",
          "|",
          "[",
        ),
        weight: 1,
      },
    );
    const separator = fc.constantFrom("\n", ";\n", "", " ");
    let checked = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fragment, separator), { minLength: 1, maxLength: 6 }), (parts) => {
        const text = parts.map(([f, sep]) => f + sep).join("");
        if (scriptHasRuntimeCode("src/g.ts", text)) return;
        const emitted = emits(text);
        if (emitted !== undefined) checked++;
        expect(emitted, JSON.stringify(text)).not.toBe(true);
      }),
      { numRuns: 1000, seed: 20261207 },
    );
    // The oracle answered for enough of the texts this reader calls declarations alone.
    expect(checked).toBeGreaterThan(200);
  });
});
