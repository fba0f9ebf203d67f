"""In-process timing of the reference script's work, for tooling/bench/run.mjs.

Imports (does not copy) the reference script as a module and times, inside this one Python process,
what its `emit-deselect` does between argument parsing and printing: load_freeze + parse_collected +
set of ids + classify + the unknown-lease and budget checks + the `--deselect=` lines.
Interpreter start-up and the script's imports are outside the timed region.

Usage: python3 inprocess.py SCRIPT FREEZE COLLECTED RUNS
Prints one JSON object: {"times_ms": [...], "lines": N, "import_ms": x}.
"""
from __future__ import annotations

import importlib.util
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path


def main() -> int:
    script, freeze_path, collected_path, runs = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    t0 = time.perf_counter()
    spec = importlib.util.spec_from_file_location("freeze_account", script)
    if spec is None or spec.loader is None:
        print(f"cannot import {script}", file=sys.stderr)
        return 2
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    import_ms = (time.perf_counter() - t0) * 1000.0

    times = []
    lines = 0
    for _ in range(runs):
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
        times.append((time.perf_counter() - start) * 1000.0)
        lines = text.count("\n")
    json.dump({"times_ms": times, "lines": lines, "import_ms": import_ms}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
