// `proofgate check`: the flags, then the gate (runGate, in @proofgate/gate), then what it printed.
import {
  DEFAULT_GATE_NAME,
  MAX_COMMAND_TIMEOUT,
  MAX_PUBLISH_TIMEOUT,
  GateError,
  gateNameIssue,
  localPlatform,
  renderText,
  type Env,
  type GateIssue,
  type Platform,
  type Provider,
} from "@proofgate/core";
import { buildkitePlatform } from "@proofgate/buildkite";
import { githubPlatform } from "@proofgate/github";
import { gitlabPlatform } from "@proofgate/gitlab";
import { issuesOf, runGate } from "@proofgate/gate";
import { nodePorts, resolveProjectRoot, type ProjectRoot } from "@proofgate/gate/node";
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { CHECK_FORMATS, CHECK_PLATFORMS } from "../command-options.js";
import { optionalFlag, publishTimeoutFlag, stringFlag, timeoutFlag } from "../flags.js";
import { colorWanted, resolveToday, terminalWidth, type CliIo } from "../io.js";
import { cliLog, printIssues, timedLog } from "../messages.js";

/** Options of `proofgate check`. */
export interface CheckArgs {
  [flag: string]: unknown;
  base?: unknown;
  head?: unknown;
  outDir?: unknown;
  format?: unknown;
  platform?: unknown;
  comment?: unknown;
  run?: unknown;
  timeout?: unknown;
  publishTimeout?: unknown;
  today?: unknown;
  name?: unknown;
  root?: unknown;
  verbose?: unknown;
}

/** The platforms this build can publish to, local last. */
export function availablePlatforms(): Platform[] {
  return [githubPlatform, gitlabPlatform, buildkitePlatform, localPlatform];
}

/** A flag's value, or its fallback and the issue with it (the gate then reports the issues, exit 2). */
function flag<T>(issues: GateIssue[], read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    issues.push(...issuesOf(error));
    return fallback;
  }
}

function choice<T extends string>(name: string, value: unknown, choices: readonly T[], fallback: T): T {
  const text = stringFlag(name, value, fallback);
  if (!(choices as readonly string[]).includes(text))
    throw new GateError({
      code: "usage",
      message: `--${name} ${JSON.stringify(text)} is not one of ${choices.join(", ")}`,
      fix: "see proofgate check --help",
    });
  return text as T;
}

/**
 * The gate's name: `--name`, else PROOFGATE_NAME, else the default (`proofgate/<root>` for a package's gate,
 * so two packages on one change publish apart); a name no platform can carry is a usage error.
 */
function gateName(value: unknown, env: Env, root: string): string {
  const given = optionalFlag("name", value);
  const fromEnv = env.PROOFGATE_NAME?.trim() || undefined;
  const name = given ?? fromEnv ?? (root ? `${DEFAULT_GATE_NAME}/${root}` : DEFAULT_GATE_NAME);
  const source = given !== undefined ? "--name" : fromEnv !== undefined ? "PROOFGATE_NAME" : "the name from --root";
  const issue = gateNameIssue(name, source);
  if (issue)
    throw new GateError(
      (given ?? fromEnv) ? issue : { ...issue, fix: "name the gate with --name, e.g. --name proofgate-api" },
    );
  return name;
}

function readOptionalFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function shown(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}

/**
 * `proofgate check`: every signal in one run, from the base revision's proofgate.toml. Writes report.json,
 * report.md, index.html, badge.json, badge.svg and the platform's artifacts into the out dir, prints the
 * report in `--format`, and returns 0 MERGE, 1 REJECT or 2 when the gate could not evaluate (the report is
 * still written, with the errors).
 */
export async function runCheck(
  args: CheckArgs,
  io: CliIo,
  platforms: readonly Platform[] = availablePlatforms(),
): Promise<number> {
  const failures: GateIssue[] = [];
  const format = flag(failures, () => choice("format", args.format, CHECK_FORMATS, "text"), "text");
  const platform = flag(
    failures,
    () => choice<Provider | "auto">("platform", args.platform, CHECK_PLATFORMS, "auto"),
    "auto",
  );
  const outFlag = flag(failures, () => optionalFlag("out-dir", args.outDir), undefined);
  const base = flag(failures, () => optionalFlag("base", args.base), undefined);
  const head = flag(failures, () => optionalFlag("head", args.head), undefined);
  const today = flag(failures, () => optionalFlag("today", args.today), undefined);
  // A package of a monorepo (--root): a folder that is not one of this repository's is exit 2, and the
  // gate reads nothing of it (the ports stay in the working folder, the report says why).
  const project = flag(failures, () => resolveProjectRoot(io.cwd, optionalFlag("root", args.root), io.env), {
    dir: io.cwd,
    root: "",
  } as ProjectRoot);
  // The report goes into the project's folder unless --out-dir says otherwise: two packages checked from the
  // repository's root (--root) each write their own, not one proofgate-report/ the second overwrites.
  const outDir = outFlag === undefined ? resolve(project.dir, "proofgate-report") : resolve(io.cwd, outFlag);
  // A name that cannot be used is reported like any bad flag (exit 2); the report goes out under the default.
  const name = flag(failures, () => gateName(args.name, io.env, project.root), DEFAULT_GATE_NAME);
  // The text table lists the warnings itself; with JSON or Markdown on stdout they go to stderr.
  const plain = cliLog(io, { warnings: format !== "text" });
  // --verbose: where the time went, on the process's clock (ms since it started).
  const startedAt = io.now().getTime();
  const elapsed = io.elapsed ?? (() => io.now().getTime() - startedAt);
  const timing = args.verbose === true ? timedLog(plain, elapsed) : undefined;
  const log = timing?.log ?? plain;
  const run = await runGate({
    ports: nodePorts({ root: project.dir, gitRoot: project.gitRoot, env: io.env }),
    platforms,
    platform,
    env: io.env,
    readFile: readOptionalFile,
    clock: () => resolveToday(today, io),
    flags: { base, head },
    outDir,
    run: args.run === true,
    timeout: flag(failures, () => timeoutFlag(args.timeout, MAX_COMMAND_TIMEOUT), undefined),
    publishTimeout: flag(failures, () => publishTimeoutFlag(args.publishTimeout, MAX_PUBLISH_TIMEOUT), undefined),
    comment: args.comment !== false,
    name,
    root: project.root || undefined,
    // Workflow commands go to stdout, unless stdout carries the report itself (--format json or markdown):
    // then to stderr, which GitHub's runner reads commands from too, so a merge queue gets clean JSON.
    commandStream: format === "text" ? io.stdout : io.stderr,
    log,
    failures,
  });
  // The text table lists the errors itself; the other formats keep stdout machine-readable.
  if (run.exitCode === 2 && format !== "text")
    printIssues(
      io,
      run.report.errors.filter((e) => !run.writeFailures.includes(e)),
    );
  printIssues(io, run.writeFailures);
  for (const failure of run.published.failures)
    io.stderr(`proofgate: error: publishing to ${run.platform.provider} failed: ${failure} (the decision stands)\n`);
  if (format === "json") io.stdout(run.json);
  else if (format === "markdown") io.stdout(run.markdown);
  else io.stdout(renderText(run.report, { color: colorWanted(io), width: terminalWidth(io) }));
  if (run.written.length > 0) io.stderr(`proofgate: wrote ${run.written.map((p) => shown(io.cwd, p)).join(", ")}\n`);
  for (const line of timing?.summary() ?? []) io.stderr(line);
  return run.exitCode;
}
