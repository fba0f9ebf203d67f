import { describe, expect, it } from "vitest";
import { parseLedger, type Ledger } from "./ledger.js";
import { describeLoosening, diffLedgers, looseningKey, type LedgerLoosening } from "./ledger-diff.js";

// The ledger diff by meaning (docs/contract.md §7): keyed by nodeid, never by text lines.

const id = (n: string): string => `tests/test_a.py::test_${n}`;

/** A ledger parsed from TOML text; the test fails when it does not parse. */
function ledger(text: string): Ledger {
  const result = parseLedger(text, "freeze.toml");
  expect(result.errors).toEqual([]);
  return result.ledger!;
}

/** The article's layout: a header, then one `[[leases]]` table per lease. */
function toml(o: {
  budget?: number | null;
  expired?: boolean;
  agentAdds?: boolean;
  leases: [string, string][];
}): string {
  let out = "version = 1\n";
  if (o.budget !== null) out += `max_active_leases = ${o.budget ?? 3}\n`;
  if (o.expired !== undefined) out += `reject_if_expired = ${o.expired}\n`;
  if (o.agentAdds !== undefined) out += `reject_if_agent_adds_lease = ${o.agentAdds}\n`;
  for (const [n, expires] of o.leases)
    out += `\n[[leases]]\nnodeid = "${id(n)}"\nowner = "alice"\nreason = "flaky"\nexpires = "${expires}"\n`;
  return out;
}

const BASE = ledger(
  toml({
    leases: [
      ["one", "2026-12-20"],
      ["two", "2026-12-15"],
    ],
  }),
);
const diff = (after: string): LedgerLoosening[] => diffLedgers(BASE, ledger(after));
/** The file is new in the patch: no ledger before. */
const diffNew = (after: string): LedgerLoosening[] => diffLedgers(undefined, ledger(after));

describe("diffLedgers: loosening changes", () => {
  it("an added lease, with its nodeid, expiry and header line", () => {
    expect(
      diff(
        toml({
          leases: [
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
            ["three", "2026-12-31"],
          ],
        }),
      ),
    ).toEqual([{ kind: "added_lease", nodeid: id("three"), expires: "2026-12-31", line: 16 }]);
  });

  it("a lease added among the others (not at the end) is still one added lease", () => {
    expect(
      diff(
        toml({
          leases: [
            ["zero", "2026-12-05"],
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
          ],
        }),
      ).map(looseningKey),
    ).toEqual([`added:${id("zero")}`]);
  });

  it("a later expiry", () => {
    expect(
      diff(
        toml({
          leases: [
            ["one", "2027-01-31"],
            ["two", "2026-12-15"],
          ],
        }),
      ),
    ).toEqual([{ kind: "extended_lease", nodeid: id("one"), before: "2026-12-20", after: "2027-01-31", line: 4 }]);
  });

  it("a lease removed and another added under a new nodeid: an added lease (a rename is not a carry-over)", () => {
    expect(
      diff(
        toml({
          leases: [
            ["one", "2026-12-20"],
            ["two_renamed", "2026-12-15"],
          ],
        }),
      ).map(looseningKey),
    ).toEqual([`added:${id("two_renamed")}`]);
  });

  it("a higher budget", () => {
    expect(
      diff(
        toml({
          budget: 5,
          leases: [
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
          ],
        }),
      ),
    ).toEqual([{ kind: "raised_budget", before: 3, after: 5 }]);
  });

  it("reject_if_expired turned off", () => {
    expect(
      diff(
        toml({
          expired: false,
          leases: [
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
          ],
        }),
      ),
    ).toEqual([{ kind: "disabled_flag", flag: "reject_if_expired" }]);
  });

  it("reject_if_agent_adds_lease turned off", () => {
    expect(
      diff(
        toml({
          agentAdds: false,
          leases: [
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
          ],
        }),
      ),
    ).toEqual([{ kind: "disabled_flag", flag: "reject_if_agent_adds_lease" }]);
  });

  it("every kind at once, in a stable order: leases in file order, then budget, then flags", () => {
    const after = toml({
      budget: 9,
      expired: false,
      agentAdds: false,
      leases: [
        ["four", "2026-12-24"],
        ["two", "2027-02-01"],
        ["one", "2026-12-20"],
      ],
    });
    expect(diff(after).map(looseningKey)).toEqual([
      `added:${id("four")}`,
      `extended:${id("two")}:2027-02-01`,
      "budget:9",
      "flag:reject_if_expired",
      "flag:reject_if_agent_adds_lease",
    ]);
    expect(diff(after).map(describeLoosening)).toEqual([
      `adds a lease on ${id("four")} (expires 2026-12-24)`,
      `extends the lease on ${id("two")} from 2026-12-15 to 2027-02-01`,
      "raises max_active_leases from 3 to 9",
      "turns reject_if_expired off",
      "turns reject_if_agent_adds_lease off",
    ]);
  });
});

