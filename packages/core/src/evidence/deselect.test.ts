import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  deselectionJson,
  findPrefixCollateral,
  planDeselection,
  pythonRegexEscape,
  pythonString,
  renderContextsRegex,
  renderDeselectArgs,
  renderDeselectPlugin,
} from "./deselect.js";
import type { Lease, Ledger } from "../ledger/ledger.js";
import type { Universe } from "./universe.js";

const TODAY = "2026-09-20";

function ledgerOf(
  leases: Array<{ nodeid: string; expires?: string }>,
  options: Partial<Omit<Ledger, "leases">> = {},
): Ledger {
  return {
    file: "freeze.toml",
    version: 1,
    maxActiveLeases: 10,
    budgetOmitted: false,
    rejectIfExpired: true,
    rejectIfAgentAddsLease: true,
    ...options,
    leases: leases.map((l, index): Lease => ({
      index,
      nodeid: l.nodeid,
      owner: "team",
      reason: "flaky",
      expires: l.expires ?? "2026-12-31",
      line: 3 + index * 6,
    })),
  };
}

function universeOf(ids: string[]): Universe {
  return { file: "collected.txt", ids, duplicates: [], collectionErrors: [], summaryCount: ids.length };
}

const activeLease = (nodeid: string): Lease => ({ index: 0, nodeid, owner: "o", reason: "r", expires: "2026-12-31" });

// Debian's python: the interpreter the plugin's strings and the contexts regex must satisfy.
// (Real pytest runs of the plugin are in apps/e2e/src/deselect.e2e.test.ts.)
const PYTHON = "/usr/bin/python3";
const python = (code: string, input = "", args: string[] = []): string =>
  execFileSync(PYTHON, ["-c", code, ...args], { input, encoding: "utf8" });

const scratch: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-deselect-"));
  scratch.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe("findPrefixCollateral: what plain --deselect would also drop", () => {
  it("finds test_x_slow behind a lease on test_x", () => {
    const ids = ["tests/a.py::test_x", "tests/a.py::test_x_slow", "tests/a.py::test_y"];
    expect(findPrefixCollateral([activeLease("tests/a.py::test_x")], ids)).toEqual([
      { lease: activeLease("tests/a.py::test_x"), alsoDropped: ["tests/a.py::test_x_slow"] },
    ]);
  });

  it("does not report the longer id when it is itself leased", () => {
    const ids = ["tests/a.py::test_x", "tests/a.py::test_x_slow"];
    expect(
      findPrefixCollateral([activeLease("tests/a.py::test_x"), activeLease("tests/a.py::test_x_slow")], ids),
    ).toEqual([]);
  });

  it("does not report test_p[10] for a lease on test_p[1]: the closing bracket ends the prefix", () => {
    const ids = ["tests/a.py::test_p[1]", "tests/a.py::test_p[10]", "tests/a.py::test_p[2]"];
    expect(findPrefixCollateral([activeLease("tests/a.py::test_p[1]")], ids)).toEqual([]);
  });

  it("finds every parameter of test_x2 behind a lease on test_x", () => {
    const ids = ["tests/test_a.py::test_x", "tests/test_a.py::test_x2[1]", "tests/test_a.py::test_x2[2]"];
    expect(findPrefixCollateral([activeLease("tests/test_a.py::test_x")], ids)[0]!.alsoDropped).toEqual([
      "tests/test_a.py::test_x2[1]",
      "tests/test_a.py::test_x2[2]",
    ]);
  });

  it("finds every test of a file whose name extends the leased one, in any order of ids", () => {
    const ids = [
      "tests/a.py::test_x_b",
      "tests/z.py::test_x",
      "tests/a.py::test_x",
      "tests/a.py::test_x_a",
      "tests/a.py::test_w",
    ];
    expect(findPrefixCollateral([activeLease("tests/a.py::test_x")], ids)[0]!.alsoDropped).toEqual([
      "tests/a.py::test_x_a",
      "tests/a.py::test_x_b",
    ]);
  });

  it("reports nothing when no id extends a leased one", () => {
    expect(
      findPrefixCollateral([activeLease("tests/a.py::test_x")], ["tests/a.py::test_x", "tests/a.py::test_w"]),
    ).toEqual([]);
  });
});

