import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Commit } from "../model/authorship.js";
import { ADA, BOT, POLICY, commitFactory } from "../__fixtures__/commits.js";
import { accountEvidence } from "./evidence.js";
import type { TestResult } from "./junit.js";
import type { Lease } from "../ledger/ledger.js";
import type { CommitPaths } from "../patch/patch.js";
import {
  collectionConfigMatcher,
  commandFiles,
  judgeTestChanges,
  rootdirMoved,
  pairRenames,
  parseXpassedIds,
  renderOnlyPlugin,
  renderSkipMarksPlugin,
  parseSkipMarkedIds,
  type FileRename,
  type TestChangeEvidence,
  type TestChangeJudgement,
} from "./test-changes.js";
import { parseCollectOnly, type Universe } from "./universe.js";
import { ROOTDIR_IS_ROOT, testIdPaths, type TestIdPaths } from "../python/test-id-paths.js";

const policy = POLICY;
const commit = commitFactory("a");
const agent = (): Commit => commit(BOT);
const human = (): Commit => commit(ADA);
const approved = (): Commit => commit(ADA, "Test-Removal");

const universe = (ids: string[], file = "collected.txt"): Universe => ({
  file,
  ids,
  duplicates: [],
  collectionErrors: [],
  summaryCount: ids.length,
});
const lease = (nodeid: string): Lease => ({
  index: 0,
  nodeid,
  owner: "ada",
  reason: "flaky",
  expires: "2099-12-31" as Lease["expires"],
  line: 3,
});
const result = (id: string, outcome: TestResult["outcome"], extra: Partial<TestResult> = {}): TestResult => ({
  id,
  outcome,
  file: "results.xml",
  line: 1,
  classname: "",
  name: id,
  mapping: "file",
  collectionError: false,
  ...extra,
});

const BASE = [
  "tests/test_a.py::test_one",
  "tests/test_a.py::test_two",
  "tests/test_b.py::test_three",
  "tests/test_c.py::test_x",
  "tests/test_c.py::test_y",
];

interface Case {
  name: string;
  head: string[];
  touched: [Commit, string[]][];
  renames?: FileRename[];
  leases?: string[];
  results?: TestResult[];
  base?: TestChangeEvidence["base"];
  baseSkips?: TestChangeEvidence["baseSkips"];
  collectionFiles?: string[];
  maxNewSkips?: number;
  /** reason, file, commit index in `touched` (or null), and what the message must contain. */
  expect: [string, string, number | null, string][];
  also?: (j: TestChangeJudgement) => void;
  /** The range is one commit (decide says so from base and head); unset: taken from `touched` being empty. */
  emptyRange?: boolean;
}

function judge(c: Case): TestChangeJudgement {
  const touched: CommitPaths[] = c.touched.map(([commit, paths]) => ({ commit, paths }));
  const head = universe(c.head);
  const active = (c.leases ?? []).map(lease);
  return judgeTestChanges(
    {
      base: c.base ?? { kind: "measured", universe: { file: "collected.txt (base)", ids: BASE } },
      baseSkips: c.baseSkips,
      touched,
      renames: c.renames ?? [],
      collectionFiles: c.collectionFiles ?? [],
      maxNewSkips: c.maxNewSkips ?? 0,
    },
    {
      head,
      active,
      accounting: c.results ? accountEvidence(head, active, c.results) : undefined,
      commits: touched.map((t) => t.commit),
      policy,
      emptyRange: c.emptyRange,
    },
  );
}

const withoutTwo = BASE.filter((id) => id !== "tests/test_a.py::test_two");
const passing = (ids: string[]): TestResult[] => ids.map((id) => result(id, "passed"));

