// The gate's ports on Node: git, the file system, fixture hashing in worker threads, coverage.py's data
// file through sql.js, and `sh -c` for the configured commands.
import type { Env } from "@proofgate/core";
import type { GatePorts } from "../ports.js";
import { nodeCommandRunner } from "./command-runner.js";
import { readCoverageDataFile } from "./coverage-data-file.js";
import { nodeFiles } from "./files.js";
import { nodeFixtureHasher, type LockSettings } from "./fixture-lock.js";
import { nodeGit } from "./git.js";
import { nodeSeedWriter } from "./seeds.js";
import { nodeCoverageShards, type ShardWorkerOptions } from "./coverage-shards/shard-workers.js";
import { relative, sep } from "node:path";
import { scopeGit } from "../scoped-git.js";

export { nodeGit, type GitRepo } from "./git.js";
export { nodeCoverageShards, type ShardWorkerOptions } from "./coverage-shards/shard-workers.js";
export { nodeFiles, readInput, readInputBytes, asText, writeAtomic, writeNew } from "./files.js";
export {
  nodeFixtureHasher,
  checkFixtureLock,
  fixtureLockText,
  writeFixtureLock,
  settingsFromConfig,
  DEFAULT_LOCK_SETTINGS,
  type LockSettings,
  type FixtureLockCheck,
  type FixtureLockText,
  type FixtureLockWrite,
} from "./fixture-lock.js";
export { readCoverageDataFile } from "./coverage-data-file.js";
export { nodeCommandRunner } from "./command-runner.js";
export { nodeSeedWriter } from "./seeds.js";
export { repositoryTop, resolveProjectRoot, type ProjectRoot } from "./project-root.js";

/** Where the Node ports work: the repository root and the environment git and the commands get. */
export interface NodePortsOptions {
  /** The project's folder: the repository root, or a package's folder in it (`check --root`) with `gitRoot` set. */
  root: string;
  env: Env;
  /**
   * The repository's root when `root` is a package folder inside it: git runs there and its paths are mapped
   * to the package's (scopeGit), and no input read by a relative path may resolve outside `root`.
   */
  gitRoot?: string | undefined;
  /** Fixture hashing's threads and worker script (tests point it at a built worker). */
  hash?: LockSettings["hash"];
  /** The coverage shard worker's threshold and script (tests point it at a built worker). */
  shards?: Pick<ShardWorkerOptions, "minBytes" | "url"> | undefined;
}

/** Every port of the gate on this machine, for the repository at `root`. */
export function nodePorts(options: NodePortsOptions): GatePorts {
  const { root, env } = options;
  const scope = options.gitRoot === undefined ? "" : relative(options.gitRoot, root).split(sep).join("/");
  const git = scope === "" ? nodeGit({ cwd: root, env }) : scopeGit(nodeGit({ cwd: options.gitRoot!, env }), scope);
  const files = nodeFiles(root, { confine: scope !== "" });
  return {
    git,
    files,
    fixtures: nodeFixtureHasher(root, options.hash),
    coverageData: (path) => readCoverageDataFile(path, root),
    coverageShards: nodeCoverageShards({ absolute: files.absolute, root, ...options.shards }),
    commands: nodeCommandRunner(root),
    seeds: nodeSeedWriter(git, root),
    now: () => performance.now(),
  };
}
