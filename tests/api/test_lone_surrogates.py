"""A JSON ``\\uD800``-``\\uDFFF`` escape without its other half decodes to a string that
cannot be written as UTF-8. It is refused where the text is read, at its line and field,
so neither ``schedule`` nor the directory hub's controller ever meets it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.codecs import Source, load_fleet
from clusterplace.codecs.yaml_io import TextError, load_text
from clusterplace.errors import InputError
from tests.support.cli import Result
from tests.support.paths import ROOT

FLEET = ROOT / "examples" / "fleet"


def _placement(spec: str) -> str:
    return (
        '{"apiVersion": "cluster.open-cluster-management.io/v1beta1", "kind": "Placement",\n'
        ' "metadata": {"name": "p", "namespace": "apps"},\n'
        f' "spec": {spec}}}\n'
    )


CASES = {
    "spec.clusterSets[0]": '{"clusterSets": ["s\\ud800"]}',
    "spec.prioritizerPolicy.mode": '{"prioritizerPolicy": {"mode": "Additive\\udfff"}}',
    "spec.prioritizerPolicy.configurations[0].scoreCoordinate.builtIn": (
        '{"prioritizerPolicy": {"configurations": [{"scoreCoordinate": '
        '{"type": "BuiltIn", "builtIn": "Steady\\ud83d"}, "weight": 1}]}}'
    ),
    "spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions[0].operator": (
        '{"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchExpressions": '
        '[{"key": "a", "operator": "\\udc00In", "values": ["x"]}]}}}]}'
    ),
}


@pytest.mark.parametrize("field", CASES)
def test_schedule_refuses_a_lone_surrogate(
    run: Callable[..., Result], tmp_path: Path, field: str
) -> None:
    manifest = tmp_path / "p.json"
    manifest.write_text(_placement(CASES[field]))
    result = run("schedule", "-f", str(manifest), "-f", str(FLEET), "-o", "yaml")
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stdout == ""
    assert f"p.json:3: {field}: " in result.stderr
    assert "holds a lone UTF-16 surrogate (\\u" in result.stderr


def test_the_directory_controller_reports_the_file_and_leaves_it_out(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    """As with any bad hub file: reported, left out (no status is written for it, where
    the controller used to crash while writing one), the rest synced, and ``--once``
    exits 1 (a hub file was invalid)."""
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    (hub / "p.json").write_text(_placement(CASES["spec.clusterSets[0]"]))
    result = run("controller", "--hub", str(hub), "--once", "--now", "2026-11-22T12:00:00Z")
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert 'p.json:3: spec.clusterSets[0]: "s\\ud800" holds a lone UTF-16 surrogate' in (
        result.stderr
    )
    assert not (hub / ".clusterplace" / "placements" / "apps" / "p.yaml").exists()
    assert (hub / ".clusterplace" / "placements" / "apps" / "analytics.yaml").is_file()


def test_a_key_with_a_lone_surrogate_and_a_whole_pair() -> None:
    with pytest.raises(TextError) as caught:
        load_text('{"a":\n {"b\\ud800": 1}}', json_only=True)
    assert caught.value.line == 2
    assert caught.value.message.startswith('a: "b\\ud800" holds a lone UTF-16 surrogate')
    # a whole pair is one character; an escaped backslash is no escape at all
    assert load_text('{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}', json_only=True) == [
        {"a": "\U0001f600", "b": "\\ud800"}
    ]


SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=[])


@given(st.text(alphabet=st.one_of(st.characters(), SURROGATES), max_size=12))
def test_any_string_is_read_as_text_or_refused(text: str) -> None:
    """Whatever a manifest's string holds once JSON-escaped (surrogates included), it
    either loads as text that UTF-8 can write, or is a located error."""
    body = json.dumps(text)  # ASCII escapes: surrogates become \\udXXX
    manifest = _placement(f'{{"clusterSets": [{body}]}}')
    try:
        fleet = load_fleet([Source("p.json", manifest)])
    except InputError as err:
        message = str(err)
        message.encode("utf-8")  # the error itself is writable text
        assert message.startswith("p.json:")
        return
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    for placement in fleet.placements.values():
        for name in placement.spec.cluster_sets or ():
            name.encode("utf-8")
