"""Expectations: a placement is not planned again until the echoes of its writes came."""

from __future__ import annotations

from clusterplace.api import PlacementDecision
from clusterplace.controller import ObjectChange
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S, Expectations
from tests.support.builders import decision

KEY = ("ns", "p")


def _at(version: str, clusters: list[str] | None = None) -> PlacementDecision:
    pd = decision("ns", "p-decision-1", clusters or ["c1"], placement_label="p")
    meta = pd.metadata.model_copy(update={"resource_version": version})
    return pd.model_copy(update={"metadata": meta})


def test_an_echo_after_the_write_returned_meets_it() -> None:
    expect = Expectations()
    expect.begin(KEY, _at(""))
    expect.wrote(KEY, _at(""), _at("8"), at=0.0)
    assert expect.pending(KEY, at=1.0) == EXPECTATION_TIMEOUT_S - 1.0
    assert expect.observe(ObjectChange(_at("7"), _at("7"))) is None  # an older version
    assert expect.pending(KEY, at=1.0) is not None
    assert expect.observe(ObjectChange(_at("7"), _at("8"))) == KEY  # the last one: requeue
    assert expect.pending(KEY, at=1.0) is None
    assert len(expect) == 0


def test_an_echo_that_came_before_the_write_returned_meets_it_at_once() -> None:
    expect = Expectations()
    expect.begin(KEY, _at(""))
    assert expect.observe(ObjectChange(None, _at("8"))) is None  # the watch was quicker
    expect.wrote(KEY, _at(""), _at("8"), at=0.0)
    assert expect.pending(KEY, at=0.0) is None


def test_a_delete_is_met_by_the_deletion_and_a_failed_write_by_nothing() -> None:
    expect = Expectations()
    expect.begin(KEY, _at("8"))
    expect.wrote(KEY, _at("8"), None, at=0.0)
    assert expect.observe(ObjectChange(_at("9"), _at("9"))) is None  # someone's update
    assert expect.observe(ObjectChange(_at("9"), None)) == KEY
    expect.begin(KEY, _at("8"))
    expect.failed(KEY, _at("8"))
    assert expect.pending(KEY, at=0.0) is None


def test_without_versions_the_content_is_compared() -> None:
    expect = Expectations()
    expect.begin(KEY, _at(""))
    expect.wrote(KEY, _at(""), _at("", ["c2"]), at=0.0)
    assert expect.observe(ObjectChange(None, _at("", ["c1"]))) is None
    assert expect.observe(ObjectChange(None, _at("", ["c2"]))) == KEY


def test_an_echo_that_never_comes_gives_up_after_the_time_out() -> None:
    expect = Expectations()
    expect.begin(KEY, _at(""))
    expect.wrote(KEY, _at(""), _at("8"), at=0.0)
    assert expect.pending(KEY, at=EXPECTATION_TIMEOUT_S - 0.5) == 0.5
    assert expect.pending(KEY, at=EXPECTATION_TIMEOUT_S) is None
    assert len(expect) == 0


def test_the_timeout_is_configurable() -> None:
    expect = Expectations(timeout=42.0)
    expect.begin(KEY, _at(""))
    expect.wrote(KEY, _at(""), _at("7"), at=1.0)
    assert expect.pending(KEY, at=2.0) == 41.0
    assert expect.pending(KEY, at=43.0) is None
