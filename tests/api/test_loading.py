"""Reading fleets kubectl style: sources, documents, decoding, and the errors users see.

Every bad-input case checks the message text *and* where it points (file, line, object,
field), because a correct message at the wrong line is still a bad message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from clusterplace.api import ConfigMap, Fleet, ManagedCluster, ManagedClusterSet
from clusterplace.codecs import (
    LoadError,
    Source,
    decode,
    expand_sources,
    load_fleet,
    read_documents,
)
from clusterplace.errors import InputError

GROUP = "cluster.open-cluster-management.io"
MARK = "# <-"  # a YAML comment marking the line an error must point at
CONFIGMAP_C = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}


# --- helpers ---------------------------------------------------------------------------------


def obj_yaml(
    kind: str, name: str, *, api: str, namespace: str | None = None, rest: str = ""
) -> str:
    """One object as YAML; ``rest`` is appended verbatim (top-level keys, 0 indent)."""
    ns = f"  namespace: {namespace}\n" if namespace else ""
    return f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n{ns}{rest}"


def cluster_yaml(name: str = "c1", rest: str = "", namespace: str | None = None) -> str:
    return obj_yaml("ManagedCluster", name, api=f"{GROUP}/v1", namespace=namespace, rest=rest)


def placement_yaml(spec: str, *, api: str = f"{GROUP}/v1beta1") -> str:
    return obj_yaml("Placement", "p", api=api, namespace="ns", rest="spec:\n" + spec)


def configmap_yaml(name: str, namespace: str | None = None) -> str:
    return obj_yaml("ConfigMap", name, api="v1", namespace=namespace)


def labelled_cluster(value: str) -> str:
    """A cluster whose label value is written exactly as ``value`` (on the marked line)."""
    return cluster_yaml().replace(
        "  name: c1\n", f"  name: c1\n  labels:\n    env: {value}  {MARK}\n"
    )


def list_yaml(*items: str) -> str:
    """A ``kind: List`` holding ``items`` (each an object's YAML text)."""
    body = "".join("- " + text.replace("\n", "\n  ").rstrip() + "\n" for text in items)
    return "apiVersion: v1\nkind: List\nitems:\n" + body


def write(directory: Path, rel: str, text: str) -> Path:
    path = directory / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fleet_of(text: str, name: str = "in.yaml") -> Fleet:
    return load_fleet([Source(name, text)])


def problems_of(sources: list[Source]) -> list[InputError]:
    with pytest.raises(LoadError) as info:
        load_fleet(sources)
    err = info.value
    assert str(err) == "\n".join(str(p) for p in err.problems)
    return err.problems


def marked_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if MARK in line)


def names(sources: list[Source]) -> list[str]:
    return [s.name for s in sources]


# --- sources -------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """d/{b.yaml, a.yml, c.json, notes.txt, README, sub/{z.yaml, deeper/y.yml}}."""
    for rel in ("b.yaml", "a.yml", "sub/z.yaml", "sub/deeper/y.yml"):
        write(tmp_path / "d", rel, configmap_yaml(Path(rel).stem))
    write(tmp_path / "d", "c.json", json.dumps(CONFIGMAP_C))
    write(tmp_path / "d", "notes.txt", "not: read\n")
    write(tmp_path / "d", "README", "not read\n")
    return tmp_path / "d"


@pytest.mark.parametrize(
    ("recursive", "expected"),
    [
        (False, ["a.yml", "b.yaml", "c.json"]),
        (True, ["a.yml", "b.yaml", "c.json", "sub/deeper/y.yml", "sub/z.yaml"]),
    ],
    ids=["flat", "recursive"],
)
def test_directory_reads_only_manifest_extensions_sorted(
    tree: Path, recursive: bool, expected: list[str]
) -> None:
    sources = expand_sources([str(tree)], recursive=recursive)
    assert names(sources) == [str(tree / rel) for rel in expected]


