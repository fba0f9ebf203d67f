// Issue 22, the renderings of the hidden debt, end to end with the real pytest 7.2, pytest-cov 4.0,
// coverage.py 6.5 and git: one `--cov-context=test` run, the leased test's contexts left out. The
// terminal shows raw beside proven; report.md lists the line only the frozen test runs, with the test and
// its lease's owner and expiry.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CALC, FROZEN, check, config, makeCheckProject, proofCommand } from "./check-project.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

// `return "big"` in pkg/calc.py: only the frozen test (label(5000)) reaches it.
const BIG = CALC.split("\n").findIndex((l) => l.includes("# only the frozen test")) + 1;

describe("single run: the hidden debt in report.txt and report.md", () => {
  it("raw beside proven after the gate's coverage line; the frozen-only line with its frozen test and lease", async () => {
    const contexts = config({ proof: proofCommand({ pytestArgs: "--cov-context=test" }), minProven: 50 }).replace(
      "[coverage]\n",
      '[coverage]\ncontexts = ".coverage"\n',
    );
    const p = makeCheckProject({ base: { "proofgate.toml": contexts } });
    made.push(p.dir);
    const r = await check(p.dir, ["--run", "--base", p.base]);
    expect(r.report.reasons, r.stderr.slice(-3000)).toEqual([]);
    const coverage = r.report.coverage as unknown as {
      proven_coverage_percent: number;
      raw: { percent_covered: number };
      hidden_debt_points: number;
      frozen_only: {
        lines: number;
        branches: number;
        files: { path: string; ranges: { start: number; end: number; tests: string[] }[] }[];
      };
    };
    expect(coverage.frozen_only.files).toEqual([
      expect.objectContaining({ path: "pkg/calc.py", ranges: [{ start: BIG, end: BIG, lines: 1, tests: [FROZEN] }] }),
    ]);
    const { lines, branches } = coverage.frozen_only;
    const debt = `Raw coverage: ${coverage.raw.percent_covered.toFixed(2)}%, proven ${coverage.proven_coverage_percent.toFixed(2)}%: hidden debt ${coverage.hidden_debt_points.toFixed(2)} points (${lines} line${lines === 1 ? "" : "s"} and ${branches} branch${branches === 1 ? "" : "es"} only frozen tests run)`;
    for (const text of [r.stdout, readFileSync(join(p.dir, "proofgate-report", "report.txt"), "utf8")]) {
      const out = text.split("\n");
      const at = out.findIndex((l) => /^Proven coverage: \d+\.\d+%/.test(l));
      expect(out[at + 1]).toBe(debt);
    }
    const md = readFileSync(join(p.dir, "proofgate-report", "report.md"), "utf8");
    expect(md).toContain(`**hidden debt** ${coverage.hidden_debt_points.toFixed(2)} points`);
    // `if n > 1000:` into it is a branch only the frozen test takes.
    expect(branches).toBe(1);
    expect(md).toContain("<details><summary>Lines only frozen tests run (1 line and 1 branch in 1 file)</summary>");
    expect(md).toContain(
      `- pkg/calc.py: 1 line${branches > 0 ? `, ${branches} branch${branches === 1 ? "" : "es"}` : ""}\n  - line ${BIG}: tests/test\\_a.py::test\\_frozen (lease: ada, expires 2099-12-31)`,
    );
  });
});
