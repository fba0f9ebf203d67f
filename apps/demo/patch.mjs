// The demo's patch, committed twice by run.mjs: as an agent's, then made right.
// The base is apps/demo/project with its lease dates set relative to today. The patch, step by step:
//   1. freeze one more test (a lease in freeze.toml)        needs Freeze-Lease: human
//   2. render JPY amounts without decimals (code)           an agent may do this alone
//   3. rewrite the JPY golden file and re-lock it           needs Fixture-Lock: human
//   4. delete a property seed                               needs Property-Seeds: human
// Both versions of the patch leave the same files, so one set of recorded artifacts serves both heads.
// Node only: no Python here.
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const cli = join(here, "../../packages/cli/dist/proofgate.js");

/** A UTC date `offset` days from today, as YYYY-MM-DD. */
export const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Rewrites a file's text; throws when the text to replace is not there (the project changed under the demo). */
function edit(dir, path, from, to) {
  const file = join(dir, path);
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`demo patch: ${path} no longer contains ${JSON.stringify(from)}`);
  writeFileSync(file, text.replace(from, to));
}

/** Copies the base project into `dir`, its leases expiring 40 and 10 days from today. */
export function writeBase(dir) {
  cpSync(join(here, "project"), dir, {
    recursive: true,
    filter: (src) => !/(^|[/\\])(__pycache__|\.pytest_cache|\.coverage|proofgate-report)$/.test(src),
  });
  edit(dir, "freeze.toml", 'expires = "2027-01-15"', `expires = "${day(40)}"`);
  edit(dir, "freeze.toml", 'expires = "2026-12-10"', `expires = "${day(10)}"`);
}

export const NEW_LEASE = "tests/test_render.py::test_render_due_date";
export const DELETED_SEED = "tests/properties/seeds/eur-consulting-2025.txt";
const JPY_GOLDEN = `INVOICE 2026-0043
--------------------------------
Licence               150000 JPY
Support                12500 JPY
--------------------------------
Net                   162500 JPY
Total incl. tax       178750 JPY
`;

/**
 * The patch's steps. `trailer` is what the step needs from a human (undefined: nothing). Each apply(dir)
 * changes the work tree; run.mjs commits after each.
 */
export const STEPS = [
  {
    subject: "Quarantine test_render_due_date",
    body: "It fails around midnight UTC on the CI runners.",
    trailer: "Freeze-Lease",
    apply(dir) {
      const lease = `\n[[leases]]\nnodeid = "${NEW_LEASE}"\nreason = "fails around midnight UTC on CI runners"\nowner = "platform-billing"\nexpires = "${day(21)}"\n`;
      writeFileSync(join(dir, "freeze.toml"), readFileSync(join(dir, "freeze.toml"), "utf8") + lease);
    },
  },
  {
    subject: "Render JPY amounts without decimals",
    body: "The yen has no minor unit.",
    apply(dir) {
      edit(
        dir,
        "src/invoicing/render.py",
        '    return f"{amount:.2f} {currency}"',
        '    places = 0 if currency == "JPY" else 2\n    return f"{amount:.{places}f} {currency}"',
      );
    },
  },
  {
    subject: "Update the JPY invoice golden file",
    body: "Regenerated after the rendering change, and re-locked with `proofgate lock`.",
    trailer: "Fixture-Lock",
    apply(dir) {
      writeFileSync(join(dir, "tests/fixtures/invoice_jpy.txt"), JPY_GOLDEN);
      const r = spawnSync(process.execPath, [cli, "lock"], { cwd: dir, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`demo patch: proofgate lock failed: ${r.stderr}`);
    },
  },
  {
    subject: "Drop a redundant property seed",
    body: "eur-consulting-2025.txt has the same lines as eur-consulting.txt.",
    trailer: "Property-Seeds",
    apply(dir) {
      rmSync(join(dir, DELETED_SEED));
    },
  },
];