def test_file_text_is_read_verbatim(tree: Path) -> None:
    (source,) = expand_sources([str(tree / "b.yaml")])
    assert source.text == configmap_yaml("b")
    assert not source.is_json
    assert expand_sources([str(tree / "c.json")])[0].is_json


@pytest.mark.parametrize(
    "values",
    [["{d}/a.yml,{d}/b.yaml"], ["{d}/a.yml", "{d}/b.yaml"], [",{d}/a.yml,,{d}/b.yaml,"]],
    ids=["comma", "repeated", "empty-parts"],
)
def test_comma_separated_filenames(tree: Path, values: list[str]) -> None:
    sources = expand_sources([v.format(d=tree) for v in values])
    assert names(sources) == [str(tree / "a.yml"), str(tree / "b.yaml")]


def test_stdin_dash_uses_given_text(tree: Path) -> None:
    sources = expand_sources([str(tree / "a.yml"), "-"], stdin_text="kind: X\n")
    assert names(sources) == [str(tree / "a.yml"), "<stdin>"]
    assert sources[1].text == "kind: X\n"


def test_stdin_is_loaded_and_named_in_errors() -> None:
    fleet = load_fleet(expand_sources(["-"], stdin_text=cluster_yaml()))
    assert list(fleet.clusters) == ["c1"]
    (problem,) = problems_of(expand_sources(["-"], stdin_text=labelled_cluster("on")))
    assert str(problem).startswith("<stdin>:6: ManagedCluster/c1: metadata.labels.env: ")


def test_stdin_twice_is_refused() -> None:
    with pytest.raises(InputError, match=r"standard input \(-\) can only be given once"):
        expand_sources(["-,-"], stdin_text="")


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("missing.yaml", 'the path "{path}" does not exist'),
        ("https://example.com/fleet.yaml", "URLs are not read"),
        ("file:///etc/fleet.yaml", "never fetches from the network"),
    ],
    ids=["nonexistent", "https", "file-url"],
)
def test_bad_source_names(tmp_path: Path, name: str, fragment: str) -> None:
    path = name if "://" in name else str(tmp_path / name)
    with pytest.raises(InputError) as info:
        expand_sources([path])
    assert fragment.format(path=path) in str(info.value)


# --- documents -----------------------------------------------------------------------------


def test_multi_document_yaml_skips_empty_documents() -> None:
    text = "---\n" + configmap_yaml("a") + "---\n---\n# just a comment\n---\n" + configmap_yaml("b")
    docs = read_documents([Source("in.yaml", text)])
    assert [d.data["metadata"]["name"] for d in docs] == ["a", "b"]
    assert [d.prefix for d in docs] == [(), ()]


def test_json_file_is_one_document() -> None:
    data = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}
    (doc,) = read_documents([Source("in.json", json.dumps(data, indent=2))])
    assert doc.data == data


def test_list_is_flattened_and_items_are_located() -> None:
    items = list_yaml(configmap_yaml("a"), cluster_yaml("c1"), configmap_yaml("b"))
    text = configmap_yaml("first") + "---\n" + items
    docs = read_documents([Source("in.yaml", text)])
    assert [(d.doc, d.prefix, d.data["metadata"]["name"]) for d in docs] == [
        (0, (), "first"),
        (1, ("items", 0), "a"),
        (1, ("items", 1), "c1"),
        (1, ("items", 2), "b"),
    ]
    line = docs[2].location().line
    assert line is not None
    assert text.splitlines()[line - 1] == f"- apiVersion: {GROUP}/v1"