const CASES: Case[] = (() => {
  const a1 = agent();
  const h1 = human();
  const ok1 = approved();
  const a2 = agent();
  const ok2 = approved();
  const a3 = agent();
  const a4 = agent();
  const a5 = agent();
  const ok5 = approved();
  const a6 = agent();
  const a7 = agent();
  const a8 = agent();
  const ok8 = approved();
  const a9 = agent();
  const a10 = agent();
  const a11 = agent();
  const a12 = agent();
  const a13 = agent();
  return [
    {
      name: "an agent deletes a test: tests_removed names it, the commit and the author",
      head: withoutTwo,
      touched: [[a1, ["tests/test_a.py"]]],
      expect: [
        ["tests_removed", "tests/test_a.py", 0, "tests/test_a.py::test_two is collected at base but not at head"],
      ],
      also: (j) => expect(j).toMatchObject({ baseTests: 5, gone: 1, approvedRemovals: 0, renamed: 0 }),
    },
    {
      name: "a human deletes it without the trailer: the finding says what the commit lacks",
      head: withoutTwo,
      touched: [[h1, ["tests/test_a.py"]]],
      expect: [["tests_removed", "tests/test_a.py", 0, "lacks `Test-Removal: human`"]],
    },
    {
      name: "a human deletes it with `Test-Removal: human`: approved",
      head: withoutTwo,
      touched: [[ok1, ["tests/test_a.py"]]],
      expect: [],
      also: (j) => expect(j).toMatchObject({ gone: 1, approvedRemovals: 1 }),
    },
    {
      name: "an agent's removal is not excused by a human's trailer on another commit touching the file",
      head: withoutTwo,
      touched: [
        [a2, ["tests/test_a.py"]],
        [ok2, ["tests/test_a.py"]],
      ],
      expect: [["tests_removed", "tests/test_a.py", 0, "is an agent's"]],
    },
    {
      name: "a leased test may go: unknown_leases judges the lease",
      head: withoutTwo,
      touched: [[a3, ["tests/test_a.py"]]],
      leases: ["tests/test_a.py::test_two"],
      expect: [],
    },
    {
      name: "a deleted test file: one finding for its tests",
      head: BASE.filter((id) => !id.startsWith("tests/test_c.py")),
      touched: [[a4, ["tests/test_c.py"]]],
      expect: [
        [
          "tests_removed",
          "tests/test_c.py",
          0,
          "2 tests of tests/test_c.py collected at base are not collected at head: tests/test_c.py::test_x, tests/test_c.py::test_y",
        ],
      ],
    },
    {
      name: "a file renamed (git -M) shows both names, and is still a finding",
      head: [...withoutTwo.filter((id) => !id.startsWith("tests/test_b.py")), "tests/test_bb.py::test_three"],
      touched: [
        [a5, ["tests/test_bb.py", "tests/test_b.py"]],
        [ok5, ["tests/test_a.py"]],
      ],
      renames: [{ from: "tests/test_b.py", to: "tests/test_bb.py" }],
      expect: [
        [
          "tests_removed",
          "tests/test_b.py",
          0,
          "tests/test_b.py::test_three (renamed: tests/test_bb.py::test_three) is collected at base but not at head",
        ],
      ],
      also: (j) => expect(j).toMatchObject({ gone: 2, renamed: 1, approvedRemovals: 1 }),
    },
    {
      name: "a function renamed in its file is paired with the new name",
      head: [...withoutTwo, "tests/test_a.py::test_deux"],
      touched: [[a6, ["tests/test_a.py"]]],
      expect: [
        ["tests_removed", "tests/test_a.py", 0, "tests/test_a.py::test_two (renamed: tests/test_a.py::test_deux)"],
      ],
    },
    {
      name: "`--ignore` in pytest.ini: attributed to the commit that touched the collection configuration",
      head: BASE.filter((id) => !id.startsWith("tests/test_c.py")),
      touched: [
        [a7, ["pytest.ini"]],
        [ok8, ["README.md"]],
      ],
      expect: [["tests_removed", "tests/test_c.py", 0, "and touched pytest.ini"]],
    },
    {
      name: "collect_ignore in a nested conftest.py is collection configuration too",
      head: BASE.filter((id) => !id.startsWith("tests/test_c.py")),
      touched: [[a8, ["tests/conftest.py"]]],
      expect: [["tests_removed", "tests/test_c.py", 0, "touched tests/conftest.py"]],
    },
    {
      name: "a pure reformat of pytest.ini: nothing removed, nothing to judge",
      head: BASE,
      touched: [[a9, ["pytest.ini", "pyproject.toml"]]],
      expect: [],
      also: (j) => expect(j).toMatchObject({ gone: 0, removed: [], skipped: [] }),
    },
    {
      name: "a file [commands] collect names (a Makefile) counts as collection configuration",
      head: withoutTwo,
      touched: [[a10, ["Makefile"]]],
      collectionFiles: ["Makefile"],
      expect: [["tests_removed", "tests/test_a.py", 0, "touched Makefile"]],
    },
    {
      name: "a removal through code the test imports (its file and the configuration untouched): the commit that changed the code answers",
      head: withoutTwo,
      touched: [[a11, ["pkg/data.py"]]],
      expect: [["tests_removed", "tests/test_a.py", 0, "pkg/data.py"]],
    },
    {
      name: "... which a human's trailer on another commit does not approve: it answers for the human's own commit",
      head: withoutTwo,
      touched: [
        [a11, ["pkg/data.py"]],
        [approved(), ["README.md"]],
      ],
      expect: [["tests_removed", "tests/test_a.py", 0, "pkg/data.py"]],
    },
    {
      name: "... the code changed by a human with the trailer: approved",
      head: withoutTwo,
      touched: [
        [approved(), ["pkg/data.py"]],
        [agent(), ["docs/usage.md"]],
      ],
      expect: [],
    },
    {
      name: "a removal no commit explains at all (documentation only): a finding without a commit",
      head: withoutTwo,
      touched: [[a11, ["README.md"]]],
      expect: [["tests_removed", "tests/test_a.py", null, "no commit in the range touched tests/test_a.py"]],
    },
    {
      name: "... which a human commit carrying the trailer anywhere in the range approves",
      head: withoutTwo,
      touched: [
        [agent(), ["README.md"]],
        [approved(), []],
      ],
      expect: [],
    },
    {
      name: "the base not measured: the row says how to turn it on, nothing is judged removed",
      head: withoutTwo,
      touched: [[agent(), ["tests/test_a.py"]]],
      base: { kind: "not_measured", why: "no base universe", fix: "run `proofgate check --run`" },
      expect: [],
      also: (j) => expect(j.notMeasured).toEqual({ why: "no base universe", fix: "run `proofgate check --run`" }),
    },
    {
      name: "an agent's skip marker, no base results: tests_skipped_unledgered, the fix says how to give base evidence",
      head: BASE,
      touched: [[a12, ["tests/test_a.py"]]],
      results: [
        ...passing(BASE.filter((id) => id !== "tests/test_a.py::test_one")),
        result("tests/test_a.py::test_one", "skipped", { message: "later" }),
      ],
      expect: [
        [
          "tests_skipped_unledgered",
          "tests/test_a.py",
          0,
          "1 test(s) of tests/test_a.py are skipped or xfailed at head without a lease, and no base results show them skipped there: tests/test_a.py::test_one (later)",
        ],
      ],
      also: (j) => {
        expect(j.skipped[0]!.fix).toContain("[results] base_junit");
        expect(j).toMatchObject({ newSkips: 1, skipsWithoutBase: true });
      },
    },
    {
      name: "an xfail that was skipped at base too is not new",
      head: BASE,
      touched: [[agent(), ["tests/test_a.py"]]],
      results: [...passing(BASE.slice(1)), result("tests/test_a.py::test_one", "xfail")],
      baseSkips: { file: "base.xml", skipped: ["tests/test_a.py::test_one"] },
      expect: [],
      also: (j) => expect(j.newSkips).toBe(0),
    },
    {
      name: "a skip that ran at base is new, and says so",
      head: BASE,
      touched: [[a13, ["tests/test_a.py"]]],
      results: [...passing(BASE.slice(1)), result("tests/test_a.py::test_one", "xfail")],
      baseSkips: { file: "base.xml", skipped: [] },
      expect: [["tests_skipped_unledgered", "tests/test_a.py", 0, "and were not skipped at base"]],
    },
    {
      name: "a leased skip is frozen, not a new skip",
      head: BASE,
      touched: [[agent(), ["tests/test_a.py"]]],
      leases: ["tests/test_a.py::test_one"],
      results: [...passing(BASE.slice(1)), result("tests/test_a.py::test_one", "skipped")],
      expect: [],
    },
    {
      name: "within max_new_skips: counted, not rejected",
      head: BASE,
      touched: [[agent(), ["tests/test_a.py"]]],
      results: [...passing(BASE.slice(1)), result("tests/test_a.py::test_one", "skipped")],
      maxNewSkips: 1,
      expect: [],
      also: (j) => expect(j).toMatchObject({ newSkips: 1, approvedSkips: 0 }),
    },
    {
      name: "a human's skip with the trailer: approved",
      head: BASE,
      touched: [[approved(), ["tests/test_a.py"]]],
      results: [...passing(BASE.slice(1)), result("tests/test_a.py::test_one", "skipped")],
      expect: [],
      also: (j) => expect(j).toMatchObject({ newSkips: 1, approvedSkips: 1 }),
    },
    {
      name: "a module-level skip: its base tests are skips (named one by one), not removals",
      head: BASE.filter((id) => !id.startsWith("tests/test_c.py")),
      touched: [[agent(), ["tests/test_c.py"]]],
      results: [
        ...passing(BASE.filter((id) => !id.startsWith("tests/test_c.py"))),
        result("tests/test_c.py", "skipped", { collectionSkip: true, message: "collection skipped: later" }),
      ],
      expect: [
        [
          "tests_skipped_unledgered",
          "tests/test_c.py",
          0,
          "2 test(s) of tests/test_c.py are skipped or xfailed at head without a lease, and no base results show them skipped there: tests/test_c.py::test_x (collection skipped: later), tests/test_c.py::test_y (collection skipped: later)",
        ],
      ],
      also: (j) => expect(j).toMatchObject({ gone: 0, newSkips: 2 }),
    },
    {
      name: "a module-level skip without the base's universe: the module itself is the skip",
      head: BASE.filter((id) => !id.startsWith("tests/test_c.py")),
      touched: [[agent(), ["tests/test_c.py"]]],
      base: { kind: "not_measured", why: "no base universe", fix: "collect it" },
      results: [
        ...passing(BASE.filter((id) => !id.startsWith("tests/test_c.py"))),
        result("tests/test_c.py", "skipped", { collectionSkip: true, message: "collection skipped: later" }),
      ],
      expect: [["tests_skipped_unledgered", "tests/test_c.py", 0, "tests/test_c.py (collection skipped: later)"]],
    },
  ];
})();

