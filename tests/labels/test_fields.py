"""``--field-selector`` as the API server takes it for custom resources."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.labels import SelectorError
from clusterplace.labels.fields import parse_field_selector


def test_equality_inequality_and_commas() -> None:
    chosen = parse_field_selector("metadata.name=web,metadata.namespace!=kube-system")
    assert chosen.matches("web", "apps")
    assert not chosen.matches("web", "kube-system")
    assert not chosen.matches("db", "apps")
    assert parse_field_selector("metadata.name==web").matches("web", None)
    assert parse_field_selector("metadata.namespace=").matches("c1", None)  # cluster-scoped


def test_an_escaped_comma_is_part_of_the_value() -> None:
    assert parse_field_selector(r"metadata.name=a\,b").matches("a,b", None)


def test_the_empty_selector_selects_everything() -> None:
    assert parse_field_selector("").matches("anything", "anywhere")


def test_unsupported_fields_and_nonsense_are_the_servers_errors() -> None:
    with pytest.raises(SelectorError, match=r"^field label not supported: spec\.x"):
        parse_field_selector("spec.x=y")
    with pytest.raises(SelectorError) as caught:
        parse_field_selector("metadata.name")
    assert str(caught.value) == (
        "invalid selector: 'metadata.name'; can't understand 'metadata.name'"
    )


@given(st.text(max_size=60))
def test_any_text_parses_or_is_a_selector_error(text: str) -> None:
    try:
        chosen = parse_field_selector(text)
    except SelectorError as err:
        assert str(err)  # a message, never a crash
        return
    # What parses selects by name and namespace only, and each term holds or not.
    assert isinstance(chosen.matches("a", "b"), bool)
    assert all(t.field in ("metadata.name", "metadata.namespace") for t in chosen.terms)
