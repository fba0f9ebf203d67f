// runGate: the gate as a CI step, inside one fail-closed envelope. Whatever goes wrong (a platform's
// environment that cannot be read, a bad date, an input, git, a command, a bug), the answer is a REJECT
// report with the error, written to the out dir and published like any other: never a MERGE, never
// silence.
import {
  DEFAULT_PUBLISH_TIMEOUT,
  GateError,
  errorReport,
  mergeContext,
  renderMarkdown,
  reportJson,
  selectPlatform,
  shallowHistoryFixFor,
  localPlatform,
  type CiContext,
  type Env,
  type GateIssue,
  type GateReport,
  type Platform,
  type Provider,
  type PublishOutcome,
  type PublishableReport,
} from "@proofgate/core";
import { evaluateGate, type GateClock, type GateTrace } from "./evaluate.js";
import type { GateLog } from "./log.js";
import type { GatePorts } from "./ports.js";
import type { PlatformVerifier } from "./sources/signatures.js";
import { renderViews } from "./views.js";

/** How to run the gate in a CI job (or locally). */
export interface RunGateOptions {
  ports: GatePorts;
  /** The platforms this build can publish to. */
  platforms: readonly Platform[];
  /** The platform to publish to: named, or detected from `env` (`auto`). */
  platform: Provider | "auto";
  /** The job's environment: the platform's context is read from it, and `--run`'s commands inherit it. */
  env: Env;
  /** Reads a file the CI names (GitHub's event payload); undefined when it cannot. */
  readFile?: ((path: string) => string | undefined) | undefined;
  /** The clock; throws a GateError for a date that is not one. */
  clock: () => GateClock;
  /** `--base` and `--head`: they beat the platform's, which beat git's. */
  flags: { base?: string | undefined; head?: string | undefined };
  /** The report folder: absolute, or relative to the repository root. */
  outDir: string;
  /** Run `[commands]` first. */
  run: boolean;
  /** `check --timeout`: seconds each `[commands]` step may run (0: no limit), instead of the config's. */
  timeout?: number | undefined;
  /**
   * `check --publish-timeout`: seconds publishing may take in all, instead of the config's `[publish] timeout`
   * (default 60).
   */
  publishTimeout?: number | undefined;
  /** Create or update the one PR/MR comment. */
  comment: boolean;
  /** The gate's name on the platform (`check --name`): its check run, status, comment marker, context. */
  name?: string | undefined;
  /**
   * The package's folder in the repository (`check --root`, repository-relative; "" or absent: the root).
   * The report's paths are the package's; the report names the folder, and platforms prefix it.
   */
  root?: string | undefined;
  /** Where the CI reads commands from (GitHub's workflow commands): stdout, or stderr when stdout carries the report. */
  commandStream: (text: string) => void;
  log: GateLog;
  /** Problems found before the gate started (flags that do not parse): the report is theirs. */
  failures?: readonly GateIssue[] | undefined;
}

/** What the run decided, wrote and published. */
export interface GateRun {
  report: GateReport;
  /** 0 MERGE, 1 REJECT, 2 the gate could not evaluate (or could not write its report). */
  exitCode: 0 | 1 | 2;
  /** report.json's text and the Markdown rendering, as written and published. */
  json: string;
  markdown: string;
  /** The files written into the out dir. */
  written: string[];
  /** The platform published to. */
  platform: Platform;
  /** What the platform published, and what failed (reported, never changing the decision). */
  published: PublishOutcome;
  /** Why the report could not be written (then the report is this error, exit 2). */
  writeFailures: GateIssue[];
}

const join = (dir: string, name: string): string => `${dir.replace(/\/+$/, "")}/${name}`;

/** An error as the report lists it: a GateError's issues, anything else as an internal error. */
export function issuesOf(error: unknown): GateIssue[] {
  if (GateError.isInstance(error)) return [...error.issues];
  return [
    {
      code: "internal_error",
      message: `internal error: ${error instanceof Error ? error.message : String(error)}`,
      fix: "report this at the proofgate issue tracker, with the command line",
    },
  ];
}

const PLATFORM_NAMES: Partial<Record<Provider, string>> = {
  github: "GitHub",
  gitlab: "GitLab",
  buildkite: "Buildkite",
};

/** The platform's verification of commits, asked with this job's context and environment; none where it has none. */
function platformVerifier(platform: Platform, context: CiContext, o: RunGateOptions): PlatformVerifier | undefined {
  const verify = platform.verifiedCommits;
  if (!verify) return undefined;
  const name = PLATFORM_NAMES[platform.provider] ?? platform.provider;
  return {
    name,
    verify: (shas) => verify(context, shas, { env: o.env, log: (line) => o.log.info(`${platform.provider}: ${line}`) }),
  };
}

