// Issue 21 item 8, end to end with real pytest 7.2, pytest-cov 4.0, coverage.py 6.5 and git: the code the
// tests run is the code that ships. An agent breaks pkg.calc.total and puts the old one back for the
// tests only (an autouse fixture in a test module; tests/__init__.py restoring the old __code__ at
// import): REJECT with shipped_code_replaced naming the function and the file, with `check --run` and,
// from the added lines, without it. The same by a human with `Gate-Change: human`, and ordinary mocking
// (a dependency, a source function the patch did not change) by an agent: MERGE.
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  HUMAN,
  MERGE_PATCH,
  TEST_A,
  check,
  config,
  makeCheckProject,
  type CheckRun,
  type FileChange,
  type Identity,
  type Project,
} from "./check-project.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

// The tests that keep the old total never run the shipped one, so its lines go unmeasured: a floor that
// coverage alone would not catch (the projects this came from covered the function elsewhere).
const BASE = { "proofgate.toml": config({ minProven: 1 }) };

function project(files: Record<string, FileChange>, who: Identity, message: string): Project {
  const p = makeCheckProject({ base: BASE, patch: [{ message, files, who }] });
  made.push(p.dir);
  return p;
}

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

const lineOf = (text: string, needle: string): number => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

/** pkg/calc.py and tests/test_b.py after MERGE_PATCH, the agent's first commit. */
const CALC = MERGE_PATCH.files["pkg/calc.py"] as string;
const TEST_B = MERGE_PATCH.files["tests/test_b.py"] as string;

/** total() broken: the discount is added instead of taken off. */
const BROKEN_CALC = CALC.replace("result * (100 - discount) / 100", "result * (100 + discount) / 100");

/** The original total(), kept in test code. */
const OLD_TOTAL = `def _old_total(prices, discount=0):
    result = 0
    for p in prices:
        if p < 0:
            raise ValueError("negative price")
        result += p
    if discount:
        result = result * (100 - discount) / 100
    return result
`;

/** tests/test_a.py calling pkg.calc.total, with an autouse fixture that puts the old one back. */
const FIXTURE_TEST_A = `import pkg.calc
${TEST_A.replace("from pkg.calc import label, total", "from pkg.calc import label").replace(/\btotal\(/g, "pkg.calc.total(")}

${OLD_TOTAL}

@pytest.fixture(autouse=True)
def _keep_total(monkeypatch):
    monkeypatch.setattr(pkg.calc, "total", _old_total)
`;

/** tests/__init__.py that restores the old code of total when the tests are imported. */
const INIT_RESTORE = `import pkg.calc

${OLD_TOTAL}

pkg.calc.total.__code__ = _old_total.__code__
`;

const RUN = (p: Project) => ["--run", "--base", p.base, "--format", "json"];