describe("diffLedgers: tightening and no-ops are never listed", () => {
  it.each([
    ["a lease removed", toml({ leases: [["one", "2026-12-20"]] })],
    ["every lease removed", toml({ leases: [] })],
    [
      "an earlier expiry",
      toml({
        leases: [
          ["one", "2026-12-10"],
          ["two", "2026-12-15"],
        ],
      }),
    ],
    [
      "a smaller budget",
      toml({
        budget: 1,
        leases: [
          ["one", "2026-12-20"],
          ["two", "2026-12-15"],
        ],
      }),
    ],
    [
      "the budget omitted (0, fail-closed)",
      toml({
        budget: null,
        leases: [
          ["one", "2026-12-20"],
          ["two", "2026-12-15"],
        ],
      }),
    ],
    [
      "the flags written out at their defaults",
      toml({
        expired: true,
        agentAdds: true,
        leases: [
          ["one", "2026-12-20"],
          ["two", "2026-12-15"],
        ],
      }),
    ],
    [
      "owner, reason, ticket and created changed",
      toml({
        leases: [
          ["one", "2026-12-20"],
          ["two", "2026-12-15"],
        ],
      })
        .replace(/owner = "alice"/g, 'owner = "bob"')
        .replace(/reason = "flaky"/g, 'reason = "race"\nticket = "T-1"\ncreated = "2026-11-01"'),
    ],
  ])("%s", (_what, after) => {
    expect(diff(after)).toEqual([]);
  });

  it("turning a flag back on is not a loosening", () => {
    const off = ledger(toml({ expired: false, agentAdds: false, leases: [] }));
    expect(diffLedgers(off, ledger(toml({ leases: [] })))).toEqual([]);
    // And a flag already off at base stays off: no change.
    expect(diffLedgers(off, ledger(toml({ expired: false, agentAdds: false, leases: [] })))).toEqual([]);
  });

  it("reordered leases: nothing", () => {
    expect(
      diff(
        toml({
          leases: [
            ["two", "2026-12-15"],
            ["one", "2026-12-20"],
          ],
        }),
      ),
    ).toEqual([]);
  });

  it("reformatted: comments, key order, quotes, whitespace, local dates, inline tables, CRLF: nothing", () => {
    const reformatted = [
      "# the freeze ledger",
      "max_active_leases=3",
      "version = 1",
      "",
      `leases = [`,
      `  { expires = 2026-12-15, reason = 'flaky', owner = 'alice', nodeid = '${id("two")}' },`,
      `  { nodeid = """${id("one")}""", owner = "alice", reason = "flaky", expires = "2026-12-20" },  # trailing comment`,
      `]`,
      "",
    ].join("\r\n");
    expect(diff(reformatted)).toEqual([]);
  });
});

describe("diffLedgers: a new file", () => {
  it("every lease counts as added, against no leases, a budget of 0 and every check on", () => {
    const after = toml({
      budget: 0,
      leases: [
        ["one", "2026-12-20"],
        ["two", "2026-12-15"],
      ],
    });
    expect(diffNew(after)).toEqual([
      { kind: "added_lease", nodeid: id("one"), expires: "2026-12-20", line: 4 },
      { kind: "added_lease", nodeid: id("two"), expires: "2026-12-15", line: 10 },
    ]);
  });

  it("a new file's budget above 0 and flags off loosen too", () => {
    expect(diffNew(toml({ budget: 2, expired: false, agentAdds: false, leases: [] })).map(looseningKey)).toEqual([
      "budget:2",
      "flag:reject_if_expired",
      "flag:reject_if_agent_adds_lease",
    ]);
  });

  it("a new file with nothing in it loosens nothing", () => {
    expect(diffNew(toml({ budget: null, leases: [] }))).toEqual([]);
  });
});

describe("looseningKey", () => {
  it("tells changes apart by what they loosen, not where", () => {
    const a = diff(
      toml({
        leases: [
          ["one", "2027-01-01"],
          ["two", "2026-12-15"],
        ],
      }),
    );
    const b = diff(
      toml({
        leases: [
          ["two", "2026-12-15"],
          ["one", "2027-01-01"],
        ],
      }),
    );
    expect(a.map(looseningKey)).toEqual(b.map(looseningKey));
    const c = diff(
      toml({
        leases: [
          ["one", "2027-01-02"],
          ["two", "2026-12-15"],
        ],
      }),
    );
    expect(c.map(looseningKey)).not.toEqual(a.map(looseningKey));
  });
});
