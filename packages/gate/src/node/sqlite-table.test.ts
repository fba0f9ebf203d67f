// The direct reader of coverage.py's arc table (sqlite-table.ts) against sql.js stepping the same table:
// wherever the direct reader answers, the same rows in the same order; where it cannot be sure, it
// declines and the caller steps through sql.js as before.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fc from "fast-check";
import initSqlJs, { type Database, type SqlJsStatic } from "sql.js";
import { beforeAll, describe, expect, it } from "vitest";
import { readArcs } from "./coverage-data-file.js";
import { readIntegerTable } from "./sqlite-table.js";

const SEED = Number(process.env.PROOFGATE_FUZZ_SEED) || 20261207;
const RUNS = Math.max(1, Number(process.env.PROOFGATE_FUZZ_RUNS) || 1000);

const ARC = `CREATE TABLE arc (file_id integer, context_id integer, fromno integer, tono integer,
  unique (file_id, context_id, fromno, tono));`;
const RECORDED = readFileSync(new URL("./__fixtures__/coveragepy-6.5-contexts.coverage", import.meta.url));

let SQL: SqlJsStatic;
beforeAll(async () => {
  SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm") });
});

/** The one number a query of `db` gives (NaN for none). */
const one = (db: Database, sql: string): number => Number(db.exec(sql)[0]?.values[0]?.[0]);

/** A database made by `sql` (page size first), exported as a file's bytes. */
function database(sql: string, pageSize = 4096, rows: readonly (readonly unknown[])[] = []): Uint8Array {
  const db = new SQL.Database();
  try {
    db.run(`PRAGMA page_size = ${pageSize}; ${sql}`);
    db.run("BEGIN");
    const insert = db.prepare("INSERT OR IGNORE INTO arc VALUES (?, ?, ?, ?)");
    for (const row of rows) insert.run(row as never);
    insert.free();
    db.run("COMMIT");
    return db.export();
  } finally {
    db.close();
  }
}

/**
 * The arc rows both ways, as readArcs meets them: the direct reader (undefined when it declined) with
 * SQLite's own count, and sql.js stepping the table; an error where SQLite cannot count or step them.
 */
function bothWays(bytes: Uint8Array): {
  direct: number[][] | undefined;
  stepped: number[][] | { error: string };
} {
  const columns = (c: ArrayLike<number>[]) => c.map((col) => Array.from(col));
  let db: Database | undefined;
  let direct: number[][] | undefined;
  try {
    db = new SQL.Database(bytes);
    const count = one(db, "select count(*) from arc");
    const root = one(db, "select rootpage from sqlite_master where name = 'arc'");
    const read = readIntegerTable(bytes, root, 4, count);
    direct = read && columns(read);
    const stepped = readArcs(db, bytes, false);
    return { direct, stepped: columns([stepped.fileId, stepped.contextId, stepped.fromno, stepped.tono]) };
  } catch (error) {
    return { direct, stepped: { error: String(error) } };
  } finally {
    db?.close();
  }
}

/** The rows both ways, which sql.js must read without an error. */
function readBoth(bytes: Uint8Array): { direct: number[][] | undefined; stepped: number[][] } {
  const both = bothWays(bytes);
  if ("error" in both.stepped) throw new Error(both.stepped.error);
  return { direct: both.direct, stepped: both.stepped };
}

/** A pseudo-random row whose values take every integer width SQLite stores (0, 1, 8 to 48 bits, negative). */
function row(i: number): number[] {
  const widths = [0, 1, 2 ** 7, 2 ** 15, 2 ** 23, 2 ** 31, 2 ** 47];
  const pick = (k: number) => {
    const w = widths[(i * 7 + k * 3) % widths.length]!;
    const v = w <= 1 ? w : ((i * 2654435761 + k * 40503) % w) - (k === 3 ? w / 2 : 0);
    return v;
  };
  return [pick(0), (i % 97) + 1, pick(2) - 1, pick(3)];
}

