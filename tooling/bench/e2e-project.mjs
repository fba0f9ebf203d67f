// The end-to-end project's shape (apps/e2e/src/check-project.ts) for the benchmarks that run `check --run`:
// a package, 10 tests, a frozen test, a property suite on seeds, a golden fixture; and three patches by an
// agent on it. Shared by base-worktree.mjs and overhead.mjs. Plain ESM, no dependencies.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const CALC = `def total(prices, discount=0):
    result = 0
    for p in prices:
        if p < 0:
            raise ValueError("negative price")
        result += p
    if discount:
        result = result * (100 - discount) / 100
    return result


def label(n):
    if n > 1000:
        return "big"
    return "small"


def encode(text):
    return text.encode("utf-8").hex()


def decode(data):
    return bytes.fromhex(data).decode("utf-8")
`;
const TEST_A = `import pytest

from pkg.calc import label, total


def test_frozen():
    assert label(5000) == "big"


def test_total():
    assert total([1, 2, 3]) == 6


def test_discount():
    assert total([100], discount=10) == 90


def test_negative():
    with pytest.raises(ValueError):
        total([-1])


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert label(n) == "small"
`;
const TEST_B = `from pathlib import Path

from pkg.calc import decode, encode


def test_roundtrip():
    assert decode(encode("abc")) == "abc"


def test_golden():
    assert Path("tests/fixtures/golden.txt").read_text() == encode("golden") + "\\n"
`;
const TEST_EXTRA = `from pkg.calc import label, total


def test_total_again():
    assert total([4]) == 4


def test_label_again():
    assert label(3) == "small"
`;
const TEST_PROPS = `import os
from pathlib import Path

from pkg.calc import decode, encode


def test_roundtrip_on_seeds():
    root = Path(os.environ["PROOFGATE_SEEDS_DIR"]) / "tests" / "properties" / "seeds"
    for seed in sorted(root.glob("*")):
        text = seed.read_text(encoding="utf-8")
        assert decode(encode(text)) == text, seed.name
`;
const GOLDEN = `${Buffer.from("golden").toString("hex")}\n`;

export function config(py) {
  const collect = `${py} -m pytest -p no:cacheprovider --collect-only -q tests --ignore=tests/properties > collected.txt`;
  const proof = `${py} -m pytest -p no:cacheprovider -q tests --ignore=tests/properties --cov=pkg --cov-branch --cov-report= -o junit_family=xunit1 --junitxml=results.xml; s=$?; ${py} -m coverage json -q -o proven_coverage.json; exit $s`;
  const properties = `${py} -m pytest -p no:cacheprovider -q tests/properties -o junit_family=xunit1 --junitxml=properties.xml`;
  return `[coverage]
reports = ["proven_coverage.json"]
min_proven = 80

[results]
junit = ["results.xml"]

[properties]
results = ["properties.xml"]

[commands]
collect = ${JSON.stringify(collect)}
proof = ${JSON.stringify(proof)}
properties = ${JSON.stringify(properties)}
`;
}

const sha256 = (text) => spawnSync("sha256sum", { input: text, encoding: "utf8" }).stdout.split(" ")[0];

export function baseFiles(py) {
  return {
    ".gitignore":
      "collected.txt\nproven_coverage.json\nresults.xml\nproperties.xml\n.coverage\nproofgate-report/\n__pycache__/\n",
    "pkg/__init__.py": "",
    "pkg/calc.py": CALC,
    "tests/test_a.py": TEST_A,
    "tests/test_b.py": TEST_B,
    "tests/test_extra.py": TEST_EXTRA,
    "tests/properties/test_props.py": TEST_PROPS,
    "tests/properties/seeds/ascii.txt": "hello\n",
    "tests/properties/seeds/unicode.txt": "héllo €\n",
    "tests/fixtures/golden.txt": GOLDEN,
    "fixtures.lock": `${sha256(GOLDEN)}  tests/fixtures/golden.txt\n`,
    "freeze.toml":
      'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_frozen"\nowner = "ada"\nreason = "flaky on CI"\nexpires = "2099-12-31"\n',
    "proofgate.toml": config(py),
  };
}

/** The agent's patches on the base, and what `check --run` must answer for each (with this build). */
export const PATCHES = {
  merge: {
    files: {
      "pkg/calc.py": `${CALC}\n\ndef twice(n):\n    return 2 * n\n`,
      "tests/test_extra.py": `${TEST_EXTRA}\n\ndef test_twice():\n    from pkg.calc import twice\n\n    assert twice(2) == 4\n`,
    },
    exit: 0,
    reasons: [],
  },
  removal: {
    files: {
      "tests/test_extra.py": TEST_EXTRA.replace(/def test_total_again\(\):\n {4}assert total\(\[4\]\) == 4\n\n\n/, ""),
    },
    exit: 1,
    reasons: ["tests_removed"],
  },
  skip: {
    files: {
      "tests/test_extra.py": `import pytest\n${TEST_EXTRA.replace("def test_total_again", '@pytest.mark.skip(reason="later")\ndef test_total_again')}`,
    },
    exit: 1,
    reasons: ["tests_skipped_unledgered"],
  },
};

export const GIT_ENV = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(PYTHON|PYTEST_|COVERAGE_|GIT_)/.test(k))),
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  PYTHONDONTWRITEBYTECODE: "1",
  LC_ALL: "C",
};

export function git(cwd, args, who) {
  const r = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...GIT_ENV,
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
    },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${r.stderr}`);
  return r.stdout.trim();
}

export function write(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/**
 * One repository per patch: the base by a human on main, the patch by an agent on `patch`. `commandsExtra`
 * goes at the end of the base's proofgate.toml, in its [commands] table (e.g. `collect_beside_proof = true\n`).
 */
export function makeProject(dir, py, patch, commandsExtra = "") {
  mkdirSync(dir, { recursive: true });
  const human = { name: "Ada Lovelace", email: "ada@example.org" };
  git(dir, ["init", "-q", "-b", "main", "."], human);
  const files = baseFiles(py);
  write(dir, { ...files, "proofgate.toml": files["proofgate.toml"] + commandsExtra });
  git(dir, ["add", "-A"], human);
  git(dir, ["commit", "-q", "-m", "Base"], human);
  const base = git(dir, ["rev-parse", "HEAD"], human);
  git(dir, ["checkout", "-q", "-b", "patch"], human);
  write(dir, patch.files);
  git(dir, ["add", "-A"], human);
  git(dir, ["commit", "-q", "-m", "The agent's change"], { name: "patchbot[bot]", email: "patchbot@example.org" });
  return base;
}
