// The ledger and the universe, read once, and the leases judged once against them: the proof run's
// deselection and the decision use the same classes.
import {
  classifyLeases,
  findUnknownLeases,
  type IsoDate,
  type JudgedLeases,
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
): LeaseBook {
  const read = loadUniverse(files, universe.paths, universe.flag);
  const { active, expired } = classifyLeases(ledger.value.leases, today);
  return { ledger, universe: read, leases: { active, expired, unknown: findUnknownLeases(active, read.value) } };
}
