// Fuzzing the gate's readers of outside input (issue 25): coverage.py's `.coverage` data file (the
// coverageData port, then core's proven coverage over its rows) and git's own output (listCommits' `git
// log`, changedPaths' `git diff-tree`) over commits whose messages, names and paths fast-check chose.
// For any input: a value or a GateError naming the file, never another exception. Fixed seed;
// PROOFGATE_FUZZ_RUNS raises the budget.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import initSqlJs from "sql.js";
import { afterAll, describe, expect, it } from "vitest";
import { GateError, provenCoverageFromContexts } from "@proofgate/core";
import { readCoverageDataFile } from "./coverage-data-file.js";
import { changedPaths, listCommits, treeEntries, treeEntriesAtOnce, treeEntriesByRecord } from "./git.js";
import { scratchRepo } from "../testing/git-scratch.js";

const SEED = Number(process.env.PROOFGATE_FUZZ_SEED) || 20261205;
const RUNS = Math.max(1, Number(process.env.PROOFGATE_FUZZ_RUNS) || 1000);
const params = (share = 1) => ({ seed: SEED, numRuns: Math.max(1, Math.round(RUNS * share)), endOnFailure: true });
const TIMEOUT = 120_000 + RUNS * 100;

const dir = mkdtempSync(join(tmpdir(), "proofgate-fuzz-readers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Recorded with coverage.py 6.5.0 (`pytest --cov=pkg --cov-branch --cov-context=test`, then `coverage
// json --show-contexts`) over a three-test project: see __fixtures__/README.md.
const DATA = readFileSync(new URL("./__fixtures__/coveragepy-6.5-contexts.coverage", import.meta.url));
const REPORT = readFileSync(new URL("./__fixtures__/coveragepy-6.5-contexts.json", import.meta.url), "utf8");

/** The data file's rows, then core's proven coverage over them: a value, or a GateError naming the file. */
async function survives(bytes: Uint8Array, name: string): Promise<void> {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  let rows;
  try {
    rows = await readCoverageDataFile(path);
  } catch (error) {
    if (!GateError.isInstance(error)) throw error;
    for (const issue of error.issues) {
      expect(issue.file).toBe(path);
      expect(issue.message.length).toBeGreaterThan(0);
    }
    return;
  }
  const result = provenCoverageFromContexts(rows, REPORT, "coverage.json", ["tests/test_calc.py::test_neg"]);
  for (const issue of result.errors) expect(issue.message.length).toBeGreaterThan(0);
}

describe(
  "fuzz: coverage.py's .coverage data file (readCoverageDataFile, then proven coverage)",
  { timeout: TIMEOUT },
  () => {
    it("the recorded file reads, and a frozen test's lines are taken out", async () => {
      const path = join(dir, "recorded.coverage");
      writeFileSync(path, DATA);
      const rows = await readCoverageDataFile(path);
      expect(rows.contexts.length).toBeGreaterThan(1);
    });

    it("the recorded file with one byte changed (anywhere, or in the header and the first pages)", async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.nat({ max: DATA.length - 1 }), fc.nat({ max: 4095 })),
          fc.integer({ min: 0, max: 255 }),
          async (at, value) => {
            const bytes = Uint8Array.from(DATA);
            bytes[at] = value;
            await survives(bytes, `byte-${n++ % 8}.coverage`);
          },
        ),
        params(0.5),
      );
    });

    it("the recorded file cut short, or with bytes appended", async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: DATA.length }), fc.uint8Array({ maxLength: 64 }), async (cut, tail) => {
          await survives(Buffer.concat([DATA.subarray(0, cut), tail]), `cut-${n++ % 8}.coverage`);
        }),
        params(0.25),
      );
    });

    it("the recorded file with one field changed (a path, a context, numbits, an arc, the schema's version)", async () => {
      const SQL = await initSqlJs({
        locateFile: () => createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm"),
      });
      const weird = fc.oneof(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.constantFrom("", "/", "..", "../../etc/passwd", "a\nb", "tests/test_calc.py::test_neg|run", "|run", "\0"),
      );
      const number = fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER));
      const edit = fc.oneof(
        weird.map((v) => ["UPDATE file SET path = ? WHERE id = (SELECT min(id) FROM file)", [v]] as const),
        weird.map((v) => ["UPDATE context SET context = ? WHERE id = (SELECT max(id) FROM context)", [v]] as const),
        fc.uint8Array({ maxLength: 64 }).map((v) => ["UPDATE line_bits SET numbits = ? WHERE rowid = 1", [v]] as const),
        fc.uint8Array({ maxLength: 8 }).map((v) => ["UPDATE line_bits SET numbits = ?", [v]] as const),
        fc
          .tuple(number, number)
          .map(([a, b]) => ["UPDATE arc SET fromno = ?, tono = ? WHERE rowid = 1", [a, b]] as const),
        number.map((v) => ["UPDATE line_bits SET file_id = ? WHERE rowid = 1", [v]] as const),
        number.map((v) => ["UPDATE line_bits SET context_id = ? WHERE rowid = 1", [v]] as const),
        number.map((v) => ["UPDATE coverage_schema SET version = ?", [v]] as const),
        weird.map((v) => ["UPDATE meta SET value = ? WHERE key = 'has_arcs'", [v]] as const),
        fc.constantFrom(
          ["DELETE FROM context", []] as const,
          ["DELETE FROM file", []] as const,
          ["DROP TABLE arc", []] as const,
          ["DROP TABLE meta", []] as const,
          ["DELETE FROM line_bits", []] as const,
          ["UPDATE line_bits SET numbits = NULL", []] as const,
          ["UPDATE file SET path = NULL", []] as const,
          ["UPDATE context SET context = NULL", []] as const,
        ),
      );
      let n = 0;
      await fc.assert(
        fc.asyncProperty(edit, async ([sql, values]) => {
          const db = new SQL.Database(DATA);
          try {
            db.run(sql, values as never);
          } catch {
            // A constraint refused the edit: the file stays as recorded.
          }
          const bytes = db.export();
          db.close();
          await survives(bytes, `field-${n++ % 8}.coverage`);
        }),
        params(0.5),
      );
    });
  },
);

