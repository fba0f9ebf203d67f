"""In-process timing of the reference script's work, for tooling/bench/run.mjs.

Imports (does not copy) the reference script as a module and times, inside this one Python process,
what its `emit-deselect` does between argument parsing and printing: load_freeze + parse_collected +
set of ids + classify + the unknown-lease and budget checks + the `--deselect=` lines.
Interpreter start-up and the script's imports are outside the timed region.

Usage: python3 inprocess.py SCRIPT FREEZE COLLECTED
Prints {"ready": true, "import_ms": x} once imported, then for each line "run" read on stdin, one
iteration and {"ms": x, "lines": n}; it stops at end of input. run.mjs interleaves these iterations
with proofgate's own, so both see the same machine load.
"""
from __future__ import annotations

import importlib.util
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path


def reply(data: dict) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def main() -> int:
    script, freeze_path, collected_path = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    t0 = time.perf_counter()
    spec = importlib.util.spec_from_file_location("freeze_account", script)
    if spec is None or spec.loader is None:
        print(f"cannot import {script}", file=sys.stderr)
        return 2
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    reply({"ready": True, "import_ms": (time.perf_counter() - t0) * 1000.0})

    for command in sys.stdin:
        if command.strip() != "run":
            print(f"unknown command {command.strip()!r}", file=sys.stderr)
            return 2
        start = time.perf_counter()
        freeze = ref.load_freeze(freeze_path)
        collected = set(ref.parse_collected(collected_path))
        today = datetime.now(timezone.utc).date()
        active, expired = ref.classify(freeze, today)
        unknown = [row for row in active if row["nodeid"] not in collected]
        budget = int(freeze.get("max_active_leases", 0) or 0)
        if expired or unknown or len(active) > budget:
            print("the inputs are not a clean deselect case", file=sys.stderr)
            return 2
        text = "".join(f"--deselect={row['nodeid']}\n" for row in active)
        ms = (time.perf_counter() - start) * 1000.0
        reply({"ms": ms, "lines": text.count("\n")})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
