import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import initSqlJs from "sql.js";
import { GateError, formatIssue, numbitsToNums } from "@proofgate/core";
import { readCoverageDataFile } from "./coverage-data-file.js";

// coverage.py 6.5's schema (coverage/sqldata.py, SCHEMA_VERSION 7), written here with sql.js itself.
const SCHEMA = `
CREATE TABLE coverage_schema (version integer);
CREATE TABLE meta (key text, value text, unique (key));
CREATE TABLE file (id integer primary key, path text, unique (path));
CREATE TABLE context (id integer primary key, context text, unique (context));
CREATE TABLE line_bits (file_id integer, context_id integer, numbits blob, unique (file_id, context_id));
CREATE TABLE arc (file_id integer, context_id integer, fromno integer, tono integer, unique (file_id, context_id, fromno, tono));
CREATE TABLE tracer (file_id integer primary key, tracer text);
INSERT INTO coverage_schema VALUES (7);
INSERT INTO meta VALUES ('version', '6.5.0');
`;

const dir = mkdtempSync(join(tmpdir(), "proofgate-covdata-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sqlite(name: string, sql: string, blobs: Uint8Array[] = []): Promise<string> {
  const SQL = await initSqlJs({
    locateFile: () => createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm"),
  });
  const db = new SQL.Database();
  db.run(sql);
  for (const [i, blob] of blobs.entries()) db.run("INSERT INTO line_bits VALUES (1, ?, ?)", [i + 1, blob]);
  const path = join(dir, name);
  writeFileSync(path, db.export());
  db.close();
  return path;
}

async function refused(path: string): Promise<string> {
  const error = await readCoverageDataFile(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(GateError.isInstance(error)).toBe(true);
  const issues = (error as GateError).issues;
  expect(issues).toHaveLength(1);
  expect(issues[0]!.file).toBe(path);
  expect(issues[0]!.fix).toBeTruthy();
  const line = formatIssue(issues[0]!);
  expect(line).not.toContain("\n");
  return line;
}

describe("readCoverageDataFile", () => {
  it("reads the contexts, files and numbits of a line-mode data file", async () => {
    const path = await sqlite(
      "lines.coverage",
      `${SCHEMA} INSERT INTO meta VALUES ('has_arcs', '0');
       INSERT INTO file VALUES (1, '/p/pkg/m.py');
       INSERT INTO context VALUES (1, ''), (2, 't.py::test_a|run');`,
      [Uint8Array.from([0x06]), Uint8Array.from([0x00, 0x02])],
    );
    const rows = await readCoverageDataFile(path);
    expect(rows.hasArcs).toBe(false);
    expect(rows.contexts).toEqual([
      { id: 1, name: "" },
      { id: 2, name: "t.py::test_a|run" },
    ]);
    expect(rows.files).toEqual([{ id: 1, path: "/p/pkg/m.py" }]);
    expect(rows.lineBits.map((r) => [r.contextId, numbitsToNums(r.numbits)])).toEqual([
      [1, [1, 2]],
      [2, [9]],
    ]);
  });

  it("reads the arcs of a branch-mode data file", async () => {
    const path = await sqlite(
      "arcs.coverage",
      `${SCHEMA} INSERT INTO meta VALUES ('has_arcs', '1');
       INSERT INTO file VALUES (1, '/p/pkg/m.py');
       INSERT INTO context VALUES (1, ''), (2, 't.py::test_a|run');
       INSERT INTO arc VALUES (1, 1, -1, 1), (1, 2, 3, -2);`,
    );
    const rows = await readCoverageDataFile(path);
    expect(rows.hasArcs).toBe(true);
    expect([...Array.from(rows.arcs.fromno)]).toEqual([-1, 3]);
    expect([...Array.from(rows.arcs.tono)]).toEqual([1, -2]);
    expect([...Array.from(rows.arcs.contextId)]).toEqual([1, 2]);
  });

  it("refuses a file that is not SQLite, or cut short", async () => {
    const text = join(dir, "text.coverage");
    writeFileSync(text, "!coverage.py: This is a private format, don't read it directly!{}");
    expect(await refused(text)).toContain("not SQLite (coverage.py before 5 wrote JSON data files)");
    const good = await sqlite("whole.coverage", `${SCHEMA} INSERT INTO context VALUES (1, 'x|run');`);
    const cut = join(dir, "cut.coverage");
    writeFileSync(cut, readFileSync(good).subarray(0, 4096 + 100));
    expect(await refused(cut)).toMatch(/cut\.coverage: /);
  });

  it("refuses SQLite without coverage.py's tables", async () => {
    const path = await sqlite(
      "other.db",
      "CREATE TABLE meta (key text, value text); CREATE TABLE file (id integer, path text);",
    );
    expect(await refused(path)).toContain("no table `context`, `line_bits`, `arc`");
  });

  it("refuses a data file with only the empty context", async () => {
    const path = await sqlite("plain.coverage", `${SCHEMA} INSERT INTO context VALUES (1, '');`);
    expect(await refused(path)).toContain("--cov-context=test");
  });

  it("names a missing file", async () => {
    const error = (await readCoverageDataFile(join(dir, "nope")).catch((e: unknown) => e)) as GateError;
    expect(error.code).toBe("file_missing");
  });
});
