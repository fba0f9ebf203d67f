import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCobertura, type FileCoverage } from "@proofgate/core";
import { PROVEN_COBERTURA_FILE, provenCobertura } from "./cobertura.js";
import { frozenOnlyReport, type FileSpec } from "./__fixtures__/frozen-only.js";
import { errorReportFixture } from "./__fixtures__/reports.js";

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// Lines 5-8 of app.py run only under the frozen test; line 3 leaves by two branches, one of them frozen-only.
const APP: FileSpec = {
  path: "src/pkg/app.py",
  statements: range(1, 10),
  proven: [1, 2, 3, 4, 9],
  raw: range(1, 9),
  branches: { all: ["3>4", "3>9"], proven: ["3>9"], raw: ["3>4", "3>9"] },
  tests: Object.fromEntries(range(5, 8).map((l) => [String(l), ["tests/test_a.py::test_slow"]])),
};
// Markup in a file name: escaped in the XML, the same path read back.
const ODD: FileSpec = { path: `src/a&b<c>"d'e.py`, statements: [1, 2], proven: [1], raw: [1, 2] };
const TOP: FileSpec = { path: "setup.py", statements: [1], proven: [1], raw: [1] };

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the proven lines as Cobertura", () => {
  it("reads back, with core's strict reader, as exactly the proven lines under the repository's paths", () => {
    const report = frozenOnlyReport([APP, ODD, TOP]);
    const xml = provenCobertura(report.gate, { sourceRoot: "/builds/g/p" });
    const read = readCobertura(xml, PROVEN_COBERTURA_FILE, { root: "/builds/g/p" });
    expect(read.errors).toEqual([]);
    const files = read.data!.files as Map<string, FileCoverage>;
    expect([...files.keys()].sort()).toEqual([APP.path, ODD.path, TOP.path].sort());
    for (const spec of [APP, ODD, TOP]) {
      const f = files.get(spec.path)!;
      expect([...f.statements].map(Number).sort((a, b) => a - b)).toEqual(spec.statements);
      expect([...f.coveredStatements].map(Number).sort((a, b) => a - b)).toEqual(spec.proven);
    }
    // Branches: line 3 has 2, one proven.
    expect(files.get(APP.path)!.branches.size).toBe(2);
    expect(files.get(APP.path)!.coveredBranches.size).toBe(1);
    // The rates are the proven ones, beside <sources>.
    const lines = APP.statements.length + ODD.statements.length + TOP.statements.length;
    const covered = APP.proven.length + ODD.proven.length + TOP.proven.length;
    expect(xml).toContain(
      `lines-valid="${lines}" lines-covered="${covered}" line-rate="${(covered / lines).toFixed(4)}" branches-valid="2" branches-covered="1" branch-rate="0.5000"`,
    );
    expect(xml).toContain("<sources>\n    <source>/builds/g/p</source>\n  </sources>");
    expect(xml).toContain('<package name="src.pkg" line-rate="0.5000" branch-rate="0.5000" complexity="0">');
    expect(xml).toContain('<line number="3" hits="1" branch="true" condition-coverage="50% (1/2)"/>');
    expect(xml).toContain('filename="src/a&amp;b&lt;c&gt;&quot;d&apos;e.py"');
  });

  it("without line data: an empty report that says why, still well-formed", () => {
    const xml = provenCobertura(errorReportFixture().gate);
    expect(xml).toContain("<!-- proofgate: no proven lines to show: the gate did not measure coverage -->");
    expect(xml).toContain('lines-valid="0" lines-covered="0" line-rate="1"');
    const read = readCobertura(xml, PROVEN_COBERTURA_FILE);
    expect(read.errors).toEqual([]);
    expect(read.data!.files.size).toBe(0);
  });

  it("diff-cover 7.4 reads it: the changed lines only frozen tests run are the uncovered ones", () => {
    dir = mkdtempSync(join(tmpdir(), "proofgate-cobertura-"));
    const env = {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@example.com",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@example.com",
    };
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, stdio: "pipe" }).toString();
    git("init", "-q", "-b", "main");
    mkdirSync(join(dir, "src/pkg"), { recursive: true });
    const source = (tag: string) =>
      range(1, 10)
        .map((l) => `x${l} = "${l >= 3 && l <= 8 ? tag : "base"}"`)
        .join("\n");
    writeFileSync(join(dir, APP.path), `${source("base")}\n`);
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    git("checkout", "-q", "-b", "feature");
    writeFileSync(join(dir, APP.path), `${source("patch")}\n`);
    git("commit", "-q", "-am", "patch: lines 3-8");
    const report = frozenOnlyReport([APP]);
    writeFileSync(join(dir, PROVEN_COBERTURA_FILE), provenCobertura(report.gate, { sourceRoot: dir }));
    execFileSync(
      "/usr/bin/diff-cover",
      [PROVEN_COBERTURA_FILE, "--compare-branch=main", "--json-report", "diff.json"],
      { cwd: dir, env, stdio: "pipe" },
    );
    const diff = JSON.parse(readFileSync(join(dir, "diff.json"), "utf8")) as {
      src_stats: Record<string, { violation_lines: number[]; percent_covered: number }>;
      total_num_lines: number;
    };
    // Changed: 3-8. Proven among them: 3 and 4; 5-8 only the frozen test runs.
    const frozenOnly = report.gate.coverage!.frozenOnly!.files[0]!.ranges[0]!;
    expect([frozenOnly.start, frozenOnly.end]).toEqual([5, 8]);
    expect(diff.total_num_lines).toBe(6);
    expect(diff.src_stats[APP.path]!.violation_lines).toEqual(range(frozenOnly.start, frozenOnly.end));
    expect(diff.src_stats[APP.path]!.percent_covered).toBeCloseTo((100 * 2) / 6, 5);
  });
});
