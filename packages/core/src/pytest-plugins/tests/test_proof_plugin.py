"""The proof plugin (proofgate_proof_plugin.py) in real pytest sessions: what docs/proof-run-record.md says
the record holds, checked at the source. End to end, through the cli: apps/e2e/src/proof-run.e2e.test.ts."""
import json

from conftest import signature_ok

TESTS = """
import pytest


def test_ok():
    assert True


def test_broken():
    assert 1 == 2


@pytest.mark.skip(reason="not today")
def test_skipped():
    pass


def test_frozen():
    assert False, "leased: must not run"
"""


def test_signed_record_of_what_ran(proof_run):
    proof_run.pytester.makepyfile(test_a=TESTS)
    result = proof_run.run(frozen=["test_a.py::test_frozen"])
    result.assert_outcomes(passed=1, failed=1, skipped=1, deselected=1)
    payload = proof_run.payload()
    assert payload["format"] == "proofgate-run-record"
    assert (payload["version"], payload["plugin"], payload["nonce"]) == (1, "1", proof_run.nonce)
    assert payload["collected"] == [
        "test_a.py::test_ok",
        "test_a.py::test_broken",
        "test_a.py::test_skipped",
        "test_a.py::test_frozen",
    ]
    assert payload["deselected"] == {"proofgate": ["test_a.py::test_frozen"], "other": []}
    outcomes = {test["id"]: test["outcome"] for test in payload["tests"]}
    assert outcomes == {
        "test_a.py::test_ok": "passed",
        "test_a.py::test_broken": "failed",
        "test_a.py::test_skipped": "skipped",
    }
    skipped = next(t for t in payload["tests"] if t["id"] == "test_a.py::test_skipped")
    assert skipped["reason"] == "Skipped: not today"
    assert skipped["origin"]["by"] == "marker"
    assert payload["exitstatus"] == 1
    assert signature_ok(proof_run.text(), proof_run.key)


def test_signature_fails_on_a_changed_byte_or_another_key(proof_run):
    proof_run.pytester.makepyfile(test_a=TESTS)
    proof_run.run()
    text = proof_run.text()
    assert signature_ok(text, proof_run.key)
    assert not signature_ok(text, bytes(32))
    # One byte of the record changed: the run's failure turned into a success.
    assert '"exitstatus":1,' in text
    flipped = text.replace('"exitstatus":1,', '"exitstatus":0,')
    assert len(flipped) == len(text) and sum(a != b for a, b in zip(text, flipped)) == 1
    assert not signature_ok(flipped, proof_run.key)
    # The nonce is signed too: a record of another run does not pass for this one.
    assert not signature_ok(text.replace(proof_run.nonce, proof_run.nonce[::-1]), proof_run.key)


def test_a_failure_flipped_by_a_conftest_hook_is_caught(proof_run):
    proof_run.pytester.makeconftest(
        """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        report.outcome = "passed"
        report.longrepr = None
"""
    )
    proof_run.pytester.makepyfile(test_a="def test_broken():\n    assert 1 == 2\n")
    result = proof_run.run()
    # pytest itself now says it passed...
    result.assert_outcomes(passed=1)
    payload = proof_run.payload()
    (test,) = payload["tests"]
    call = next(p for p in test["phases"] if p["when"] == "call")
    # ...but the record saw the test raise and pytest's own code make a failed report.
    assert call["raised"] == "error" and call["exception"] == "AssertionError"
    assert call["made"] == "failed"
    assert call["final"] == "passed" and call["logged"] == "passed"
    # The record names the hook that did it.
    assert {"plugin": "conftest.py", "hook": "pytest_runtest_makereport", "wrapper": True, "tryfirst": False, "trylast": False} in (
        payload["hooks"]
    )
    assert signature_ok(proof_run.text(), proof_run.key)


