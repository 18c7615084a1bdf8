"""The fast serialisers write exactly what the plain ones write."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.outputs import as_json_list
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.outputs.serialize import dump_json_list, dump_yaml_documents
from tests.support.builders import cluster, placement, world
from tests.support.scheduling import run_all

# Strings PyYAML treats specially: YAML 1.1 booleans and numbers, indicators, quotes,
# spaces that may fold at the line width, unicode, line breaks, long keys.
_words = st.sampled_from(
    [
        "yes",
        "No",
        "on",
        "~",
        "null",
        "010",
        "1.10",
        "0x1f",
        "-",
        ":",
        "#x",
        "a: b",
        "'q'",
        '"d"',
        "",
        " lead",
        "trail ",
        "é",
        "日本",
        "tab\there",
        "x" * 90,
        "k8s.io/name",
    ]
)
_text = _words | st.text(alphabet=st.sampled_from("ab :#-'\"\n\t.é/"), max_size=100)
_scalars = _text | st.integers(-(2**63), 2**63) | st.booleans() | st.none()
_keys = _words.filter(bool) | st.text(alphabet="abcXYZ-._/", min_size=1, max_size=140)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=20,
)
_documents = st.lists(st.dictionaries(_keys, _values, min_size=0, max_size=5), max_size=4)


@settings(max_examples=400, deadline=None)
@given(_documents)
def test_yaml_is_byte_identical_to_pyyaml(documents: list[dict[str, Any]]) -> None:
    assert dump_yaml_documents(documents) == dump_yaml_stream(documents)


@settings(max_examples=60, deadline=None)
@given(
    clusters=st.integers(0, 30),
    number=st.none() | st.integers(0, 40),
    message=st.text(max_size=30),
)
def test_json_of_scheduled_objects_is_byte_identical(
    clusters: int, number: int | None, message: str
) -> None:
    spec: dict[str, Any] = {} if number is None else {"numberOfClusters": number}
    pl = placement(annotations={"note": message}, **spec)
    result = run_all(world(*(cluster(f"c{i:02d}") for i in range(clusters)), placement_obj=pl))
    models = [m for r in result.placements for m in (r.placement, *r.decisions)]
    assert dump_json_list(models) == dump_json(as_json_list([m.to_dict() for m in models]))
    documents = [m.to_dict() for m in models]
    assert dump_yaml_documents(documents) == dump_yaml_stream(documents)


def test_an_empty_list() -> None:
    assert dump_json_list([]) == dump_json(as_json_list([]))
    assert dump_yaml_documents([]) == dump_yaml_stream([])
