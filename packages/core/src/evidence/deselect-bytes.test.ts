// planDeselectionOnBytes plans `deselect` from the collected text without building the universe. Whenever
// it answers, the answer must be planDeselection's on the parsed universe; whenever the text is not in the
// plain shape, it must leave the text to the full parser (undefined).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planDeselection, planDeselectionOnBytes } from "./deselect.js";
import { parseCollectOnly } from "./universe.js";
import type { Lease, Ledger } from "../ledger/ledger.js";

const TODAY = "2026-09-20";

const onText = (ledger: Ledger, text: string, today: string): ReturnType<typeof planDeselectionOnBytes> =>
  planDeselectionOnBytes(ledger, new TextEncoder().encode(text), today);

function ledgerOf(leases: Array<{ nodeid: string; expires: string }>, options: Partial<Ledger> = {}): Ledger {
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
      expires: l.expires,
      line: 3 + index * 6,
    })),
  };
}

/** The full path's plan, or undefined when the full path would not plan silently (errors, warnings, unknown leases). */
function fullPlan(ledger: Ledger, text: string): ReturnType<typeof planDeselection> | "not plain" {
  const parsed = parseCollectOnly(text, "collected.txt");
  if (!parsed.universe || parsed.warnings.length > 0 || parsed.universe.collectionErrors.length > 0) return "not plain";
  const plan = planDeselection(ledger, parsed.universe, TODAY);
  return plan.unknown.length > 0 ? "not plain" : plan;
}

const ids = [
  "tests/test_a.py::test_one",
  "tests/test_a.py::test_one_more",
  "tests/test_a.py::TestX::test_one[1]",
  "tests/test_b.py::test_two[x]",
  "tests/test_b.py::test_two[x-y]",
  "tests/test_c.py::test_c",
];
const plain = `${ids.join("\n")}\n\n${ids.length} tests collected in 0.01s\n`;

describe("planDeselectionOnBytes", () => {
  it("plans plain text as planDeselection does, prefix collateral included", () => {
    const ledger = ledgerOf([
      { nodeid: "tests/test_a.py::test_one", expires: "2026-12-31" },
      { nodeid: "tests/test_b.py::test_two[x]", expires: "2026-12-31" },
      { nodeid: "tests/test_c.py::test_c", expires: "2026-01-01" },
    ]);
    const fast = onText({ ...ledger, rejectIfExpired: false }, plain, TODAY);
    expect(fast).toBeDefined();
    expect(fast!.collateral.map((c) => [c.lease.nodeid, c.alsoDropped])).toEqual([
      ["tests/test_a.py::test_one", ["tests/test_a.py::test_one_more"]],
    ]);
    expect(fast).toEqual(fullPlan({ ...ledger, rejectIfExpired: false }, plain));
    expect(onText(ledger, plain, TODAY)).toEqual(fullPlan(ledger, plain));
    expect(onText(ledger, plain, TODAY)!.refusal).toBe("expired_leases");
  });

  it("leaves anything but the plain shape to the full parser", () => {
    const ledger = ledgerOf([{ nodeid: ids[0]!, expires: "2026-12-31" }]);
    for (const text of [
      "",
      `\uFEFF${plain}`,
      plain.replace(/\n/g, "\r\n"),
      `\u001b[32m${plain}`,
      `${ids.join("\n")}\n`,
      `${ids.join("\n")}\n\n7 tests collected in 0.01s\n`,
      `${ids.join("\n")}\n\n6/8 tests collected (2 deselected) in 0.01s\n`,
      `${ids.join("\n")}\n\n6 tests collected, 1 error in 0.01s\n`,
      `${ids.join("\n")}\n\n6 tests collected in 0.01s\nmore\n`,
      `${ids.join("\n")}\n${ids[1]}\n\n7 tests collected in 0.01s\n`,
      `${ids.join("\n")}\n   \n6 tests collected in 0.01s\n`,
      `_ ${ids.join("\n")}\n\n6 tests collected in 0.01s\n`,
      `tests/test_a.py\n\n1 test collected in 0.01s\n`,
      `[{"name": "x::y"}]\n`,
      `<?xml version="1.0"?>\n`,
    ]) {
      expect(onText(ledger, text, TODAY), JSON.stringify(text)).toBeUndefined();
    }
    // A lease that names no collected id: the full parse suggests what it meant.
    expect(
      onText(ledgerOf([{ nodeid: "tests/test_a.py::test_on", expires: "2026-12-31" }]), plain, TODAY),
    ).toBeUndefined();
  });

  it("on generated collections and ledgers: the full path's plan whenever it answers, and an answer whenever the text is plain", () => {
    // ASCII mostly (the plain shape), sometimes not (the full parser's).
    const part = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom("a", "b", ":", "::", "[", "]", "x", "1", "-", "_", " ", "=") },
      { weight: 1, arbitrary: fc.constantFrom("é", "\uD83D\uDE00", "\r", "\u001b") },
    );
    const name = fc.array(part, { minLength: 1, maxLength: 5 }).map((p) => p.join(""));
    // Mostly pytest-shaped ids (a file, "::", a name: prefixes of each other often), sometimes anything.
    const id = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.tuple(fc.constantFrom("t/a.py", "t/b.py", "t/a.p", "x"), name).map(([f, n]) => `${f}::${n}`),
      },
      { weight: 1, arbitrary: name },
    );
    const spaced = fc.constantFrom("", "\n", "\n\n", "  \n");
    let answered = 0;
    let collateral = 0;
    fc.assert(
      fc.property(
        // Some ids followed by a longer one that starts with them (pytest's --deselect drops both).
        fc
          .array(fc.tuple(id, fc.constantFrom("", "", "x", "[1]", "::y")), { maxLength: 10 })
          .map((pairs) => pairs.flatMap(([i, more]) => (more ? [i, `${i}${more}`] : [i]))),
        fc.array(
          fc.tuple(
            fc.nat(20),
            fc.boolean(),
            fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: id }),
          ),
          { maxLength: 6 },
        ),
        fc.constantFrom(0, 0, 0, 0, 1, -1),
        spaced,
        fc.boolean(),
        (lines, leaseSpecs, countDelta, after, rejectIfExpired) => {
          const text = `${lines.join("\n")}\n\n${lines.length + countDelta} tests collected in 0.01s\n${after}`;
          const seen = new Set<string>();
          const leases = leaseSpecs
            .map(([at, expired, other]) => ({
              nodeid: other ?? lines[at % Math.max(1, lines.length)] ?? "tests/x.py::y",
              expires: expired ? "2026-01-01" : "2026-12-31",
            }))
            .filter((l) => !seen.has(l.nodeid) && seen.add(l.nodeid));
          const ledger = ledgerOf(leases, { rejectIfExpired, maxActiveLeases: 3 });
          const fast = onText(ledger, text, TODAY);
          const full = fullPlan(ledger, text);
          if (fast !== undefined) {
            answered++;
            if (fast.collateral.length > 0) collateral++;
            expect(fast).toEqual(full);
          }
          // The plain shape the fast path takes: ASCII ids at a glance, no repeats, the right count, every lease known.
          const atAGlance = lines.every((l) => l.includes("::") && !/^[=!_< \t]/.test(l) && /^[\x20-\x7e]*$/.test(l));
          if (atAGlance && countDelta === 0 && lines.length > 0 && full !== "not plain") expect(fast).toEqual(full);
        },
      ),
      { numRuns: 2000, seed: 25 },
    );
    expect(answered).toBeGreaterThan(100);
    expect(collateral).toBeGreaterThan(20);
  });
});
