import yargs, { type Argv } from "yargs";
// Core by module: every command starts through this file, and the index is the whole policy.
import { GateError } from "@proofgate/core/errors";
import { RULE_REASONS } from "@proofgate/core/reasons";
import { CHECK_FORMATS, CHECK_PLATFORMS, DESELECT_FORMATS } from "./command-options.js";
import { printFailure, printIssues } from "./messages.js";
import type { CliIo } from "./cli-io.js";
import { resolveToday } from "./io.js";
import { writeAtomic } from "@proofgate/gate/files";
import { VERSION } from "./version.js";

export type { CliIo } from "./cli-io.js";

const EPILOG = `Exit codes: 0 MERGE (or success), 1 REJECT (or a finding), 2 the gate could not evaluate: bad input or usage.
Docs: README.md in the proofgate repository.`;

function ledgerOption(y: Argv): Argv {
  return y.option("freeze", {
    type: "string",
    describe: "the freeze ledger (TOML)",
    default: "freeze.toml",
    requiresArg: true,
  });
}
function collectedOption(y: Argv, describe: string): Argv {
  return y.option("collected", { type: "string", describe, requiresArg: true });
}
function todayOption(y: Argv): Argv {
  return y.option("today", {
    type: "string",
    describe: "judge as of this UTC date (YYYY-MM-DD), a preview: the answer then cannot be MERGE (clock_override)",
    requiresArg: true,
  });
}

