// The layering check (scripts/layers.mjs, run by `pnpm lint`): core's folders pass it, and it fails on an
// upward import, an import of the top of src, a folder that declares nothing, and folders declared in a cycle.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, "..", "scripts", "layers.mjs");
const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const check = (src: string) => spawnSync(process.execPath, [SCRIPT, src], { encoding: "utf8" });

/** A src folder from paths and texts. */
function tree(files: Record<string, string>): string {
  const src = mkdtempSync(join(tmpdir(), "pg-layers-"));
  temps.push(src);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  }
  return src;
}

const LAYERED = {
  "low/index.ts": '// The low folder.\n// May import: nothing.\nexport * from "./a.js";\n',
  "low/a.ts": "export const a = 1;\n",
  "high/index.ts": '// The high folder.\n// May import: low.\nexport * from "./b.js";\n',
  "high/b.ts": 'import { a } from "../low/a.js";\nexport const b = a + 1;\n',
  "top.ts": 'import { b } from "./high/b.js";\nexport const top = b;\n',
  // Tests are not layered.
  "low/a.test.ts": 'import { top } from "../top.js";\n',
};

describe("scripts/layers.mjs", () => {
  it("passes core's own src", () => {
    const run = check(HERE);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("passes folders that import only downward", () => {
    expect(check(tree(LAYERED)).status).toBe(0);
  });

  it("fails on an upward import between folders, type imports included", () => {
    const run = check(
      tree({ ...LAYERED, "low/a.ts": 'import type { b } from "../high/b.js";\nexport const a = 1;\n' }),
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("low/a.ts: imports ../high/b.js (high), and low/ may import only: nothing");
  });

  it("fails on a folder importing the top of src", () => {
    const run = check(tree({ ...LAYERED, "high/b.ts": 'export { top } from "../top.js";\n' }));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("high/b.ts: imports ../top.js ((top of src))");
  });

  it("fails on a folder with no declaration, and on folders declared in a cycle", () => {
    const run = check(
      tree({ ...LAYERED, "low/index.ts": "// May import: high.\n", "bare/c.ts": "export const c = 3;\n" }),
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('bare/index.ts: no "// May import: <folders>." line');
    expect(run.stderr).toContain("the folders import each other: ");
  });
});