describe("judgeTestChanges", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const j = judge(c);
    const findings = [...j.removed, ...j.skipped];
    expect(findings.map((f) => [f.reason, f.file, f.commit ?? null])).toEqual(
      c.expect.map(([reason, file, index]) => [reason, file, index === null ? null : c.touched[index]![0].sha]),
    );
    c.expect.forEach(([, , index, text], i) => {
      const f = findings[i]!;
      expect(f.message).toContain(text);
      expect(f.fix).toMatch(/Test-Removal: human/);
      if (index !== null) {
        const { author } = c.touched[index]![0];
        expect(f.author).toBe(`${author.name} <${author.email}>`);
        expect(f.message).toContain(c.touched[index]![0].sha.slice(0, 12));
      }
    });
    c.also?.(j);
  });

  it("an empty range (the base is the head) whose collections disagree: names the unstable test name, not a commit", () => {
    const j = judge({
      name: "",
      head: BASE.filter((id) => id !== "tests/test_a.py::test_two"),
      touched: [],
      expect: [],
    });
    expect(j.removed).toHaveLength(1);
    expect(j.removed[0]!.message).toContain(
      "the range has no commit (the base is the head), so two collections of one commit disagree",
    );
    expect(j.removed[0]!.fix).toContain("a name that is the same in every collection");
  });

  it("a package's gate with no commit of its own in a range of other commits: not 'the base is the head'", () => {
    const j = judge({
      name: "",
      head: BASE.filter((id) => id !== "tests/test_a.py::test_two"),
      touched: [],
      emptyRange: false,
      expect: [],
    });
    expect(j.removed).toHaveLength(1);
    expect(j.removed[0]!.message).not.toContain("the base is the head");
    expect(j.removed[0]!.message).toContain("no commit in the range touched tests/test_a.py");
  });

  it("a later commit touching the renamed file is attributed too (renames are followed)", () => {
    const mover = approved();
    const editor = agent();
    const j = judge({
      name: "",
      head: BASE.filter((id) => !id.startsWith("tests/test_b.py")),
      touched: [
        [mover, ["tests/test_new.py", "tests/test_b.py"]],
        [editor, ["tests/test_new.py"]],
      ],
      renames: [{ from: "tests/test_b.py", to: "tests/test_new.py" }],
      leases: ["tests/test_a.py::test_two"],
      expect: [],
    });
    expect(j.removed.map((f) => f.commit)).toEqual([editor.sha]);
  });

  it("one commit removing tests from two files: one finding per file", () => {
    const c = agent();
    const j = judge({
      name: "",
      head: ["tests/test_a.py::test_one", "tests/test_c.py::test_x", "tests/test_c.py::test_y"],
      touched: [[c, ["tests/test_a.py", "tests/test_b.py"]]],
      expect: [],
    });
    expect(j.removed.map((f) => [f.file, f.commit])).toEqual([
      ["tests/test_a.py", c.sha],
      ["tests/test_b.py", c.sha],
    ]);
  });
});

