// The npm packages as they are published: `changeset publish` runs `pnpm publish` in a pnpm workspace,
// which packs with `pnpm pack` (workspace:^ rewritten to the version). Each tarball's files and manifest
// are checked, and the CLI's is installed into an empty folder with npm, offline, and run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = new URL("../../../", import.meta.url).pathname;
const PACKAGES = ["core", "gate", "cli", "github", "gitlab", "buildkite"] as const;
// Each package's Node floor as published. @proofgate/github's is 22: a clean install resolves @octokit/rest 22
// to the newest @octokit/request 10.0.x, whose content-type 3 declares Node 22 (the test below keeps it true).
const NODE_FLOOR: Record<(typeof PACKAGES)[number], string> = {
  core: ">=20",
  gate: ">=20",
  cli: ">=20",
  github: ">=22",
  gitlab: ">=20",
  buildkite: ">=20",
};

interface Packed {
  files: string[];
  manifest: Record<string, unknown>;
  tarball: string;
  unpacked: string;
}

let temp: string;
const packed = new Map<string, Packed>();

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), "proofgate-pack-"));
  for (const name of PACKAGES) {
    const out = join(temp, name);
    mkdirSync(out);
    const info = JSON.parse(
      run("pnpm", ["pack", "--pack-destination", out, "--json"], join(ROOT, "packages", name)),
    ) as {
      filename: string;
      files: { path: string }[];
    };
    const unpacked = join(out, "unpacked");
    mkdirSync(unpacked);
    run("tar", ["-xzf", info.filename, "-C", unpacked], out);
    packed.set(name, {
      files: info.files.map((f) => f.path).sort(),
      manifest: JSON.parse(readFileSync(join(unpacked, "package", "package.json"), "utf8")) as Record<string, unknown>,
      tarball: info.filename,
      unpacked: join(unpacked, "package"),
    });
  }
}, 300_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const source = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, "packages", name, "package.json"), "utf8")) as Record<string, unknown>;

describe.each(PACKAGES)("@proofgate/%s as packed", (name) => {
  it("holds its build, README and LICENSE, and no sources, tests or fixtures", () => {
    const { files } = packed.get(name)!;
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
    expect(files.filter((f) => !/^(dist\/|schema\/|LICENSE$|README\.md$|package\.json$)/.test(f))).toEqual([]);
    expect(files.filter((f) => /\.test\.|__fixtures__|\/src\//.test(f))).toEqual([]);
    expect(readFileSync(join(packed.get(name)!.unpacked, "LICENSE"), "utf8")).toBe(
      readFileSync(join(ROOT, "LICENSE"), "utf8"),
    );
  });

  it("says where it comes from, what it needs and how it is published", () => {
    const { manifest } = packed.get(name)!;
    expect(manifest).toMatchObject({
      name: `@proofgate/${name}`,
      version: source(name).version,
      license: "MIT",
      type: "module",
      repository: {
        type: "git",
        url: "git+https://github.com/proofgate/proofgate.git",
        directory: `packages/${name}`,
      },
      homepage: `https://github.com/proofgate/proofgate/tree/main/packages/${name}#readme`,
      engines: { node: NODE_FLOOR[name] },
      publishConfig: { access: "public" },
    });
    expect(manifest.private).toBeUndefined();
    expect(JSON.stringify([manifest.dependencies, manifest.devDependencies])).not.toContain("workspace:");
    // Every file the manifest points at is in the tarball.
    const targets = (value: unknown): string[] =>
      typeof value === "string"
        ? [value]
        : value && typeof value === "object"
          ? Object.values(value).flatMap(targets)
          : [];
    const paths = targets([manifest.exports, manifest.bin]).map((t) => normalize(t));
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) if (path !== "package.json") expect(packed.get(name)!.files, path).toContain(path);
  });
});

describe("the packed libraries", () => {
  it.each(["gate", "github", "gitlab", "buildkite"])(
    "@proofgate/%s depends on the core of the same release",
    (name) => {
      const deps = packed.get(name)!.manifest.dependencies as Record<string, string>;
      expect(deps["@proofgate/core"]).toBe(`^${source("core").version as string}`);
    },
  );
});

describe("the packed CLI", () => {
  it("has no dependencies: its bundle is self-contained", () => {
    const { manifest, files } = packed.get("cli")!;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.bin).toEqual({ proofgate: "./dist/proofgate.js" });
    expect(files).toEqual(
      expect.arrayContaining([
        "dist/proofgate.js",
        "dist/hash-worker.cjs",
        "dist/shard-worker.cjs",
        "dist/sql-wasm.wasm",
      ]),
    );
    // The bundle imports nothing but Node's own modules and its own chunks.
    const bare = new Set<string>();
    for (const file of files.filter((f) => f.endsWith(".js") || f.endsWith(".cjs"))) {
      const text = readFileSync(join(packed.get("cli")!.unpacked, file), "utf8");
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([\w@.][^"'\s]*)["']/g))
        if (!m[1]!.startsWith(".") && !m[1]!.startsWith("node:")) bare.add(m[1]!.replace(/\/.*$/, ""));
    }
    const builtins = new Set([
      "assert",
      "fs",
      "path",
      "url",
      "util",
      "crypto",
      "cluster",
      "os",
      "module",
      "worker_threads",
      "child_process",
      "buffer",
    ]);
    expect(bare.has("fs")).toBe(true); // the scan sees the imports it checks
    expect([...bare].filter((b) => !builtins.has(b))).toEqual([]);
  });

  it("its type declarations, from the types entry on, import nothing outside the package", () => {
    const { unpacked } = packed.get("cli")!;
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\bfrom\s+"([^"]+)"/g)) {
        expect(m[1], `${file} imports ${m[1]}`).toMatch(/^\.\.?\//);
        visit(join(dirname(file), m[1]!.replace(/\.js$/, ".d.ts")));
      }
    };
    visit(join(unpacked, "dist", "types", "index.d.ts"));
    expect(seen.size).toBeGreaterThanOrEqual(2);
  });

  it("installs into an empty folder offline (npm install <tarball>) and runs: --version, --help, a command", () => {
    const app = join(temp, "app");
    mkdirSync(app);
    const env = { ...process.env, npm_config_cache: join(temp, "npm-cache"), npm_config_update_notifier: "false" };
    run("npm", ["install", "--offline", "--no-audit", "--no-fund", packed.get("cli")!.tarball], app, env);
    // Only the CLI was installed.
    expect(readdirSync(join(app, "node_modules")).filter((n) => !n.startsWith("."))).toEqual(["@proofgate"]);
    expect(readdirSync(join(app, "node_modules", "@proofgate"))).toEqual(["cli"]);
    const version = source("cli").version as string;
    expect(run(join(app, "node_modules", ".bin", "proofgate"), ["--version"], app)).toBe(`${version}\n`);
    expect(run("npx", ["--offline", "proofgate", "--version"], app, env)).toBe(`${version}\n`);
    expect(run("npx", ["--offline", "proofgate", "check", "--help"], app, env)).toContain("--name");
    writeFileSync(
      join(app, "freeze.toml"),
      'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_x"\nowner = "ada"\nreason = "flaky"\nexpires = "2999-01-01"\n',
    );
    expect(run("npx", ["--offline", "proofgate", "ledger", "list", "--format", "json"], app, env)).toContain(
      "tests/test_a.py::test_x",
    );
  });
});