def test_error_inside_list_item_points_into_the_item() -> None:
    text = list_yaml(configmap_yaml("a"), placement_yaml(f"  numberOfClusters: x  {MARK}\n"))
    (problem,) = problems_of([Source("in.yaml", text)])
    assert problem.location.line == marked_line(text)
    assert (problem.location.obj, problem.location.field) == (
        "Placement/ns/p",
        "spec.numberOfClusters",
    )


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("- a\n- b\n", "found a list"),
        ("just text\n", "found a str"),
        ("apiVersion: v1\nkind: List\nitems:\n- 3\n", "List item is not an object but a int"),
    ],
    ids=["list", "scalar", "list-item"],
)
def test_non_object_documents(text: str, fragment: str) -> None:
    with pytest.raises(LoadError) as info:
        read_documents([Source("in.yaml", text)])
    (problem,) = info.value.problems
    assert fragment in problem.message
    assert problem.location.file == "in.yaml"


def test_unknown_kinds_are_set_aside_or_kept() -> None:
    docs = read_documents([Source("in.yaml", obj_yaml("Deployment", "web", api="apps/v1"))])
    assert decode(docs).unknown == docs
    (kept,) = decode(docs, keep_unknown=True).objects
    assert kept.to_dict()["kind"] == "Deployment"


# --- versions and defaults -----------------------------------------------------------------


def test_placement_v1alpha1_prioritizer_name_becomes_builtin() -> None:
    spec = (
        "  prioritizerPolicy:\n    configurations:\n"
        "    - name: Steady\n      weight: 3\n"
        "    - name: Ignored\n      scoreCoordinate:\n        builtIn: Balance\n"
    )
    fleet = fleet_of(placement_yaml(spec, api=f"{GROUP}/v1alpha1"))
    placement = fleet.placements["ns", "p"]
    assert placement.api_version == f"{GROUP}/v1beta1"
    configs = placement.spec.prioritizer_policy.configurations or []
    assert [(c.score_coordinate.type, c.score_coordinate.built_in, c.weight) for c in configs] == [
        ("BuiltIn", "Steady", 3),
        ("BuiltIn", "Balance", 1),
    ]


@pytest.mark.parametrize(
    "rest",
    ["spec:\n  clusterSelector:\n    selectorType: LegacyClusterSetLabel\n", "spec: {}\n", ""],
    ids=["legacy", "no-selector", "no-spec"],
)
def test_clusterset_v1beta1_legacy_label_becomes_exclusive(rest: str) -> None:
    text = obj_yaml("ManagedClusterSet", "s", api=f"{GROUP}/v1beta1", rest=rest)
    cluster_set = fleet_of(text).cluster_sets["s"]
    assert isinstance(cluster_set, ManagedClusterSet)
    assert cluster_set.spec.cluster_selector.selector_type == "ExclusiveClusterSetLabel"
    assert cluster_set.api_version == f"{GROUP}/v1beta2"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (configmap_yaml("cm"), ("default", "cm")),
        (configmap_yaml("cm", namespace="shop"), ("shop", "cm")),
    ],
    ids=["defaulted", "explicit"],
)
def test_namespaced_object_namespace(text: str, key: tuple[str, str]) -> None:
    assert isinstance(fleet_of(text).config_maps[key], ConfigMap)


def test_cluster_scoped_object_drops_namespace() -> None:
    cluster = fleet_of(cluster_yaml(namespace="x"))
    assert cluster.clusters["c1"].metadata.namespace is None


# --- bad input -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Bad:
    id: str
    text: str
    fragments: tuple[str, ...]
    obj: str | None = None
    field: str | None = None
    line: int | None = None  # None: the line holding MARK
    file: str = "in.yaml"


