// What `proofgate init` learns from a vitest project: that it is one (vitest in the root package.json, or a
// vitest config file at the root), how the project runs its tools (the package manager its lockfile names),
// the config files a patch could loosen the run with, and the golden files (`__fixtures__`, `__snapshots__`)
// and seed folders the gate locks. It reads only through a LayoutTree, like the Python layout's detector.
import { contents, GOLDEN_FOLDERS } from "./detect-layout.js";
import type { LayoutTree } from "./layout-tree.js";

/** The layout of a vitest project, as far as the gate's commands and signals need it. */
export interface VitestLayout {
  /** Why init takes the project for a vitest one: `vitest in package.json devDependencies`. */
  from: string;
  /** How the project runs a tool it installed: `pnpm exec vitest`, `yarn vitest`, `npx --no vitest`. */
  exec: string;
  /** vitest's and vite's config files at the root: what can change which tests run and what is measured. */
  configFiles: string[];
  /** Golden-file folders: `__fixtures__` and `__snapshots__` folders, and `GOLDEN_FOLDERS` in test folders, that hold files. */
  fixtures: string[];
  /** Seed folders that hold files (`properties/seeds`, `fuzz/corpus`), wherever they are. */
  seeds: string[];
  /** Folders of property tests (`__properties__`), and the folders that hold the seed folders. */
  propertyTests: string[];
  /**
   * For a workspace (pnpm-workspace.yaml, or package.json `workspaces`): what installs and builds a clean
   * checkout, `pnpm install --frozen-lockfile --prefer-offline && pnpm run build` (the build when the root
   * package.json has a `build` script). Its tests import workspace packages, which the base's worktree must
   * build from the base's code. Undefined for a single package.
   */
  setup?: string | undefined;
}

/** Config files vitest (or vite, whose `test` block vitest reads) takes its settings from. */
const CONFIG_FILE = /^(vitest\.config|vite\.config|vitest\.workspace|vitest\.projects)\.(ts|mts|cts|js|mjs|cjs|json)$/;

/** Folders never searched: installed packages, build output, caches, the gate's own output. */
const SKIP = new Set(["node_modules", "dist", "build", "coverage", "out", "proofgate-report", "target", "vendor"]);

/** Folders of golden files by name, anywhere; inside a test folder, every name pytest projects use too (`fixtures`, `fixture`, `golden`, `expected`, ...). */
const GOLDEN = new Set(["__fixtures__", "__snapshots__"]);
const GOLDEN_IN_TESTS = new Set(GOLDEN_FOLDERS);
const TEST_FOLDER = /^(tests?|__tests__|spec)$/;

/** Seed folders, by their last two names. */
const SEED = /(^|\/)(properties|property|fuzz)\/(seeds|corpus)$/;

/** A walk stops after this many entries: init reads a layout, it does not index a tree. */
const WALK_LIMIT = 50_000;

/**
 * The repository a package folder is in, when init runs in a subfolder of one: its root's tree, and the
 * way up to it from the package (`../..`). A workspace declares vitest, its lockfile and its install there.
 */
export interface EnclosingRepository {
  tree: LayoutTree;
  up: string;
}

/**
 * The vitest layout of the project `tree` holds, or undefined when it is not a vitest project. In a
 * package of a workspace (`repository`), vitest may be declared at the workspace's root, the lockfile is
 * the root's, and a clean checkout is installed from the root.
 */
export function detectVitest(tree: LayoutTree, repository?: EnclosingRepository): VitestLayout | undefined {
  const configFiles = tree
    .list("")
    .filter((n) => CONFIG_FILE.test(n))
    .sort();
  const declared = vitestDeclared(tree.read("package.json"));
  const vitestConfig = configFiles.find((f) => f.startsWith("vitest."));
  // A workspace member with a package.json of its own, whose workspace root declares vitest.
  const rootDeclared =
    repository !== undefined && tree.kind("package.json") === "file" && isWorkspace(repository.tree)
      ? vitestDeclared(repository.tree.read("package.json"))
      : undefined;
  if (declared === undefined && vitestConfig === undefined && rootDeclared === undefined) return undefined;
  const from =
    declared !== undefined
      ? `vitest in package.json ${declared}`
      : vitestConfig !== undefined
        ? vitestConfig
        : `vitest in the workspace root's package.json ${rootDeclared} (${repository!.up}/package.json)`;
  // The lockfile and the install are the workspace root's when the package has no lockfile of its own.
  const tools = repository !== undefined && packageManagerOf(tree) === undefined ? repository.tree : tree;

  const fixtures: string[] = [];
  const seeds: string[] = [];
  const propertyTests: string[] = [];
  let seen = 0;
  const walk = (dir: string, inTests: boolean): void => {
    for (const name of tree.list(dir)) {
      if (++seen > WALK_LIMIT) return;
      if (!name.endsWith("/")) continue;
      const base = name.slice(0, -1);
      if (base.startsWith(".") || SKIP.has(base)) continue;
      const path = dir === "" ? base : `${dir}/${base}`;
      if (SEED.test(path) && contents(tree, path).files > 0) {
        seeds.push(path);
        propertyTests.push(path.slice(0, path.lastIndexOf("/")));
        continue;
      }
      if (base === "__properties__") propertyTests.push(path);
      if ((GOLDEN.has(base) || (inTests && GOLDEN_IN_TESTS.has(base))) && contents(tree, path).files > 0) {
        fixtures.push(path);
        continue;
      }
      walk(path, inTests || TEST_FOLDER.test(base));
    }
  };
  walk("", false);

  // A member of a workspace installs (and builds) from the workspace's root: `cd ../.. && pnpm install ...`.
  const member = repository !== undefined && !isWorkspace(tree) && isWorkspace(repository.tree);
  const setup = member ? workspaceSetup(repository.tree) : workspaceSetup(tree);
  return {
    from,
    exec: packageRunner(tools),
    configFiles,
    fixtures: fixtures.sort(),
    seeds: seeds.sort(),
    propertyTests: [...new Set(propertyTests)].sort(),
    setup: member && setup !== undefined ? `cd ${repository.up} && ${setup}` : setup,
  };
}

