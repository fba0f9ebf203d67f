// `proofgate init` on a vitest project, as a new user runs it: a temp project (real vitest 4.1.12 and
// @vitest/coverage-v8 4.1.12 from this repository's node_modules, linked in, untracked) with a recorded
// fixture and a snapshot. init writes vitest's commands, measures the floor with one proof run, locks the
// fixtures and protects vitest's config; committed unedited by a human, its config MERGEs a harmless patch
// and REJECTs an agent's rewritten snapshot and an agent's edit of vitest.config.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AGENT, applyFiles, check, cleanEnv, git, type CheckRun, type FileChange } from "./check-project.js";
import { PROOFGATE } from "./helpers.js";

const NODE_MODULES = fileURLToPath(new URL("../../../node_modules", import.meta.url));

const PRICE = `export function price(cents, qty) {
  if (qty <= 0) {
    return 0;
  }
  return cents * qty;
}

export function label(item) {
  return \`\${item.name}: \${price(item.cents, item.qty)}\`;
}
`;

const TEST = `import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { label, price } from "../src/price.js";

const item = JSON.parse(readFileSync(new URL("./__fixtures__/item.json", import.meta.url), "utf8"));

describe("price", () => {
  it("multiplies", () => expect(price(150, 2)).toBe(300));
  it("labels the recorded item", () => expect(label(item)).toMatchSnapshot());
});
`;

const SNAPSHOT = `// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html

exports[\`price > labels the recorded item 1\`] = \`"tea: 600"\`;
`;

function files(): Record<string, FileChange> {
  return {
    ".gitignore": "node_modules\n",
    "package.json": `${JSON.stringify(
      {
        name: "prices",
        type: "module",
        private: true,
        devDependencies: { vitest: "4.1.12", "@vitest/coverage-v8": "4.1.12" },
      },
      null,
      2,
    )}\n`,
    "vitest.config.mjs": 'export default { test: { include: ["test/**/*.test.js"] } };\n',
    "src/price.js": PRICE,
    "test/price.test.js": TEST,
    "test/__fixtures__/item.json": '{ "name": "tea", "cents": 300, "qty": 2 }\n',
    "test/__snapshots__/price.test.js.snap": SNAPSHOT,
  };
}

/** A vitest project whose human base commit holds what `proofgate init` wrote, unedited. */
function initialised(extra: Record<string, FileChange> = {}): {
  dir: string;
  init: { status: number | null; stdout: string; stderr: string };
} {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-vitest-init-"));
  symlinkSync(NODE_MODULES, join(dir, "node_modules"), "dir");
  git(dir, ["init", "-q", "-b", "main", "."]);
  applyFiles(dir, { ...files(), ...extra });
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "Prices"]);
  const init = spawnSync(process.execPath, [PROOFGATE, "init", "--platform", "local"], {
    cwd: dir,
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 110_000,
  });
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "Adopt proofgate\n\nGate-Change: human\n"]);
  git(dir, ["checkout", "-q", "-b", "patch"]);
  return { dir, init };
}

function agentCommit(dir: string, change: Record<string, FileChange>): void {
  applyFiles(dir, change);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "Patch"], AGENT);
}

/** A property test that replays its committed cases, from the base's copy when the gate hands one over. */
const PROPERTY_TEST = `import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { price } from "../../src/price.js";

const SEEDS = "test/properties/seeds/cases.json";
const file = process.env.PROOFGATE_SEEDS_DIR ? join(process.env.PROOFGATE_SEEDS_DIR, SEEDS) : new URL("./seeds/cases.json", import.meta.url);
const cases = JSON.parse(readFileSync(file, "utf8"));

it("price holds on every committed case", () => {
  expect(cases.length).toBeGreaterThan(0);
  for (const [cents, qty, total] of cases) expect(price(cents, qty)).toBe(total);
});
`;

const SEEDED: Record<string, FileChange> = {
  "test/properties/price.property.test.js": PROPERTY_TEST,
  "test/properties/seeds/cases.json": "[[150, 2, 300], [300, 0, 0]]\n",
};

const explain = (r: CheckRun): string =>
  `exit ${r.status}\n${r.report.details.map((d) => `${d.reason}: ${d.message}`).join("\n")}\n${r.report.errors.map((e) => e.message).join("\n")}\n${r.stderr.slice(-3000)}`;