PL = "Placement/ns/p"
BAD = [
    Bad(
        "invalid-yaml",
        "apiVersion: v1\nkind: [ConfigMap\nmetadata: {}\n",
        ("invalid YAML",),
        line=3,
    ),
    Bad(
        "invalid-json",
        '{\n  "apiVersion": "v1",\n  "kind": ,\n  "metadata": {}\n}\n',
        ("invalid JSON: Expecting value",),
        line=3,
        file="in.json",
    ),
    Bad(
        "duplicate-key",
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b  {MARK}\n",
        ("invalid YAML", "duplicate key 'name'"),
    ),
    Bad(
        "missing-apiVersion",
        "kind: ConfigMap\nmetadata:\n  name: cm\n",
        ("apiVersion is missing",),
        obj="ConfigMap/cm",
        line=1,
    ),
    Bad(
        "missing-kind",
        "apiVersion: v1\nmetadata:\n  name: cm\n",
        ("kind is missing",),
        obj="<no kind>/cm",
        line=1,
    ),
    Bad(
        "missing-metadata",
        "apiVersion: v1\nkind: ConfigMap\n",
        ("metadata is missing (every object needs metadata.name)",),
        obj="ConfigMap/<no name>",
        line=1,
    ),
    Bad(
        "missing-name",
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {{}}  {MARK}\n",
        ("metadata.name is missing",),
        obj="ConfigMap/<no name>",
        field="metadata",
    ),
    Bad(
        "wrong-type",
        placement_yaml(f'  numberOfClusters: "3"  {MARK}\n'),
        ('must be an integer, not string "3"',),
        obj=PL,
        field="spec.numberOfClusters",
    ),
    Bad(
        "unknown-field",
        placement_yaml(f"  numberOfCluster: 3  {MARK}\n"),
        ("unknown field 'numberOfCluster'; did you mean 'numberOfClusters'?",),
        obj=PL,
        field="spec.numberOfCluster",
    ),
    *(
        Bad(
            f"label-{value}",
            labelled_cluster(value),
            ("must be a string", f"but {value} was read as", what, f'quote it, e.g. "{value}"'),
            obj="ManagedCluster/c1",
            field="metadata.labels.env",
        )
        for value, what in (
            ("yes", "boolean"),
            ("no", "boolean"),
            ("010", "integer"),
            ("1.10", "number"),
        )
    ),
    Bad(
        "claim-number",
        cluster_yaml(rest=f"status:\n  clusterClaims:\n  - name: id\n    value: 42  {MARK}\n"),
        ("must be a string", "but 42 was read as", 'quote it, e.g. "42"'),
        obj="ManagedCluster/c1",
        field="status.clusterClaims[0].value",
    ),
    *(
        Bad(
            f"weight{weight}",
            placement_yaml(
                "  prioritizerPolicy:\n    configurations:\n    - scoreCoordinate:\n"
                f"        builtIn: Steady\n      weight: {weight}  {MARK}\n"
            ),
            (bound,),
            obj=PL,
            field="spec.prioritizerPolicy.configurations[0].weight",
        )
        for weight, bound in (
            (11, "less than or equal to 10"),
            (-11, "greater than or equal to -10"),
        )
    ),
    Bad(
        "clusters-per-group",
        placement_yaml(
            "  decisionStrategy:\n    groupStrategy:\n"
            f'      clustersPerDecisionGroup: "0%"  {MARK}\n'
        ),
        ("'0%' must be a positive integer or a percentage from 1% to 100%",),
        obj=PL,
        field="spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup",
    ),
    Bad(
        "group-name",
        placement_yaml(
            "  decisionStrategy:\n    groupStrategy:\n      decisionGroups:\n"
            f'      - groupName: "-canary"  {MARK}\n        groupClusterSelector: {{}}\n'
        ),
        ("must match pattern",),
        obj=PL,
        field="spec.decisionStrategy.groupStrategy.decisionGroups[0].groupName",
    ),
    Bad(
        "taint-effect",
        cluster_yaml(rest=f"spec:\n  taints:\n  - key: gpu\n    effect: NoSchedule  {MARK}\n"),
        ("must be 'NoSelect', 'PreferNoSelect' or 'NoSelectIfNew'",),
        obj="ManagedCluster/c1",
        field="spec.taints[0].effect",
    ),
    Bad(
        "unserved-apiVersion",
        obj_yaml("ManagedCluster", "c1", api=f"{GROUP}/v2"),
        (f"apiVersion {GROUP}/v2 is not served for ManagedCluster; use one of: {GROUP}/v1",),
        obj="ManagedCluster/c1",
        field="apiVersion",
        line=1,
    ),
    Bad(
        "quantity-suffix",
        cluster_yaml(rest=f"status:\n  capacity:\n    cpu: 1K  {MARK}\n"),
        ("'1K' is not a quantity",),
        obj="ManagedCluster/c1",
        field="status.capacity.cpu",
    ),
    Bad(
        "quantity-boolean",
        cluster_yaml(rest=f"status:\n  allocatable:\n    memory: true  {MARK}\n"),
        ("must be a quantity such as 4, 500m or 16Gi",),
        obj="ManagedCluster/c1",
        field="status.allocatable.memory",
    ),
]


