#!/usr/bin/env python3
"""Writes the coverage evidence of the monorepo-scale benchmark (tooling/bench/scale.mjs).

    /usr/bin/python3 tooling/bench/make_scale_coverage.py MODE REPO --files F --every E [--shards S]

MODE is `shards` (S coverage.py JSON reports, one per CI job, in REPO/cov/shard-NN.json) or `contexts`
(one `.coverage` data file of a `--cov-context=test` run with a context per test, REPO/.coverage, and
that run's own `coverage json`, REPO/coverage.json). The tests are the lines of REPO/collected.txt (test
number t is line t); the modules are REPO/src/pkg_PPP/mod_NNNNN.py, all with the layout scale.mjs writes
(a docstring, then 10 functions `f_j(x)` with an `if x > 0: ... else: ...`). Test t calls two functions
in each of 5 modules, picked by fixed arithmetic on t (no random state shared with scale.mjs); only the
leased tests (t % E == 0) take the `x > 0` side of `f_9`, so dropping them changes the numbers.

Nothing is made up by hand: the arcs are those coverage.py 6.5 measures on the module layout (learned
once per behaviour, as make_contexts_data.py does), and each file's JSON entry is coverage.py's own
JsonReporter.report_one_file over coverage.py's Analysis of those arcs (memoised per set of behaviours).
"""
import argparse
import datetime
import importlib.util
import json
import os
import sqlite3
import sys
import tempfile
import time

import coverage
from coverage import CoverageData
from coverage.jsonreport import JsonReporter
from coverage.python import PythonFileReporter
from coverage.results import Analysis, Numbers

FUNCTIONS = 10
PER_TEST = 5


def module_source(index):
    """Must match moduleSource in scale.mjs."""
    parts = [f'"""Module {index} of the scale benchmark."""\n']
    for j in range(FUNCTIONS):
        parts.append(
            f"\n\ndef f_{j}(x):\n"
            f"    if x > 0:\n"
            f"        y = x + {index + j}\n"
            f"    else:\n"
            f"        y = x - {index + j}\n"
            f"    return y\n"
        )
    return "".join(parts)


def module_path(i):
    return f"src/pkg_{i // 100:03d}/mod_{i:05d}.py"


def plan(t, files, frozen):
    """{module index: set of behaviour names} that test t runs."""
    out = {}
    for k in range(PER_TEST):
        f = ((t * 2654435761 + k * 40503 + 12345) % 2**32) % files
        j1 = (t + 3 * k) % FUNCTIONS
        j2 = (j1 + 1 + ((t >> 4) + k) % (FUNCTIONS - 2)) % FUNCTIONS
        s = out.setdefault(f, set())
        for j in (j1, j2):
            positive = ((t >> 2) + k + j) % 2 == 0
            if j == FUNCTIONS - 1:
                positive = frozen
            s.add(f"{'pos' if positive else 'neg'}{j}")
    return out