describe("a package's gate under the repository's pytest settings (ids from the top, paths from the package)", () => {
  const paths = testIdPaths({
    root: "/r/packages/x",
    rootdir: "/r",
    rootdirFromRoot: "../..",
    rootFromRootdir: "packages/x",
  });
  const ids = BASE.map((id) => `packages/x/${id}`);
  const run = (
    head: string[],
    touched: [Commit, string[]][],
    results?: TestResult[],
    renames: FileRename[] = [],
    idPaths: TestIdPaths = paths,
  ) => {
    const h = universe(head);
    return judgeTestChanges(
      {
        base: { kind: "measured", universe: { file: "collected.txt (base)", ids } },
        touched: touched.map(([commit, p]) => ({ commit, paths: p })),
        renames,
        collectionFiles: [],
        maxNewSkips: 0,
      },
      {
        head: h,
        active: [],
        accounting: results ? accountEvidence(h, [], results) : undefined,
        commits: touched.map(([c]) => c),
        policy,
        paths: idPaths,
      },
    );
  };
  const without = ids.filter((id) => id !== "packages/x/tests/test_a.py::test_two");

  it("a human's removal with Test-Removal: human is approved though an agent changed code in the range", () => {
    const j = run(without, [
      [approved(), ["tests/test_a.py"]],
      [agent(), ["src/x/core.py"]],
    ]);
    expect(j.removed).toEqual([]);
    expect(j.approvedRemovals).toBe(1);
    // Without the translation no commit touches `packages/x/tests/test_a.py`: every code commit answers.
    const a = agent();
    const unmapped = run(
      without,
      [
        [approved(), ["tests/test_a.py"]],
        [a, ["src/x/core.py"]],
      ],
      undefined,
      [],
      ROOTDIR_IS_ROOT,
    );
    expect(unmapped.removed.map((f) => [f.file, f.commit])).toEqual([["packages/x/tests/test_a.py", a.sha]]);
  });

  it("an agent's removal: the finding names the package's file and the agent's commit", () => {
    const c = agent();
    const j = run(without, [
      [approved(), ["README.md"]],
      [c, ["tests/test_a.py"]],
    ]);
    expect(j.removed.map((f) => [f.file, f.commit])).toEqual([["tests/test_a.py", c.sha]]);
    expect(j.removed[0]!.message).toContain("packages/x/tests/test_a.py::test_two is collected at base");
  });

  it("an agent's skip: the file is the package's, so its commit answers", () => {
    const c = agent();
    const results = [
      ...ids.map((id) => result(id, id.endsWith("test_three") ? "skipped" : "passed", { message: "flaky" })),
    ];
    const j = run(ids, [[c, ["tests/test_b.py"]]], results);
    expect(j.skipped.map((f) => [f.file, f.commit])).toEqual([["tests/test_b.py", c.sha]]);
  });

  it("pytest's settings moved to the top since the base: the same tests under new ids are not removals", () => {
    const remover = agent();
    const h = universe(ids.filter((id) => !id.endsWith("test_y")));
    const j = judgeTestChanges(
      {
        base: { kind: "measured", universe: { file: "collected.txt (base)", ids: BASE, idsAtRoot: true } },
        baseSkips: { file: "base", skipped: ["tests/test_b.py::test_three"] },
        touched: [{ commit: remover, paths: ["tests/test_c.py"] }],
        renames: [],
        collectionFiles: [],
        maxNewSkips: 0,
      },
      {
        head: h,
        active: [],
        accounting: accountEvidence(
          h,
          [],
          h.ids.map((id) => result(id, id.endsWith("test_three") ? "skipped" : "passed")),
        ),
        commits: [remover],
        policy,
        paths,
      },
    );
    // test_y is gone for real; the other four moved. test_three was skipped at the base too.
    expect(j).toMatchObject({ gone: 1, moved: 4, rootdir: "../..", newSkips: 0 });
    expect(j.removed.map((f) => f.file)).toEqual(["tests/test_c.py"]);
    expect(j.removed[0]!.message).toContain("packages/x/tests/test_c.py::test_y is collected at base");
    // test_y's id is read in the head's terms; its file is still the package's.
    expect(rootdirMoved(BASE, new Set(h.ids), ROOTDIR_IS_ROOT, true)).toBeUndefined();
    expect(rootdirMoved(ids, new Set(h.ids), paths, true)).toBeUndefined();
    // Test files moved under a folder named as the root, with the rootdir above at both ends: the base's ids are
    // not the root's paths there, so nothing moved and the removals stand (the agent's renames are shown).
    expect(rootdirMoved(BASE, new Set(h.ids), paths, false)).toBeUndefined();
    expect(rootdirMoved(BASE, new Set(h.ids), paths, undefined)).toBeUndefined();
    expect(rootdirMoved(BASE, new Set(h.ids), paths, true)?.("tests/test_a.py::test_one")).toBe(
      "packages/x/tests/test_a.py::test_one",
    );
  });

  it("a test file git saw renamed pairs its tests (git's names are the package's)", () => {
    const mover = approved();
    const head = ids.map((id) => id.replace("packages/x/tests/test_b.py", "packages/x/tests/test_new.py"));
    const j = run(head, [[mover, ["tests/test_new.py", "tests/test_b.py"]]], undefined, [
      { from: "tests/test_b.py", to: "tests/test_new.py" },
    ]);
    expect(j.removed).toEqual([]);
    expect(j.renamed).toBe(1);
    expect(
      pairRenames(
        ["packages/x/tests/test_b.py::test_three"],
        ["packages/x/tests/test_new.py::test_three"],
        [{ from: "tests/test_b.py", to: "tests/test_new.py" }],
        paths,
      ),
    ).toEqual(new Map([["packages/x/tests/test_b.py::test_three", "packages/x/tests/test_new.py::test_three"]]));
  });
});

