// The ledger and the universe, read once, and the leases judged once against them: the proof run's
// deselection and the decision use the same classes.
import {
  GateError,
  classifyLeases,
  findUnknownLeases,
  leaseShapeIssues,
  type IsoDate,
  type JudgedLeases,
  type Lease,
  type LeaseClasses,
  type Ledger,
  type Universe,
} from "@proofgate/core";
import type { FilePort } from "./ports.js";
import { loadUniverse, type Loaded } from "./sources/inputs.js";

/** The ledger and the universe, read once, and the leases classified once against them. */
export interface LeaseBook {
  ledger: Loaded<Ledger>;
  universe: Loaded<Universe>;
  leases: JudgedLeases;
}

/** Reads the universe and classifies the ledger's leases for `today` against it. */
export function leaseBook(
  files: FilePort,
  ledger: Loaded<Ledger>,
  universe: { paths: string[]; flag: string },
  today: IsoDate,
  /** `[commands] runner`, when the config names one: the universe must be that runner's. */
  runner?: { name: "pytest" | "vitest"; file: string } | undefined,
): LeaseBook {
  const read = loadUniverse(files, universe.paths, universe.flag, runner?.name);
  const collectedBy = read.value.runner ?? "pytest";
  if (runner !== undefined && runner.name !== collectedBy)
    throw new GateError({
      code: "universe_invalid",
      file: read.value.file,
      message: `[commands] runner is "${runner.name}" (${runner.file}), but ${universe.flag} is ${collectedBy}'s output`,
      fix:
        runner.name === "vitest"
          ? "collect with `npx vitest list --json=collected.json` (and name that file in [universe] collected)"
          : 'collect with `python -m pytest --collect-only -q > collected.txt`, or set runner = "vitest"',
    });
  const { active, expired } = classifiedLeases(ledger, collectedBy, today);
  return { ledger, universe: read, leases: { active, expired, unknown: findUnknownLeases(active, read.value) } };
}

/**
 * The ledger's active pytest leases for `today`, before any collection: what the proof run deselects when its
 * collection runs beside it (`[commands] collect_beside_proof`). The lease book is read after both.
 */
export function activePytestLeases(ledger: Loaded<Ledger>, today: IsoDate): Lease[] {
  return classifiedLeases(ledger, "pytest", today).active;
}

/** The ledger's leases, active or expired for `today`; exit 2 when one's id is not of `runner`'s shape. */
function classifiedLeases(ledger: Loaded<Ledger>, runner: "pytest" | "vitest", today: IsoDate): LeaseClasses {
  // An id of the other runner's shape can never match a test: a clear error, not an unknown lease.
  const shapes = leaseShapeIssues(ledger.value.leases, runner, ledger.value.file);
  if (shapes.length > 0) throw new GateError(shapes);
  return classifyLeases(ledger.value.leases, today);
}