// ---------------------------------------------------------------- git's output

/** A C-quoted path for git fast-import: every byte outside printable ASCII as octal. */
function quoted(path: string): string {
  let out = '"';
  for (const byte of Buffer.from(path, "utf8")) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${byte.toString(8).padStart(3, "0")}`;
  }
  return `${out}"`;
}

interface FuzzCommit {
  message: string;
  name: string;
  email: string;
  path: string;
}

/** Writes `commits` on a fresh repository with one `git fast-import`; returns the repo and its base. */
function importCommits(commits: readonly FuzzCommit[]): { repo: ReturnType<typeof scratchRepo>; base: string } {
  const repo = scratchRepo("proofgate-fuzz-git-");
  const base = repo.commit("base", { "README.md": "base\n" });
  const chunks: Buffer[] = [];
  const data = (text: string | Buffer) => {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, "utf8");
    chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from("\n"));
  };
  commits.forEach((c, i) => {
    chunks.push(Buffer.from(`commit refs/heads/main\nmark :${i + 1}\n`));
    const who = `${c.name} <${c.email}> ${1_700_000_000 + i} +0000\n`;
    chunks.push(Buffer.from(`author ${who}committer ${who}`));
    data(c.message);
    chunks.push(Buffer.from(i === 0 ? `from ${base}\n` : `from :${i}\n`));
    chunks.push(Buffer.from(`M 100644 inline ${quoted(c.path)}\n`));
    data(`${i}\n`);
  });
  const result = spawnSync("git", ["fast-import", "--quiet", "--force"], {
    cwd: repo.dir,
    input: Buffer.concat(chunks),
  });
  if (result.status !== 0) throw new Error(`fast-import: ${result.stderr.toString()}`);
  return { repo, base };
}

// Names and emails git accepts in an ident (no <, >, newline or NUL), messages and paths of any text but NUL.
const identText = fc
  .string({ unit: "binary", minLength: 1, maxLength: 20 })
  .map((s) => s.replace(/[<>\n\0]/g, "x").trim() || "x");
const message = fc
  .oneof(
    fc.string({ unit: "binary", maxLength: 120 }),
    fc
      .tuple(
        fc.string({ maxLength: 40 }),
        fc.array(
          fc.tuple(
            fc.constantFrom("Freeze-Lease", "Gate-Change", "Co-authored-by", "Signed-off-by", "Fixture-Lock", "x"),
            fc.string({ unit: "binary", maxLength: 30 }),
          ),
          { maxLength: 4 },
        ),
      )
      .map(([subject, trailers]) => `${subject}\n\n${trailers.map(([k, v]) => `${k}: ${v}`).join("\n")}\n`),
  )
  .map((m) => m.replace(/\0/g, ""));
