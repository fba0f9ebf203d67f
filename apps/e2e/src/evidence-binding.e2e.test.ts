// Evidence bound to the commit it judges (issue 21, item 3), end to end with the real pytest 7.2, coverage.py
// 6.5 and git: `check --run` on commit A, then commit B whose tests fail, then `check` without --run on B
// read A's leftover JUnit and coverage files and MERGEd. Now: exit 2 naming the stale files and A; a CI's
// own test job through `proofgate record` gives B's real verdict; the opt-out decides and says so everywhere.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROOFGATE } from "./helpers.js";
import {
  AGENT,
  CALC,
  COLLECT,
  PROPERTIES,
  check,
  cleanEnv,
  config,
  git,
  makeCheckProject,
  proofCommand,
  record,
  type CheckRun,
  type Project,
} from "./check-project.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) {
    spawnSync("chmod", ["-R", "u+w", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

function project(o: Parameters<typeof makeCheckProject>[0] = {}): Project {
  const p = makeCheckProject(o);
  made.push(p.dir);
  return p;
}

const short = (sha: string): string => sha.slice(0, 12);

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

/** Commit B: the agent breaks total(); three tests of tests/test_a.py fail. */
function breakTotal(p: Project): string {
  writeFileSync(join(p.dir, "pkg", "calc.py"), CALC.replace("result += p", "result += p + 1"));
  git(p.dir, ["commit", "-q", "-am", "Speed up total()"], AGENT);
  return git(p.dir, ["rev-parse", "HEAD"]).trim();
}

/**
 * The CI's own test job, as the Buildkite snippet runs it: the collection, the proof run without the frozen
 * tests (`proofgate deselect --format plugin`) and the property suite, each through `proofgate record`.
 */
function ciTestJob(dir: string): void {
  const deselect = `${process.execPath} ${PROOFGATE} deselect --format plugin --out .proofgate/proofgate_frozen.py`;
  const proof = proofCommand({ prefix: `${deselect} && PYTHONPATH=.proofgate `, pytestArgs: "-p proofgate_frozen" });
  for (const command of [COLLECT, proof, `PROOFGATE_SEEDS_DIR=. ${PROPERTIES}`]) {
    const r = record(dir, [command]);
    // The proof run of a broken commit fails: record exits with the command's code, and still binds.
    expect(r.status === 0 || r.status === 1, r.stderr).toBe(true);
    expect(r.stderr).toContain("proofgate: bound ");
  }
}

describe("check without --run: evidence from another commit is not this one's", () => {
  it("--run on A, then B with failing tests: check on B reading A's files is exit 2 naming them, A and the fix", async () => {
    const p = project();
    const a = p.head;
    const onA = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(onA.report.reasons, explain(onA)).toEqual([]);
    expect(onA.status).toBe(0);
    // --run stamped what its steps wrote with A.
    const stamp = JSON.parse(readFileSync(join(p.dir, "proofgate-evidence.json"), "utf8")) as {
      commit: string;
      runs: { files: { path: string }[] }[];
    };
    expect(stamp.commit).toBe(a);
    expect(stamp.runs.flatMap((r) => r.files.map((f) => f.path)).sort()).toEqual(
      ["collected.txt", "properties.xml", "proven_coverage.json", "results.xml"].sort(),
    );
    // The same commit, without --run: its own run's files are bound to it.
    const again = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(again.report.reasons, explain(again)).toEqual([]);
    expect(again.status).toBe(0);

    const b = breakTotal(p);
    const stale = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(stale.status, explain(stale)).toBe(2);
    expect(stale.report.decision).toBe("REJECT");
    expect(stale.report.reasons).toEqual(["input_error"]);
    expect(stale.report.errors.map((e) => `${e.code} ${e.file}`).sort()).toEqual(
      [
        "evidence_stale collected.txt",
        "evidence_stale properties.xml",
        "evidence_stale proven_coverage.json",
        "evidence_stale results.xml",
      ].sort(),
    );
    expect(stale.report.errors[0]!.message).toContain(`on commit ${short(a)}`);
    expect(stale.report.errors[0]!.message).toContain(`not on the commit judged, ${short(b)}`);
    expect(stale.stderr).toContain("Fix: run the tests on");
    expect(stale.stderr).toContain("proofgate record -- ");

    // No stamp at all: the files are bound to nothing, and the default requires a binding.
    rmSync(join(p.dir, "proofgate-evidence.json"));
    const unbound = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(unbound.status, explain(unbound)).toBe(2);
    expect(unbound.report.errors.map((e) => e.code)).toEqual(Array(4).fill("evidence_unbound"));
    expect(unbound.report.errors[0]!.message).toContain(`no stamp binds it to the commit judged, ${short(b)}`);
    expect(unbound.stderr).toContain("[evidence] bound = false");

    // The CI's own test job on B, through `proofgate record`: B's verdict, its failing tests.
    ciTestJob(p.dir);
    const judged = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(judged.status, explain(judged)).toBe(1);
    expect(judged.report.reasons).toContain("tests_failed");
    expect(judged.report.accounting).toMatchObject({ failed: 3, frozen: 1 });
    expect(judged.report.inputs.filter((i) => i.role === "results").map((i) => i.path)).toEqual(["results.xml"]);

    // A file changed after the run that wrote it is not that run's.
    const results = join(p.dir, "results.xml");
    writeFileSync(results, readFileSync(results, "utf8").replace(/<failure[^]*?<\/failure>/g, ""));
    const edited = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(edited.status, explain(edited)).toBe(2);
    expect(edited.report.errors.map((e) => `${e.code} ${e.file}`)).toEqual(["evidence_stale results.xml"]);
    expect(edited.report.errors[0]!.message).toContain("changed after");
  });

  it("a CI's test job on a passing commit: record, then check, MERGE; record refuses a dirty work tree", async () => {
    const p = project();
    ciTestJob(p.dir);
    const r = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.warnings.join("\n")).not.toContain("bound = false");

    writeFileSync(join(p.dir, "pkg", "calc.py"), `${CALC}\n# local edit\n`);
    const dirty = record(p.dir, [proofCommand()]);
    expect(dirty.status).toBe(2);
    expect(dirty.stderr).toContain("pkg/calc.py: has uncommitted changes");
  });

  it("record binds only what the command wrote: files it did not write stay unbound, and check says so", async () => {
    const p = project();
    // The proof run and the property suite run outside record: their files are bound to nothing.
    for (const command of [COLLECT, proofCommand(), `PROOFGATE_SEEDS_DIR=. ${PROPERTIES}`])
      spawnSync("sh", ["-c", command], { cwd: p.dir, env: cleanEnv(), encoding: "utf8" });
    const r = record(p.dir, ["--writes", "collected.txt", "--", "sh", "-c", COLLECT]);
    expect(r.status, r.stderr).toBe(0);
    const stamp = JSON.parse(readFileSync(join(p.dir, "proofgate-evidence.json"), "utf8")) as {
      commit: string;
      runs: { command: string; exitCode: number; files: { path: string }[] }[];
    };
    expect(stamp.commit).toBe(p.head);
    expect(stamp.runs.map((x) => [x.command, x.exitCode, x.files.map((f) => f.path)])).toEqual([
      [`sh -c '${COLLECT}'`, 0, ["collected.txt"]],
    ]);
    const c = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(c.status, explain(c)).toBe(2);
    expect(c.report.errors.map((e) => `${e.code} ${e.file}`).sort()).toEqual([
      "evidence_unbound properties.xml",
      "evidence_unbound proven_coverage.json",
      "evidence_unbound results.xml",
    ]);
    // A command that writes none of the evidence files binds nothing: exit 2.
    const none = record(p.dir, ["true"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("wrote none of the evidence files");
  });
});

describe("[evidence] bound = false: the opt-out decides, and every report says so", () => {
  it("a CI that writes its files without record: MERGE, the opt-out in the table, report.md and report.json", async () => {
    const p = project({ base: { "proofgate.toml": config({ extra: "\n[evidence]\nbound = false\n" }) } });
    const deselect = `${process.execPath} ${PROOFGATE} deselect --format plugin --out .proofgate/proofgate_frozen.py`;
    const proof = proofCommand({ prefix: `${deselect} && PYTHONPATH=.proofgate `, pytestArgs: "-p proofgate_frozen" });
    for (const command of [COLLECT, proof, `PROOFGATE_SEEDS_DIR=. ${PROPERTIES}`]) {
      const r = spawnSync("sh", ["-c", command], { cwd: p.dir, env: cleanEnv(), encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
    const r = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    const policy = r.report.signals.find((s) => s.id === "policy")!;
    expect(policy.value).toContain("evidence not bound to the commit ([evidence] bound = false)");
    expect(r.report.warnings.join("\n")).toContain(
      "[evidence] bound = false: check reads the JUnit and coverage files without a stamp",
    );
    expect(readFileSync(join(p.dir, "proofgate-report", "report.md"), "utf8")).toContain(
      "\\[evidence\\] bound = false",
    );
    const text = await check(p.dir, ["--base", p.base]);
    expect(text.stdout).toContain("[evidence] bound = false");

    // Opted out, a stamp that names these very bytes for another commit is still stale evidence.
    const old = p.head;
    writeFileSync(
      join(p.dir, "proofgate-evidence.json"),
      `${JSON.stringify({
        format: "proofgate-evidence",
        version: 1,
        commit: p.base,
        tree: git(p.dir, ["rev-parse", `${p.base}^{tree}`]).trim(),
        runs: [
          {
            command: "an earlier run",
            exitCode: 0,
            files: [{ path: "results.xml", sha256: r.report.inputs.find((i) => i.path === "results.xml")!.sha256 }],
          },
        ],
      })}\n`,
    );
    const stale = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(stale.status, explain(stale)).toBe(2);
    expect(stale.report.errors.map((e) => `${e.code} ${e.file}`)).toEqual(["evidence_stale results.xml"]);
    expect(stale.report.errors[0]!.message).toContain(`not on the commit judged, ${short(old)}`);
  });
});

describe("check --run: a file no step wrote is not evidence", () => {
  it("[properties] results without a properties command: a leftover properties.xml is exit 2, not read", async () => {
    const withoutProperties = config().replace(/^properties = .*\n/m, "");
    expect(withoutProperties).not.toMatch(/^properties = /m);
    const p = project({ base: { "proofgate.toml": withoutProperties } });
    writeFileSync(
      join(p.dir, "properties.xml"),
      '<testsuites><testsuite name="pytest" tests="1"><testcase classname="tests.properties.test_props" name="test_roundtrip_on_seeds" file="tests/properties/test_props.py"/></testsuite></testsuites>\n',
    );
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.errors.map((e) => `${e.code} ${e.file}`)).toEqual(["evidence_unbound properties.xml"]);
  });
});