describe("collectionConfigMatcher", () => {
  it("pytest's files anywhere, the collect command's files, and pytest's files above a package (../../)", () => {
    const m = collectionConfigMatcher(["ci/pytest-ci.ini"]);
    for (const yes of [
      "pytest.ini",
      "pytest.toml",
      "tests/conftest.py",
      "ci/pytest-ci.ini",
      "../../pyproject.toml",
      "../conftest.py",
      "../../.pytest.toml",
    ])
      expect(m(yes), yes).toBe(true);
    for (const no of ["README.md", "src/pkg/tox.ini.bak", "../../README.md", "../../src/x.py", "sub/pytest.ini"])
      expect(m(no), no).toBe(false);
  });
});

describe("pairRenames", () => {
  it("pairs a renamed file's tests by name, then a file's removed and added ids in order", () => {
    expect(
      pairRenames(
        ["t/a.py::test_x", "t/a.py::K::test_y[1]", "t/b.py::test_old", "t/b.py::test_gone"],
        ["t/z.py::K::test_y[1]", "t/b.py::test_new", "t/z.py::test_other"],
        [
          { from: "t/a.py", to: "t/m.py" },
          { from: "t/m.py", to: "t/z.py" },
        ],
      ),
    ).toEqual(
      new Map([
        ["t/a.py::K::test_y[1]", "t/z.py::K::test_y[1]"],
        ["t/a.py::test_x", "t/z.py::test_other"],
        ["t/b.py::test_old", "t/b.py::test_new"],
      ]),
    );
  });
});

