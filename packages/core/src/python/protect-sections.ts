// `[protect] sections`: the runner's settings a patch may change only with a human's trailer, as the
// config names them. Kept apart from their reading (runner-config.ts) so the config stays light to load.
import { normalizeRepoPath } from "../common/repo-path.js";

/**
 * The files pytest takes its settings from, in the order it looks for them in a folder (pytest 9's findpaths.py;
 * pytest.toml and .pytest.toml are pytest 9's): the collection configuration, the settings a run may read, and
 * those a package's gate answers for in the folders above it are each these (and their neighbours).
 */
export const PYTEST_SETTINGS_FILES: readonly string[] = Object.freeze([
  "pytest.toml",
  ".pytest.toml",
  "pytest.ini",
  ".pytest.ini",
  "pyproject.toml",
  "tox.ini",
  "setup.cfg",
]);

/**
 * The runner's settings protected by default: pytest's own files wherever pytest may find them (a
 * `pytest.ini` or `[tool.pytest.ini_options]` in a test folder takes precedence over the root's; pytest 9
 * also reads `pytest.toml`, `.pytest.toml` and pyproject.toml's `[tool.pytest]`, of which `ini_options` is
 * a subtable), and the entry points that register pytest plugins when the package is installed.
 */
export const DEFAULT_PROTECTED_SECTIONS: readonly string[] = Object.freeze([
  "**/pytest.toml",
  "**/.pytest.toml",
  "**/pytest.ini",
  "**/.pytest.ini",
  "**/pyproject.toml [tool.pytest]",
  "**/tox.ini [pytest]",
  "**/setup.cfg [tool:pytest]",
  "pyproject.toml [project.entry-points.pytest11]",
  "pyproject.toml [tool.poetry.plugins.pytest11]",
  "setup.cfg [options.entry_points]",
]);

/** One `[protect] sections` entry: a file glob, and a section of it (none: the whole file). */
export interface SectionSpec {
  /** As written in the config. */
  spec: string;
  /** A glob of repository paths (`**` crosses folders). */
  file: string;
  /** An INI section (`*` is any text: `coverage:*`) or a dotted TOML table (its subtables included). */
  section?: string | undefined;
}

/** Reads a `[protect] sections` entry: `path` or `path [section]`; undefined when it is not one. */
export function parseSectionSpec(spec: string): SectionSpec | undefined {
  const m = /^\s*(\S(?:.*?\S)?)(?:\s+\[\s*([^\]]*?)\s*\])?\s*$/.exec(spec);
  if (!m) return undefined;
  const file = normalizeRepoPath(m[1]!);
  if (file === undefined || /[[\]]/.test(file)) return undefined;
  if (m[2] !== undefined && m[2] === "") return undefined;
  return { spec: spec.trim(), file, section: m[2] };
}