@pytest.mark.parametrize("case", BAD, ids=[c.id for c in BAD])
def test_bad_input_is_reported_with_location(case: Bad) -> None:
    (problem,) = problems_of([Source(case.file, case.text)])
    for fragment in case.fragments:
        assert fragment in problem.message
    expected_line = case.line if case.line is not None else marked_line(case.text)
    loc = problem.location
    assert (loc.file, loc.line, loc.obj, loc.field) == (
        case.file,
        expected_line,
        case.obj,
        case.field,
    )
    where = ": ".join(p for p in (f"{case.file}:{expected_line}", case.obj, case.field) if p)
    assert str(problem) == f"{where}: {problem.message}"


def test_integer_label_message_grammar() -> None:
    """BUG (src/clusterplace/api/loader.py _message): says 'read as a integer'."""
    (problem,) = problems_of([Source("in.yaml", labelled_cluster("010"))])
    assert "was read as an integer" in problem.message


def test_same_cluster_in_two_files_names_both_places() -> None:
    first, second = Source("a.yaml", cluster_yaml()), Source("b/c.yaml", "---\n" + cluster_yaml())
    (problem,) = problems_of([first, second])
    assert "ManagedCluster/c1 is defined twice" in problem.message
    assert "the first definition is at a.yaml:1: ManagedCluster/c1" in problem.message
    assert (problem.location.file, problem.location.line) == ("b/c.yaml", 2)


def test_every_problem_is_reported() -> None:
    bad_cluster = cluster_yaml(rest="spec:\n  taints:\n  - key: gpu\n    effect: NoSchedule\n")
    bad_placement = placement_yaml('  numberOfCluster: 3\n  sortBy: "Name"\n')
    text = "---\n".join([labelled_cluster("yes"), bad_placement, "kind: ConfigMap\n"])
    problems = problems_of([Source("in.yaml", text), Source("other.yaml", bad_cluster)])
    found = sorted((p.location.file or "", p.location.field or "", p.message) for p in problems)
    assert [(file, field) for file, field, _ in found] == [
        ("in.yaml", ""),
        ("in.yaml", ""),
        ("in.yaml", "metadata.labels.env"),
        ("in.yaml", "spec.numberOfCluster"),
        ("in.yaml", "spec.sortBy"),
        ("other.yaml", "spec.taints[0].effect"),
    ]
    assert [m for _, field, m in found if not field] == [
        "apiVersion is missing",
        "metadata is missing (every object needs metadata.name)",
    ]


def test_syntax_errors_of_every_file_are_reported() -> None:
    sources = [Source("a.yaml", "a: [\n"), Source("ok.yaml", cluster_yaml()), Source("b.json", "{")]
    assert [p.location.file for p in problems_of(sources)] == ["a.yaml", "b.json"]


