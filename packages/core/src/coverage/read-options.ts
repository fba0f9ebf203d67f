import type { CoverageFormat } from "./coverage-model.js";

/** Options every coverage report reader takes. */
export interface CoverageReadOptions {
  /**
   * The repository root, as the report spells absolute paths (`/home/ci/repo`); absolute paths under it
   * are made relative to it. Paths outside it, and relative paths, are kept (with `/` separators).
   */
  root?: string | undefined;
}

/** Options of {@link readCoverage}: a reader's options plus a format that overrides detection. */
export interface ReadCoverageOptions extends CoverageReadOptions {
  format?: CoverageFormat | undefined;
}