def learn(workdir):
    """The template's path, its arcs per behaviour, and a Coverage object to report with."""
    path = os.path.join(workdir, "scale_template.py")
    with open(path, "w") as f:
        f.write(module_source(0))
    cov = coverage.Coverage(data_file=None, branch=True, include=[path])
    cov.start()
    cov.switch_context("import")
    spec = importlib.util.spec_from_file_location("scale_template", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for j in range(FUNCTIONS):
        cov.switch_context(f"pos{j}")
        getattr(module, f"f_{j}")(1)
        cov.switch_context(f"neg{j}")
        getattr(module, f"f_{j}")(-1)
    cov.stop()
    data = cov.get_data()
    learned = {}
    for name in ["import"] + [f"{s}{j}" for j in range(FUNCTIONS) for s in ("pos", "neg")]:
        data.set_query_contexts([f"^{name}$"])
        arcs = sorted(data.arcs(path) or [])
        if not arcs:
            sys.exit(f"make_scale_coverage: coverage.py measured no arcs for {name}")
        learned[name] = arcs
    return path, learned, cov


class Entries:
    """coverage.py's JSON entry for the template run with a set of behaviours, memoised."""

    def __init__(self, path, learned, cov):
        self.path, self.learned, self.cov = path, learned, cov
        self.reporter = PythonFileReporter(path, coverage=cov)
        self.memo = {}

    def get(self, behaviours):
        key = frozenset(behaviours)
        hit = self.memo.get(key)
        if hit is None:
            data = CoverageData(no_disk=True)
            arcs = set()
            for b in key:
                arcs.update(self.learned[b])
            data.add_arcs({self.path: arcs})
            analysis = Analysis(data, self.cov.config.precision, self.reporter, lambda p: p)
            reporter = JsonReporter(self.cov)
            entry = reporter.report_one_file(data, analysis)
            hit = (json.dumps(entry), analysis.numbers)
            self.memo[key] = hit
        return hit


def write_report(out, files_behaviours, entries, precision):
    """A coverage.py 6.5 JSON report of {module index: behaviours}, written as coverage json writes it."""
    total = Numbers(precision)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w") as f:
        meta = {
            "version": coverage.__version__,
            "timestamp": datetime.datetime(2026, 12, 5).isoformat(),
            "branch_coverage": True,
            "show_contexts": False,
        }
        f.write('{"meta": ' + json.dumps(meta) + ', "files": {')
        first = True
        for i in sorted(files_behaviours):
            text, nums = entries.get(files_behaviours[i])
            total += nums
            f.write(("" if first else ", ") + json.dumps(module_path(i)) + ": " + text)
            first = False
        totals = {
            "covered_lines": total.n_executed,
            "num_statements": total.n_statements,
            "percent_covered": total.pc_covered,
            "percent_covered_display": total.pc_covered_str,
            "missing_lines": total.n_missing,
            "excluded_lines": total.n_excluded,
            "num_branches": total.n_branches,
            "num_partial_branches": total.n_partial_branches,
            "covered_branches": total.n_executed_branches,
            "missing_branches": total.n_missing_branches,
        }
        f.write('}, "totals": ' + json.dumps(totals) + "}")
    os.replace(out + ".tmp", out)
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["shards", "contexts"])
    parser.add_argument("repo")
    parser.add_argument("--root", required=True, help="the repository the data file's paths are in")
    parser.add_argument("--files", type=int, required=True)
    parser.add_argument("--every", type=int, required=True)
    parser.add_argument("--shards", type=int, default=50)
    parser.add_argument("--tests-per-file", type=int, default=50)
    args = parser.parse_args()
    started = time.perf_counter()
    repo = os.path.abspath(args.repo)
    with open(os.path.join(repo, "collected.txt")) as f:
        nodeids = []
        for line in f:
            line = line.rstrip("\n")
            if not line:
                break
            nodeids.append(line)
    work = tempfile.mkdtemp(prefix="scale-template-")
    path, learned, cov = learn(work)
    entries = Entries(path, learned, cov)
    summary = {"mode": args.mode, "tests": len(nodeids), "files": args.files, "coverage_version": coverage.__version__}

    if args.mode == "shards":
        shards = [dict() for _ in range(args.shards)]
        for t in range(len(nodeids)):
            shard = shards[(t // args.tests_per_file) % args.shards]
            for f, behaviours in plan(t, args.files, t % args.every == 0).items():
                # A module a shard's tests ran was imported there first.
                shard.setdefault(f, {"import"}).update(behaviours)
        totals = []
        for s, shard in enumerate(shards):
            out = os.path.join(repo, "cov", f"shard-{s + 1:02d}.json")
            totals.append(write_report(out, shard, entries, cov.config.precision)["num_statements"])
        summary["shard_statements"] = [min(totals), max(totals)]
    else:
        data_path = os.path.join(repo, ".coverage")
        for p in (data_path, data_path + ".tmp"):
            if os.path.exists(p):
                os.remove(p)
        paths = [os.path.join(os.path.abspath(args.root), module_path(i)) for i in range(args.files)]
        data = CoverageData(basename=data_path + ".tmp")
        data.set_context("")
        data.add_arcs({p: learned["import"] for p in paths})
        data.write()
        del data
        db = sqlite3.connect(data_path + ".tmp")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA journal_mode = OFF")
        file_ids = {p: i for i, p in db.execute("SELECT id, path FROM file")}
        ids = [file_ids[p] for p in paths]
        full = {i: {"import"} for i in range(args.files)}
        rows = 0
        batch = []
        for t, nodeid in enumerate(nodeids):
            cid = db.execute("INSERT INTO context (context) VALUES (?)", (f"{nodeid}|run",)).lastrowid
            for f, behaviours in plan(t, args.files, t % args.every == 0).items():
                full[f].update(behaviours)
                arcs = set()
                for b in behaviours:
                    arcs.update(learned[b])
                for a, b in arcs:
                    batch.append((ids[f], cid, a, b))
            if len(batch) > 200_000:
                db.executemany("INSERT INTO arc (file_id, context_id, fromno, tono) VALUES (?, ?, ?, ?)", batch)
                rows += len(batch)
                batch = []
        db.executemany("INSERT INTO arc (file_id, context_id, fromno, tono) VALUES (?, ?, ?, ?)", batch)
        rows += len(batch)
        db.commit()
        db.close()
        os.replace(data_path + ".tmp", data_path)
        totals = write_report(os.path.join(repo, "coverage.json"), full, entries, cov.config.precision)
        summary.update(
            contexts=len(nodeids) + 1,
            arc_rows=rows + len(learned["import"]) * args.files,
            data_file_bytes=os.path.getsize(data_path),
            totals=totals,
        )
    summary["distinct_entries"] = len(entries.memo)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