@pytest.mark.parametrize(
    "before",
    ["---\n---\n", configmap_yaml("x") + "---\n---\n", "--- ~\n---\n"],
    ids=["leading-empty", "empty-in-between", "explicit-null"],
)
def test_lines_after_an_empty_document(before: str) -> None:
    """BUG (api/yaml_io.py): load_text drops empty documents but _nodes keeps them as null
    scalars, so the document index used for lines and literal text is shifted."""
    text = before + labelled_cluster("yes")
    (problem,) = problems_of([Source("in.yaml", text)])
    assert problem.location.line == marked_line(text)
    assert 'quote it, e.g. "yes"' in problem.message


def test_duplicate_key_in_json_is_refused() -> None:
    """BUG (api/yaml_io.py load_text): json.loads keeps the last of duplicate keys silently,
    while the same object in YAML is refused."""
    text = '{"apiVersion": "v1", "kind": "ConfigMap",\n "metadata": {"name": "a", "name": "b"}}\n'
    with pytest.raises(LoadError) as info:
        read_documents([Source("in.json", text)])
    assert "duplicate key 'name'" in str(info.value)


# --- quantities and round trip ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [("4", "4"), ('"4"', "4"), ("500m", "500m"), ('" 2 "', "2"), ("16Gi", "16Gi"), ("1.5", "1.5")],
)
def test_status_quantities(raw: str, canonical: str) -> None:
    cluster = fleet_of(cluster_yaml(rest=f"status:\n  capacity:\n    cpu: {raw}\n")).clusters["c1"]
    assert isinstance(cluster, ManagedCluster)
    assert cluster.to_dict()["status"]["capacity"] == {"cpu": canonical}


ROUND_TRIP = [
    placement_yaml(
        "  numberOfClusters: 2\n  clusterSets: [prod]\n  predicates:\n"
        "  - requiredClusterSelector:\n      labelSelector:\n        matchLabels: {env: prod}\n"
        "  decisionStrategy:\n    groupStrategy:\n      clustersPerDecisionGroup: 25%\n"
    ),
    cluster_yaml(
        rest="spec:\n  hubAcceptsClient: true\n  leaseDurationSeconds: 60\n"
        "status:\n  clusterClaims:\n  - name: region\n    value: eu\n"
    ),
]


UNSET = {
    "Placement": ("status", "metadata.labels", "spec.tolerations", "spec.spreadPolicy"),
    "ManagedCluster": ("metadata.namespace", "spec.taints", "status.capacity"),
}


def _has_path(data: object, dotted: str) -> bool:
    for step in dotted.split("."):
        if not isinstance(data, dict) or step not in data:
            return False
        data = data[step]
    return True


@pytest.mark.parametrize("text", ROUND_TRIP, ids=["placement", "cluster"])
def test_to_dict_keeps_camel_case_and_omits_unset(text: str) -> None:
    (obj,) = fleet_of(text).objects()
    out = obj.to_dict()
    raw = yaml.safe_load(text)
    if obj.NAMESPACED:
        raw["metadata"].setdefault("namespace", "default")
    for key in ("apiVersion", "kind", "metadata"):
        assert out[key] == raw[key]
    for key, value in raw["spec"].items():
        assert out["spec"][key] == value
    assert out.get("status") == raw.get("status")
    assert [path for path in UNSET[obj.KIND] if _has_path(out, path)] == []
    assert not _has_none_or_snake(out)
    assert type(obj).model_validate(out).to_dict() == out


def _has_none_or_snake(value: object) -> bool:
    if isinstance(value, dict):
        return any(v is None or "_" in k or _has_none_or_snake(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_none_or_snake(v) for v in value)
    return False


def test_fleet_from_directory(tree: Path) -> None:
    write(tree, "clusters.yaml", cluster_yaml("c1") + "---\n" + cluster_yaml("c2"))
    fleet = load_fleet(expand_sources([str(tree)], recursive=True))
    assert sorted(fleet.clusters) == ["c1", "c2"]
    assert sorted(fleet.config_maps) == [("default", n) for n in ("a", "b", "c", "y", "z")]