describe("planDeselection: refusals in the reference script's order", () => {
  const ids = [
    "tests/a.py::test_x",
    "tests/a.py::test_x_slow",
    "tests/a.py::test_p[1-2]",
    "tests/a.py::test_p[3-4]",
    "tests/a.py::TestA::test_same",
    "tests/b.py::test_same",
    "tests/b.py::TestB::test_other",
  ];
  const universe = universeOf(ids);
  const expired = { nodeid: "tests/a.py::test_x", expires: "2026-09-19" };
  const unknown = { nodeid: "tests/a.py::test_p[1-2-0]" };
  const good = (n: number) => ids.slice(0, n).map((nodeid) => ({ nodeid }));

  it("refuses expired leases first, even when a lease is unknown and the budget is blown", () => {
    const plan = planDeselection(
      ledgerOf([expired, unknown, ...good(3).slice(1)], { maxActiveLeases: 0 }),
      universe,
      TODAY,
    );
    expect(plan.refusal).toBe("expired_leases");
    expect(plan.expired.map((l) => l.nodeid)).toEqual(["tests/a.py::test_x"]);
    expect(plan.collateral).toEqual([]);
  });

  it("refuses unknown leases next, before the budget", () => {
    const plan = planDeselection(ledgerOf([unknown, ...good(2)], { maxActiveLeases: 0 }), universe, TODAY);
    expect(plan.refusal).toBe("unknown_leases");
    expect(plan.overBudget).toBe(3);
  });

  it("refuses an exceeded budget last", () => {
    const plan = planDeselection(ledgerOf(good(3), { maxActiveLeases: 2 }), universe, TODAY);
    expect(plan).toMatchObject({ refusal: "freeze_budget", overBudget: 1, unknown: [], expired: [] });
  });

  it("accepts exactly the budget", () => {
    expect(planDeselection(ledgerOf(good(3), { maxActiveLeases: 3 }), universe, TODAY).refusal).toBeUndefined();
  });

  it("treats a lease as active on its expiry day and expired the day after", () => {
    const ledger = ledgerOf([{ nodeid: "tests/a.py::test_x", expires: TODAY }]);
    expect(planDeselection(ledger, universe, TODAY).refusal).toBeUndefined();
    expect(planDeselection(ledger, universe, "2026-09-21").refusal).toBe("expired_leases");
  });

  it("does not refuse expired leases when reject_if_expired is false, and does not deselect them", () => {
    const plan = planDeselection(
      ledgerOf([expired, { nodeid: "tests/a.py::test_p[1-2]" }], { rejectIfExpired: false }),
      universe,
      TODAY,
    );
    expect(plan.refusal).toBeUndefined();
    expect(renderDeselectArgs(plan)).toBe("--deselect=tests/a.py::test_p[1-2]\n");
  });

  it("suggests the same test with other parameter brackets, then the same name elsewhere", () => {
    const plan = planDeselection(ledgerOf([unknown, { nodeid: "tests/c.py::TestGone::test_same" }]), universe, TODAY);
    expect(plan.unknown.map((u) => [u.lease.nodeid, u.close])).toEqual([
      [
        "tests/a.py::test_p[1-2-0]",
        [
          { id: "tests/a.py::test_p[1-2]", why: "other parameters" },
          { id: "tests/a.py::test_p[3-4]", why: "other parameters" },
        ],
      ],
      [
        "tests/c.py::TestGone::test_same",
        [
          { id: "tests/a.py::TestA::test_same", why: "same name elsewhere" },
          { id: "tests/b.py::test_same", why: "same name elsewhere" },
        ],
      ],
    ]);
  });

  it("suggests the parametrized ids for a lease on the bare function name", () => {
    const plan = planDeselection(ledgerOf([{ nodeid: "tests/a.py::test_p" }]), universe, TODAY);
    expect(plan.unknown[0]!.close.map((c) => c.id)).toEqual(["tests/a.py::test_p[1-2]", "tests/a.py::test_p[3-4]"]);
  });

  it("suggests nothing for a lease that resembles no collected test", () => {
    expect(planDeselection(ledgerOf([{ nodeid: "tests/q.py::test_zzz" }]), universe, TODAY).unknown[0]!.close).toEqual(
      [],
    );
  });

  it("lists prefix collateral when it does not refuse", () => {
    const plan = planDeselection(ledgerOf([{ nodeid: "tests/a.py::test_x" }]), universe, TODAY);
    expect(plan.collateral.map((c) => [c.lease.nodeid, c.alsoDropped])).toEqual([
      ["tests/a.py::test_x", ["tests/a.py::test_x_slow"]],
    ]);
  });
});

