#!/usr/bin/env bash
# Re-records the demo's artifacts (apps/demo/recorded) from real runs of pytest and coverage.py
# (/usr/bin/python3 with pytest-cov): runs the live demo, whose `proofgate check --run` on the
# made-right head writes them through proofgate.toml's [commands], and keeps them:
#   collected.txt         [commands] collect: pytest --collect-only -q
#   proven_coverage.json  [commands] proof: the proof run, frozen tests deselected exactly (-p proofgate_frozen)
#   proof-results.xml     [commands] proof: its JUnit
#   property-results.xml  [commands] properties: the property suite on the base's seeds
#   raw_coverage.json     the whole suite, frozen tests included (what a coverage badge would show)
# JUnit's hostname attribute is replaced by "recorder". `pnpm demo` then judges from these files.
set -euo pipefail
cd "$(dirname "$0")"
node run.mjs --live --record recorded
