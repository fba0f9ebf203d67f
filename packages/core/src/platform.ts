import type { Finding, ReasonCode } from "./decide.js";
import type { GateIssue, GateErrorCode } from "./errors.js";
import { PyFloat } from "./python-json.js";
import { renderText, type ReportView } from "./render.js";
import type { Signal } from "./signals.js";

/** Where the gate runs. */
export type Provider = "local" | "github" | "gitlab" | "buildkite";

/** The providers, in detection order (local last: it is the fallback). */
export const PROVIDERS: readonly Provider[] = ["github", "gitlab", "buildkite", "local"];

/** A CI's environment variables (or the process's): read-only, never written. */
export type Env = Readonly<Record<string, string | undefined>>;

/** One normalised context from any CI (GATE.md 9). Every field but `provider` may be unknown. */
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

/** The report as a platform publishes it: the view for renderings, and the JSON text as written. */
export interface PublishableReport {
  view: ReportView;
  /** The JSON report, as written to the out dir. */
  json: string;
  /** The Markdown rendering. */
  markdown: string;
  /** The exit code the gate returns: 0 MERGE, 1 REJECT, 2 could not evaluate. */
  exitCode: 0 | 1 | 2;
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
}

/** What publishing did. Failures are reported loudly by the caller and never change the decision. */
export interface PublishOutcome {
  /** What was published: artifact paths, API objects. */
  published: string[];
  /** What failed, one line each with what to do. */
  failures: string[];
}

/** One CI platform: how to recognise it, read its context, and show the report natively. */
export interface Platform {
  provider: Provider;
  /** True when `env` is this CI's. */
  detect: (env: Env) => boolean;
  /** The context this CI's environment gives; `readFile` reads files the CI names (event payloads). */
  context: (env: Env, readFile?: (path: string) => string | undefined) => CiContext;
  publish: (report: PublishableReport, context: CiContext, tools: PublishTools) => Promise<PublishOutcome>;
}

/** Local runs: the context comes from flags and git alone; the native rendering is the terminal table. */
export const localPlatform: Platform = {
  provider: "local",
  detect: () => true,
  context: () => ({ provider: "local" }),
  publish: async (report, _context, tools) => {
    const path = tools.writeArtifact("report.txt", renderText(report.view, { color: false }));
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

/** A report JSON (as `decide`/`check` write it, or parsed back from a file) as the renderings' view. */
export function reportView(json: Record<string, unknown>): ReportView {
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);
  const opt = <T>(v: unknown): T | undefined => (v === null || v === undefined ? undefined : (v as T));
  return {
    decision: json.decision === "MERGE" ? "MERGE" : "REJECT",
    reasons: (Array.isArray(json.reasons) ? json.reasons : []) as ReasonCode[],
    today: str(json.today_utc),
    base: str(json.base),
    head: str(json.head),
    provenCoverage:
      typeof json.proven_coverage_percent === "number"
        ? json.proven_coverage_percent
        : json.proven_coverage_percent instanceof PyFloat
          ? json.proven_coverage_percent.value
          : null,
    minProven:
      typeof json.min_proven_coverage_percent === "number"
        ? json.min_proven_coverage_percent
        : json.min_proven_coverage_percent instanceof PyFloat
          ? json.min_proven_coverage_percent.value
          : null,
    signals: list(json.signals).map((s) => s as unknown as Signal),
    findings: list(json.details).map((d): Finding => ({
      reason: d.reason as ReasonCode,
      message: String(d.message),
      file: opt<string>(d.file),
      line: opt<number>(d.line),
      commit: opt<string>(d.commit),
      author: opt<string>(d.author),
      fix: String(d.fix),
    })),
    errors: list(json.errors).map((e): GateIssue => ({
      code: e.code as GateErrorCode,
      message: String(e.message),
      file: opt<string>(e.file),
      line: opt<number>(e.line),
      fix: opt<string>(e.fix),
    })),
    warnings: (Array.isArray(json.warnings) ? json.warnings : []).map(String),
  };
}