describe("vitest: a test `vitest list` leaves out because the run skips it is a skip, not a removal", () => {
  const V_BASE = ["test/a.test.ts > math > adds", "test/a.test.ts > math > sub", "test/b.test.ts > scale"];
  const vHead = (ids: string[]): Universe => ({ ...universe(ids, "collected.json"), runner: "vitest" });
  const headIds = V_BASE.filter((id) => id !== "test/a.test.ts > math > sub");
  const vJudge = (
    c: Commit,
    o: { unlisted?: string[]; results?: boolean; maxNewSkips?: number; head?: string[] } = {},
  ): TestChangeJudgement => {
    const head = vHead(o.head ?? headIds);
    return judgeTestChanges(
      {
        base: { kind: "measured", universe: { file: "collected.json (base)", ids: V_BASE } },
        baseSkips: { file: "(no test skipped at head)", skipped: [] },
        touched: [{ commit: c, paths: ["test/a.test.ts"] }],
        renames: [],
        collectionFiles: [],
        maxNewSkips: o.maxNewSkips ?? 0,
      },
      {
        head,
        active: [],
        accounting: o.results === false ? undefined : accountEvidence(head, [], passing(head.ids)),
        commits: [c],
        policy,
        unlistedSkips: o.unlisted,
      },
    );
  };

  it("an agent's it.skip: tests_skipped_unledgered, counted as a new skip, not tests_removed", () => {
    const c = agent();
    const j = vJudge(c, { unlisted: ["test/a.test.ts > math > sub"] });
    expect(j.removed).toEqual([]);
    expect(j.skipped.map((f) => [f.reason, f.commit])).toEqual([["tests_skipped_unledgered", c.sha]]);
    expect(j.skipped[0]!.message).toContain("test/a.test.ts > math > sub (skipped in the proof run");
    expect(j).toMatchObject({ gone: 0, newSkips: 1, approvedSkips: 0 });
  });

  it("the same skip without results is still judged: what is not a removal is a skip", () => {
    const j = vJudge(agent(), { unlisted: ["test/a.test.ts > math > sub"], results: false });
    expect([...j.removed, ...j.skipped].map((f) => f.reason)).toEqual(["tests_skipped_unledgered"]);
  });

  it("a human's it.skip with `Test-Removal: human` is approved", () => {
    const j = vJudge(approved(), { unlisted: ["test/a.test.ts > math > sub"] });
    expect([...j.removed, ...j.skipped]).toEqual([]);
    expect(j).toMatchObject({ newSkips: 1, approvedSkips: 1 });
  });

  it("max_new_skips tolerates it as it tolerates pytest's new skip; a removal it does not", () => {
    expect(vJudge(agent(), { unlisted: ["test/a.test.ts > math > sub"], maxNewSkips: 1 }).skipped).toEqual([]);
    const removed = vJudge(agent(), { maxNewSkips: 1 });
    expect(removed.removed.map((f) => f.reason)).toEqual(["tests_removed"]);
    expect(removed.removed[0]!.message).toContain("test/a.test.ts > math > sub is collected at base but not at head");
  });

  it("a test the run did not show skipped stays a removal; a skip the head lists is not reclassified", () => {
    const j = vJudge(agent(), {
      unlisted: ["test/a.test.ts > math > other", "test/b.test.ts > scale"],
      head: ["test/a.test.ts > math > adds", "test/b.test.ts > scale"],
    });
    expect(j.removed.map((f) => f.message)).toEqual([
      expect.stringContaining("test/a.test.ts > math > sub is collected at base but not at head"),
    ]);
    expect(j.skipped).toEqual([]);
  });
});

describe("vitest: one of two tests under one id deleted (same name path, or names an id folds together)", () => {
  // unjs/ufo: `hasProtocol` cases "\0https://" and "https://" share an id once control characters are dropped.
  const ID = "test/utilities.test.ts > hasProtocol > https://";
  const vUniverse = (ids: string[], duplicates: string[]): Universe => ({
    ...universe(ids, "collected.json"),
    duplicates,
    runner: "vitest",
  });
  const judgeOne = (
    head: Universe,
    o: { who?: Commit; unlisted?: string[]; leases?: string[]; runner?: "pytest" } = {},
  ): TestChangeJudgement => {
    const c = o.who ?? agent();
    const h = o.runner ? { ...head, runner: undefined } : head;
    return judgeTestChanges(
      {
        base: {
          kind: "measured",
          universe: { file: "collected.json (base)", ids: [ID, "test/b.test.ts > b"], duplicates: [ID, ID] },
        },
        baseSkips: { file: "(none)", skipped: [] },
        touched: [{ commit: c, paths: ["test/utilities.test.ts"] }],
        renames: [],
        collectionFiles: [],
        maxNewSkips: 0,
      },
      { head: h, active: (o.leases ?? []).map(lease), commits: [c], policy, unlistedSkips: o.unlisted },
    );
  };

  it("listed three times at base, twice at head: tests_removed names the id and the counts", () => {
    const j = judgeOne(vUniverse([ID, "test/b.test.ts > b"], [ID]));
    expect(j.removed.map((f) => f.reason)).toEqual(["tests_removed"]);
    expect(j.removed[0]!.message).toContain(`${ID} is collected at head, but listed 3 times at base, 2 at head`);
    expect(j.gone).toBe(1);
  });

  it("the same count at head, a human's approved removal, a lease on the id, or a pytest universe: nothing", () => {
    expect(judgeOne(vUniverse([ID, "test/b.test.ts > b"], [ID, ID])).removed).toEqual([]);
    expect(judgeOne(vUniverse([ID, "test/b.test.ts > b"], []), { who: approved() }).removed).toEqual([]);
    expect(judgeOne(vUniverse([ID, "test/b.test.ts > b"], []), { leases: [ID] }).removed).toEqual([]);
    expect(judgeOne(vUniverse([ID, "test/b.test.ts > b"], []), { runner: "pytest" }).removed).toEqual([]);
  });

  it("one of them skipped (the run shows it skipped, so `vitest list` leaves it out): a new skip, not a removal", () => {
    const j = judgeOne(vUniverse([ID, "test/b.test.ts > b"], [ID]), { unlisted: [ID] });
    expect(j.removed).toEqual([]);
    expect(j.skipped.map((f) => f.reason)).toEqual(["tests_skipped_unledgered"]);
  });
});

