import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import {
  DEFAULT_GATE_NAME,
  GateError,
  classifyLeases,
  gateNameIssue,
  decide,
  errorReport,
  localPlatform,
  mergeContext,
  normalizeRepoPath,
  parseJunitXml,
  renderMarkdown,
  renderText,
  reportView,
  selectPlatform,
  toPythonJson,
  type CiContext,
  type CommandOutcome,
  type Env,
  type GateConfig,
  type GateIssue,
  type InputDigest,
  type IsoDate,
  type Platform,
  type PropertyEvidence,
  type Provider,
  type PublishableReport,
} from "@proofgate/core";
import { buildkitePlatform } from "@proofgate/buildkite";
import { githubPlatform } from "@proofgate/github";
import { gitlabPlatform } from "@proofgate/gitlab";
import { optionalFlag, stringFlag } from "../flags.js";
import { colorWanted, readInput, resolveToday, writeAtomic, type CliIo } from "../io.js";
import { loadLedger, loadUniverses } from "../inputs.js";
import { loadWorkTreeConfig } from "../config-file.js";
import { printIssues, printWarnings } from "../messages.js";
import { loadProvenCoverage } from "../proven-coverage.js";
import { loadResults } from "../results.js";
import { CONFIG_FILE, loadPatchEvidence } from "../patch-evidence.js";
import { unlockedFixtures } from "../fixtures-check.js";
import { commitParents, detectCiProvider, isAncestor, mergeBase, resolveCommit, workTreeChanges } from "../git.js";
import { runConfiguredCommands } from "../run-commands.js";
import { CHECK_FORMATS, CHECK_PLATFORMS } from "../command-options.js";

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
  today?: unknown;
  name?: unknown;
}

/** The platforms this build can publish to; the platform packages add theirs. */
export function availablePlatforms(): Platform[] {
  return [githubPlatform, gitlabPlatform, buildkitePlatform, localPlatform];
}

interface CheckSettings {
  format: (typeof CHECK_FORMATS)[number];
  outDir: string;
  platform: Provider | "auto";
  comment: boolean;
  run: boolean;
  /** The gate's name on the platform (check run, status, marker, context). */
  name: string;
  base?: string | undefined;
  head?: string | undefined;
  today?: string | undefined;
}

/** The gate's name: `--name`, else PROOFGATE_NAME, else the default; a name no platform can carry is a usage error. */
function gateName(args: CheckArgs, env: Env): string {
  const flag = optionalFlag("name", args.name);
  const fromEnv = env.PROOFGATE_NAME?.trim() || undefined;
  const name = flag ?? fromEnv ?? DEFAULT_GATE_NAME;
  const issue = gateNameIssue(name, flag !== undefined ? "--name" : "PROOFGATE_NAME");
  if (issue) throw new GateError(issue);
  return name;
}

function settingsOf(args: CheckArgs, env: Env): CheckSettings {
  const format = stringFlag("format", args.format, "text");
  if (!(CHECK_FORMATS as readonly string[]).includes(format))
    throw new GateError({
      code: "usage",
      message: `--format ${JSON.stringify(format)} is not one of ${CHECK_FORMATS.join(", ")}`,
      fix: "see proofgate check --help",
    });
  const platform = stringFlag("platform", args.platform, "auto");
  if (!(CHECK_PLATFORMS as readonly string[]).includes(platform))
    throw new GateError({
      code: "usage",
      message: `--platform ${JSON.stringify(platform)} is not one of ${CHECK_PLATFORMS.join(", ")}`,
      fix: "see proofgate check --help",
    });
  return {
    format: format as CheckSettings["format"],
    outDir: stringFlag("out-dir", args.outDir, "proofgate-report"),
    platform: platform as CheckSettings["platform"],
    comment: args.comment !== false,
    run: args.run === true,
    name: gateName(args, env),
    base: optionalFlag("base", args.base),
    head: optionalFlag("head", args.head),
    today: optionalFlag("today", args.today),
  };
}

