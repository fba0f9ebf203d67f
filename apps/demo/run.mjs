// proofgate's demo: judges the bundled Python project (apps/demo/project) from artifacts recorded by
// real pytest and coverage.py runs (record.sh), in a throwaway copy. Lease dates are set relative to
// today so the demo does not go stale. Exits 0 when every scenario ends as it should, 1 otherwise.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "../../packages/cli/dist/proofgate.js");
const work = mkdtempSync(join(tmpdir(), "proofgate-demo-"));
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${s}\u001b[0m` : s);
const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

cpSync(join(here, "project"), work, { recursive: true });
const ledger = readFileSync(join(work, "freeze.toml"), "utf8")
  .replace('expires = "2027-01-15"', `expires = "${day(40)}"`)
  .replace('expires = "2026-12-10"', `expires = "${day(10)}"`);
writeFileSync(join(work, "freeze.toml"), ledger);

function proofgate(title, args) {
  console.log(`\n${bold(`== ${title}`)}\n$ proofgate ${args.join(" ")}`);
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: work, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function summarize(r) {
  const report = JSON.parse(r.out);
  console.log(`decision ${report.decision} (exit ${r.code}), proven coverage ${report.proven_coverage_percent}%, reasons: ${report.reasons.join(", ") || "none"}`);
  for (const d of report.details ?? []) console.log(`  - ${d.reason}: ${d.message}`);
  return report;
}

const failures = [];
const expect = (what, ok) => {
  if (!ok) failures.push(what);
};

let r = proofgate("The freeze ledger", ["ledger", "list", "--collected", "collected.txt"]);
process.stdout.write(r.out);
expect("ledger list exits 0", r.code === 0);

r = proofgate("What the proof run leaves out (pytest's --deselect is a prefix match: proofgate warns)", ["deselect"]);
process.stdout.write(r.out + r.err);
expect("deselect warns about the prefix collateral", r.code === 0 && r.err.includes("test_invoice_total_currency_round_half"));

const raw = JSON.parse(readFileSync(join(work, "raw_coverage.json"), "utf8")).totals.percent_covered;
r = proofgate(`Decide on proven coverage (the whole suite, frozen tests included, shows ${raw}%)`, ["decide", "--coverage", "proven_coverage.json"]);
expect("the clean patch merges", summarize(r).decision === "MERGE" && r.code === 0);

r = proofgate("An agent patch that adds a lease and rewrites a golden fixture", ["decide", "--agent-added-leases", "1", "--fixture-delta", "1"]);
let report = summarize(r);
expect("the agent patch is rejected", r.code === 1 && report.reasons.join() === "agent_added_lease,fixture_digest");

r = proofgate("Preview: the same ledger three weeks from now", ["decide", "--today", day(21)]);
report = summarize(r);
expect("the preview is rejected for the expired lease and the clock override", r.code === 1 && report.reasons.join() === "expired_leases,clock_override");

rmSync(work, { recursive: true, force: true });
if (failures.length) {
  console.error(`\ndemo: unexpected outcome: ${failures.join("; ")}`);
  process.exit(1);
}
console.log(`\n${bold("demo: every scenario ended as expected")}`);
