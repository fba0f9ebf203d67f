// `init`'s floor: `[coverage] min_proven` set to the project's own proven coverage, rounded down, so the
// gate starts where the project is (a fixed 70 is a wall for a project at 60 and no floor for one at 95).
// It runs the proof command it is about to write once, with no test frozen (a new ledger has no lease),
// and reads the coverage report that command writes. `--min-proven` names the floor instead; when the
// command cannot run or writes no report, the floor stays 70, and the config says to raise it.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parseCoveragePyJson, readCoverage, summarizeCoverage, type Env, type GateConfig } from "@proofgate/core";
import { shellTry, type CommandTryRunner } from "./try-collect.js";

/** The floor init writes, the comment above it, and what init says about it. */
export interface InitFloor {
  minProven: number;
  /** Comment lines written above `min_proven`. */
  notes: string[];
  /** One line for the terminal. */
  said: string;
  /**
   * The proof run measured files outside the repository: an installed copy of the package, not the work tree's
   * (pytest imported it first: Debian's attrs, pluggy, packaging). Said as a warning, with the fix.
   */
  outside?: string | undefined;
}

/**
 * The measured files of a coverage.py JSON report that lie outside `root` (absolute, or climbing out of it):
 * the run measured an installed copy, not the repository's code. Unreadable JSON: none (the totals say so).
 */
export function filesOutside(text: string, root: string): string[] {
  let files: unknown;
  try {
    files = (JSON.parse(text) as { files?: unknown }).files;
  } catch {
    return [];
  }
  if (typeof files !== "object" || files === null) return [];
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return Object.keys(files).filter((f) => (isAbsolute(f) ? !f.startsWith(prefix) : f.startsWith("../")));
}

/** The floor a measured percentage gives: rounded down to a whole percent, so the measuring run passes it. */
export function floorOf(percent: number): number {
  return Math.floor(percent + 1e-9);
}

const KEEP_70 = (why: string, fallback: number): InitFloor => ({
  minProven: fallback,
  notes: [
    `Not measured (${why}): ${fallback} is a placeholder. Raise it to the project's proven coverage,`,
    "rounded down: `proofgate check --run` prints it as `Proven coverage:`.",
  ],
  said: `min_proven = ${fallback}: not measured (${why}); raise it to the project's proven coverage`,
});

/**
 * Measures the floor: `given` (--min-proven) wins; else, when `measure` and the config has a proof
 * command, runs it once in `root` and reads its first coverage report (coverage.py JSON). What the run
 * wrote that was not there before is removed. Anything that stops the measurement keeps the config's
 * floor, with a note saying so: never a guess.
 */
export function measureFloor(
  root: string,
  config: GateConfig,
  options: {
    given?: number | undefined;
    measure: boolean;
    leases: number;
    env: Env;
    run?: CommandTryRunner | undefined;
    /** Says that the suite is about to run (it may take a while). */
    say?: ((line: string) => void) | undefined;
  },
): InitFloor {
  const fallback = config.coverage.minProven;
  if (options.given !== undefined)
    return {
      minProven: options.given,
      notes: ["Set by `proofgate init --min-proven`."],
      said: `min_proven = ${options.given} (--min-proven)`,
    };
  const proof = config.commands.proof;
  if (!options.measure) return KEEP_70("init --no-measure", fallback);
  if (proof === undefined) return KEEP_70("no proof command for this layout", fallback);
  // With leases the run would count the frozen tests: that is raw coverage, not proven.
  if (options.leases > 0)
    return KEEP_70(`the ledger has ${options.leases} lease(s), which one run cannot leave out`, fallback);
  const report = config.coverage.reports[0]!;
  const at = (p: string): string => (isAbsolute(p) ? p : join(root, p));
  const outputs = [
    ...config.coverage.reports,
    ...config.results.junit,
    ...(config.coverage.contexts ?? []),
    ".coverage",
  ];
  const written = outputs.filter((p) => !existsSync(at(p)));
  options.say?.(`measuring the floor: running [commands] proof once (\`${proof}\`; --no-measure skips it)\n`);
  let text: string | undefined;
  let exitCode: number;
  try {
    exitCode = (options.run ?? shellTry)(proof, {
      cwd: root,
      env: { ...options.env, PYTHONDONTWRITEBYTECODE: "1" },
      // The suite's own length: the limit `check --run` gives the same step ([commands] timeout).
      timeoutSeconds: config.commands.timeout,
    }).exitCode;
    try {
      text = readFileSync(at(report), "utf8");
    } catch {
      text = undefined;
    }
  } finally {
    for (const p of written) rmSync(at(p), { force: true });
  }
  if (exitCode !== 0) return KEEP_70(`[commands] proof exited with ${exitCode} when init ran it`, fallback);
  if (text === undefined) return KEEP_70(`[commands] proof wrote no ${report}`, fallback);
  const totals = reportTotals(text, report, root, config.commands.runner === "vitest");
  if (!totals)
    return KEEP_70(
      `${report} is not a ${config.commands.runner === "vitest" ? "coverage" : "coverage.py JSON"} report init can read`,
      fallback,
    );
  if (totals.statements === 0) return KEEP_70(`${report} measured no statements`, fallback);
  const percent = totals.percent;
  const minProven = floorOf(percent);
  const outside = config.commands.runner === "vitest" ? [] : filesOutside(text, root);
  return {
    ...(outside.length > 0
      ? {
          outside: `the proof run measured ${outside.length} file(s) outside the repository (${outside[0]}${outside.length > 1 ? ", ..." : ""}): the tests ran an installed copy of the package, not the work tree's, so the floor and every check would judge that copy. Make the tests import the repository's code (\`pip install -e .\` in the environment the commands run in, or the source folder first on PYTHONPATH in [commands] collect and proof: \`PYTHONPATH=src ...\` for a src layout), then run init again`,
        }
      : {}),
    minProven,
    notes: [
      `Measured by \`proofgate init\`: the proof run covered ${percent.toFixed(2)}%, rounded down. Raise it as`,
      "coverage grows; lowering it needs a human commit.",
    ],
    said: `min_proven = ${minProven}: the proof run, run once by init, covered ${percent.toFixed(2)}%`,
  };
}

/** The totals of the report: coverage.py's own for its JSON; for vitest, any format the gate reads (coverage-v8's Istanbul JSON). */
function reportTotals(
  text: string,
  report: string,
  root: string,
  anyFormat: boolean,
): { statements: number; percent: number } | undefined {
  if (!anyFormat) return parseCoveragePyJson(text, report).totals;
  const read = readCoverage(text, report, { root });
  return read.data && read.errors.length === 0 ? summarizeCoverage(read.data) : undefined;
}
