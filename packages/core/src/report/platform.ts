import type { GateIssue, GateErrorCode } from "../common/errors.js";
import { renderText } from "./render.js";
import type { Decision } from "../common/reasons.js";
import type { GateReport } from "../model/report.js";
import type { CommitVerification } from "../patch/signatures.js";

/** Where the gate runs. */
export type Provider = "local" | "github" | "gitlab" | "buildkite";

/** The providers, in detection order (local last: it is the fallback). */
export const PROVIDERS: readonly Provider[] = ["github", "gitlab", "buildkite", "local"];

/** A CI's environment variables (or the process's): read-only, never written. */
export type Env = Readonly<Record<string, string | undefined>>;

/** One normalised context from any CI (docs/contract.md §9). Every field but `provider` may be unknown. */
export interface CiContext {
  provider: Provider;
  /** `owner/name` (GitHub), the project path (GitLab), `owner/name` from the clone URL (Buildkite). */
  repo?: string | undefined;
  /** The patch's base revision. */
  base?: string | undefined;
  /** The patch's head revision. */
  head?: string | undefined;
  /** The pull or merge request number. */
  change?: number | undefined;
  /** The build's web page. */
  buildUrl?: string | undefined;
  /** The branch the patch targets. */
  targetBranch?: string | undefined;
  /**
   * The coverage shards the CI declares (its parallel jobs). `check` expects the larger of this and
   * the config's `[coverage] shards`: the environment can add shards to wait for, never remove them.
   */
  shards?: number | undefined;
}

/** The report as a platform publishes it: the typed report, and its renderings as written. */
export interface PublishableReport {
  gate: GateReport;
  /** The JSON report, as written to the out dir. */
  json: string;
  /** The Markdown rendering. */
  markdown: string;
  /** The exit code the gate returns: 0 MERGE, 1 REJECT, 2 could not evaluate. */
  exitCode: 0 | 1 | 2;
}

/**
 * What a platform may show: MERGE only when the report says MERGE and the gate exits 0. A MERGE report
 * with another exit code (its files could not be written) is not a MERGE anywhere.
 */
export function publishedDecision(report: Pick<PublishableReport, "gate" | "exitCode">): Decision {
  return report.exitCode === 0 && report.gate.decision === "MERGE" ? "MERGE" : "REJECT";
}

/** What a platform may do: write artifacts into the out dir, log, and read its environment. */
export interface PublishTools {
  env: Env;
  /** Writes `name` (a file name, no folders) into the out dir; returns its path. */
  writeArtifact: (name: string, text: string) => string;
  /** A line for the log (stderr). */
  log: (line: string) => void;
  /**
   * Where the CI reads commands from (GitHub's workflow commands): the process's stdout, or its stderr
   * when stdout carries the report (`check --format json` or `markdown`).
   */
  stdout: (text: string) => void;
  /** `--no-comment`: do not create or update a PR/MR comment. */
  comment: boolean;
  /**
   * The gate's name (`check --name`): its check run, status, comment marker and annotation context, so
   * two gates on one change keep theirs apart. Absent: DEFAULT_GATE_NAME.
   */
  name?: string | undefined;
  /**
   * Aborted when publishing's deadline (`[publish] timeout`) passes: every request made with it stops, and
   * no retry starts after it.
   */
  signal?: AbortSignal | undefined;
}

/** What publishing did. Failures are reported loudly by the caller and never change the decision. */
export interface PublishOutcome {
  /** What was published: artifact paths, API objects. */
  published: string[];
  /** What failed, one line each with what to do. */
  failures: string[];
}

/** What a platform may use to ask its API about commits: the environment (its token) and the log. */
export interface VerifyTools {
  env: Env;
  /** A line for the log (stderr). */
  log: (line: string) => void;
}

/** One CI platform: how to recognise it, read its context, and show the report natively. */
export interface Platform {
  provider: Provider;
  /** True when `env` is this CI's. */
  detect: (env: Env) => boolean;
  /** The context this CI's environment gives; `readFile` reads files the CI names (event payloads). */
  context: (env: Env, readFile?: (path: string) => string | undefined) => CiContext;
  publish: (report: PublishableReport, context: CiContext, tools: PublishTools) => Promise<PublishOutcome>;
  /** How to give this CI's job the whole history, for `shallow_history`'s fix: one sentence. */
  shallowHistoryFix: string;
  /** The file names `publish` writes into the out dir, beside report.json and report.md. */
  artifacts: readonly string[];
  /**
   * The platform's own verification of the commits' signatures (`[agents] human_signatures`), one answer
   * per sha asked; a commit it does not know is not verified. Only platforms that verify signatures
   * against their users' registered keys have it. Throws (a plain Error saying why) when it cannot ask:
   * no token, no pull request, the API failed. Signatures the platform made itself (a web or API
   * commit) vouch for no author and are not verified.
   */
  verifiedCommits?: (context: CiContext, shas: readonly string[], tools: VerifyTools) => Promise<CommitVerification[]>;
}

/**
 * The fix for a truncated history: the CI's own, or, where no CI is recognised, every one of them (the
 * user may be about to copy the job into any).
 */
export function shallowHistoryFixFor(detected: Platform, available: readonly Platform[]): string {
  if (detected.provider !== "local") return `${detected.shallowHistoryFix}, so the history reaches the base`;
  return `fetch the whole history: ${available.map((p) => p.shallowHistoryFix).join("; ")}`;
}

/** Local runs: the context comes from flags and git alone; the native rendering is the terminal table. */
export const localPlatform: Platform = {
  provider: "local",
  detect: () => true,
  context: () => ({ provider: "local" }),
  shallowHistoryFix: "locally, run `git fetch --unshallow` (and fetch the base branch) before proofgate",
  artifacts: ["report.txt"],
  publish: async (report, _context, tools) => {
    const path = tools.writeArtifact("report.txt", renderText(report.gate, { color: false }));
    return { published: [path], failures: [] };
  },
};

/**
 * The platform to use: the one named, or the first whose `detect` accepts the environment. A
 * named platform that is not available is an error, never a silent fallback to local.
 */
export function selectPlatform(
  name: Provider | "auto",
  env: Env,
  available: readonly Platform[],
): Platform | GateIssue {
  if (name !== "auto") {
    const platform = available.find((p) => p.provider === name);
    return (
      platform ?? {
        code: "usage" as GateErrorCode,
        message: `the ${name} platform is not available in this build`,
        fix: `use --platform ${available.map((p) => p.provider).join(" or ")}`,
      }
    );
  }
  return (
    available.find((p) => p.provider !== "local" && p.detect(env)) ??
    available.find((p) => p.provider === "local") ??
    localPlatform
  );
}

/** Merges context sources field by field: a flag beats the environment, which beats git. */
export function mergeContext(provider: Provider, ...sources: readonly Partial<CiContext>[]): CiContext {
  const out: CiContext = { provider };
  for (const key of ["repo", "base", "head", "change", "buildUrl", "targetBranch", "shards"] as const) {
    const found = sources.find((s) => s[key] !== undefined && s[key] !== "")?.[key];
    if (found !== undefined) (out as unknown as Record<string, unknown>)[key] = found;
  }
  return out;
}