def test_hook_order_views_at_the_ends_of_the_chains(proof_run):
    # Wrappers that ask to be first and last: the plugin's views still sit inside and outside them.
    proof_run.pytester.makeconftest(
        """
import pytest


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    yield


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item):
    yield


def pytest_collection_modifyitems(session, config, items):
    # Runs after the plugin's (tryfirst): the leased test is already gone.
    config.seen = [item.nodeid for item in items]
    dropped = [item for item in items if item.name == "test_dropped_by_conftest"]
    config.hook.pytest_deselected(items=dropped)
    items[:] = [item for item in items if item not in dropped]
"""
    )
    proof_run.pytester.makepyfile(
        test_a="""
import json


def names(hook, pm):
    return [(pm.get_name(i.plugin), bool(i.hookwrapper or getattr(i, "wrapper", False))) for i in hook.get_hookimpls()]


def test_order(request):
    pm = request.config.pluginmanager
    hook = request.config.hook
    with open("order.json", "w") as out:
        json.dump({
            "makereport": names(hook.pytest_runtest_makereport, pm),
            "call": names(hook.pytest_runtest_call, pm),
            "logreport": names(hook.pytest_runtest_logreport, pm),
            "seen": request.config.seen,
        }, out)


def test_frozen():
    pass


def test_dropped_by_conftest():
    pass
"""
    )
    result = proof_run.run(frozen=["test_a.py::test_frozen"])
    result.assert_outcomes(passed=1, deselected=2)
    order = json.loads((proof_run.pytester.path / "order.json").read_text())
    # pluggy calls the last implementation first: the last wrapper is the outermost.
    wrappers = [name for name, wrapper in order["makereport"] if wrapper]
    assert wrappers[0] == "proofgate-run-inner" and wrappers[-1] == "proofgate-run-outer"
    assert [name for name, wrapper in order["call"] if wrapper][0] == "proofgate-run-inner"
    assert [name for name, wrapper in order["logreport"] if not wrapper][0] == "proofgate-run-inner"
    assert order["seen"] == ["test_a.py::test_order", "test_a.py::test_dropped_by_conftest"]
    payload = proof_run.payload()
    assert payload["guard"] and all(payload["guard"].values())
    assert payload["deselected"] == {
        "proofgate": ["test_a.py::test_frozen"],
        "other": ["test_a.py::test_dropped_by_conftest"],
    }


def test_a_missing_lease_stops_the_run(proof_run):
    proof_run.pytester.makepyfile(test_a="def test_ok():\n    pass\n")
    result = proof_run.run(frozen=["test_a.py::test_gone"], ledger="ci/freeze.toml")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*proofgate: 1 leased test id(s) in ci/freeze.toml were not collected: test_a.py::test_gone.*"])


def test_a_missing_lease_is_recorded_not_stopped_when_the_gate_judges_it(proof_run):
    # [commands] collect_beside_proof: the gate plans the deselection before any collection, so a lease naming
    # no collected test must not stop the run; the record's collection shows the lease matched nothing.
    proof_run.pytester.makepyfile(test_a="def test_ok():\n    pass\n\ndef test_frozen():\n    pass\n")
    result = proof_run.run(
        frozen=["test_a.py::test_gone", "test_a.py::test_frozen"], ledger="ci/freeze.toml", stop_on_missing=False
    )
    assert result.ret == 0
    payload = proof_run.payload()
    assert payload["collected"] == ["test_a.py::test_ok", "test_a.py::test_frozen"]
    assert payload["deselected"] == {"proofgate": ["test_a.py::test_frozen"], "other": []}
    assert signature_ok(proof_run.text(), proof_run.key)


def test_an_incomplete_environment_is_a_usage_error(proof_run):
    proof_run.pytester.makepyfile(test_a="def test_ok():\n    pass\n")
    result = proof_run.run(unset=["PROOFGATE_RUN_KEY"])
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*PROOFGATE_RUN_NONCE, PROOFGATE_RUN_RECORD set without PROOFGATE_RUN_KEY*"])
    assert not proof_run.record.exists()