describe("proofgate init on a vitest project", () => {
  it("writes vitest's commands, a measured floor, the fixture lock; check --run MERGEs a harmless patch unedited", async () => {
    const { dir, init } = initialised();
    expect(init.status, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain("vitest: vitest in package.json devDependencies; the commands run `npx --no vitest`");
    expect(init.stdout).toMatch(/floor: min_proven = \d+: the proof run, run once by init, covered \d+\.\d\d%/);
    expect(init.stdout).toContain("golden files: test/__fixtures__, test/__snapshots__");
    expect(init.stdout).toContain("wrote fixtures.lock: 2 fixture file(s)");
    expect(init.stdout).toContain("ran [commands] collect once: it works");
    // The measuring run's report is gone: check --run must not find a file it did not write.
    expect(existsSync(join(dir, "coverage", "coverage-final.json"))).toBe(false);
    const config = readFileSync(join(dir, "proofgate.toml"), "utf8");
    expect(config).toContain('runner = "vitest"');
    expect(config).toContain('collect = "npx --no vitest list --json=collected.json"');
    const floor = Number(/^min_proven = (\S+)$/m.exec(config)![1]);

    agentCommit(dir, { "README.md": "prices\n" });
    const r = await check(dir, ["--run", "--base", "main"]);
    expect(r.report.decision, explain(r)).toBe("MERGE");
    expect(r.status).toBe(0);
    expect(r.report.collected_tests).toBe(2);
    expect(r.report.accounting).toMatchObject({ proven: 2, frozen: 0, failed: 0, missing: 0 });
    expect(r.report.signals.find((s) => s.id === "test_runner")?.result).toBe("pass");
    // The floor is this coverage, rounded down (no lease: the measuring run was the proof run); price's
    // qty <= 0 branch is never run, so it is below 100.
    expect(floor).toBe(Math.floor(Number(r.report.proven_coverage_percent)));
    expect(floor).toBeLessThan(100);
  });

  it("an agent that rewrites the snapshot to match new output, or edits vitest.config: REJECT", async () => {
    const { dir } = initialised();
    agentCommit(dir, {
      "src/price.js": PRICE.replace("${item.name}: ", "${item.name} = "),
      "test/__snapshots__/price.test.js.snap": SNAPSHOT.replace("tea: 600", "tea = 600"),
    });
    const snap = await check(dir, ["--run", "--base", "main"]);
    expect(snap.report.decision, explain(snap)).toBe("REJECT");
    expect(snap.status).toBe(1);
    // The snapshot no longer matches its locked digest: the lock fails before any approval is weighed.
    expect(snap.report.reasons).toContain("fixtures_unlocked");
    expect(snap.report.details.find((d) => d.reason === "fixtures_unlocked")?.message).toContain(
      "test/__snapshots__/price.test.js.snap",
    );

    git(dir, ["reset", "-q", "--hard", "main"]);
    agentCommit(dir, {
      "vitest.config.mjs": 'export default { test: { include: ["test/**/*.test.js"], passWithNoTests: true } };\n',
    });
    const cfg = await check(dir, ["--run", "--base", "main"]);
    expect(cfg.report.decision, explain(cfg)).toBe("REJECT");
    expect(cfg.report.reasons).toContain("protected_path");
    expect(cfg.report.details.find((d) => d.reason === "protected_path")?.message).toContain("vitest.config.mjs");

    // A module the package manager preloads into every process it starts (npm's and pnpm's node-options, pnpm's
    // nodeOptions): it runs before vitest and the gate's reporter, so it could rewrite the coverage report on exit.
    git(dir, ["reset", "-q", "--hard", "main"]);
    agentCommit(dir, {
      ".npmrc": "node-options=--import=./.vitest-env.mjs\n",
      ".vitest-env.mjs": "// loaded before vitest by the package manager\n",
    });
    const preload = await check(dir, ["--run", "--base", "main"]);
    expect(preload.report.decision, explain(preload)).toBe("REJECT");
    expect(preload.report.reasons).toContain("protected_path");
    expect(preload.report.details.find((d) => d.reason === "protected_path")?.message).toContain(".npmrc");
  });

  it("a human's it.skip with a lease on the test: the lease names a test the run collected (vitest list leaves it out)", async () => {
    const { dir } = initialised();
    applyFiles(dir, {
      "test/price.test.js": TEST.replace('it("multiplies"', 'it.skip("multiplies"'),
      "freeze.toml": `version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "test/price.test.js > price > multiplies"\nowner = "ada"\nreason = "flaky on CI"\nexpires = "2099-12-31"\n`,
    });
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "-m", "Freeze multiplies\n\nFreeze-Lease: human\nTest-Removal: human\n"]);
    const r = await check(dir, ["--run", "--base", "main"]);
    expect(r.report.reasons, explain(r)).not.toContain("unknown_leases");
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it("the proof run never writes snapshots, as in CI: a deleted snapshot assertion and a new unrecorded snapshot fail", async () => {
    const { dir } = initialised();
    // The label regresses and the assertion that would catch it goes: the snapshot's entry is obsolete.
    agentCommit(dir, {
      "src/price.js": PRICE.replace("${item.name}: ", "${item.name} = "),
      "test/price.test.js": TEST.replace("expect(label(item)).toMatchSnapshot()", "label(item)"),
    });
    const gone = await check(dir, ["--run", "--base", "main"]);
    expect(gone.report.decision, explain(gone)).toBe("REJECT");
    expect(gone.report.reasons).toContain("tests_failed");
    expect(JSON.stringify(gone.report.details)).toContain("Obsolete snapshots found");
    expect(JSON.stringify(gone.report.details)).toContain("failed as a whole file");

    git(dir, ["reset", "-q", "--hard", "main"]);
    agentCommit(dir, {
      "test/price.test.js": TEST.replace(
        'it("multiplies", () => expect(price(150, 2)).toBe(300));',
        'it("multiplies", () => expect(price(150, 2)).toMatchSnapshot());',
      ),
    });
    const added = await check(dir, ["--run", "--base", "main"]);
    expect(added.report.decision, explain(added)).toBe("REJECT");
    expect(added.report.reasons).toContain("tests_failed");
    expect(added.report.reasons).not.toContain("run_wrote_repository");
    expect(git(dir, ["status", "--porcelain"]).trim()).toBe("");
  });

  it("a patch whose test fails: REJECT tests_failed (exit 1), judged with the run's coverage, not a missing report", async () => {
    const { dir } = initialised();
    agentCommit(dir, { "src/price.js": PRICE.replace("return cents * qty;", "return cents * qty + 1;") });
    const r = await check(dir, ["--run", "--base", "main"]);
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expect(r.status).toBe(1);
    expect(r.report.reasons).toContain("tests_failed");
    expect(r.report.errors).toEqual([]);
    expect(Number(r.report.proven_coverage_percent)).toBeGreaterThan(0);
  });

  it("with seeds: the properties step runs the property tests on the base's seeds; an agent's rewritten seed is REJECTed", async () => {
    const { dir, init } = initialised(SEEDED);
    expect(init.status, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain(
      "seeds: test/properties/seeds; the properties step runs test/properties on the base's seeds",
    );
    const config = readFileSync(join(dir, "proofgate.toml"), "utf8");
    expect(config).toMatch(/^properties = "npx --no vitest run test\/properties /m);
    expect(config).toContain('results = ["properties.xml"]');

    agentCommit(dir, { "README.md": "prices\n" });
    const ok = await check(dir, ["--run", "--base", "main"]);
    expect(ok.report.decision, explain(ok)).toBe("MERGE");
    expect(ok.report.commands?.map((c) => c.step)).toContain("properties");
    expect(ok.stderr).toMatch(/wrote 1 seed file\(s\) from /);

    // The agent changes what an empty order costs and rewrites the seed to match: the work tree's copy
    // agrees with the new code, so the proof run passes; the properties step reads the base's copy.
    git(dir, ["reset", "-q", "--hard", "main"]);
    agentCommit(dir, {
      "src/price.js": PRICE.replace("return 0;", "return -1;"),
      "test/properties/seeds/cases.json": "[[150, 2, 300], [300, 0, -1]]\n",
    });
    const r = await check(dir, ["--run", "--base", "main"]);
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expect(r.report.reasons).toContain("seed_rewrite");
    expect(r.report.reasons).toContain("property_hold");
    expect(r.report.reasons).not.toContain("tests_failed");
  });
});
