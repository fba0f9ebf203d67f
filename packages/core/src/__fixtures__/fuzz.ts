// Shared pieces of the readers' fuzz suites (*.fuzz.test.ts): the fixed seed, the budget, what "survives"
// means, and the mutations of real recorded files. A test helper, not part of the build.
import fc from "fast-check";
import { expect } from "vitest";
import { GateError, type GateIssue } from "../common/errors.js";

/** The fixed seed of every fuzz suite: `pnpm test` replays the same cases. PROOFGATE_FUZZ_SEED picks another. */
export const FUZZ_SEED = Number(process.env.PROOFGATE_FUZZ_SEED) || 20261205;

/** Cases per property: 1000 in `pnpm test`; PROOFGATE_FUZZ_RUNS=100000 for a longer search. */
export const FUZZ_RUNS = Math.max(1, Number(process.env.PROOFGATE_FUZZ_RUNS) || 1000);

/** fast-check's parameters for one property: the seed, the budget (a share of it for the cheaper variants). */
export function fuzzParams(share = 1): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(FUZZ_RUNS * share)), endOnFailure: true };
}

/** The test's time budget, grown with PROOFGATE_FUZZ_RUNS. */
export const FUZZ_TIMEOUT = 60_000 + FUZZ_RUNS * 60;

/**
 * The reader's outcome is a value or typed issues: each issue has a code, a message and the file it was
 * given (and a 1-based line when it has one). Anything else (an uncaught exception that is not a GateError)
 * fails the property.
 */
export function expectIssues(issues: readonly GateIssue[], file: string): void {
  for (const issue of issues) {
    expect(typeof issue.code).toBe("string");
    expect(typeof issue.message).toBe("string");
    expect(issue.message.length).toBeGreaterThan(0);
    expect(issue.file).toBe(file);
    if (issue.line !== undefined) {
      expect(Number.isInteger(issue.line)).toBe(true);
      expect(issue.line).toBeGreaterThanOrEqual(1);
    }
  }
}

/** Runs `read`: a GateError is a typed answer (its issues are checked); any other exception is rethrown. */
export function typed<T>(read: () => T, file?: string): T | GateError {
  try {
    return read();
  } catch (error) {
    if (!GateError.isInstance(error)) throw error;
    if (file !== undefined) expectIssues(error.issues, file);
    return error;
  }
}

/**
 * The time a reader may take on a megabyte: 1 s, times PROOFGATE_FUZZ_TIME_FACTOR (default 2: the suite runs
 * on two cores shared with other jobs; a quadratic reader takes minutes, far past either).
 */
export const MB_BUDGET_MS = 1000 * (Number(process.env.PROOFGATE_FUZZ_TIME_FACTOR) || 2);

/** Milliseconds `read` takes: the best of up to three runs (a busy machine's pause is not the reader's). */
export function timed(read: () => unknown): number {
  let best = Infinity;
  for (let attempt = 0; attempt < 3 && best > MB_BUDGET_MS / 2; attempt++) {
    const start = performance.now();
    read();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** About `bytes` of `unit` repeated. */
export function repeatTo(unit: string, bytes: number): string {
  return unit.repeat(Math.max(1, Math.ceil(bytes / Math.max(1, unit.length))));
}

export const MB = 1 << 20;

/** Text the readers may meet: any code points (lone surrogates too), control characters, NUL, CR. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 400 }),
  fc.string({ unit: fc.constantFrom("\n", "\r", "\t", " ", "\0", "\\", '"', "'", "<", ">", "&", "=", "[", "]", "{", "}", ":", ",", "#", "\u2028", "\uFEFF", "\uD800"), maxLength: 200 }),
);

/** Lines made of a format's own tokens and a little noise, so a case gets past the first check. */
export function tokenLines(tokens: readonly string[], maxLines = 30): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...tokens) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.integer({ min: -3, max: 100_000 }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "\t", "\r", "\0", "-1", "1e400", "NaN", "0x10", "9007199254740993") },
  );
  const line = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(""));
  return fc.array(line, { maxLength: maxLines }).map((lines) => lines.join("\n"));
}

/**
 * One change to a recorded file: a byte (a character) replaced, inserted or deleted, a line deleted,
 * duplicated, swapped or replaced, or the file cut short.
 */
export function mutated(texts: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...texts),
      fc.nat(),
      fc.nat(),
      fc.constantFrom("byte", "insert", "delete", "line-delete", "line-dup", "line-swap", "line-replace", "cut"),
      fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 3 }), fc.constantFrom("\n", "\0", '"', "<", ">", "]", "}", "-", "9", " ")),
      fc.string({ maxLength: 40 }),
    )
    .map(([text, a, b, kind, char, line]) => {
      const at = text.length === 0 ? 0 : a % text.length;
      const lines = text.split("\n");
      const li = a % lines.length;
      const lj = b % lines.length;
      switch (kind) {
        case "byte":
          return text.slice(0, at) + char + text.slice(at + 1);
        case "insert":
          return text.slice(0, at) + char + text.slice(at);
        case "delete":
          return text.slice(0, at) + text.slice(at + 1);
        case "line-delete":
          return [...lines.slice(0, li), ...lines.slice(li + 1)].join("\n");
        case "line-dup":
          return [...lines.slice(0, li + 1), lines[li]!, ...lines.slice(li + 1)].join("\n");
        case "line-swap": {
          const out = [...lines];
          [out[li], out[lj]] = [out[lj]!, out[li]!];
          return out.join("\n");
        }
        case "line-replace":
          return [...lines.slice(0, li), line, ...lines.slice(li + 1)].join("\n");
        default:
          return text.slice(0, at);
      }
    });
}

/** Every path to a value inside parsed JSON (the root excluded). */
function jsonPaths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (out.length > 5000) return out;
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push([...prefix, i]);
      jsonPaths(v, [...prefix, i], out);
    });
  else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) {
      out.push([...prefix, k]);
      jsonPaths(v, [...prefix, k], out);
    }
  return out;
}

/** A recorded JSON file with one field changed: replaced by any JSON value, or deleted. */
export function fieldMutated(texts: readonly string[]): fc.Arbitrary<string> {
  const parsed = texts.map((t) => JSON.parse(t) as unknown);
  const paths = parsed.map((p) => jsonPaths(p));
  return fc
    .tuple(
      fc.nat({ max: texts.length - 1 }),
      fc.nat(),
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom(null, -1, 0, 1.5, 1e300, "", "x", [], {}, true, "__proto__", "-1"),
      ),
      fc.boolean(),
    )
    .map(([i, n, replacement, remove]) => {
      const copy = JSON.parse(texts[i]!) as unknown;
      const all = paths[i]!;
      if (all.length === 0) return JSON.stringify(replacement);
      const path = all[n % all.length]!;
      let parent = copy as Record<string | number, unknown>;
      for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
      const last = path[path.length - 1]!;
      if (remove && !Array.isArray(parent)) delete parent[last];
      else parent[last] = replacement;
      return JSON.stringify(copy);
    });
}