const pathSegment = fc
  .string({ unit: "binary", minLength: 1, maxLength: 12 })
  .map((s) => s.replace(/[\0/]/g, "_"))
  .filter((s) => s !== "." && s !== ".." && s !== ".git" && s.toLowerCase() !== ".git");
const path = fc.array(pathSegment, { minLength: 1, maxLength: 3 }).map((p) => p.join("/"));

describe("fuzz: git log and git diff-tree output (listCommits, changedPaths)", { timeout: TIMEOUT }, () => {
  it("commits with any message, name and path: each read back as written, or a GateError", () => {
    const commits = fc.sample(fc.record({ message, name: identText, email: identText, path }), {
      seed: SEED,
      numRuns: Math.min(RUNS, 5000),
    });
    const { repo, base } = importCommits(commits);
    try {
      const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: repo.dir };
      const range = { base, head: "main" };
      let read;
      try {
        read = listCommits(range, { cwd: repo.dir, env });
      } catch (error) {
        expect(GateError.isInstance(error), String(error)).toBe(true);
        return;
      }
      expect(read).toHaveLength(commits.length);
      read.forEach((commit, i) => {
        const written = commits[i]!;
        expect(commit.author.name).toBe(written.name);
        expect(commit.author.email).toBe(written.email);
        expect(commit.parents).toHaveLength(1);
        // The subject is git's: the message's first paragraph, lines joined; never more than the message holds.
        expect(written.message.replace(/\s+/g, "")).toContain(commit.subject.replace(/\s+/g, ""));
        for (const trailer of commit.trailers) expect(trailer.key).not.toMatch(/[\n\0]/);
        // diff-tree is one git process a commit: every tenth commit keeps the suite's time modest.
        if (i % 10 !== 0) return;
        const changed = changedPaths(commit.sha, { cwd: repo.dir, env });
        // A path written twice in a row is no change the second time; otherwise the one path written.
        if (changed.length > 0) expect(changed.map((c) => c.path)).toContain(written.path);
      });
    } finally {
      repo.cleanup();
    }
  });
});

describe("fuzz: git ls-tree -r -z output (listFilesAt)", { timeout: TIMEOUT }, () => {
  // The whole-text reading must give the record-by-record reading's answer, or step aside for it (undefined).
  const answer = (read: () => unknown): unknown => {
    try {
      return read();
    } catch (error) {
      if (!GateError.isInstance(error)) throw error;
      return { error: error.issues };
    }
  };
  const piece = fc.oneof(
    fc.constantFrom("100644", "040000", "160000", "blob", "tree", "commit", "a".repeat(40), " ", "\t", "x", "é"),
    fc.uint8Array({ maxLength: 3 }).map((b) => Buffer.from(b).toString("latin1")),
    fc.constant("\uFEFF"),
  );
  const bytesOf = (parts: string[]): Buffer =>
    Buffer.concat(
      parts.map((p) => (/^[\x00-\xff]*$/.test(p) && !/[\u00e9]/.test(p) ? Buffer.from(p, "latin1") : Buffer.from(p))),
    );
  const record = fc.oneof(
    // What git prints, with any path (tabs, spaces, a byte-order mark, bytes that are not UTF-8).
    fc
      .tuple(
        fc.constantFrom("100644 blob ", "100755 blob ", "120000 blob ", "160000 commit "),
        fc.array(piece, { maxLength: 6 }),
      )
      .map(([meta, path]) => Buffer.concat([Buffer.from(`${meta}${"b".repeat(40)}\t`), bytesOf(path)])),
    // Anything.
    fc.array(piece, { maxLength: 10 }).map(bytesOf),
  );
  it("any listing: the same entries or the same error as read record by record", () => {
    fc.assert(
      fc.property(
        fc.array(
          record.map((r) => Buffer.from(r).filter((b) => b !== 0)),
          { maxLength: 8 },
        ),
        fc.boolean(),
        (records, ended) => {
          const joined = Buffer.concat(
            records.flatMap((r, i) =>
              i < records.length - 1 || ended ? [Buffer.from(r), Buffer.from([0])] : [Buffer.from(r)],
            ),
          );
          const byRecord = answer(() => treeEntriesByRecord(joined, "git ls-tree x"));
          expect(answer(() => treeEntries(joined, "git ls-tree x"))).toEqual(byRecord);
          const whole = treeEntriesAtOnce(joined);
          if (whole !== undefined) expect(whole).toEqual(byRecord);
        },
      ),
      params(),
    );
  });
});