/**
 * Runs the CLI with `argv` (without node and script). Returns the exit code. Every GateError and every
 * usage error becomes exit 2 with one line per problem on stderr; `decide` still prints a REJECT report.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  let code = 0;
  // `decide`'s --today and --out as yargs read them, before it validated the rest: a usage error still
  // gets its REJECT report, in --out too.
  let decideFlags: { today?: unknown; out?: unknown } | undefined;
  try {
    const parser = yargs(argv)
      .scriptName("proofgate")
      .usage(
        "proofgate <command> [options]\n\nThe merge gate for agent patches: frozen tests are subtracted from coverage, the freeze ledger has owners, expiry dates and a budget, and the answer is MERGE or REJECT.",
      )
      .command(
        ["deselect", "emit-deselect"],
        "Print what the proof run must leave out: the active leases, as pytest arguments, a pytest plugin, JSON, or a coverage.py contexts regex",
        (y) =>
          todayOption(
            collectedOption(ledgerOption(y), "`pytest --collect-only -q` output").default("collected", "collected.txt"),
          )
            .option("format", {
              choices: DESELECT_FORMATS,
              default: "args",
              describe:
                "args: --deselect=<id> lines (prefix match!); plugin: an exact pytest plugin (needs --out); json: the leases and ids; contexts-regex: for `coverage json --contexts`",
            })
            .option("out", {
              type: "string",
              describe: "write to this file instead of stdout (for plugin: a .py file whose name is a module name)",
              requiresArg: true,
            })
            .example(
              "proofgate deselect > deselect.args",
              "the reference script's output: --deselect=<id> per active lease",
            )
            .example(
              "proofgate deselect --format plugin --out .proofgate/proofgate_frozen.py",
              "an exact deselection; then PYTHONPATH=.proofgate python -m pytest -p proofgate_frozen",
            )
            .example(
              'coverage json --contexts="$(proofgate deselect --format contexts-regex)"',
              "single-run proven coverage from a --cov-context=test run",
            )
            .epilog(
              "Refuses (exit 2) when a lease expired, names no collected test, or the active leases exceed the budget: the same checks as the article's script.\n\n" +
                EPILOG,
            ),
        async (a) => {
          code = (await import("./commands/deselect.js")).runDeselect(a, io);
        },
      )
      .command(
        "check",
        "Run the whole gate from proofgate.toml: every signal, the decision table, report.json, report.md, index.html and the badge in the out dir, and the platform's native report",
        (y) =>
          todayOption(y)
            .option("base", {
              type: "string",
              describe:
                "the patch's base revision (default: the platform's, else the merge-base with the default branch)",
              requiresArg: true,
            })
            .option("head", {
              type: "string",
              describe: "the patch's head revision (default: the platform's, else HEAD)",
              requiresArg: true,
            })
            .option("out-dir", {
              type: "string",
              describe:
                "where report.json, report.md, index.html, badge.json, badge.svg and the platform's artifacts are written (default: proofgate-report in the project's folder: the working folder, or the package's with --root)",
              requiresArg: true,
            })
            .option("format", {
              choices: CHECK_FORMATS,
              default: "text",
              describe: "what to print on stdout: the decision table (text), the JSON report, or Markdown",
            })
            .option("platform", {
              choices: CHECK_PLATFORMS,
              default: "auto",
              describe:
                "where to publish: auto detects GitHub Actions, GitLab CI and Buildkite from the environment, else local",
            })
            .option("comment", {
              type: "boolean",
              default: true,
              describe: "create or update the one PR/MR comment (--no-comment: don't)",
            })
            .option("name", {
              type: "string",
              describe:
                "the gate's name: its check run, status, comment and annotation, so two gates on one change keep theirs (default: PROOFGATE_NAME, else proofgate, or proofgate/<root> with --root)",
              requiresArg: true,
            })
            .option("root", {
              type: "string",
              describe:
                "gate the package in this folder of the repository (a monorepo): its proofgate.toml, ledger, lock, evidence and [commands] are the folder's, its paths relative to it; commits that touch neither it nor the shared CI files are not its",
              requiresArg: true,
            })
            .option("run", {
              type: "boolean",
              default: false,
              describe:
                "first run [commands] collect, proof and properties of proofgate.toml (frozen tests deselected, seeds from the base)",
            })
            .option("timeout", {
              type: "string",
              describe:
                "with --run: seconds each step may run before it is stopped with its child processes (exit 2, command_timeout); 0: no limit. Default: the base's [commands] timeout (1800)",
              requiresArg: true,
            })
            .option("verbose", {
              type: "boolean",
              default: false,
              describe:
                "print where the time went on stderr at the end: each step of --run, the base's worktree, and the gate's own work",
            })
            .option("publish-timeout", {
              type: "string",
              describe:
                "seconds publishing (check run, comment, status, annotation) may take in all; past it, publishing stops with an error and the exit code stays the decision's. Default: the base's [publish] timeout (60)",
              requiresArg: true,
            })
            .example(
              "proofgate check",
              "judge the patch from the artifacts that proofgate.toml names; exit 0 MERGE, 1 REJECT, 2 could not evaluate",
            )
            .example("proofgate check --run", "one CI step: collect, run the proof and the property suite, then judge")
            .example(
              "proofgate check --run --root pkgs/api --out-dir report-api",
              "gate one package of a monorepo (published as proofgate/pkgs/api)",
            )
            .example(
              "proofgate check --base origin/main --format json > verdict.json",
              "the JSON report on stdout, for a merge queue",
            )
            .epilog(
              "The policy (paths, floor, patterns, trailers, commands) is the BASE revision's proofgate.toml: a patch cannot loosen its own judge. The work tree must be the head it judges (checked out, no uncommitted change; with --run, no untracked file). Docs: docs/config.md, docs/reasons.md, docs/report.md.\n\nEvery input that is missing, empty or unreadable is exit 2 with the report still written (decision REJECT).\n\n" +
                EPILOG,
            ),
        async (a) => {
          code = await (await import("./commands/check.js")).runCheck(a, io);
        },
      )
      .command(
        "record [command..]",
        "Run the CI's own test command and bind the evidence files it writes to this commit (a stamp `check` reads)",
        (y) =>
          y
            .positional("command", {
              type: "string",
              array: true,
              describe: "the command: one shell line, or its words after --",
            })
            .option("stamp", {
              type: "string",
              describe: "where to write the stamp (default: the first [evidence] stamps of proofgate.toml)",
              requiresArg: true,
            })
            .option("writes", {
              type: "string",
              array: true,
              describe:
                "a file the command must write or rewrite (repeat it); default: the evidence files proofgate.toml names that it did write",
              requiresArg: true,
            })
            .option("timeout", {
              type: "string",
              describe:
                "seconds the command may run before it is stopped with its child processes (exit 2, command_timeout); 0: no limit. Default: [commands] timeout of proofgate.toml (1800)",
              requiresArg: true,
            })
            .example(
              "proofgate record -- 'python -m pytest --cov=src --junitxml=results.xml; s=$?; python -m coverage json -o proven_coverage.json; exit $s'",
              "a CI test job: the JUnit and coverage files, bound to the commit in proofgate-evidence.json",
            )
            .epilog(
              "The work tree must be a commit with no tracked file changed. Exits with the command's exit code; 2 when it wrote no evidence file (a file left from an earlier run is not evidence). Docs: docs/config.md#evidence.\n\n" +
                EPILOG,
            ),
        async (a) => {
          code = await (await import("./commands/record.js")).runRecord(a, io);
        },
      )
      .command(
        "decide",
        "Decide MERGE or REJECT from the ledger, the universe, proven coverage and the patch's counts; prints the JSON report",
        (y) =>
          todayOption(
            collectedOption(ledgerOption(y), "`pytest --collect-only -q` output").default("collected", "collected.txt"),
          )
            .option("coverage", {
              type: "string",
              describe:
                "coverage.py JSON of the proof run (frozen tests deselected); default proven_coverage.json when no --report is given",
              requiresArg: true,
            })
            .option("report", {
              type: "string",
              describe:
                "a coverage report of the proof run: coverage.py JSON, LCOV, Cobertura XML, Istanbul JSON (format detected); repeat it for shards",
              requiresArg: true,
            })
            .option("coverage-format", {
              type: "string",
              describe: "override format detection: coveragepy-json, lcov, cobertura, istanbul-final, istanbul-summary",
              requiresArg: true,
            })
            .option("shards", {
              type: "string",
              describe: "how many parallel jobs wrote coverage reports; fewer --report files is shard_missing",
              requiresArg: true,
            })
            .option("contexts", {
              type: "string",
              describe:
                "single-run mode: coverage.py's .coverage of a full `pytest --cov-context=test` run (then --report is that run's `coverage json`); repeat it for shards, each with its own --report in the same order",
              requiresArg: true,
            })
            .option("results", {
              type: "string",
              describe:
                "JUnit XML of the proof run (pytest, vitest, jest-junit); repeat it for shards. Enables tests_failed, missing_evidence, skip_budget, frozen_in_proof_run",
              requiresArg: true,
            })
            .option("max-unledgered-skips", {
              type: "string",
              describe: "the budget of skipped or xfailed tests that have no lease (skip_budget); none when absent",
              requiresArg: true,
            })
            .option("min-proven", {
              type: "string",
              default: "70",
              describe: "the proven coverage floor, in percent",
              requiresArg: true,
            })
            .option("fixture-delta", {
              type: "string",
              default: "0",
              describe: "fixture digests changed by the patch",
              requiresArg: true,
            })
            .option("property-failures", {
              type: "string",
              default: "0",
              describe: "failures of the property suite",
              requiresArg: true,
            })
            .option("agent-added-leases", {
              type: "string",
              default: "0",
              describe: "leases the agent added",
              requiresArg: true,
            })
            .option("human-fixture-lock", {
              type: "boolean",
              default: false,
              describe: "a human signed the fixture change (Fixture-Lock: human)",
            })
            .option("base", {
              type: "string",
              describe:
                "the patch's base revision: lease, fixture, seed and protected-path signals are then read from git (head defaults to HEAD)",
              requiresArg: true,
            })
            .option("head", {
              type: "string",
              describe:
                "the patch's head revision (default HEAD); the base defaults to the merge-base with the default branch",
              requiresArg: true,
            })
            .option("out", { type: "string", describe: "also write the JSON report to this file", requiresArg: true })
            .example(
              "proofgate decide --freeze freeze.toml --collected collected.txt --coverage proven_coverage.json",
              "the article's decide step",
            )
            .example(
              "proofgate decide --report cov-1.info --report cov-2.info --shards 2 --results junit.xml",
              "LCOV shards of two parallel jobs, with the proof run's JUnit results",
            )
            .epilog(`Reasons, in order: ${RULE_REASONS.join(", ")}; each is explained in docs/reasons.md.\n\n` + EPILOG)
            .middleware((a) => {
              decideFlags = { today: a.today, out: a.out };
            }, true),
        async (a) => {
          code = await (await import("./commands/decide.js")).runDecide(a, io);
        },
      )
      .command(
        "coverage",
        "Print proven coverage: from the proof run's reports (any format; several are shards), or from one --cov-context=test run minus the frozen tests (--contexts)",
        (y) =>
          todayOption(
            collectedOption(ledgerOption(y), "`pytest --collect-only -q` output, to check the leases against"),
          )
            .option("contexts", {
              type: "string",
              describe:
                "coverage.py's .coverage data file of a `pytest --cov-context=test` run; repeat it for shards, each with its own --report (its `coverage json`) in the same order",
              requiresArg: true,
            })
            .option("report", {
              type: "string",
              describe:
                "a coverage report (coverage.py JSON, LCOV, Cobertura XML, Istanbul JSON; repeat for shards); with --contexts, the same run's `coverage json`. Default proven_coverage.json",
              requiresArg: true,
            })
            .option("coverage-format", {
              type: "string",
              describe: "override format detection: coveragepy-json, lcov, cobertura, istanbul-final, istanbul-summary",
              requiresArg: true,
            })
            .option("shards", {
              type: "string",
              describe: "how many parallel jobs wrote reports; fewer --report files exits 1 (shard_missing)",
              requiresArg: true,
            })
            .option("format", { choices: ["text", "json"], default: "text" })
            .example(
              "proofgate coverage --contexts .coverage --report full.json --format json",
              "single run: pytest --cov-context=test --cov-branch, then coverage json -o full.json",
            )
            .example(
              "proofgate coverage --contexts cov-1.coverage --report cov-1.json --contexts cov-2.coverage --report cov-2.json --shards 2",
              "single run in two CI shards: each wrote its own .coverage (COVERAGE_FILE) and `coverage json`",
            )
            .example("proofgate coverage --report proven_coverage.json", "rerun: the totals of the proof run's report")
            .epilog(EPILOG),
        async (a) => {
          code = await (await import("./commands/coverage.js")).runCoverage(a, io);
        },
      )
      .command(
        "init",
        "Start using the gate: write freeze.toml, proofgate.toml and fixtures.lock (never overwriting one), and print the CI job for your platform",
        (y) =>
          y
            .option("platform", {
              choices: ["auto", "local", "github", "gitlab", "buildkite"],
              default: "auto",
              describe:
                "the CI to print a job for; auto: the CI this runs in, else each CI the repository has a folder for (.github/workflows, .gitlab-ci.yml, .buildkite), else a pre-push hook",
            })
            .option("python", {
              type: "string",
              requiresArg: true,
              describe:
                "the Python the commands run (a command, e.g. .venv/bin/python); default: the first of python, python3 on PATH that has pytest",
            })
            .option("gitignore", {
              type: "boolean",
              default: true,
              describe:
                "append the files `check --run` writes to .gitignore (only the lines git does not ignore yet); --no-gitignore only lists them",
            })
            .option("min-proven", {
              type: "string",
              requiresArg: true,
              describe: "the floor to write as [coverage] min_proven, instead of measuring one",
            })
            .option("measure", {
              type: "boolean",
              default: true,
              describe:
                "run the proof command once and write its coverage, rounded down, as min_proven; --no-measure keeps 70 with a note to raise it",
            })
            .example("proofgate init", "the files for this layout, and the CI job for the CI found")
            .example(
              "proofgate init --no-gitignore --python .venv/bin/python",
              "the venv's pytest; list the run's files instead of adding them to .gitignore",
            )
            .example(
              "proofgate init --platform gitlab",
              "a .gitlab-ci.yml job: GIT_DEPTH 0, the coverage regex, the report artifacts",
            )
            .epilog(
              "init reads pytest's settings (pytest.ini, pyproject.toml, tox.ini, setup.cfg), coverage.py's source (.coveragerc, setup.cfg, tox.ini, pyproject.toml), the package and test folders, golden-file and seed folders, and the pytest-cov version, and writes the commands for them; a vitest project (vitest in package.json, no Python settings) gets vitest's commands, its __fixtures__ and __snapshots__ locked and its vitest configs protected (docs/vitest.md). A signal whose files do not exist is written enabled = false. An existing file is kept, byte for byte, and reported.\n\n" +
                EPILOG,
            ),
        async (a) => {
          code = await (await import("./commands/init.js")).runInit(a, io);
        },
      )
      .command(
        "lock",
        "Write fixtures.lock (sha256sum format) from the fixture files, hashed in parallel; --check compares without writing",
        (y) =>
          y
            .option("paths", {
              type: "string",
              array: true,
              describe:
                "fixture files or folders, relative to the repo root (default [fixtures] paths of proofgate.toml, else tests/fixtures)",
              requiresArg: true,
            })
            .option("lock", {
              type: "string",
              describe: "the lock file (default [fixtures] lock of proofgate.toml, else fixtures.lock)",
              requiresArg: true,
            })
            .option("check", {
              type: "boolean",
              default: false,
              describe: "write nothing: exit 1 listing the files changed, added or removed since the lock",
            })
            .example(
              "proofgate lock",
              "hash tests/fixtures into fixtures.lock; `sha256sum -c fixtures.lock` verifies it",
            )
            .example("proofgate lock --check", "in CI: exit 1 when a golden file differs from the lock")
            .epilog(
              "Symlinks, and names with a newline, carriage return or backslash, are errors (exit 2).\n\n" + EPILOG,
            ),
        async (a) => {
          code = await (await import("./lock-entry.js")).runLockCommand(a, io);
        },
      )
      .command("seeds", "The property suite's seed corpus", (y) =>
        y
          .command(
            "materialize",
            "Write the seed corpus as it was at a revision (from git objects, read-only), so properties run on seeds that predate the patch",
            (z) =>
              z
                .option("ref", {
                  type: "string",
                  demandOption: true,
                  describe: "the revision, usually the patch's base",
                  requiresArg: true,
                })
                .option("out", {
                  type: "string",
                  demandOption: true,
                  describe: "a new or empty folder to write into",
                  requiresArg: true,
                })
                .option("seeds", {
                  type: "string",
                  describe:
                    "seed folder(s), repeatable; default [properties] seeds of proofgate.toml, else tests/properties/seeds",
                  requiresArg: true,
                })
                .example(
                  "proofgate seeds materialize --ref origin/main --out .proofgate/seeds",
                  "then point the property suite at .proofgate/seeds/tests/properties/seeds",
                ),
            async (a) => {
              code = (await import("./commands/seeds.js")).runSeedsMaterialize(a, io);
            },
          )
          .demandCommand(1, "name a subcommand: materialize")
          .strict(),
      )
      .command("ledger", "Inspect the freeze ledger: lint, list, expiring", (y) =>
        y
          .command(
            "lint",
            "Validate the ledger; with --collected, also check every lease names a collected test",
            (z) =>
              todayOption(
                collectedOption(ledgerOption(z), "`pytest --collect-only -q` output to check lease ids against"),
              ),
            async (a) => {
              code = (await import("./commands/ledger.js")).runLedgerLint(a, io);
            },
          )
          .command(
            "list",
            "A table of every lease: nodeid, owner, expires, days left, state; with a --cov-context=test run, what each costs (the lines only its test runs), dearest first",
            (z) =>
              todayOption(collectedOption(ledgerOption(z), "mark leases that name no collected test"))
                .option("contexts", {
                  type: "string",
                  describe:
                    "coverage.py's .coverage data file of a `pytest --cov-context=test` run (default: [coverage] contexts of proofgate.toml, when the file is there)",
                  requiresArg: true,
                })
                .option("report", {
                  type: "string",
                  describe: "with --contexts, the same run's `coverage json`",
                  requiresArg: true,
                })
                .option("format", { choices: ["text", "json"], default: "text" })
                .example(
                  "proofgate ledger list --contexts .coverage --report full.json",
                  "what each lease costs: pytest --cov-context=test --cov-branch, then coverage json -o full.json",
                ),
            async (a) => {
              code = await (await import("./commands/ledger.js")).runLedgerList(a, io);
            },
          )
          .command(
            "expiring",
            "The leases that expire within a window (or already have), so a team sees the gate fail before it does",
            (z) =>
              todayOption(collectedOption(ledgerOption(z), "mark leases that name no collected test"))
                .option("within", {
                  type: "string",
                  default: "14d",
                  describe: "window: 14d, 2w or a number of days",
                  requiresArg: true,
                })
                .option("format", { choices: ["text", "json"], default: "text" }),
            async (a) => {
              code = (await import("./commands/ledger.js")).runLedgerExpiring(a, io);
            },
          )
          .demandCommand(1, "name a subcommand: lint, list or expiring")
          .strict(),
      )
      .demandCommand(1, "name a command: check, record, init, deselect, decide, coverage, lock, seeds or ledger")
      .strict()
      .recommendCommands()
      .version(VERSION)
      .help()
      .alias("h", "help")
      .wrap(Math.min(110, io.columns || 100))
      .epilog(EPILOG)
      .exitProcess(false)
      .fail((message, error) => {
        // yargs's own usage errors (a flag without its value, ...) come as a YError: usage, not internal.
        if (error && error.name !== "YError") throw error;
        const text = (message ?? error?.message ?? "bad usage").replace(/\s*\n\s*/g, " ");
        throw new GateError({ code: "usage", message: text, fix: "see proofgate --help" });
      });
    let output = "";
    await parser.parseAsync(argv, {}, (_err, _argv, text) => {
      output = text;
    });
    if (output) io.stdout(`${output}\n`);
    return code;
  } catch (error) {
    return reportFailure(error, decideFlags, io);
  }
}

/** The exit code of a command that failed (2), after its one-line errors; `decide` also prints its REJECT report. */
async function reportFailure(
  error: unknown,
  decide: { today?: unknown; out?: unknown } | undefined,
  io: CliIo,
): Promise<number> {
  const issues = printFailure(error, io);
  if (decide === undefined) return 2;
  let today: string | undefined;
  try {
    today = resolveToday(typeof decide.today === "string" ? decide.today : undefined, io).today;
  } catch {
    today = undefined;
  }
  const { errorReport, reportJson } = await import("@proofgate/core");
  const report = reportJson(errorReport(today, issues));
  io.stdout(report);
  // `--out` gets the REJECT report too: a file left from an earlier run must not still say MERGE.
  const out =
    typeof decide.out === "string" && decide.out !== "" && !decide.out.startsWith("-") ? decide.out : undefined;
  if (out !== undefined) {
    try {
      writeAtomic(out, report);
    } catch (writeError) {
      if (GateError.isInstance(writeError) && !issues.some((i) => i.file === out)) printIssues(io, writeError.issues);
    }
  }
  return 2;
}
