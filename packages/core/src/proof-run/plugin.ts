import { pythonString } from "../evidence/deselect.js";
import type { Lease } from "../ledger/ledger.js";
import { PROOF_PLUGIN_PY } from "../pytest-plugins/generated.js";
import { fillPythonSlots } from "../pytest-plugins/slots.js";

/** The plugin's version, written into every record; a record of another version is refused. */
export const PROOF_PLUGIN_VERSION = "1";

/** The `format` field of a run record. */
export const PROOF_RUN_RECORD_FORMAT = "proofgate-run-record";

/** The record format's version. */
export const PROOF_RUN_RECORD_VERSION = 1;

/**
 * The environment variables the plugin reads, and removes from `os.environ` when it is imported:
 * the run's nonce, its HMAC key (hexadecimal), the record's path, and the repository root the
 * recorded paths are relative to (the working directory when unset).
 */
export const PROOF_RUN_ENV = {
  nonce: "PROOFGATE_RUN_NONCE",
  key: "PROOFGATE_RUN_KEY",
  record: "PROOFGATE_RUN_RECORD",
  root: "PROOFGATE_RUN_ROOT",
} as const;

/** A folder outside the work tree whose files the record names as repository paths. */
export interface ProofPluginMount {
  /** Absolute folder, e.g. the base's seeds written by `seeds materialize` (`<out>/seeds`). */
  dir: string;
  /** What its relative paths are prefixed with in the record ("" when it mirrors the repository). */
  prefix: string;
  /** Written as the file's `via`, e.g. `base-seeds`. */
  label: string;
}

/** How to render the proof plugin. */
export interface ProofPluginOptions {
  /** The ledger, named in the plugin's error when a leased test is not collected. */
  ledgerFile: string;
  mounts?: readonly ProofPluginMount[] | undefined;
  /**
   * Absolute folders whose files are never recorded (the report folder). The record's own folder,
   * the plugin's folder, `.git/` and `__pycache__/` are always left out.
   */
  exclude?: readonly string[] | undefined;
  /**
   * The repository's top folder (absolute) when the run's root is a package folder inside it: a file the tests
   * open elsewhere in the repository is recorded by its path from the root (`../../testdata/golden.txt`), so
   * that a golden file outside the package is seen. Absent: files outside the root are not recorded.
   */
  outer?: string | undefined;
  /**
   * Whether a lease naming no collected test of a collected file stops the run (pytest's usage error, exit 4).
   * Default true; false when the deselection is planned before any collection (`[commands] collect_beside_proof`):
   * the gate then judges such a lease from the universe (unknown_leases).
   */
  stopOnUncollected?: boolean | undefined;
}

/**
 * The proof run's pytest plugin (src/pytest-plugins/proofgate_proof_plugin.py, pytest 7.2 through 9): it deselects exactly the active
 * leases' ids like renderDeselectPlugin (a DeselectionPlan fits), and when the PROOF_RUN_ENV variables
 * are set it writes a signed run record at session end (docs/proof-run-record.md). Without them it only
 * deselects.
 */
export function renderProofPlugin(
  plan: { today: string; active: ReadonlyArray<Pick<Lease, "nodeid">> },
  options: ProofPluginOptions,
): string {
  return fillPythonSlots(
    PROOF_PLUGIN_PY,
    {
      text: { TODAY: plan.today },
      values: {
        PLUGIN_VERSION: pythonString(PROOF_PLUGIN_VERSION),
        LEDGER: pythonString(options.ledgerFile),
        STOP_ON_MISSING: options.stopOnUncollected === false ? "False" : "True",
        OUTER: pythonString(options.outer ?? ""),
      },
      lists: {
        FROZEN: plan.active.map((lease) => pythonString(lease.nodeid)),
        MOUNTS: (options.mounts ?? []).map(
          (m) => `(${pythonString(m.dir)}, ${pythonString(m.prefix)}, ${pythonString(m.label)})`,
        ),
        EXCLUDE: (options.exclude ?? []).map(pythonString),
      },
    },
    "renderProofPlugin",
  );
}

/**
 * The module name the plugin is loaded by for one run: `proofgate_run_` and the nonce's first 16
 * hex digits. A name the work tree cannot know in advance cannot be shadowed by a committed module,
 * nor blocked with `-p no:<name>` in its pytest configuration.
 */
export function proofPluginModuleName(nonce: string): string {
  if (!/^[0-9a-f]{16,}$/.test(nonce))
    throw new TypeError("proofPluginModuleName: the nonce must be 16+ lower-case hex digits");
  return `proofgate_run_${nonce.slice(0, 16)}`;
}

/** What the gate knows about one proof run, to set its environment. */
export interface ProofRunSetup {
  /** Lower-case hex, at least 16 digits, fresh for every run. */
  nonce: string;
  /** Hexadecimal HMAC key, fresh for every run (32 random bytes). */
  key: string;
  /** Absolute path the record is written to. */
  record: string;
  /** Absolute repository root. */
  root: string;
  /** The folder holding `<moduleName>.py`. */
  pluginDir: string;
  moduleName: string;
  /** The PYTHONPATH and PYTEST_ADDOPTS the command would otherwise get. */
  inherited: { PYTHONPATH?: string | undefined; PYTEST_ADDOPTS?: string | undefined };
  /** The platform's PYTHONPATH separator (`:` on POSIX). */
  delimiter: string;
  /**
   * Also set PYTHONSAFEPATH=1 (Python 3.11+, ignored before): the working directory is then not put on
   * sys.path, so a module in the work tree cannot shadow pytest or the standard library. Projects that
   * import their code from the root without installing it then need `pythonpath = .` in their pytest
   * configuration or a root conftest.py.
   */
  safePath?: boolean | undefined;
}

/** The environment variables to add to the proof command's environment for a recorded run. */
export function proofRunEnvironment(setup: ProofRunSetup): Record<string, string> {
  const env: Record<string, string> = {
    [PROOF_RUN_ENV.nonce]: setup.nonce,
    [PROOF_RUN_ENV.key]: setup.key,
    [PROOF_RUN_ENV.record]: setup.record,
    [PROOF_RUN_ENV.root]: setup.root,
    PYTHONPATH: [setup.pluginDir, setup.inherited.PYTHONPATH].filter(Boolean).join(setup.delimiter),
    PYTEST_ADDOPTS: [`-p ${setup.moduleName}`, setup.inherited.PYTEST_ADDOPTS].filter(Boolean).join(" "),
  };
  if (setup.safePath) env.PYTHONSAFEPATH = "1";
  return env;
}