/**
 * `proofgate check`: every signal of GATE.md in one run, from `proofgate.toml` (the base revision's).
 * Writes report.json, report.md and the platform's artifacts into the out dir, prints the report in
 * `--format`, and returns 0 MERGE, 1 REJECT or 2 when the gate could not evaluate (the report is
 * still written, decision REJECT, with the errors).
 */
export async function runCheck(
  args: CheckArgs,
  io: CliIo,
  platforms: readonly Platform[] = availablePlatforms(),
): Promise<number> {
  const env: Env = io.env ?? process.env;
  const settings = settingsOf(args, env);
  const outDir = resolve(io.cwd, settings.outDir);
  const chosen = selectPlatform(settings.platform, env, platforms);
  if (!("provider" in chosen)) throw new GateError(chosen);
  const platform = chosen;
  const context = mergeContext(
    platform.provider,
    { base: settings.base, head: settings.head },
    platform.context(env, readOptionalFile),
  );

  let jsonReport: Record<string, unknown>;
  let exitCode: 0 | 1 | 2;
  let today: IsoDate | undefined;
  const inputs: InputDigest[] = [];
  try {
    const clock = resolveToday(settings.today, io);
    today = clock.today;
    const evaluated = await evaluate({
      io,
      env,
      context,
      settings,
      outDir,
      today: clock.today,
      clockOverride: clock.override,
      inputs,
    });
    jsonReport = evaluated.json;
    exitCode = evaluated.decision === "MERGE" ? 0 : 1;
  } catch (error) {
    if (!GateError.isInstance(error)) throw error;
    // The text table lists the errors itself; the other formats keep stdout machine-readable.
    if (settings.format !== "text") printIssues(io, error.issues);
    jsonReport = errorReport(today, error.issues, inputs, { base: context.base, head: context.head });
    exitCode = 2;
  }
  return emit(jsonReport, exitCode, { io, env, settings, outDir, platform, context });
}

/** Writes the report and the platform's artifacts, prints it, and returns the exit code. */
async function emit(
  json: Record<string, unknown>,
  exitCode: 0 | 1 | 2,
  at: { io: CliIo; env: Env; settings: CheckSettings; outDir: string; platform: Platform; context: CiContext },
): Promise<0 | 1 | 2> {
  const { io, env, settings, outDir, platform, context } = at;
  const written: string[] = [];
  const writeArtifact = (name: string, text: string): string => {
    if (name.includes("/") || name.includes("\\") || name.startsWith("."))
      throw new TypeError(`artifact name ${name} must be a plain file name`);
    const path = join(outDir, name);
    writeAtomic(path, text);
    written.push(path);
    return path;
  };
  let jsonText = `${toPythonJson(json)}\n`;
  let view = reportView(json);
  let markdown = renderMarkdown(view);
  try {
    writeArtifact("report.json", jsonText);
    writeArtifact("report.md", markdown);
  } catch (error) {
    // The report cannot be written: the gate could not do its job, so what is printed and published is
    // that error (REJECT), never the MERGE a queue could not read back.
    const issues: GateIssue[] = GateError.isInstance(error)
      ? [...error.issues]
      : [{ code: "file_unreadable", file: outDir, message: `cannot write the report: ${String(error)}` }];
    printIssues(io, issues);
    const prior = Array.isArray(json.errors) ? (json.errors as GateIssue[]) : [];
    json = errorReport(
      typeof json.today_utc === "string" ? (json.today_utc as IsoDate) : undefined,
      [...prior, ...issues],
      (json.inputs as InputDigest[] | undefined) ?? [],
      {
        base: typeof json.base === "string" ? json.base : context.base,
        head: typeof json.head === "string" ? json.head : context.head,
      },
    );
    jsonText = `${toPythonJson(json)}\n`;
    view = reportView(json);
    markdown = renderMarkdown(view);
    exitCode = 2;
  }
  const report: PublishableReport = { view, json: jsonText, markdown, exitCode };
  try {
    // Workflow commands go to stdout, unless stdout carries the report itself (--format json or markdown):
    // then to stderr, which GitHub's runner reads commands from too, so a merge queue gets clean JSON.
    const commands = settings.format === "text" ? io.stdout : io.stderr;
    const outcome = await platform.publish(report, context, {
      env,
      writeArtifact,
      log: (line) => io.stderr(`proofgate: ${platform.provider}: ${line}\n`),
      stdout: commands,
      comment: settings.comment,
      name: settings.name,
    });
    for (const failure of outcome.failures)
      io.stderr(`proofgate: error: publishing to ${platform.provider} failed: ${failure} (the decision stands)\n`);
  } catch (error) {
    io.stderr(
      `proofgate: error: publishing to ${platform.provider} failed: ${error instanceof Error ? error.message : String(error)} (the decision stands)\n`,
    );
  }
  if (settings.format === "json") io.stdout(jsonText);
  else if (settings.format === "markdown") io.stdout(markdown);
  else io.stdout(renderText(view, { color: colorWanted(io, env) }));
  if (written.length > 0) io.stderr(`proofgate: wrote ${written.map((p) => relativeTo(io.cwd, p)).join(", ")}\n`);
  return exitCode;
}

function readOptionalFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function relativeTo(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}

interface EvaluateOptions {
  io: CliIo;
  env: Env;
  context: CiContext;
  settings: CheckSettings;
  outDir: string;
  today: IsoDate;
  clockOverride: boolean;
  /** Filled as inputs are read, so an error report still lists what was judged. */
  inputs: InputDigest[];
}

async function evaluate(o: EvaluateOptions): Promise<{ json: Record<string, unknown>; decision: "MERGE" | "REJECT" }> {
  const { io, context, settings, inputs } = o;
  // Paths in the config are relative to the repository root (io.cwd); read them from this process's folder.
  const at = (path: string): string =>
    isAbsolute(path) ? path : relative(process.cwd(), resolve(io.cwd, path)) || ".";
  const provider = context.provider === "local" ? detectCiProvider(o.env as NodeJS.ProcessEnv) : context.provider;
  let fixtureLock: InputDigest | undefined;
  const loaded = await loadPatchEvidence({
    cwd: io.cwd,
    base: platformBase(context, settings, io),
    head: context.head,
    defaultBranch: context.targetBranch,
    provider,
    unlocked: async (config) => {
      const { delta, lockSha256 } = await unlockedFixtures(config, io);
      fixtureLock = { role: "fixtures_lock", path: config.fixtures.lock, sha256: lockSha256 };
      return delta;
    },
  });
  const warnings: GateIssue[] = [...loaded.warnings];
  // The judge is the base's config. A truncated history has no base: its paths then come from the work
  // tree, so the report can still say what it could (the answer is REJECT on shallow_history anyway).
  const config = loaded.patch.shallow ? (workTreeConfig(io.cwd) ?? loaded.config) : loaded.config;
  if (loaded.configSource)
    inputs.push({ role: "config", path: loaded.configSource.path, sha256: loaded.configSource.sha256 });
  const workTree = join(io.cwd, CONFIG_FILE);
  if (!loaded.patch.shallow && existsSync(workTree)) {
    if (readInput(at(CONFIG_FILE), "the config", CONFIG_FILE).sha256 !== loaded.configSource?.sha256) {
      warnings.push({
        code: "config_invalid",
        file: CONFIG_FILE,
        message: `the work tree's ${CONFIG_FILE} differs from the base's: the gate is run by the base's, a patch cannot change its own judge`,
      });
    }
  }

  if (!loaded.patch.shallow) requireWorkTreeAtHead(io.cwd, loaded.patch.head, config, settings, o.outDir);

  const commands: CommandOutcome[] = [];
  if (settings.run && loaded.patch.shallow) {
    // The commands are the base's, which a truncated history cannot show; the work tree's are the patch's.
    warnings.push({
      code: "shallow_history",
      message:
        "--run ran no command: the history does not reach the base, whose [commands] are the only ones the gate runs",
    });
  } else if (settings.run) {
    commands.push(
      ...(await runConfiguredCommands({ io, config, base: loaded.patch.base, outDir: o.outDir, today: o.today, at })),
    );
  }

  const ledger = loadLedger(at(config.ledger.path));
  inputs.push({ role: "ledger", path: config.ledger.path, sha256: ledger.file.sha256 });
  const universe = loadUniverses(config.universe.collected.map(at));
  config.universe.collected.forEach((path, i) =>
    inputs.push({ role: "universe", path, sha256: universe.files[i]!.sha256 }),
  );
  const { active } = classifyLeases(ledger.value.leases, o.today);
  const coverage = await loadProvenCoverage({
    reports: config.coverage.reports.map(at),
    contexts: config.coverage.contexts === undefined ? undefined : at(config.coverage.contexts),
    // The base's config and the CI's declared parallel jobs: wait for the larger count, so neither lowers the other.
    shards:
      context.shards === undefined ? config.coverage.shards : Math.max(context.shards, config.coverage.shards ?? 0),
    frozen: active.map((l) => l.nodeid),
    root: io.cwd,
  });
  const coverageRoles = coverage.files.map((f): InputDigest => ({
    role: config.coverage.contexts !== undefined && f.path === at(config.coverage.contexts) ? "contexts" : "coverage",
    path: displayPath(io.cwd, f.path),
    sha256: f.sha256,
  }));
  inputs.push(...coverageRoles);
  const results =
    config.results.junit.length > 0 ? loadResults(config.results.junit.map(at), universe.value) : undefined;
  for (const f of results?.files ?? [])
    inputs.push({ role: "results", path: displayPath(io.cwd, f.path), sha256: f.sha256 });
  // The lock the fixtures were checked against (fixtures_unlocked), read once there.
  if (fixtureLock) inputs.push(fixtureLock);
  const properties = config.properties.enabled
    ? loadPropertyResults(config.properties.results.map(at), io.cwd, inputs)
    : undefined;

  warnings.push(
    ...ledger.warnings,
    ...universe.warnings,
    ...coverage.warnings,
    ...(results?.warnings ?? []),
    ...(properties?.warnings ?? []),
  );
  printWarnings(io, warnings);
  const report = decide({
    today: o.today,
    clockOverride: o.clockOverride,
    ledger: ledger.value,
    universe: universe.value,
    coverage: coverage.coverage,
    evidence: results ? { results: results.results, maxUnledgeredSkips: config.results.maxUnledgeredSkips } : undefined,
    minProven: config.coverage.minProven,
    fixtureDelta: 0,
    propertyFailures: properties?.evidence.failures ?? 0,
    agentAddedLeases: 0,
    humanFixtureLock: false,
    inputs,
    warnings,
    patch: loaded.patch,
    policy: loaded.policy,
    properties: properties?.evidence,
    off: { fixtures: !config.fixtures.enabled, properties: !config.properties.enabled },
    commands,
  });
  return { json: report.json, decision: report.decision };
}