/** A workspace's root: pnpm-workspace.yaml, or package.json `workspaces`. */
function isWorkspace(tree: LayoutTree): boolean {
  return (
    tree.kind("pnpm-workspace.yaml") === "file" || parseObject(tree.read("package.json"))?.workspaces !== undefined
  );
}

/** A clean checkout's install and build, for a workspace; undefined for a single package. */
function workspaceSetup(tree: LayoutTree): string | undefined {
  if (!isWorkspace(tree)) return undefined;
  const manifest = parseObject(tree.read("package.json"));
  const scripts = manifest?.scripts;
  const build = typeof scripts === "object" && scripts !== null && "build" in scripts;
  const [install, run] = INSTALL[packageManager(tree)];
  return build ? `${install} && ${run}` : install;
}

/** Each package manager's locked install and its build script's run. */
const INSTALL = {
  pnpm: ["pnpm install --frozen-lockfile --prefer-offline", "pnpm run build"],
  yarn: ["yarn install --immutable", "yarn run build"],
  bun: ["bun install --frozen-lockfile", "bun run build"],
  npm: ["npm ci --prefer-offline --no-audit --no-fund", "npm run build"],
} as const;

/**
 * The install a CI job runs at the folder `tree` (the repository's root) before the gate: the lockfile's
 * package manager, locked (pnpm and yarn through corepack, which a CI image's Node.js carries).
 */
export function ciInstall(tree: LayoutTree): string {
  const manager = packageManager(tree);
  const install = INSTALL[manager][0];
  return manager === "pnpm" || manager === "yarn" ? `corepack enable && ${install}` : install;
}

/** A JSON object's text as an object, or undefined. */
function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Where the root package.json declares vitest (`devDependencies`), or undefined. */
function vitestDeclared(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof manifest !== "object" || manifest === null) return undefined;
  for (const key of ["devDependencies", "dependencies"]) {
    const deps = (manifest as Record<string, unknown>)[key];
    if (typeof deps === "object" && deps !== null && "vitest" in deps) return key;
  }
  return undefined;
}

/** The package manager that installed the project's packages, by its lockfile (npm when none says otherwise). */
function packageManager(tree: LayoutTree): "pnpm" | "yarn" | "bun" | "npm" {
  return packageManagerOf(tree) ?? "npm";
}

/** The package manager a lockfile in the folder names; undefined when it holds none. */
function packageManagerOf(tree: LayoutTree): "pnpm" | "yarn" | "bun" | "npm" | undefined {
  if (tree.kind("pnpm-lock.yaml") === "file") return "pnpm";
  if (tree.kind("yarn.lock") === "file") return "yarn";
  if (tree.kind("bun.lockb") === "file" || tree.kind("bun.lock") === "file") return "bun";
  if (tree.kind("package-lock.json") === "file") return "npm";
  return undefined;
}

/** The command that runs the project's installed vitest, with the package manager that installed it. */
function packageRunner(tree: LayoutTree): string {
  // npx --no: never download a vitest the project did not install.
  return { pnpm: "pnpm exec vitest", yarn: "yarn vitest", bun: "bunx vitest", npm: "npx --no vitest" }[
    packageManager(tree)
  ];
}

/** The command that adds a dev dependency with the package manager that installed the project's packages. */
export function addDevCommand(tree: LayoutTree): string {
  return { pnpm: "pnpm add -D", yarn: "yarn add -D", bun: "bun add -d", npm: "npm i -D" }[packageManager(tree)];
}

/**
 * The installed vitest's version when it is older than 4.1 (node_modules/vitest/package.json), else undefined:
 * the gate's runner extends vitest's `TestRunner`, which vitest exports from 4.1.0 on (4.0 has none).
 */
export function vitestTooOld(tree: LayoutTree): string | undefined {
  const text = tree.read("node_modules/vitest/package.json");
  if (text === undefined) return undefined;
  let version: unknown;
  try {
    version = (JSON.parse(text) as { version?: unknown }).version;
  } catch {
    return undefined;
  }
  const parts = typeof version === "string" ? /^(\d+)\.(\d+)\./.exec(version) : null;
  if (!parts) return undefined;
  const [major, minor] = [Number(parts[1]), Number(parts[2])];
  return major < 4 || (major === 4 && minor < 1) ? (version as string) : undefined;
}