describe("commandFiles", () => {
  it.each([
    ["python -m pytest --collect-only -q -c ci/pytest.ini tests > collected.txt", ["ci/pytest.ini", "tests"]],
    ["make collect", ["Makefile", "makefile", "GNUmakefile"]],
    ["tox -e collect", ["tox.ini"]],
    ["nox -s collect", ["noxfile.py"]],
    ["sh ./scripts/collect.sh && cp out.txt collected.txt", ["scripts/collect.sh", "out.txt"]],
    ["pytest --rootdir=. --override-ini=addopts= --confcutdir='sub dir'", ["sub"]],
    ['pytest "--config-file=ci/x.toml"', ["ci/x.toml"]],
  ])("%s names %j among its candidates", (command, wanted) => {
    const files = commandFiles(command);
    for (const w of wanted) expect(files).toContain(w);
    expect(files.some((f) => f.startsWith("-") || f.startsWith("/") || f.includes(".."))).toBe(false);
  });

  it("skips absolute paths, parents and variables: the gate only reads repository files", () => {
    expect(commandFiles("/usr/bin/python3 -m pytest ../other $HOME/x ${CI_DIR}/y . ./")).toEqual(["pytest"]);
  });
});

describe("more-itertools, one test deleted (recorded collect-only output, __fixtures__/more-itertools)", () => {
  const recorded = (name: string): Universe =>
    parseCollectOnly(readFileSync(new URL(`../__fixtures__/more-itertools/${name}`, import.meta.url), "utf8"), name)
      .universe!;
  const before = recorded("collect-q-2fe1b2e.txt");
  const after = recorded("collect-q-after.txt");

  it("tests_removed names the deleted test, the agent's commit and its author", () => {
    const drop = agent();
    const j = judgeTestChanges(
      {
        base: { kind: "measured", universe: { file: "collect-q-2fe1b2e.txt", ids: before.ids } },
        touched: [{ commit: drop, paths: ["tests/test_more.py"] }],
        renames: [],
        collectionFiles: [],
        maxNewSkips: 0,
      },
      { head: after, active: [], commits: [drop], policy },
    );
    expect(before.ids).toHaveLength(736);
    expect(j.removed).toEqual([
      {
        reason: "tests_removed",
        message: `tests/test_more.py::ChunkedTests::test_odd is collected at base but not at head; commit ${drop.sha.slice(0, 12)} is an agent's (author "patchbot[bot] <patchbot@example.org>" matches "*[bot]*"; committer "patchbot[bot] <patchbot@example.org>" matches "*[bot]*") and touched tests/test_more.py`,
        file: "tests/test_more.py",
        commit: drop.sha,
        author: "patchbot[bot] <patchbot@example.org>",
        fix: "restore the tests; a test that must go is removed by a human, in a commit with `Test-Removal: human` (a flaky test gets a lease in freeze.toml instead)",
      },
    ]);
    expect(j).toMatchObject({ baseTests: 736, gone: 1, renamed: 0 });
  });
});

