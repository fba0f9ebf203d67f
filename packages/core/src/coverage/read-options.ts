import type { CoverageFormat } from "./coverage-model.js";

/** Options every coverage report reader takes. */
export interface CoverageReadOptions {
  /**
   * The repository root, as the report spells absolute paths (`/home/ci/repo`); absolute paths under it
   * are made relative to it. Paths outside it, and relative paths, are kept (with `/` separators).
   */
  root?: string | undefined;
  /**
   * The statement and branch sets already read for a path (an earlier shard's, held by the merge). A reader
   * that finds a file's sets equal to them returns these very sets instead of building new ones, so that
   * 50 shards of one suite hold one set per file; unequal, it builds its own (and the merge says how they
   * differ). Only the coverage.py JSON reader uses it.
   */
  known?: ((path: string) => KnownSets | undefined) | undefined;
}

/** A file's statement and branch keys as an earlier shard gave them. */
export interface KnownSets {
  statements: ReadonlySet<string>;
  branches: ReadonlySet<string>;
}

/** Options of {@link readCoverage}: a reader's options plus a format that overrides detection. */
export interface ReadCoverageOptions extends CoverageReadOptions {
  format?: CoverageFormat | undefined;
}