function displayPath(cwd: string, path: string): string {
  return relativeTo(cwd, resolve(path));
}

/**
 * The base as the platform gives it. GitHub's `pull_request.base.sha` is the target branch's tip when
 * the event fired, not where the branch left it: once the target moved on, it is no ancestor of the
 * head, and the patch's own commits start at their merge-base. A `--base` flag is taken as given.
 */
function platformBase(context: CiContext, settings: CheckSettings, io: CliIo): string | undefined {
  const base = context.base;
  if (settings.base !== undefined || base === undefined) return base;
  const baseSha = resolveCommit(base, io.cwd);
  const headSha = resolveCommit(context.head ?? "HEAD", io.cwd);
  if (baseSha === undefined || headSha === undefined || isAncestor(baseSha, headSha, io.cwd)) return base;
  const fork = mergeBase(baseSha, headSha, io.cwd);
  if (fork === undefined) return base;
  io.stderr(
    `proofgate: the ${context.provider} base ${baseSha.slice(0, 12)} is the target branch's tip; the patch is judged from its merge-base ${fork.slice(0, 12)}\n`,
  );
  return fork;
}

/**
 * The gate reads the ledger, the fixtures and the artifacts from the work tree, and the patch from
 * git: the two must be the same revision. A work tree at another commit, or with changes to tracked
 * files, would let evidence from one tree judge another (tests that fail at head, a ledger that was
 * never committed). The artifacts the config names and the report folder may differ; with `--run`,
 * so may no untracked file (an uncommitted test would add coverage that head does not have).
 */
