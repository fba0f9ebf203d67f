"""`proofgate deselect --format plugin` (proofgate_deselect_plugin.py) in real pytest sessions.
End to end, through the cli: apps/e2e/src/deselect.e2e.test.ts."""
from conftest import render


def load(pytester, frozen, ledger="freeze.toml"):
    source = render(
        "proofgate_deselect_plugin.py",
        text={"TODAY": "2026-12-05"},
        values={"LEDGER": ledger},
        lists={"FROZEN": frozen},
    )
    assert "__PROOFGATE_" not in source
    pytester.makepyfile(proofgate_frozen=source)
    pytester.makepyfile(
        test_a="""
import pytest


def test_x():
    pass


def test_x_more():
    pass


@pytest.mark.parametrize("v", ["a[1]", "b"])
def test_p(v):
    pass
"""
    )
    pytester.syspathinsert()


def test_deselects_exactly_the_leased_ids(pytester):
    # pytest's --deselect=test_a.py::test_x would drop test_x_more too.
    load(pytester, ["test_a.py::test_x", "test_a.py::test_p[a[1]]"])
    result = pytester.runpytest("-p", "proofgate_frozen", "-v")
    result.assert_outcomes(passed=2, deselected=2)
    result.stdout.fnmatch_lines(["*test_x_more PASSED*", "*test_p?b? PASSED*"])


def test_a_leased_id_missing_from_a_collected_file_stops_the_run(pytester):
    load(pytester, ["test_a.py::test_gone", "other.py::test_elsewhere"], ledger="ci/freeze.toml")
    result = pytester.runpytest("-p", "proofgate_frozen")
    assert result.ret == 4
    # Only the file that was collected counts: other.py may be another shard's.
    result.stderr.fnmatch_lines(["*1 leased test id(s) in ci/freeze.toml were not collected: test_a.py::test_gone.*"])
