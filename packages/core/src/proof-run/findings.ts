/** What a proof-run judge found. The gate maps each to a reason (docs/proof-run-record.md). */
export type RunFindingCode =
  /** A report whose outcome got better between what the test raised, what pytest made and what was logged. */
  | "outcome_tampered"
  /** A pytest or pluggy function or class that makes or carries reports was replaced during the run. */
  | "internals_patched"
  /** The plugin's views no longer sat at the ends of a hook chain at session end. */
  | "hook_order_lost"
  /** A module loaded from the work tree under the name of a module found elsewhere (runtime). */
  | "module_shadowed"
  /** pytest-xdist's controller and its workers' records disagree (what was run, what was logged). */
  | "relay_mismatch"
  /** pytest's exit status was 0 although a test failed or collection failed. */
  | "exit_status_masked"
  /** A plugin in the repository implements a hook that shapes results. */
  | "runner_hook"
  | "test_skipped"
  | "test_xfailed"
  | "test_xpassed"
  /** A module skipped at import (`pytest.skip(allow_module_level=True)`, `importorskip`) or a skipped collector. */
  | "collection_skipped"
  | "collection_error"
  /** The plugin's deselection differs from the leases it was given. */
  | "deselection_mismatch"
  /** Tests deselected by something other than the gate (`-k`, `-m`, a conftest.py hook). */
  | "deselected_other"
  /** Collected, not deselected, and never run. */
  | "test_not_run"
  /** Reported without being collected. */
  | "test_not_collected"
  /** The interpreter had no audit hooks: the files opened are unknown. */
  | "audit_unavailable"
  | "unlocked_fixture_read"
  | "seed_not_read"
  /** A work-tree module on the import path by the name of a test tool or a standard module (static). */
  | "tool_shadowed"
  /** Added lines that import pytest's internals or patch its reports (static). */
  | "runner_tampering";

/** A line of a file that a finding points at. */
export interface RunFindingLine {
  path: string;
  line: number;
  text?: string | undefined;
}

/** One finding of a proof-run judge: what, which tests, paths or lines, and the fix. */
export interface RunFinding {
  code: RunFindingCode;
  message: string;
  tests?: string[] | undefined;
  paths?: string[] | undefined;
  lines?: RunFindingLine[] | undefined;
  /** The paths whose change in the patch made the finding (a shadowing module, the folder that put it on the path). */
  madeBy?: string[] | undefined;
  fix: string;
}

/** `a, b, c` of the first `max` items, then `and N more`. */
export function listSome(items: readonly string[], max = 10): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
