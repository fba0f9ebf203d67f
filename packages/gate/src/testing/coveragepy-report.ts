// A coverage.py JSON report as `coverage json` 6.5 writes it with branches, from a run's files: for tests that
// need many reports of one suite (shards), or one edited in a known way.

/** One file of a run: its statements, the ones executed, its branches (`[from, to]`) and the ones taken. */
export interface RunFile {
  statements: number[];
  executed: number[];
  branches: [number, number][];
  taken: [number, number][];
}

const arcName = ([a, b]: [number, number]): string => `${a}>${b}`;

/** A coverage.py JSON report (format 2, as `coverage json` 6.5 writes it with `--cov-branch`) of `files`. */
export function coveragePyJson(files: Record<string, RunFile>): string {
  const totals = { covered_lines: 0, num_statements: 0, num_branches: 0, covered_branches: 0 };
  const out: Record<string, unknown> = {};
  for (const [path, f] of Object.entries(files)) {
    const taken = new Set(f.taken.map(arcName));
    const summary = {
      covered_lines: f.executed.length,
      num_statements: f.statements.length,
      num_branches: f.branches.length,
      covered_branches: f.taken.length,
      missing_lines: f.statements.length - f.executed.length,
      excluded_lines: 0,
      num_partial_branches: 0,
      missing_branches: f.branches.length - f.taken.length,
      percent_covered:
        (100 * (f.executed.length + f.taken.length)) / Math.max(1, f.statements.length + f.branches.length),
    };
    out[path] = {
      executed_lines: f.executed,
      summary,
      missing_lines: f.statements.filter((l) => !f.executed.includes(l)),
      excluded_lines: [],
      executed_branches: f.taken,
      missing_branches: f.branches.filter((b) => !taken.has(arcName(b))),
    };
    totals.covered_lines += f.executed.length;
    totals.num_statements += f.statements.length;
    totals.num_branches += f.branches.length;
    totals.covered_branches += f.taken.length;
  }
  const percent =
    totals.num_statements === 0
      ? 100
      : (100 * (totals.covered_lines + totals.covered_branches)) / (totals.num_statements + totals.num_branches);
  return JSON.stringify({
    meta: { version: "6.5.0", timestamp: "2026-12-05T00:00:00", branch_coverage: true, show_contexts: false },
    files: out,
    totals: {
      ...totals,
      percent_covered: percent,
      percent_covered_display: String(Math.round(percent)),
      missing_lines: totals.num_statements - totals.covered_lines,
      excluded_lines: 0,
      num_partial_branches: 0,
      missing_branches: totals.num_branches - totals.covered_branches,
    },
  });
}
