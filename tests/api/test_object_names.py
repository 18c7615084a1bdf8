"""Object metadata is checked as the API server checks it, for every kind read."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.api.metadata import ANNOTATIONS_MAX_BYTES, metadata_problems, name_rule
from clusterplace.codecs import Source
from clusterplace.codecs.loader import LoadError, decode, read_documents, require_unique_identities
from clusterplace.labels.validation import (
    dns1035_label_errors,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    path_segment_errors,
)


def _problems(text: str, *, decoded: bool = True) -> list[str]:
    documents = read_documents([Source("in.yaml", text)])
    try:
        if decoded:
            decode(documents, keep_unknown=True)
        else:
            require_unique_identities(documents)
    except LoadError as err:
        return [str(p) for p in err.problems]
    return []


def _cluster(name: str) -> str:
    return (
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        f"metadata:\n  name: {name}\nspec: {{hubAcceptsClient: true}}\n"
    )


@pytest.mark.parametrize("name", ["UPPER", "'a b'", "-rf", '"x\\ny"', "a" * 300, "a.b"])
def test_bad_managed_cluster_names_are_refused_at_the_name(name: str) -> None:
    problems = _problems(_cluster(name))
    assert len(problems) == 1
    assert ": metadata.name: Invalid value: " in problems[0]
    assert "RFC 1123 label" in problems[0] or "no more than 63" in problems[0]


def test_long_names_are_quoted_short_and_control_characters_escaped() -> None:
    (problem,) = _problems(_cluster('"' + "x" * 290 + '\\n"'))
    assert "... (" in problem and "more characters)" in problem
    assert "\n" not in problem and len(problem) < 600


@pytest.mark.parametrize(
    ("kind", "api", "name", "ok"),
    [
        ("ConfigMap", "v1", "a.b-c", True),
        ("ConfigMap", "v1", "../../../esc", False),
        ("Deployment", "apps/v1", "web_1", False),
        ("Service", "v1", "1abc", False),
        ("Namespace", "v1", "a.b", False),
        ("ClusterRole", "rbac.authorization.k8s.io/v1", "system:controller:X_y", True),
        ("ClusterRole", "rbac.authorization.k8s.io/v1", "a/b", False),
        ("Role", "rbac.authorization.k8s.io/v1", "..", False),
    ],
)
def test_pass_through_kinds_get_their_kinds_name_rule(
    kind: str, api: str, name: str, ok: bool
) -> None:
    text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: '{name}'\n"
    assert (_problems(text, decoded=False) == []) is ok


def test_labels_annotations_and_namespace_are_checked_where_they_are() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  namespace: Bad_NS\n"
        "  labels: {'a b': x, k: 'not ok!'}\n  annotations: {'-x': y}\n"
    )
    problems = _problems(text)
    assert [p.split(": Invalid value")[0] for p in problems] == [
        "in.yaml:5: ConfigMap/Bad_NS/ok: metadata.namespace",
        'in.yaml:6: ConfigMap/Bad_NS/ok: metadata.labels["a b"]',
        "in.yaml:6: ConfigMap/Bad_NS/ok: metadata.labels.k",
        "in.yaml:7: ConfigMap/Bad_NS/ok: metadata.annotations.-x",
    ]


def test_annotations_have_a_total_size_cap() -> None:
    meta = {"name": "x", "annotations": {"a": "v" * ANNOTATIONS_MAX_BYTES}}
    assert metadata_problems("ConfigMap", meta) == [
        (("metadata", "annotations"), "Too long: must have at most 262144 bytes")
    ]
    meta["annotations"] = {"a": "v" * (ANNOTATIONS_MAX_BYTES - 1)}
    assert metadata_problems("ConfigMap", meta) == []


def test_generate_name_alone_is_refused_with_the_reason() -> None:
    (problem,) = _problems("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: x-\n")
    assert "generateName is not supported" in problem


# -- the validators against a plain reference ---------------------------------------------

_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
names = st.text(alphabet=st.sampled_from("abzAZ09-._/%: \n\u00e9"), max_size=70) | st.from_regex(
    _SUBDOMAIN, fullmatch=True
)


@given(names)
def test_validators_agree_with_the_definitions(value: str) -> None:
    assert (not dns1123_subdomain_errors(value)) == (
        bool(_SUBDOMAIN.fullmatch(value)) and len(value) <= 253
    )
    assert (not dns1123_label_errors(value)) == (bool(_LABEL.fullmatch(value)) and len(value) <= 63)
    assert (not dns1035_label_errors(value)) == (
        bool(_DNS1035.fullmatch(value)) and len(value) <= 63
    )
    assert (not path_segment_errors(value)) == (
        value not in (".", "..") and "/" not in value and "%" not in value
    )


@given(names)
def test_a_valid_name_of_any_kind_is_one_path_segment(value: str) -> None:
    for kind in ("ConfigMap", "ManagedCluster", "Service", "ClusterRole"):
        if value and not name_rule(kind)(value):
            assert not path_segment_errors(value) and value not in ("", ".", "..")
