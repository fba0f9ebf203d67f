// Test helper: binds a scratch repository's evidence files to its HEAD commit, as `proofgate record` would,
// for tests whose subject is not which run wrote the files (docs/config.md#evidence).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "@proofgate/core/config";
import { addStampRun, renderEvidenceStamp } from "@proofgate/core/evidence-stamp";
import { ISOLATED_GIT_ENV } from "./git-scratch.js";

/** The evidence files the tests' configs name by default. */
const EVIDENCE = ["collected.txt", "proven_coverage.json", "results.xml", "properties.xml", ".coverage"];

/** The evidence paths the work tree's proofgate.toml names (none when it cannot be read). */
function configured(dir: string): string[] {
  const file = join(dir, "proofgate.toml");
  if (!existsSync(file)) return [];
  const c = parseConfig(readFileSync(file, "utf8"), "proofgate.toml", ["*[bot]*"]).config;
  if (!c) return [];
  return [
    ...c.universe.collected,
    ...c.coverage.reports,
    ...(c.coverage.contexts ?? []),
    ...c.results.junit,
    ...c.properties.results,
  ];
}

/**
 * Writes `<dir>/proofgate-evidence.json` binding to HEAD each file of `paths` that exists (default: the
 * usual names and those the work tree's proofgate.toml names). git ignores the stamp (.git/info/exclude),
 * so a later commit of everything does not commit it.
 */
export function stampEvidence(dir: string, paths?: readonly string[]): void {
  const rev = (ref: string): string =>
    spawnSync("git", ["rev-parse", ref], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, ...ISOLATED_GIT_ENV },
    }).stdout.trim();
  const wanted = [...new Set(paths ?? [...EVIDENCE, ...configured(dir)])];
  const files = wanted
    .filter((p) => existsSync(join(dir, p)))
    .map((path) => ({
      path,
      sha256: createHash("sha256")
        .update(readFileSync(join(dir, path)))
        .digest("hex"),
    }));
  const stamp = addStampRun(
    undefined,
    { commit: rev("HEAD"), tree: rev("HEAD^{tree}") },
    { command: "the test's fixture", exitCode: 0, files },
  );
  const exclude = join(dir, ".git", "info", "exclude");
  if (
    existsSync(join(dir, ".git", "info")) &&
    !(existsSync(exclude) && readFileSync(exclude, "utf8").includes("proofgate-evidence.json"))
  )
    appendFileSync(exclude, "\n/proofgate-evidence.json\n");
  writeFileSync(join(dir, "proofgate-evidence.json"), renderEvidenceStamp(stamp));
}
