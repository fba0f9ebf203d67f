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
  /**
   * The merge's covered statements of the file. A reader that finds the statements equal adds the file's
   * covered ones to it and gives it as the file's own `coveredStatements`: the shard's model then holds the
   * merge's set, which only a merge that folds the shard in and drops it may take.
   */
  coveredStatements?: Set<string> | undefined;
}

/** Options of {@link readCoverage}: a reader's options plus a format that overrides detection. */
export interface ReadCoverageOptions extends CoverageReadOptions {
  format?: CoverageFormat | undefined;
}
