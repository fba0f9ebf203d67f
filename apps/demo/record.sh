#!/usr/bin/env bash
# Re-records the demo's artifacts from real runs of Debian's pytest and coverage.py:
#   collected.txt        pytest --collect-only -q
#   proven_coverage.json the proof run, frozen tests deselected exactly by proofgate's plugin
#   raw_coverage.json    the whole suite, frozen tests included (what a badge would show)
set -euo pipefail
cd "$(dirname "$0")/project"
PY=/usr/bin/python3
PROOFGATE="node ../../../packages/cli/dist/proofgate.js"
plugin_dir=$(mktemp -d)
trap 'rm -rf "$plugin_dir" .coverage' EXIT
$PY -m pytest --collect-only -q -p no:cacheprovider > collected.txt
$PROOFGATE deselect --format plugin --out "$plugin_dir/proofgate_frozen.py"
PYTHONPATH="$plugin_dir" $PY -m pytest -q -p no:cacheprovider -p proofgate_frozen --cov=invoicing --cov-branch --cov-report=
$PY -m coverage json -q -o proven_coverage.json
$PY -m pytest -q -p no:cacheprovider --cov=invoicing --cov-branch --cov-report=
$PY -m coverage json -q -o raw_coverage.json