describe("readIntegerTable", () => {
  it("reads the recorded coverage.py 6.5 file's arcs as sql.js steps them", () => {
    const both = readBoth(RECORDED);
    expect(both.stepped[0]!.length).toBeGreaterThan(10);
    expect(both.direct).toEqual(both.stepped);
  });

  for (const [pageSize, count] of [
    [512, 20_000],
    [1024, 3000],
    [4096, 60_000],
    [65536, 60_000],
    [4096, 0],
    [4096, 1],
  ] as const) {
    it(`reads ${count} rows of every integer width on ${pageSize}-byte pages in SQLite's order`, () => {
      const rows = Array.from({ length: count }, (_, i) => row(i));
      const both = readBoth(database(ARC, pageSize, rows));
      expect(both.stepped[0]!.length).toBe(new Set(rows.map((r) => r.join())).size);
      expect(both.direct).toEqual(both.stepped);
    });
  }

  it("reads a table whose pages have free space from deleted rows, and rows out of key order", () => {
    const rows = Array.from({ length: 8000 }, (_, i) => row(7999 - i));
    const db = new SQL.Database(database(ARC, 1024, rows));
    db.run("DELETE FROM arc WHERE rowid % 3 = 0; INSERT INTO arc VALUES (5, 6, 7, 8);");
    const bytes = db.export();
    db.close();
    const both = readBoth(bytes);
    expect(both.direct).toEqual(both.stepped);
  });

  it("declines what it does not fully understand, and sql.js reads it", () => {
    const declined = (sql: string, count = 1): void => {
      const db = new SQL.Database();
      db.run(`${ARC} ${sql}`);
      const bytes = db.export();
      db.close();
      const both = readBoth(bytes);
      expect(both.stepped[0]).toHaveLength(count);
      expect(both.direct, sql).toBeUndefined();
    };
    declined("INSERT INTO arc VALUES (1, 2, NULL, 4);");
    // (Integer affinity stores '3' as 3: text that is not a number stays text.)
    declined("INSERT INTO arc VALUES (1, 2, 'x', 4);");
    declined("INSERT INTO arc VALUES (1, 2, X'03', 4);");
    declined("INSERT INTO arc VALUES (1, 2, 3.5, 4);");
    declined("INSERT INTO arc VALUES (1, 2, 3, 9007199254740993);");
    // A column added later: older records hold three values.
    const altered = new SQL.Database();
    altered.run(
      "CREATE TABLE arc (file_id integer, context_id integer, fromno integer); INSERT INTO arc VALUES (1, 2, 3); ALTER TABLE arc ADD COLUMN tono integer;",
    );
    const bytes = altered.export();
    altered.close();
    expect(readBoth(bytes).direct).toBeUndefined();
  });

  it("declines a wrong row count, a root that is not a table page, a page outside the file, a cycle", () => {
    const bytes = database(
      ARC,
      512,
      Array.from({ length: 3000 }, (_, i) => row(i)),
    );
    const db = new SQL.Database(bytes);
    const root = one(db, "select rootpage from sqlite_master where name = 'arc'");
    const index = one(db, "select rootpage from sqlite_master where type = 'index'");
    const count = one(db, "select count(*) from arc");
    db.close();
    expect(readIntegerTable(bytes, root, 4, count)).toBeDefined();
    expect(readIntegerTable(bytes, root, 4, count - 1)).toBeUndefined();
    expect(readIntegerTable(bytes, root, 4, count + 1)).toBeUndefined();
    expect(readIntegerTable(bytes, root, 3, count)).toBeUndefined();
    expect(readIntegerTable(bytes, index, 4, count)).toBeUndefined();
    expect(readIntegerTable(bytes, bytes.length / 512 + 1, 4, count)).toBeUndefined();
    expect(readIntegerTable(bytes.subarray(0, bytes.length - 512), root, 4, count)).toBeUndefined();
    // The root (an interior page) points right at itself.
    const start = (root - 1) * 512;
    expect(bytes[start]).toBe(0x05);
    const cycle = Uint8Array.from(bytes);
    cycle.set([(root >>> 24) & 255, (root >>> 16) & 255, (root >>> 8) & 255, root & 255], start + 8);
    expect(readIntegerTable(cycle, root, 4, count)).toBeUndefined();
    // ... and has no cells: a loop that reads no row (only the visited pages end it).
    cycle.set([0, 0], start + 3);
    expect(readIntegerTable(cycle, root, 4, count)).toBeUndefined();
    // A page size SQLite never writes.
    const odd = Uint8Array.from(bytes);
    odd[16] = 0x03;
    odd[17] = 0x00;
    expect(readIntegerTable(odd, root, 4, count)).toBeUndefined();
  });

  it("fuzz: a database with one byte changed is read as sql.js reads it, or declined", () => {
    const bytes = database(
      ARC,
      512,
      Array.from({ length: 2000 }, (_, i) => row(i)),
    );
    const db = new SQL.Database(bytes);
    const root = one(db, "select rootpage from sqlite_master where name = 'arc'");
    db.close();
    const arcPages = bytes.length - (root - 1) * 512;
    let answered = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.nat({ max: bytes.length - 1 }),
          fc.nat({ max: arcPages - 1 }).map((n) => (root - 1) * 512 + n),
        ),
        fc.integer({ min: 0, max: 255 }),
        (at, value) => {
          const changed = Uint8Array.from(bytes);
          changed[at] = value;
          const both = bothWays(changed);
          if (both.direct === undefined) return;
          answered++;
          // Where the direct reader answers, SQLite steps the same rows, without an error.
          expect(both.stepped).toEqual(both.direct);
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // Most single bytes land in values or unused space: the direct reader answers for most of them.
    expect(answered).toBeGreaterThan(RUNS / 4);
  });
});
