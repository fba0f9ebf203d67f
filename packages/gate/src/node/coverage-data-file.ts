// Reads coverage.py's `.coverage` SQLite data file with sql.js (SQLite compiled to WebAssembly, from
// npm: nothing to compile, nothing downloaded at install or run time), checks its schema and hands
// the rows to core. sql.js is imported on first use, so other commands do not load it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { GateError, type CoverageDbRows } from "@proofgate/core";
import type { Database, SqlJsStatic } from "sql.js";
import { readIntegerTable } from "./sqlite-table.js";

/** The tables coverage.py 5 to 7 write (schema versions 5 to 7 name them so). */
const REQUIRED_TABLES = ["meta", "file", "context", "line_bits", "arc"] as const;
const SQLITE_MAGIC = "SQLite format 3\0";

let sqlJs: Promise<SqlJsStatic> | undefined;

/**
 * The WASM binary: next to the bundle (build.mjs copies it to dist/), or, when running from source
 * (tests), from the sql.js package.
 */
function wasmBinary(): Uint8Array {
  const beside = new URL("./sql-wasm.wasm", import.meta.url);
  try {
    return readFileSync(fileURLToPath(beside));
  } catch {
    return readFileSync(createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm"));
  }
}

async function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= import("sql.js").then((mod) => {
    const init = (mod as unknown as { default?: typeof mod }).default ?? mod;
    const bytes = wasmBinary();
    return (init as unknown as (config: { wasmBinary: ArrayBuffer }) => Promise<SqlJsStatic>)({
      wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    });
  });
  return sqlJs;
}

const invalid = (file: string, message: string, fix: string): GateError =>
  new GateError({ code: "coverage_invalid", file, message, fix });
const RERUN = "record it again: pytest --cov=<pkg> --cov-context=test (coverage.py 5 to 7 writes .coverage)";

/**
 * Reads a `.coverage` data file: its contexts, files, line numbits and arcs. Not SQLite, not coverage.py's
 * schema, or without test contexts: a GateError (coverage_invalid) naming the file. A relative `path` is
 * read from `root` when given.
 */
export async function readCoverageDataFile(path: string, root?: string): Promise<CoverageDbRows> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(root === undefined ? path : resolve(root, path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new GateError({
        code: "file_missing",
        file: path,
        message: "the coverage data file does not exist",
        fix: "pass the .coverage file of a `pytest --cov-context=test` run with --contexts",
      });
    throw new GateError({
      code: "file_unreadable",
      file: path,
      message: `cannot read the coverage data file: ${code ?? String(error)}`,
      fix: "check the path and its permissions",
    });
  }
  if (bytes.length < 100 || bytes.subarray(0, 16).toString("latin1") !== SQLITE_MAGIC) {
    const hint =
      bytes.subarray(0, 1).toString() === "!" || bytes.subarray(0, 1).toString() === "{"
        ? " (coverage.py before 5 wrote JSON data files)"
        : "";
    throw invalid(path, `not a coverage.py data file: not SQLite${hint}`, RERUN);
  }
  const SQL = await loadSqlJs();
  let db: Database;
  try {
    db = new SQL.Database(bytes);
  } catch (error) {
    throw invalid(path, `not a readable SQLite database (${String((error as Error).message)})`, RERUN);
  }
  try {
    return readRows(db, path, bytes);
  } catch (error) {
    if (GateError.isInstance(error)) throw error;
    throw invalid(
      path,
      `cannot read it as a coverage.py data file (${String((error as Error).message).split("\n")[0]})`,
      RERUN,
    );
  } finally {
    db.close();
  }
}

function readRows(db: Database, path: string, bytes: Uint8Array): CoverageDbRows {
  const tables = new Set(all(db, "select name from sqlite_master where type = 'table'").map((r) => String(r[0])));
  const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
  if (missing.length > 0) {
    throw invalid(
      path,
      `not a coverage.py 5-7 data file: no table ${missing.map((t) => `\`${t}\``).join(", ")}`,
      RERUN,
    );
  }
  const meta = new Map(
    all(db, "select key, value from meta").map((r) => [String(r[0]), r[1] === null ? "" : String(r[1])]),
  );
  const hasArcs = /^(1|true)$/i.test(meta.get("has_arcs") ?? "");
  const contexts = all(db, "select id, context from context").map((r) => ({
    id: Number(r[0]),
    name: String(r[1] ?? ""),
  }));
  if (!contexts.some((c) => c.name !== "")) {
    throw invalid(
      path,
      "records no test contexts (only the empty one)",
      "run pytest with --cov-context=test, so each test's lines are recorded apart",
    );
  }
  const files = all(db, "select id, path from file").map((r) => ({ id: Number(r[0]), path: String(r[1]) }));
  const lineBits = hasArcs
    ? []
    : all(db, "select file_id, context_id, numbits from line_bits").map((r) => ({
        fileId: Number(r[0]),
        contextId: Number(r[1]),
        numbits: r[2] instanceof Uint8Array ? r[2] : new Uint8Array(),
      }));
  const arcs = hasArcs ? readArcs(db, bytes) : { fileId: [], contextId: [], fromno: [], tono: [] };
  return { file: path, hasArcs, contexts, files, lineBits, arcs };
}

/**
 * The arc table, column by column: the big one (a row per arc, context and file). Read straight from the
 * database's bytes when its B-tree holds nothing but small integers (sqlite-table.ts), the same rows in
 * the same order as SQLite's scan; otherwise stepped through sql.js into typed columns sized by a count
 * first, so a million rows do not grow four arrays one push at a time.
 */
export function readArcs(db: Database, bytes: Uint8Array, direct = true): CoverageDbRows["arcs"] {
  const rowCount = Number(all(db, "select count(*) from arc")[0]?.[0] ?? 0);
  const root = Number(all(db, "select rootpage from sqlite_master where type = 'table' and name = 'arc'")[0]?.[0]);
  const read = direct ? readIntegerTable(bytes, root, 4, rowCount) : undefined;
  if (read !== undefined) return { fileId: read[0]!, contextId: read[1]!, fromno: read[2]!, tono: read[3]! };
  const arcs = {
    fileId: new Float64Array(rowCount),
    contextId: new Float64Array(rowCount),
    fromno: new Float64Array(rowCount),
    tono: new Float64Array(rowCount),
  };
  const stmt = db.prepare("select file_id, context_id, fromno, tono from arc");
  let n = 0;
  try {
    while (stmt.step()) {
      if (n === rowCount) throw new Error("the arc table changed while it was read");
      const r = stmt.get();
      arcs.fileId[n] = Number(r[0]);
      arcs.contextId[n] = Number(r[1]);
      arcs.fromno[n] = Number(r[2]);
      arcs.tono[n] = Number(r[3]);
      n++;
    }
  } finally {
    stmt.free();
  }
  if (n !== rowCount) throw new Error("the arc table changed while it was read");
  return arcs;
}

function all(db: Database, sql: string): unknown[][] {
  const stmt = db.prepare(sql);
  const rows: unknown[][] = [];
  try {
    while (stmt.step()) rows.push(stmt.get());
  } finally {
    stmt.free();
  }
  return rows;
}
