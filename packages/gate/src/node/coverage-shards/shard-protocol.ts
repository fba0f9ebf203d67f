// What a shard worker hands back: the coverage.py JSON shards it read, merged (core's CoverageShardMerger,
// exactly as the main thread merges), packed into one array of numbers so the reply is copied in one piece
// (a structured clone of 20,000 files' sets of strings costs more than the reading it saves). coverage.py's
// keys are numbers written as text (`"12"`, `"12>-1"`), so the packing loses nothing; a key that is not one
// (never from coverage.py's reader) makes the packing refuse, and the caller reads the shards itself.
import { arcKey, lineKey, type CoverageData, type FileCoverage } from "@proofgate/core/coverage";

/** A shard to read: its name as the config gives it (messages, the model's sources) and where it is. */
export interface ShardFile {
  path: string;
  absolute: string;
}

/** What a worker is asked: read these shards, in this order, and merge them. */
export interface ShardRequest {
  shards: ShardFile[];
  root: string;
  /** `--coverage-format`, when given (else each report's format is detected). */
  format?: string | undefined;
  /**
   * Shared with the main thread ({@link claimFirst}): the worker reads the shards it claims from the first on,
   * while the main thread claims from the last down once it waits. Without it, every shard.
   */
  claims?: SharedArrayBuffer | undefined;
}

/** A worker's answer: the first `count` shards merged and packed, with their digests; or why the caller must read them itself. */
export type ShardReply =
  { kind: "read"; count: number; sha256: string[]; packed: PackedCoverage } | { kind: "declined"; why: string };

// The shards not yet claimed are [low, high): one 32-bit word (low in its low 16 bits), changed by compare-and-
// swap, so the two ends never claim one shard twice. The worker's claims are a run from 0, the main thread's a
// run down from the last, so the worker's part and the main thread's shards, in order, are the shards in order.

/** The claims of `count` shards (at most 65,535), none claimed yet. */
export function newClaims(count: number): SharedArrayBuffer | undefined {
  if (count > 0xffff) return undefined;
  const claims = new SharedArrayBuffer(4);
  Atomics.store(new Int32Array(claims), 0, count << 16);
  return claims;
}

/** Claims the lowest shard not yet claimed: its index, or undefined when none is left. */
export function claimFirst(claims: SharedArrayBuffer): number | undefined {
  return claim(claims, true);
}

/** Claims the highest shard not yet claimed: its index, or undefined when none is left. */
export function claimLast(claims: SharedArrayBuffer): number | undefined {
  return claim(claims, false);
}

/** Claims every shard left: neither end reads another. */
export function claimRest(claims: SharedArrayBuffer): void {
  while (claimLast(claims) !== undefined);
}

function claim(claims: SharedArrayBuffer, first: boolean): number | undefined {
  const word = new Int32Array(claims);
  for (;;) {
    const value = Atomics.load(word, 0);
    const low = value & 0xffff;
    const high = value >>> 16;
    if (low >= high) return undefined;
    const next = first ? (high << 16) | (low + 1) : ((high - 1) << 16) | low;
    if (Atomics.compareExchange(word, 0, value, next) === value) return first ? low : high - 1;
  }
}

/** A merged coverage.py JSON model as numbers: the files' paths, and their four key lists in one array. */
export interface PackedCoverage {
  sources: string[];
  hasBranches: boolean;
  paths: string[];
  /**
   * Per file, in `paths` order: the statement count then the lines, the covered count then the lines, the
   * branch count then each arc's two ends, the covered branch count then the arcs. In each set's order.
   */
  numbers: Float64Array;
}

/** The model packed, or undefined when a key is not a coverage.py line or arc (then nothing is packed). */
export function packCoverage(data: CoverageData): PackedCoverage | undefined {
  if (data.format !== "coveragepy-json") return undefined;
  const paths: string[] = [];
  let size = 0;
  for (const entry of data.files.values()) {
    if (!(entry.statements instanceof Set)) return undefined;
    const e = entry as FileCoverage;
    size += 4 + e.statements.size + e.coveredStatements.size + 2 * (e.branches.size + e.coveredBranches.size);
  }
  const numbers = new Float64Array(size);
  let at = 0;
  const lines = (set: ReadonlySet<string>): boolean => {
    numbers[at++] = set.size;
    for (const key of set) {
      const n = Number(key);
      if (!Number.isSafeInteger(n) || lineKey(n) !== key) return false;
      numbers[at++] = n;
    }
    return true;
  };
  const arcs = (set: ReadonlySet<string>): boolean => {
    numbers[at++] = set.size;
    for (const key of set) {
      const cut = key.indexOf(">");
      const from = Number(key.slice(0, cut));
      const to = Number(key.slice(cut + 1));
      if (cut <= 0 || !Number.isSafeInteger(from) || !Number.isSafeInteger(to) || arcKey(from, to) !== key)
        return false;
      numbers[at++] = from;
      numbers[at++] = to;
    }
    return true;
  };
  for (const [path, entry] of data.files) {
    const e = entry as FileCoverage;
    if (e.path !== path) return undefined;
    if (!lines(e.statements) || !lines(e.coveredStatements) || !arcs(e.branches) || !arcs(e.coveredBranches))
      return undefined;
    paths.push(path);
  }
  return { sources: [...data.sources], hasBranches: data.hasBranches, paths, numbers };
}

/** The model a packing holds: the same files, keys and set orders as the model packed. */
export function unpackCoverage(packed: PackedCoverage): CoverageData {
  const { numbers } = packed;
  let at = 0;
  const lines = (): Set<string> => {
    const set = new Set<string>();
    for (let end = at + 1 + numbers[at]!, i = at + 1; i < end; i++) set.add(lineKey(numbers[i]!));
    at += 1 + numbers[at]!;
    return set;
  };
  const arcs = (): Set<string> => {
    const set = new Set<string>();
    for (let end = at + 1 + 2 * numbers[at]!, i = at + 1; i < end; i += 2)
      set.add(arcKey(numbers[i]!, numbers[i + 1]!));
    at += 1 + 2 * numbers[at]!;
    return set;
  };
  const files = new Map<string, FileCoverage>();
  for (const path of packed.paths) {
    const statements = lines();
    const coveredStatements = lines();
    const branches = arcs();
    const coveredBranches = arcs();
    files.set(path, { path, statements, coveredStatements, branches, coveredBranches });
  }
  return { format: "coveragepy-json", sources: [...packed.sources], files, hasBranches: packed.hasBranches };
}