/** Runs the gate: the platform's context, the evaluation, the report files and the platform's publishing. */
export async function runGate(o: RunGateOptions): Promise<GateRun> {
  let platform: Platform = localPlatform;
  let context: CiContext = { provider: "local" };
  let report: GateReport;
  let today: string | undefined;
  const trace: GateTrace = { inputs: [] };
  try {
    if (o.failures && o.failures.length > 0) throw new GateError(o.failures);
    const chosen = selectPlatform(o.platform, o.env, o.platforms);
    if (!("provider" in chosen)) throw new GateError(chosen);
    platform = chosen;
    // Inside the envelope: an environment the platform refuses (a shard count that is not a number) is
    // an error report, like any other input.
    const given = platform.context(o.env, o.readFile);
    context = mergeContext(platform.provider, o.flags, given);
    const detected = o.platforms.find((p) => p.provider !== "local" && p.detect(o.env)) ?? localPlatform;
    const clock = o.clock();
    today = clock.today;
    report = await evaluateGate(
      {
        kind: "check",
        clock,
        base:
          context.base === undefined
            ? undefined
            : o.flags.base !== undefined
              ? { revision: context.base, from: "flag" }
              : { revision: context.base, from: "platform", platform: platform.provider },
        head: context.head,
        defaultBranch: context.targetBranch,
        shards: context.shards,
        shallowFix: shallowHistoryFixFor(detected, o.platforms),
        outDir: o.outDir,
        run: o.run ? { env: o.env, timeout: o.timeout } : undefined,
        platformVerifier: platformVerifier(platform, context, o),
        root: o.root || undefined,
      },
      o.ports,
      o.log,
      trace,
    );
  } catch (error) {
    report = errorReport(today, issuesOf(error), trace.inputs, {
      base: trace.base ?? context.base ?? o.flags.base,
      head: trace.head ?? context.head ?? o.flags.head,
    });
  }
  if (o.root) report.root = o.root;
  let exitCode: 0 | 1 | 2 = report.errors.length > 0 ? 2 : report.decision === "MERGE" ? 0 : 1;

  const written: string[] = [];
  const writeArtifact = (name: string, text: string): string => {
    if (name.includes("/") || name.includes("\\") || name.startsWith("."))
      throw new TypeError(`artifact name ${name} must be a plain file name`);
    const path = join(o.outDir, name);
    o.ports.files.writeAtomic(path, text);
    written.push(path);
    return path;
  };
  let json = reportJson(report);
  let markdown = renderMarkdown(report);
  let writeFailures: GateIssue[] = [];
  try {
    writeArtifact("report.json", json);
    writeArtifact("report.md", markdown);
  } catch (error) {
    // The report cannot be written: the gate could not do its job, so what is printed and published is
    // that error (REJECT), never the MERGE a queue could not read back.
    writeFailures = GateError.isInstance(error)
      ? [...error.issues]
      : [{ code: "file_unreadable", file: o.outDir, message: `cannot write the report: ${String(error)}` }];
    report = errorReport(report.todayUtc ?? undefined, [...report.errors, ...writeFailures], report.inputs, {
      base: report.base ?? context.base,
      head: report.head ?? context.head,
    });
    if (o.root) report.root = o.root;
    json = reportJson(report);
    markdown = renderMarkdown(report);
    exitCode = 2;
  }
  if (writeFailures.length === 0) {
    // The views (index.html, the badge) are for people: one that cannot be rendered or written is a
    // warning in the log, never a change to the decision report.json already holds.
    try {
      for (const [name, text] of renderViews(report, trace.coverageMap, o.ports.files)) writeArtifact(name, text);
    } catch (error) {
      o.log.warn(
        `cannot write the report's HTML view or badge: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  const publishable: PublishableReport = { gate: report, json, markdown, exitCode };
  const seconds = o.publishTimeout ?? trace.publishTimeout ?? DEFAULT_PUBLISH_TIMEOUT;
  const published = await publishWithin(seconds, (signal) =>
    platform.publish(publishable, context, {
      env: o.env,
      writeArtifact,
      log: (line) => o.log.info(`${platform.provider}: ${line}`),
      stdout: o.commandStream,
      comment: o.comment,
      name: o.name,
      signal,
    }),
  );
  return { report, exitCode, json, markdown, written, platform, published, writeFailures };
}

/**
 * Runs `publish` with a deadline of `seconds`: past it, the signal is aborted (the platform's requests stop,
 * no retry starts) and the outcome is a failure saying publishing timed out. The decision and the exit code
 * are settled before publishing starts and never depend on it.
 */
export async function publishWithin(
  seconds: number,
  publish: (signal: AbortSignal) => Promise<PublishOutcome>,
): Promise<PublishOutcome> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<PublishOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`publishing timed out after ${seconds} s`));
      resolve({
        published: [],
        failures: [
          `publishing timed out after ${seconds} s (the API did not answer in time); raise [publish] timeout in proofgate.toml or check --publish-timeout if the API is slow but reachable`,
        ],
      });
    }, seconds * 1000);
  });
  const work = (async (): Promise<PublishOutcome> => {
    try {
      return await publish(controller.signal);
    } catch (error) {
      return { published: [], failures: [error instanceof Error ? error.message : String(error)] };
    }
  })();
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    // Whatever is still in flight stops now: the job ends at the deadline, not when the API answers.
    if (!controller.signal.aborted) controller.abort(new Error("publishing ended"));
  }
}