describe("shipped_code_replaced: the tests ran other code than the code that ships", () => {
  it("an agent's autouse fixture in a test module that puts back the function it broke is REJECT, naming the function and the file (and without --run, from the added line)", async () => {
    const p = project({ "pkg/calc.py": BROKEN_CALC, "tests/test_a.py": FIXTURE_TEST_A }, AGENT, "Speed up total\n");
    const r = await check(p.dir, RUN(p));
    expect(r.report.reasons, explain(r)).toEqual(["shipped_code_replaced"]);
    expect(r.status).toBe(1);
    const [f] = r.report.details.filter((d) => d.reason === "shipped_code_replaced");
    expect(f!.message).toContain("pkg.calc.total");
    expect(f!.message).toContain(
      `pkg/calc.py:${lineOf(BROKEN_CALC, "def total")}-${lineOf(BROKEN_CALC, "return result")}`,
    );
    expect(f!.file).toBe("tests/test_a.py");
    expect(f!.line).toBe(lineOf(FIXTURE_TEST_A, 'monkeypatch.setattr(pkg.calc, "total"'));
    expect(f!.commit).toBe(p.head);
    expect(f!.author).toContain(AGENT.name);

    // The static reading: the run's artifacts are this commit's, and no run record is read.
    const s = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(s.report.reasons, explain(s)).toContain("shipped_code_replaced");
    const [g] = s.report.details.filter((d) => d.reason === "shipped_code_replaced");
    expect(g!.file).toBe("tests/test_a.py");
    expect(g!.line).toBe(lineOf(FIXTURE_TEST_A, 'monkeypatch.setattr(pkg.calc, "total"'));
    expect(g!.message).toContain("replaces total");
  });

  it("an agent's tests/__init__.py that restores the old __code__ at import is REJECT, naming that file and line", async () => {
    const p = project({ "pkg/calc.py": BROKEN_CALC, "tests/__init__.py": INIT_RESTORE }, AGENT, "Speed up total\n");
    const r = await check(p.dir, RUN(p));
    expect(r.report.reasons, explain(r)).toEqual(["shipped_code_replaced"]);
    const [f] = r.report.details.filter((d) => d.reason === "shipped_code_replaced");
    expect(f!.message).toContain("the code of pkg.calc.total");
    expect(f!.message).toContain("while the tests were collected");
    expect(f!.file).toBe("tests/__init__.py");
    expect(f!.line).toBe(lineOf(INIT_RESTORE, "__code__ ="));
    expect(f!.commit).toBe(p.head);
  });

  it("the same through the module's __dict__ (no frame shows the writer) is REJECT, charged to the test code the agent added", async () => {
    const init = `import pkg.calc\n\n${OLD_TOTAL}\n\nvars(pkg.calc)["total"] = _old_total\n`;
    const p = project({ "pkg/calc.py": BROKEN_CALC, "tests/__init__.py": init }, AGENT, "Speed up total\n");
    const r = await check(p.dir, RUN(p));
    expect(r.report.reasons, explain(r)).toEqual(["shipped_code_replaced"]);
    const [f] = r.report.details.filter((d) => d.reason === "shipped_code_replaced");
    expect(f!.message).toContain("pkg.calc.total");
    expect(f!.file).toBe("tests/__init__.py");
  });

  it("the same fixture by a human with `Gate-Change: human` is MERGE", async () => {
    const p = project(
      { "pkg/calc.py": BROKEN_CALC, "tests/test_a.py": FIXTURE_TEST_A },
      HUMAN,
      "Keep the old total in the tests while the new one is reviewed\n\nGate-Change: human\n",
    );
    const r = await check(p.dir, RUN(p));
    expect(r.report.decision, explain(r)).toBe("MERGE");
    expect(r.status).toBe(0);
  });

  it("the same fixture by a human without the trailer is REJECT", async () => {
    const p = project(
      { "pkg/calc.py": BROKEN_CALC, "tests/test_a.py": FIXTURE_TEST_A },
      HUMAN,
      "Keep the old total in the tests\n",
    );
    const r = await check(p.dir, RUN(p));
    expect(r.report.reasons, explain(r)).toEqual(["shipped_code_replaced"]);
    expect(r.report.details[0]!.message).toContain("lacks `Gate-Change: human`");
  });

  it("an agent's ordinary mocking (a dependency, the environment, a source function the patch did not change) is MERGE", async () => {
    const mocking = `${TEST_B}

def test_encode_mocked(monkeypatch):
    import os

    import pkg.calc

    monkeypatch.setenv("LANG", "C")
    monkeypatch.setattr(os, "getcwd", lambda: "/")
    monkeypatch.setattr(pkg.calc, "encode", lambda text: "mocked")
    assert pkg.calc.encode("a") == "mocked"
    assert os.getcwd() == "/"
`;
    const p = project(
      { "pkg/calc.py": CALC.replace("def label(n):", "def label(n):\n    n = int(n)"), "tests/test_b.py": mocking },
      AGENT,
      "label takes strings; a test with mocks\n",
    );
    const r = await check(p.dir, RUN(p));
    expect(r.report.decision, explain(r)).toBe("MERGE");
    const s = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(s.report.decision, explain(s)).toBe("MERGE");
  });
});
