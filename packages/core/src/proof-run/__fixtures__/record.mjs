#!/usr/bin/env node
// Records mixed-run.json: a real run of the proof plugin under Debian's pytest 7.2 (/usr/bin/python3).
//   pnpm --filter @proofgate/core build && node packages/core/src/proof-run/__fixtures__/record.mjs
// The project is made in a temp folder (its path is in the record's "root"); the key and nonce are the
// fixed ones below, so the unit tests can verify the signature Python made.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { proofPluginModuleName, proofRunEnvironment, renderProofPlugin } from "../../../dist/proof-run/index.js";

export const KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
export const NONCE = "0123456789abcdef0123456789abcdef";

const files = {
  "src/calc.py": "def add(a, b):\n    return a + b\n",
  "tests/data/golden.txt": "5\n",
  "tests/fixtures/locked.txt": "3\n",
  "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef needs_db():\n    pytest.skip('no database here')\n",
  "tests/test_calc.py": `import pytest
from calc import add


def test_add():
    assert add(2, 3) == int(open("tests/data/golden.txt").read())


def test_locked():
    assert add(1, 2) == int(open("tests/fixtures/locked.txt").read())


def test_fails():
    assert add(2, 2) == 5


@pytest.mark.skip(reason="marker skip")
def test_skip_marker():
    pass


def test_skip_body():
    pytest.skip("body skip")


def test_skip_fixture(needs_db):
    pass


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert add(1, 1) == 3


@pytest.mark.xfail(reason="maybe fixed")
def test_xpass():
    assert add(1, 1) == 2


def test_frozen():
    assert False
`,
  "tests/test_module_skip.py": 'import pytest\n\npytest.skip("not on this platform", allow_module_level=True)\n\n\ndef test_never():\n    pass\n',
  "tests/test_broken.py": "import not_a_module  # noqa\n\n\ndef test_never():\n    pass\n",
};

const root = mkdtempSync(join(tmpdir(), "proofgate-record-"));
try {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const moduleName = proofPluginModuleName(NONCE);
  const pluginDir = join(root, "proofgate-report", "pytest");
  mkdirSync(pluginDir, { recursive: true });
  writeFileSync(
    join(pluginDir, `${moduleName}.py`),
    renderProofPlugin(
      { today: "2026-09-20", active: [{ nodeid: "tests/test_calc.py::test_frozen" }] },
      { ledgerFile: "freeze.toml", exclude: [join(root, "proofgate-report")] },
    ),
  );
  const record = join(root, "proofgate-report", "run-record.json");
  const env = proofRunEnvironment({ nonce: NONCE, key: KEY, record, root, pluginDir, moduleName, inherited: { PYTHONPATH: join(root, "src") }, delimiter: ":" });
  try {
    execFileSync("/usr/bin/python3", ["-m", "pytest", "-p", "no:cacheprovider", "-q", "--continue-on-collection-errors"], {
      cwd: root,
      env: { PATH: process.env.PATH, PYTHONDONTWRITEBYTECODE: "1", ...env },
      stdio: "inherit",
    });
  } catch {
    // The run fails (test_fails, the collection error): the record is what matters.
  }
  writeFileSync(join(dirname(fileURLToPath(import.meta.url)), "mixed-run.json"), readFileSync(record));
} finally {
  rmSync(root, { recursive: true, force: true });
}
