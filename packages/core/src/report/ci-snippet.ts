// What every platform's CI snippet shares: the report folder and the command that runs a pinned release.
// Each platform package writes its own snippet (the job, its history depth, its token) from these.

/** A CI snippet: what it is, where it goes, and its text (ends with a newline). */
export interface CiSnippet {
  /** The platform's name, for a heading. */
  title: string;
  /** The file the snippet belongs in, relative to the repo root. */
  file: string;
  text: string;
}

/** Where `proofgate check` writes its report by default (`--out-dir`). */
export const REPORT_DIR = "proofgate-report";

/** A release version (`1.2.3`), as opposed to a development build's (`0.0.0-dev`). */
export function isRelease(version: string): boolean {
  return /^\d+\.\d+\.\d+$/.test(version);
}

/**
 * The command that runs proofgate where it is not installed. Not `npx proofgate`: that fetches the
 * unscoped npm package `proofgate`, which is not this one. Pinned to `version` (a release), so a
 * gate's verdict does not change under a team with an upgrade it did not review.
 */
export function proofgateCommand(version: string): string {
  const pinned = isRelease(version) ? `@proofgate/cli@${version}` : "@proofgate/cli";
  return `npx --yes --package=${pinned} proofgate`;
}

/** `word` as one POSIX shell word: as it is when no shell would read it otherwise, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * What `check` adds for a package's gate run from the repository's root (a CI job's working folder): the
 * folder, and the report at the root where the job's artifacts read it. Empty for the repository itself.
 */
export function packageFlags(root: string | undefined): string {
  return root === undefined || root === "" ? "" : ` --root ${shellQuote(root)} --out-dir ${REPORT_DIR}`;
}

/** What a project's CI snippet is for, beyond the platform: the package's folder and the test runner. */
export interface SnippetOptions {
  /** A package's folder in a monorepo (`check --root`), repository-relative. */
  root?: string | undefined;
  /** The test runner: vitest projects install their Node dependencies, pytest ones their Python tools. */
  runner?: "pytest" | "vitest" | undefined;
  /** vitest: the command that installs the project's dependencies (default `npm ci`). */
  install?: string | undefined;
}

/** The line a job runs to install what the tests need before the gate runs them. */
export function testSetupLine(options: SnippetOptions = {}): string {
  return options.runner === "vitest"
    ? `${options.install ?? "npm ci"} # the project's dependencies, vitest among them`
    : "python -m pip install pytest pytest-cov # and your project's test dependencies";
}