function requireWorkTreeAtHead(
  cwd: string,
  head: string,
  config: GateConfig,
  settings: CheckSettings,
  outDir: string,
): void {
  const current = resolveCommit("HEAD", cwd);
  // A CI's test merge (GitHub's refs/pull/N/merge, GitLab's merged results) checks out a merge of the
  // head into the target branch: its tests are the head's changes as they would land.
  const testMerge = current !== undefined && current !== head && commitParents(current, cwd).includes(head);
  if (current !== head && !testMerge) {
    throw new GateError({
      code: "usage",
      message: `the work tree is at ${current ? current.slice(0, 12) : "no commit"}, but the patch's head is ${head.slice(0, 12)} (and the work tree is not a merge of it): the gate judges the files it reads from the work tree as that head`,
      fix: `check out ${head.slice(0, 12)} first (git checkout ${head}), or leave out --head`,
    });
  }
  const artifacts = new Set(
    [
      ...config.universe.collected,
      ...config.coverage.reports,
      ...(config.coverage.contexts === undefined ? [] : [config.coverage.contexts]),
      ...config.results.junit,
      ...config.properties.results,
    ]
      .map((p) => normalizeRepoPath(p))
      .filter((p): p is string => p !== undefined),
  );
  const out = relative(cwd, outDir);
  const inOutDir = (p: string) => out !== "" && !out.startsWith("..") && (p === out || p.startsWith(`${out}/`));
  const changed = workTreeChanges(cwd, { untracked: settings.run }).filter((p) => !artifacts.has(p) && !inOutDir(p));
  if (changed.length > 0) {
    const shown = changed.slice(0, 10);
    throw new GateError(
      shown.map((file, i) => ({
        code: "work_tree_dirty" as const,
        file,
        message: `${settings.run ? "is uncommitted or untracked" : "has uncommitted changes"}: the gate judges commit ${head.slice(0, 12)}, and the work tree must be it${i === shown.length - 1 && changed.length > shown.length ? ` (and ${changed.length - shown.length} more file(s))` : ""}`,
        fix: settings.run
          ? "commit or stash the changes, and delete or .gitignore untracked files (git status shows them)"
          : "commit or stash the changes (git status shows them)",
      })),
    );
  }
}

/** The work tree's config, when it has a valid one (for a truncated history, which has no base). */
function workTreeConfig(cwd: string): GateConfig | undefined {
  if (!existsSync(join(cwd, CONFIG_FILE))) return undefined;
  try {
    return loadWorkTreeConfig(cwd);
  } catch {
    return undefined;
  }
}

/** The property suite's JUnit results: counts of test cases and failures, each file digested. */
function loadPropertyResults(
  paths: readonly string[],
  cwd: string,
  inputs: InputDigest[],
): { evidence: PropertyEvidence; warnings: GateIssue[] } {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  for (const path of paths) {
    const file = readInput(path, "the property suite's JUnit results", "[properties] results");
    inputs.push({ role: "properties", path: displayPath(cwd, path), sha256: file.sha256 });
    const parsed = parseJunitXml(file.text, path);
    errors.push(...parsed.errors);
    warnings.push(...parsed.warnings);
    for (const r of parsed.results ?? []) {
      if (r.outcome === "skipped" || r.outcome === "xfail") skipped += 1;
      else tests += 1;
      if (r.outcome === "failed" || r.outcome === "error") failures += 1;
    }
  }
  if (errors.length > 0) throw new GateError(errors);
  return { evidence: { resultFiles: paths.map((p) => displayPath(cwd, p)), tests, failures, skipped }, warnings };
}
