// What each command's path through the bundle loads: a command should not pay, at every start, for the
// modules of the others (BENCHMARKS.md, issues 4 and 14).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

/** The chunk a bundle file loads for `name` with a dynamic import (`import("./name-HASH.js")`). */
function dynamicChunk(name: string): string {
  for (const file of readdirSync(DIST).filter((f) => f.endsWith(".js"))) {
    const m = new RegExp(`import\\("\\./(${name}-[A-Z0-9]+\\.js)"\\)`).exec(readFileSync(join(DIST, file), "utf8"));
    if (m) return m[1]!;
  }
  throw new Error(`no bundle file imports ${name}.js: run pnpm build`);
}

// The static imports of a bundle file, followed to every chunk, with the source paths esbuild notes in them.
function staticGraph(entry: string): { files: string[]; sources: string[]; bytes: number } {
  const files = new Set<string>();
  const sources: string[] = [];
  let bytes = 0;
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(join(DIST, file), "utf8");
    bytes += text.length;
    for (const m of text.matchAll(/^\/\/ (\S+\.[cm]?[jt]s)$/gm)) sources.push(m[1]!);
    for (const m of text.matchAll(/^import(?:[^"';]*?from)?\s*"\.\/([^"]+\.js)";?$/gm)) visit(m[1]!);
  };
  visit(entry);
  return { files: [...files], sources, bytes };
}

describe("the bundle's lock path", () => {
  // bin.ts runs a plain `lock` command line with lock-entry.ts alone (BENCHMARKS.md, issue 25 item 3); any
  // other goes through yargs (main.ts) to the same module. What `lock` loads must stay small.
  it("loads none of the policy, nor yargs or main.ts", () => {
    const graph = staticGraph(dynamicChunk("lock-entry"));
    // What it needs is there (so the scan reads the chunks)...
    expect(graph.sources.some((s) => s.endsWith("core/dist/fixtures/fixtures-lock.js"))).toBe(true);
    expect(graph.sources.some((s) => s.endsWith("core/dist/config/config.js"))).toBe(true);
    expect(graph.sources.some((s) => s.endsWith("gate/dist/node/fixture-hashing/hash-files.js"))).toBe(true);
    // ...and what it does not need is not: the XML and glob libraries, the policy modules.
    const heavy = graph.sources.filter((s) =>
      /\/(fast-xml-parser|picomatch)@|core\/dist\/(?:[a-z-]+\/)?(decide|ledger|junit|universe|patch|signals|platform|coverage)|gate\/dist\/(evaluate|run-gate|sources\/(coverage|inputs|patch|run-commands))/.test(
        s,
      ),
    );
    expect(heavy).toEqual([]);
    expect(graph.sources.filter((s) => /\/yargs@|\/yargs-parser@|src\/main\.ts$/.test(s))).toEqual([]);
    expect(graph.bytes).toBeLessThan(150_000);
    // bin.ts tells a plain line with plain-args.ts alone, before it starts the hash workers.
    expect(staticGraph(dynamicChunk("plain-args")).sources.filter((s) => !s.endsWith("src/plain-args.ts"))).toEqual([]);
  });
});

/** The sources every command loads: bin.ts's main chunk and what it imports statically (yargs, main.ts). */
function mainSources(): string[] {
  return staticGraph(dynamicChunk("main")).sources;
}

describe("the bundle's deselect path", () => {
  // `deselect` runs before every proof run; the gate's policy (patch history, coverage models, platforms)
  // is not its business, and loading it cost 12% of its time (BENCHMARKS.md, issue 14).
  it("loads yargs and what deselect needs, not the rest of the gate", () => {
    const sources = [...mainSources(), ...staticGraph(dynamicChunk("deselect")).sources];
    expect(sources.some((s) => /\/yargs@/.test(s))).toBe(true);
    expect(sources.some((s) => s.endsWith("core/dist/evidence/deselect.js"))).toBe(true);
    expect(sources.some((s) => s.endsWith("core/dist/ledger/ledger.js"))).toBe(true);
    const heavy = sources.filter((s) =>
      /\/picomatch@|core\/dist\/(?:[a-z-]+\/)?(decide|build-report|patch|signals|platform|coverage-model|coverage-config|runner-config|proof-run)|gate\/dist\/(evaluate|run-gate|sources\/(coverage|patch|run-commands|signatures))/.test(
        s,
      ),
    );
    expect(heavy).toEqual([]);
  });
});

describe("the bundle's plain deselect path", () => {
  // bin.ts runs a plain `deselect` command line with deselect-entry.ts alone (BENCHMARKS.md, issue 25 item 3).
  it("loads what deselect needs, without yargs or main.ts", () => {
    const graph = staticGraph(dynamicChunk("deselect-entry"));
    expect(graph.sources.some((s) => s.endsWith("core/dist/evidence/deselect.js"))).toBe(true);
    expect(graph.sources.some((s) => s.endsWith("src/commands/deselect.ts"))).toBe(true);
    expect(graph.sources.filter((s) => /\/yargs@|\/yargs-parser@|src\/main\.ts$/.test(s))).toEqual([]);
  });
});

describe("the bundle's decide path", () => {
  it("does not load the platforms' API clients (only `decide --base` asks for its CI's history fix)", () => {
    const sources = [...mainSources(), ...staticGraph(dynamicChunk("decide")).sources];
    expect(sources.some((s) => s.endsWith("gate/dist/evaluate.js"))).toBe(true);
    expect(
      sources.filter((s) => /\/(@octokit|@gitbeaker|bottleneck)[/@+]|\/(github|gitlab|buildkite)\/dist\//.test(s)),
    ).toEqual([]);
  });
});

describe("the bundle's coverage shard worker", () => {
  // shard-workers.ts starts dist/shard-worker.cjs (named at build time); a worker that does not start only
  // costs speed (the main thread reads the shards), so this is what tells a broken bundle.
  it("is named by the chunk that starts it, and reads and merges real coverage.py shards", async () => {
    const chunks = readdirSync(DIST).filter((f) => f.endsWith(".js"));
    expect(chunks.some((f) => readFileSync(join(DIST, f), "utf8").includes('"./shard-worker.cjs"'))).toBe(true);
    const fixtures = fileURLToPath(new URL("../../core/src/coverage/__fixtures__/", import.meta.url));
    const shards = ["coveragepy-6.5-shard1.json", "coveragepy-6.5-shard2.json"].map((name) => ({
      path: name,
      absolute: join(fixtures, name),
    }));
    const worker = new Worker(join(DIST, "shard-worker.cjs"));
    try {
      const reply = await new Promise<{ kind: string; sha256?: string[]; packed?: { paths: string[] } }>(
        (resolve, reject) => {
          worker.once("message", resolve).once("error", reject);
          worker.postMessage({ shards, root: fixtures });
        },
      );
      expect(reply.kind).toBe("read");
      expect(reply.sha256).toHaveLength(2);
      expect(reply.packed?.paths).toContain("shop/cart.py");
    } finally {
      await worker.terminate();
    }
  });
});
