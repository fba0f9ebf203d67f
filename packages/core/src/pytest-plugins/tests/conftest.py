"""Runs the pytest plugins of this folder in real pytest sessions (pytester, in a subprocess each: the proof
plugin takes its variables out of os.environ and adds audit hooks, which no session can take back).

Run: /usr/bin/python3 -m pytest -p no:cacheprovider packages/core/src/pytest-plugins/tests
(core's vitest suite does, in src/pytest-plugins/python.test.ts).
"""
import hashlib
import hmac
import json
import re
import secrets
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

PLUGINS = Path(__file__).resolve().parent.parent

# The slots as src/pytest-plugins/slots.ts fills them: a list line, a quoted slot, a bare slot.
_SLOT = re.compile(
    r'^([ \t]+)[^\n]*"__PROOFGATE_([A-Z_]+?)__"[^\n]*,\n|"__PROOFGATE_([A-Z_]+?)__"|__PROOFGATE_([A-Z_]+?)__',
    re.M,
)


def render(name, text=(), values=(), lists=()):
    """The plugin `name` with its slots filled: plain text, Python values (repr'd) and lists of them."""
    text, values, lists = dict(text), dict(values), dict(lists)

    def fill(match):
        indent, listed, value, bare = match.groups()
        if listed is not None:
            return "".join("{}{!r},\n".format(indent, item) for item in lists[listed])
        if value is not None:
            return repr(values[value])
        return text[bare]

    return _SLOT.sub(fill, (PLUGINS / name).read_text(encoding="ascii"))


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def signature_ok(text, key):
    """Whether a record's text carries the HMAC-SHA256 of its canonical JSON without the signature."""
    payload = json.loads(text)
    signature = payload.pop("signature", None)
    expected = hmac.new(key, canonical(payload).encode("ascii"), hashlib.sha256).hexdigest()
    return isinstance(signature, str) and hmac.compare_digest(signature, expected)


class ProofRun:
    """One recorded proof run of the pytester project, as proofgate check --run sets it up."""

    def __init__(self, pytester, monkeypatch):
        self.pytester = pytester
        self.monkeypatch = monkeypatch
        self.nonce = secrets.token_hex(16)
        self.key = secrets.token_bytes(32)
        self.module = "proofgate_run_" + self.nonce[:16]
        out = pytester.path / "proofgate-report"
        self.plugin_dir = out / "pytest"
        self.record = out / "run-record.json"

    def run(self, *args, frozen=(), ledger="freeze.toml", unset=(), stop_on_missing=True, root=None, outer=""):
        """pytest with the plugin loaded; `unset`: run variables left out of the environment;
        `stop_on_missing`: whether a lease naming no collected test in a collected file stops the run;
        `root`: the run's root (default the pytester folder); `outer`: the repository's top above it."""
        self.plugin_dir.mkdir(parents=True, exist_ok=True)
        source = render(
            "proofgate_proof_plugin.py",
            text={"TODAY": "2026-12-05"},
            values={"PLUGIN_VERSION": "1", "LEDGER": ledger, "STOP_ON_MISSING": stop_on_missing, "OUTER": outer},
            lists={"FROZEN": list(frozen), "MOUNTS": [], "EXCLUDE": [str(self.plugin_dir.parent)]},
        )
        (self.plugin_dir / (self.module + ".py")).write_text(source, encoding="ascii")
        env = {
            "PYTHONPATH": str(self.plugin_dir),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PROOFGATE_RUN_NONCE": self.nonce,
            "PROOFGATE_RUN_KEY": self.key.hex(),
            "PROOFGATE_RUN_RECORD": str(self.record),
            "PROOFGATE_RUN_ROOT": str(root or self.pytester.path),
        }
        for name, value in env.items():
            if name in unset:
                self.monkeypatch.delenv(name, raising=False)
            else:
                self.monkeypatch.setenv(name, value)
        return self.pytester.runpytest_subprocess("-p", self.module, "-p", "no:cacheprovider", *args)

    def text(self):
        return self.record.read_text(encoding="ascii")

    def payload(self):
        return json.loads(self.text())


@pytest.fixture
def proof_run(pytester, monkeypatch):
    return ProofRun(pytester, monkeypatch)