def test_the_variables_leave_the_environment_before_the_tests(proof_run):
    proof_run.pytester.makepyfile(
        test_a="""
import os


def test_env():
    assert not [name for name in os.environ if name.startswith("PROOFGATE_RUN_")]
"""
    )
    proof_run.run().assert_outcomes(passed=1)


def _package_project(proof_run, elsewhere):
    """A repository top (the pytester folder) with testdata/ and .git/, and a package pkg/ whose test reads
    a golden file in testdata/, a file in .git/ and one outside the repository."""
    top = proof_run.pytester.path
    (top / "testdata").mkdir()
    (top / "testdata" / "golden.txt").write_text("42\n")
    (top / ".git").mkdir()
    (top / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    elsewhere.write_text("x\n")
    pkg = top / "pkg"
    pkg.mkdir()
    (pkg / "test_a.py").write_text(
        "import pathlib\n\n"
        "HERE = pathlib.Path(__file__).parent\n\n\n"
        "def test_reads():\n"
        "    assert (HERE.parent / 'testdata' / 'golden.txt').read_text() == '42\\n'\n"
        "    (HERE.parent / '.git' / 'HEAD').read_text()\n"
        "    pathlib.Path({!r}).read_text()\n".format(str(elsewhere))
    )
    return top, pkg


def test_a_package_root_records_the_files_its_tests_read_elsewhere_in_the_repository(proof_run, tmp_path_factory):
    top, pkg = _package_project(proof_run, tmp_path_factory.mktemp("elsewhere") / "x.txt")
    proof_run.run("pkg", root=pkg, outer=str(top)).assert_outcomes(passed=1)
    files = {f["path"]: f for f in proof_run.payload()["files"]}
    assert files["../testdata/golden.txt"] == {
        "path": "../testdata/golden.txt",
        "read": True,
        "write": False,
        "first": "pkg/test_a.py::test_reads",
    }
    # Neither the repository's .git folder nor a file outside the repository is recorded.
    assert [p for p in files if p.startswith("../")] == ["../testdata/golden.txt"]
    assert not [p for p in files if ".git" in p.split("/") or p.startswith("/")]
    assert signature_ok(proof_run.text(), proof_run.key)


def test_without_the_repository_top_files_outside_the_root_are_not_recorded(proof_run, tmp_path_factory):
    top, pkg = _package_project(proof_run, tmp_path_factory.mktemp("elsewhere") / "x.txt")
    proof_run.run("pkg", root=pkg).assert_outcomes(passed=1)
    assert not [f["path"] for f in proof_run.payload()["files"] if f["path"].startswith("../")]


def test_a_read_through_a_symlink_names_the_file_it_leads_to(proof_run, tmp_path_factory):
    top, pkg = _package_project(proof_run, tmp_path_factory.mktemp("elsewhere") / "x.txt")
    (pkg / "shared").symlink_to("../testdata")
    (pkg / "expected.txt").symlink_to("../testdata/golden.txt")
    (pkg / "test_a.py").write_text(
        "import pathlib\n\n"
        "HERE = pathlib.Path(__file__).parent\n\n\n"
        "def test_reads():\n"
        "    assert (HERE / 'shared' / 'golden.txt').read_text() == '42\\n'\n"
        "    assert (HERE / 'expected.txt').read_text() == '42\\n'\n"
    )
    proof_run.run("pkg", root=pkg, outer=str(top)).assert_outcomes(passed=1)
    files = {f["path"]: f for f in proof_run.payload()["files"]}
    # The links' own paths, and the file they lead to, elsewhere in the repository.
    assert {"shared/golden.txt", "expected.txt", "../testdata/golden.txt"} <= set(files)
    assert files["../testdata/golden.txt"]["first"] == "pkg/test_a.py::test_reads"