describe("the packed set on a clean npm install", () => {
  it("resolves its dependencies afresh from the registry, and each package's Node floor holds for its whole tree", () => {
    // No lockfile: what a user's `npm i @proofgate/github` gets today, the newest versions each range allows.
    const app = join(temp, "clean-install");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), '{"name":"app","private":true}\n');
    const env = { ...process.env, npm_config_cache: join(temp, "npm-cache"), npm_config_update_notifier: "false" };
    const tarballs = PACKAGES.map((name) => packed.get(name)!.tarball);
    const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", ...tarballs], {
      cwd: app,
      env,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(r.status, `${r.stderr}${r.stdout}`).toBe(0);

    interface Manifest {
      name: string;
      version: string;
      engines?: { node?: string };
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    }
    const manifestAt = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
    // Node's resolution: the nearest node_modules/<name> from the requiring package's folder upwards.
    const resolveFrom = (dir: string, dep: string): string | undefined => {
      for (let d = dir; d.startsWith(app); d = dirname(d)) {
        const candidate = join(d, "node_modules", dep);
        if (existsSync(join(candidate, "package.json"))) return candidate;
        if (d === app) break;
      }
      return undefined;
    };
    // Every package a @proofgate package loads, with the Node range it declares.
    const tree = (root: string): Manifest[] => {
      const seen = new Map<string, Manifest>();
      const visit = (dir: string) => {
        if (seen.has(dir)) return;
        const manifest = manifestAt(dir);
        seen.set(dir, manifest);
        for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
          const found = resolveFrom(dir, dep);
          if (found) visit(found);
          else expect(manifest.optionalDependencies ?? {}, `${manifest.name} needs ${dep}`).toHaveProperty(dep);
        }
      };
      visit(root);
      return [...seen.values()].slice(1);
    };

    let checked = 0;
    for (const name of PACKAGES) {
      const floor = NODE_FLOOR[name];
      for (const dep of tree(join(app, "node_modules", "@proofgate", name))) {
        const needs = dep.engines?.node;
        if (needs === undefined) continue;
        checked++;
        expect(
          semver.subset(floor, needs),
          `@proofgate/${name} declares Node ${floor}, but ${dep.name}@${dep.version} in its tree needs ${needs}`,
        ).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(5); // the walk reached the octokit and gitbeaker trees

    // npm's engine warnings: each must be one the packages' own floors announce for this Node.
    const warned = [...`${r.stderr}${r.stdout}`.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((m) => m[1]!);
    const announced = PACKAGES.filter((name) => !semver.satisfies(process.version, NODE_FLOOR[name]));
    const explained = new Set(
      announced.flatMap((name) => [
        `@proofgate/${name}@${packed.get(name)!.manifest.version as string}`,
        ...tree(join(app, "node_modules", "@proofgate", name)).map((d) => `${d.name}@${d.version}`),
      ]),
    );
    expect(warned.filter((w) => !explained.has(w))).toEqual([]);
  });
});