describe("renderDeselectArgs", () => {
  it("prints one --deselect line per active lease, in ledger order, ids exactly as collected", () => {
    const leased = ["tests/b.py::test_p[a b]", "tests/a.py::test_x", "tests/a.py::test_p[caf\\xe9]"];
    const plan = planDeselection(ledgerOf(leased.map((nodeid) => ({ nodeid }))), universeOf(leased), TODAY);
    expect(renderDeselectArgs(plan)).toBe(
      "--deselect=tests/b.py::test_p[a b]\n--deselect=tests/a.py::test_x\n--deselect=tests/a.py::test_p[caf\\xe9]\n",
    );
  });

  it("prints nothing when no lease is active", () => {
    expect(renderDeselectArgs(planDeselection(ledgerOf([]), universeOf(["tests/a.py::t"]), TODAY))).toBe("");
  });
});

describe("deselectionJson", () => {
  it("lists the active leases, the ids they deselect and the collateral", () => {
    const plan = planDeselection(
      ledgerOf([{ nodeid: "tests/a.py::test_x" }]),
      universeOf(["tests/a.py::test_x", "tests/a.py::test_x_slow"]),
      TODAY,
    );
    expect(deselectionJson(plan, "freeze.toml", "collected.txt")).toEqual({
      today_utc: TODAY,
      ledger: "freeze.toml",
      universe: "collected.txt",
      active_leases: [{ nodeid: "tests/a.py::test_x", owner: "team", reason: "flaky", expires: "2026-12-31", line: 3 }],
      deselected: ["tests/a.py::test_x"],
      prefix_collateral: [{ lease: "tests/a.py::test_x", also_dropped_by_plain_deselect: ["tests/a.py::test_x_slow"] }],
    });
  });
});

// Ids that are hard to quote: quotes, backslashes (pytest's own \x escapes), non-ASCII, astral characters.
const TRICKY_IDS = [
  "tests/a.py::test_x",
  'tests/a.py::test_q[say "hi"]',
  "tests/a.py::test_q[it's]",
  "tests/a.py::test_q[caf\\xe9]",
  "tests/a.py::test_q[back\\\\slash]",
  "tests/a.py::test_q[café]",
  "tests/a.py::test_q[日本]",
  "tests/a.py::test_q[😀 emoji]",
  "tests/a.py::test_q[tab\there]",
  "tests/a.py::test_q[a,b]",
  "tests/a.py::test_q[x|run]",
  "tests/a.py::test_q[(.*)+?{1}$^]",
  "tests/a.py::test_q[#&~-]",
  "tests/a.py::test_q[\u007f\u0080\u00ff\u0100\uffff]",
];

describe("pythonString", () => {
  it("writes ASCII only", () => {
    for (const id of TRICKY_IDS) expect(pythonString(id)).toMatch(/^"[\x20-\x7e]*"$/);
  });

  it.each([
    ["plain", '"plain"'],
    ['a"b', '"a\\"b"'],
    ["a\\b", '"a\\\\b"'],
    ["é", '"\\xe9"'],
    ["€", '"\\u20ac"'],
    ["😀", '"\\U0001f600"'],
    ["\n", '"\\x0a"'],
  ])("quotes %j as %s", (text, literal) => {
    expect(pythonString(text)).toBe(literal);
  });

  it("round-trips through Python's parser for tricky ids", () => {
    const literals = TRICKY_IDS.map(pythonString);
    const out = python(
      "import ast, json, sys; print(json.dumps([ast.literal_eval(l) for l in json.load(sys.stdin)]))",
      JSON.stringify(literals),
    );
    expect(JSON.parse(out)).toEqual(TRICKY_IDS);
  });
});