describe("a collection the runner's settings or a hook narrowed (-k, --deselect in addopts; a hook that drops items)", () => {
  const narrowedHead = (text: string): Universe => parseCollectOnly(text, "collected.txt").universe!;
  // pytest 7.2's `--collect-only -q` with `addopts = -k "not test_two"`.
  const deselected = `${withoutTwo.join("\n")}\n\n4/5 tests collected (1 deselected) in 0.01s\n`;
  // A conftest.py hook that removes the item without pytest_deselected: the summary still counts it.
  const dropped = `${withoutTwo.join("\n")}\n\n5 tests collected in 0.01s\n`;
  const evidence = (base: TestChangeEvidence["base"], touched: CommitPaths[]): TestChangeEvidence => ({
    base,
    touched,
    renames: [],
    collectionFiles: [],
    maxNewSkips: 0,
  });
  const measured: TestChangeEvidence["base"] = {
    kind: "measured",
    universe: { file: "collected.txt (base)", ids: BASE },
  };
  const unknown: TestChangeEvidence["base"] = {
    kind: "not_measured",
    why: "no universe at the base",
    fix: "run --run",
  };

  it.each([
    ["deselected", deselected, "pytest.ini", "1 deselected (-k, -m or --deselect in the runner's settings, or a hook)"],
    [
      "dropped by a hook",
      dropped,
      "tests/conftest.py",
      "1 dropped without being deselected (a pytest_collection_modifyitems hook)",
    ],
  ])(
    "%s, base measured: tests_removed names the test, the agent's commit, the file it touched and the narrowing",
    (_n, text, file, how) => {
      const a = agent();
      const head = narrowedHead(text);
      const j = judgeTestChanges(evidence(measured, [{ commit: a, paths: [file] }]), {
        head,
        active: [],
        commits: [a],
        policy,
      });
      expect(j.removed).toHaveLength(1);
      expect(j.removed[0]).toMatchObject({ reason: "tests_removed", file: "tests/test_a.py", commit: a.sha });
      expect(j.removed[0]!.message).toContain("tests/test_a.py::test_two is collected at base but not at head");
      expect(j.removed[0]!.message).toContain(`is an agent's`);
      expect(j.removed[0]!.message).toContain(
        `and touched ${file}; pytest left tests out of the collection at head: ${how}`,
      );
      expect(j.removed[0]!.message).toContain("at collected.txt:6)");
      // The same change by a human with the trailer is approved.
      const h = approved();
      const ok = judgeTestChanges(evidence(measured, [{ commit: h, paths: [file] }]), {
        head,
        active: [],
        commits: [h],
        policy,
      });
      expect(ok.removed).toEqual([]);
      expect(ok.approvedRemovals).toBe(1);
    },
  );

  it("base not measured: one tests_removed at the summary line, naming the commit that touched the runner's settings", () => {
    const a = agent();
    const head = narrowedHead(deselected);
    const j = judgeTestChanges(evidence(unknown, [{ commit: a, paths: ["pytest.ini"] }]), {
      head,
      active: [],
      commits: [a],
      policy,
    });
    expect(j.removed).toEqual([
      expect.objectContaining({ reason: "tests_removed", file: "collected.txt", line: 6, commit: a.sha }),
    ]);
    expect(j.removed[0]!.message).toMatch(
      /^pytest left tests out of the collection at head: 1 deselected .*; commit [0-9a]{12} is an agent's .* and touched pytest\.ini$/,
    );
    expect(j.removed[0]!.fix).toContain("Test-Removal: human");
    const h = approved();
    expect(
      judgeTestChanges(evidence(unknown, [{ commit: h, paths: ["pytest.ini"] }]), {
        head,
        active: [],
        commits: [h],
        policy,
      }).removed,
    ).toEqual([]);
  });

  it("a collection nothing narrowed adds nothing", () => {
    const a = agent();
    const head = narrowedHead(`${BASE.join("\n")}\n\n5 tests collected in 0.01s\n`);
    expect(
      judgeTestChanges(evidence(unknown, [{ commit: a, paths: ["pytest.ini"] }]), {
        head,
        active: [],
        commits: [a],
        policy,
      }).removed,
    ).toEqual([]);
  });
});

describe("the base run's plugin names the base's xpasses (JUnit XML writes them as passes)", () => {
  it("writes the xpassed ids to the file it is given, and only then", () => {
    const plain = renderOnlyPlugin(["tests/t.py::test_a"], "a".repeat(40));
    expect(plain).not.toContain("wasxfail");
    const plugin = renderOnlyPlugin(["tests/t.py::test_a"], "a".repeat(40), "/out/base-skips/xpassed.jsonl");
    expect(plugin).toContain('PROOFGATE_XPASSED_FILE = "/out/base-skips/xpassed.jsonl"');
    expect(plugin).toContain('if report.when == "call" and report.passed and hasattr(report, "wasxfail"):');
    expect(plugin).toContain('out.write("".join(json.dumps(i) + "\\n" for i in _proofgate_xpassed))');
  });

  it("reads one JSON string a line; anything else is no id", () => {
    expect(parseXpassedIds('"tests/t.py::test_a"\n"tests/t.py::test_b[\\u00e9]"\n\n42\nnot json\n')).toEqual([
      "tests/t.py::test_a",
      "tests/t.py::test_b[\u00e9]",
    ]);
  });
});

describe("the base collection's skip-marks plugin", () => {
  it("evaluates each collected test's skip and xfail marks as pytest does at setup, and writes those ids to its file", () => {
    const plugin = renderSkipMarksPlugin("/out/base-collect/it's.jsonl", "b".repeat(40));
    expect(plugin).toContain(`PROOFGATE_SKIP_MARKS_FILE = "/out/base-collect/it's.jsonl"`);
    expect(plugin).toContain("from _pytest.skipping import evaluate_skip_marks");
    expect(plugin).toContain("if evaluate_skip_marks(item) is not None or evaluate_xfail_marks(item) is not None:");
    // A condition that fails to evaluate leaves the test to the base run.
    expect(plugin).toContain("except (Exception, OutcomeException):\n            continue");
    expect(plugin).toContain("bbbbbbbbbbbb");
  });

  it("reads one JSON string a line; anything else is no id", () => {
    expect(parseSkipMarkedIds('"tests/t.py::test_a"\n\n{"x": 1}\n"tests/t.py::test_b[2]"\nnope\n')).toEqual([
      "tests/t.py::test_a",
      "tests/t.py::test_b[2]",
    ]);
  });
});
