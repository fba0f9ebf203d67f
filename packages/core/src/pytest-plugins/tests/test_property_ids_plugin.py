"""The base's property run (proofgate_property_ids_plugin.py) in a real pytest session: it writes the ids
and each Hypothesis test's settings, runs nothing, and exits 0. End to end:
apps/e2e/src/property-settings.e2e.test.ts and routes-properties.e2e.test.ts."""
import json

from conftest import render


def test_writes_the_ids_and_settings_and_runs_nothing(pytester):
    ids, settings = pytester.path / "ids.jsonl", pytester.path / "settings.jsonl"
    source = render(
        "proofgate_property_ids_plugin.py",
        text={"BASE": "0123456789ab"},
        values={"IDS_FILE": str(ids), "SETTINGS_FILE": str(settings)},
    )
    assert "__PROOFGATE_" not in source
    pytester.makepyfile(proofgate_property_ids=source)
    pytester.makepyfile(
        test_p="""
from hypothesis import given, settings, strategies as st


@settings(max_examples=7, deadline=None)
@given(st.integers())
def test_prop(x):
    raise AssertionError("must not run")


def test_plain():
    raise AssertionError("must not run")
"""
    )
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess("-p", "proofgate_property_ids", "-p", "no:cacheprovider")
    assert result.ret == 0
    result.assert_outcomes(deselected=2)
    assert [json.loads(line) for line in ids.read_text().splitlines()] == [["test_p.py::test_prop", "test_p.py::test_plain"]]
    (found,) = [json.loads(line) for line in settings.read_text().splitlines()]
    assert list(found) == ["test_p.py::test_prop"]
    assert found["test_p.py::test_prop"]["max_examples"] == 7
    assert found["test_p.py::test_prop"]["deadline_us"] is None
