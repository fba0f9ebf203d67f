// Core by module, not its index, so `deselect` starts without the whole policy (BENCHMARKS.md, issue 14).
import {
  deselectionJson,
  planDeselection,
  planDeselectionOnBytes,
  renderContextsRegex,
  renderDeselectArgs,
  renderDeselectPlugin,
  type DeselectionPlan,
} from "@proofgate/core/deselect";
import { GateError, type GateIssue } from "@proofgate/core/errors";
import { basename, dirname, resolve } from "node:path";
import { DESELECT_FORMATS } from "../command-options.js";
import { optionalFlag, stringFlag } from "../flags.js";
import { resolveToday, type CliIo } from "../io.js";
import { loadLedger, parseUniverseText } from "@proofgate/gate/inputs";
import { asText, nodeFiles, writeAtomic } from "@proofgate/gate/files";
import { printWarnings } from "../messages.js";

/** Options of `proofgate deselect`, as yargs hands them over. */
export interface DeselectArgs {
  [flag: string]: unknown;
  freeze?: unknown;
  collected?: unknown;
  format?: unknown;
  out?: unknown;
  today?: unknown;
}

/** `proofgate deselect`: what the proof run must leave out, or exit 2 when the ledger is not fit to use. */
export function runDeselect(args: DeselectArgs, io: CliIo): number {
  const freezePath = stringFlag("freeze", args.freeze, "freeze.toml");
  const collectedPath = stringFlag("collected", args.collected, "collected.txt");
  const format = stringFlag("format", args.format, "args");
  if (!(DESELECT_FORMATS as readonly string[]).includes(format)) {
    throw new GateError({
      code: "usage",
      message: `--format ${JSON.stringify(format)} is not one of ${DESELECT_FORMATS.join(", ")}`,
      fix: "see proofgate deselect --help",
    });
  }
  const out = optionalFlag("out", args.out);
  const pluginModule = format === "plugin" ? checkPluginPath(out) : undefined;
  const { today, override } = resolveToday(optionalFlag("today", args.today), io);

  const files = nodeFiles(io.cwd);
  const ledger = loadLedger(files, freezePath);
  // The universe as loadUniverse reads one file (its bytes, then UTF-8 text). Plain `--collect-only -q`
  // output is planned from its bytes, without decoding it or building the universe (100,000 id strings and
  // their set); anything else is decoded and parsed in full, warnings and errors included.
  const what = "the collected test list";
  const collected = files.readBytes(collectedPath, what, "--collected");
  const planned = planDeselectionOnBytes(ledger.value, collected.bytes, today);
  const universe = planned ? undefined : parseUniverseText(asText(collected, what).text, collectedPath, files.root);
  printWarnings(io, [...ledger.warnings, ...(universe?.warnings ?? [])]);
  if (override) io.stderr(`proofgate: warning: leases judged as of ${today} (--today), not the machine's clock\n`);
  if (universe && universe.universe.collectionErrors.length > 0) {
    throw new GateError(
      universe.universe.collectionErrors.map((e) => ({
        code: "deselect_refused",
        file: collectedPath,
        line: e.line,
        message: `pytest reported a collection error (${e.text}): the universe is incomplete`,
        fix: "fix the error so every test is collected, then collect again",
      })),
    );
  }
  const plan = planned ?? planDeselection(ledger.value, universe!.universe, today);
  if (plan.refusal) throw new GateError(refusalIssues(plan, freezePath, collectedPath, ledger.value.maxActiveLeases));

  let text: string;
  if (format === "args") {
    text = renderDeselectArgs(plan);
    warnPrefixCollateral(plan, io);
  } else if (format === "plugin") {
    text = renderDeselectPlugin(plan, freezePath);
  } else if (format === "json") {
    text = `${JSON.stringify(deselectionJson(plan, freezePath, collectedPath), null, 2)}\n`;
  } else {
    text = `${renderContextsRegex(plan)}\n`;
  }
  if (out === undefined) {
    io.stdout(text);
  } else {
    writeAtomic(out, text);
    io.stderr(`proofgate: wrote ${out} (${plan.active.length} frozen test(s))\n`);
    if (pluginModule) {
      io.stderr(
        `proofgate: load it with: PYTHONPATH=${dirname(resolve(io.cwd, out))} python -m pytest -p ${pluginModule} ...\n`,
      );
    }
  }
  return 0;
}

function checkPluginPath(out: string | undefined): string {
  if (out === undefined) {
    throw new GateError({
      code: "usage",
      message: "--format plugin needs --out PATH.py",
      fix: "write e.g. --format plugin --out .proofgate/proofgate_frozen.py",
    });
  }
  const name = basename(out);
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\.py$/.exec(name);
  if (!m) {
    throw new GateError({
      code: "usage",
      message: `--out ${JSON.stringify(out)} is not a Python module file name`,
      fix: "name it like proofgate_frozen.py (letters, digits, underscores) so `-p proofgate_frozen` can import it",
    });
  }
  return m[1]!;
}

function refusalIssues(plan: DeselectionPlan, freezePath: string, collectedPath: string, budget: number): GateIssue[] {
  if (plan.refusal === "expired_leases") {
    return plan.expired.map((lease) => ({
      code: "deselect_refused",
      file: freezePath,
      line: lease.line,
      message: `lease #${lease.index + 1} (${lease.nodeid}, owner ${lease.owner}) expired ${lease.expires}; today is ${plan.today}`,
      fix: "fix the test and delete the lease, or have its owner renew it in a human commit",
    }));
  }
  if (plan.refusal === "unknown_leases") {
    return plan.unknown.map(({ lease, close }) => ({
      code: "deselect_refused",
      file: freezePath,
      line: lease.line,
      message: `lease #${lease.index + 1} (${lease.nodeid}) names no test in ${collectedPath}${close.length ? `; did you mean ${close.map((c) => `${c.id} (${c.why})`).join(", ")}?` : ""}`,
      fix: "copy the id exactly as `pytest --collect-only -q` prints it, or delete the lease if the test is gone",
    }));
  }
  return [
    {
      code: "deselect_refused",
      file: freezePath,
      message: `${plan.active.length} active leases exceed the freeze budget max_active_leases = ${budget}`,
      fix: "fix frozen tests and delete their leases; raising the budget is a human decision",
    },
  ];
}

function warnPrefixCollateral(plan: DeselectionPlan, io: CliIo): void {
  if (plan.collateral.length === 0) return;
  const count = plan.collateral.reduce((n, c) => n + c.alsoDropped.length, 0);
  io.stderr(
    `proofgate: warning: pytest's --deselect matches by prefix, so these lines also drop ${count} collected test(s) that have no lease:\n`,
  );
  for (const c of plan.collateral) {
    io.stderr(`  --deselect=${c.lease.nodeid} also drops: ${c.alsoDropped.join(", ")}\n`);
  }
  io.stderr("proofgate: use --format plugin --out proofgate_frozen.py for an exact deselection\n");
}
