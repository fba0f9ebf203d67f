/**
 * coverage.py (6.5 and 7.x before the fix of coveragepy issue #2105) lists as executed some lines that
 * are not statements: the docstring of a module or class runs at import, and an excluded line that ran
 * is executed too. Its JSON report puts them in `executed_lines`, and its LCOV report writes a `DA` line
 * for each (so `LH` exceeds `LF`). Its summaries count statements correctly, so the number of such lines
 * is known, but not which they are: that needs the source.
 *
 * proofgate drops the lowest-numbered executed lines that are not known statements. A module docstring is
 * the first line a module runs, so the common case (one module docstring) is exact; with class docstrings
 * the counts stay exact but the dropped line may be another import-time line. Cobertura XML
 * (`coverage xml`) lists the statements exactly.
 */
export function dropPhantomLines(candidates: Iterable<number>, count: number): number[] {
  return [...new Set(candidates)].sort((a, b) => a - b).slice(0, count);
}