describe("renderDeselectPlugin", () => {
  const leased = TRICKY_IDS.slice(1);
  const plan = planDeselection(ledgerOf(leased.map((nodeid) => ({ nodeid }))), universeOf(TRICKY_IDS), TODAY);
  const source = renderDeselectPlugin(plan, 'ci/freeze "main".toml');

  it("is ASCII and names the day and the ledger", () => {
    expect(source).toMatch(/^[\x00-\x7f]*$/);
    expect(source).toContain(`Generated by proofgate on ${TODAY}`);
  });

  it("is valid Python whose frozen set holds exactly the leased ids", () => {
    const dir = tempDir();
    const file = join(dir, "proofgate_frozen.py");
    writeFileSync(file, source);
    python("import ast, sys; ast.parse(open(sys.argv[1]).read())", "", [file]);
    const out = python(
      [
        "import ast, json, sys",
        "tree = ast.parse(open(sys.argv[1]).read())",
        "values = {}",
        "for node in tree.body:",
        "    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):",
        "        value = node.value",
        "        if isinstance(value, ast.Call):",
        "            value = value.args[0]",
        "        values[node.targets[0].id] = ast.literal_eval(value)",
        "print(json.dumps({'ledger': values['PROOFGATE_LEDGER'], 'frozen': sorted(values['PROOFGATE_FROZEN'])}))",
      ].join("\n"),
      "",
      [file],
    );
    expect(JSON.parse(out)).toEqual({ ledger: 'ci/freeze "main".toml', frozen: [...leased].sort() });
  });
});

describe("renderContextsRegex", () => {
  const frozen = [
    "tests/a.py::test_x",
    "tests/a.py::test_q[a,b]",
    "tests/a.py::test_q[caf\\xe9]",
    "tests/a.py::test_q[(.*)+?{1}$^ |#&~-]",
    "tests/a.py::test_q[😀]",
  ];
  const plan = planDeselection(ledgerOf(frozen.map((nodeid) => ({ nodeid }))), universeOf(frozen), TODAY);
  const regex = renderContextsRegex(plan);

  it("contains no raw comma (coverage.py splits --contexts on commas)", () => {
    expect(regex).not.toContain(",");
  });

  it("keeps everything when nothing is frozen", () => {
    expect(renderContextsRegex(planDeselection(ledgerOf([]), universeOf(["tests/a.py::t"]), TODAY))).toBe(".*");
  });

  it("escapes every regex metacharacter", () => {
    expect(pythonRegexEscape("a.b*c+d?e(f)g[h]i{j}k|l^m$n\\o")).toBe(
      "a\\.b\\*c\\+d\\?e\\(f\\)g\\[h\\]i\\{j\\}k\\|l\\^m\\$n\\\\o",
    );
    expect(pythonRegexEscape("x,y z")).toBe("x\\x2cy\\x20z");
  });

  it("as Python's re.search (coverage.py's REGEXP) drops only the frozen tests' setup/run/teardown", () => {
    const contexts: Array<[context: string, kept: boolean]> = [
      ["", true], // import and collection: they run in a rerun too
      ...frozen.flatMap((id): Array<[string, boolean]> => [
        [`${id}|setup`, false],
        [`${id}|run`, false],
        [`${id}|teardown`, false],
        [`${id}_slow|run`, true],
        [`${id}|call`, true],
        [`x${id}|run`, true],
      ]),
      ["tests/a.py::test_y|run", true],
      ["tests/a.py::test_x[1]|run", true],
      ["tests/a.py::test_q[a b]|run", true],
      ["tests/a.py::test_q[cafe9]|run", true],
    ];
    const out = python(
      "import json, re, sys; data = json.load(sys.stdin); rx = re.compile(data['regex']); print(json.dumps([rx.search(c) is not None for c in data['contexts']]))",
      JSON.stringify({ regex, contexts: contexts.map(([c]) => c) }),
    );
    expect(JSON.parse(out)).toEqual(contexts.map(([, kept]) => kept));
  });
});
