"""The ``-o`` formats: kubectl's JSONPath templates, custom-columns specs and files, the
format names every command takes, and ``-o name``."""

from __future__ import annotations

import contextlib
import json
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.outputs.custom_columns import (
    Column,
    parse_custom_columns,
    parse_custom_columns_file,
    render_columns,
)
from clusterplace.outputs.errors import TemplateError
from clusterplace.outputs.formats import (
    OUTPUT_NAMES,
    is_template,
    normalize_output,
    object_name,
    render_template,
)
from clusterplace.outputs.jsonpath import (
    MAX_PATH_STEPS,
    MAX_RANGE_DEPTH,
    MAX_TEMPLATE_CHARS,
    JsonPathTemplate,
)

LIST = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "kind": "Placement",
            "metadata": {
                "name": "web",
                "labels": {"app.kubernetes.io/name": "shop", "team-a": "x"},
            },
            "status": {
                "numberOfSelectedClusters": 2,
                "conditions": [
                    {"type": "PlacementSatisfied", "status": "True"},
                    {"type": "PlacementMisconfigured", "status": "False"},
                ],
            },
        },
        {"kind": "Placement", "metadata": {"name": "api", "labels": {}}, "spec": None},
    ],
}


def render(template: str, document: object = LIST) -> str:
    return JsonPathTemplate.parse(template).render(document)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{.items[*].metadata.name}", "web api"),
        ("{.kind}", "List"),
        ("kind: {.kind}!", "kind: List!"),
        ("no braces at all", "no braces at all"),
        ("{.items[0].status.numberOfSelectedClusters}", "2"),
        ("{.items[0].metadata.labels}", '{"app.kubernetes.io/name":"shop","team-a":"x"}'),
        ("{.items[0].metadata.labels.app\\.kubernetes\\.io/name}", "shop"),
        ("{.items[0].metadata.labels['app.kubernetes.io/name']}", "shop"),
        ("{.items[0].metadata.labels.team-a}", "x"),
        ('{.items[0].status.conditions[?(@.type=="PlacementSatisfied")].status}', "True"),
        ("{.items[0].status.conditions[?(@.status!='True')].type}", "PlacementMisconfigured"),
        ("{.items[-1:].metadata.name}", "api"),
        ("{.items[1].spec}", "null"),
        ("{.items[5].metadata.name}", ""),  # nothing found: nothing printed
        ("{.nope}", ""),
        ("{..numberOfSelectedClusters}", "2"),
        ('{range .items[*]}{.metadata.name}{"\\t"}{$.kind}{"\\n"}{end}', "web\tList\napi\tList\n"),
        ("{range .items}{.metadata.name};{end}", "web;api;"),  # a list result, item by item
        (
            "{range .items[*]}[{range .status.conditions[*]}{.type} {end}]{end}",
            "[PlacementSatisfied PlacementMisconfigured ][]",
        ),
        ("{'a\\'b'}{\"\\\\\"}", "a'b\\"),
        ("{ .kind }", "List"),
        ("{$.kind}{@.kind}", "ListList"),
    ],
)
def test_templates_render_as_kubectl(template: str, expected: str) -> None:
    assert render(template) == expected


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{.items", "unclosed action"),
        ("{end}", "{end} without {range"),
        ("{range .items[*]}{.a}", "without {end}"),
        ("{range}", "needs a path"),
        ("{}", "empty action"),
        ("{.a b}", "unexpected character"),
        ("{.a..}", "ends with '..'"),
        ('{"\\q"}', "unknown escape"),
        ("{.a[?(@.x==)]}", "invalid path"),
    ],
)
def test_bad_templates_say_why(template: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message.replace("{", r"\{").replace("[", r"\[")):
        JsonPathTemplate.parse(template)


_TEXT = st.text(
    alphabet=string.ascii_letters + string.digits + " -_:/=,.\t", min_size=1, max_size=20
)


@given(_TEXT)
def test_text_without_braces_is_printed_as_is(text: str) -> None:
    assert render(text) == text


@given(
    st.lists(st.text(alphabet=string.ascii_letters + " ,.-", max_size=8), min_size=1, max_size=5)
)
def test_quoted_literals_round_trip(parts: list[str]) -> None:
    template = "".join('{"' + p + '"}' for p in parts)
    assert render(template) == "".join(parts)


@given(
    st.dictionaries(
        st.text(alphabet=string.ascii_letters + string.digits + "-_/.", min_size=1, max_size=12),
        st.text(alphabet=string.ascii_letters, max_size=8),
        max_size=6,
    )
)
def test_any_label_key_can_be_read_escaped(labels: dict[str, str]) -> None:
    document = {"metadata": {"labels": labels}}
    for key, value in labels.items():
        escaped = key.replace(".", "\\.")
        assert render("{.metadata.labels." + escaped + "}", document) == value


# --- custom-columns -------------------------------------------------------------------

_HEADER = st.text(alphabet=string.ascii_uppercase + "-_", min_size=1, max_size=10)
_FIELD = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=8)
_PATH = st.lists(_FIELD, min_size=1, max_size=4).map(lambda fs: "." + ".".join(fs))


@given(st.lists(st.tuples(_HEADER, _PATH), min_size=1, max_size=6))
def test_custom_columns_specs_parse_back(columns: list[tuple[str, str]]) -> None:
    spec = ",".join(f"{h}:{p}" for h, p in columns)
    assert parse_custom_columns(spec) == [Column(h, p) for h, p in columns]
    # The file form holds the same columns, and -o normalizes both to one spec.
    text = " ".join(h for h, _ in columns) + "\n" + "   ".join(p for _, p in columns) + "\n"
    assert parse_custom_columns_file(text) == [Column(h, p) for h, p in columns]


@given(st.lists(st.tuples(_HEADER, _PATH), min_size=1, max_size=4), st.sampled_from(["", "{}"]))
def test_relaxed_paths_are_one_path(columns: list[tuple[str, str]], wrap: str) -> None:
    """``.a.b``, ``a.b`` and ``{.a.b}`` name the same column, as kubectl's relaxed form."""
    forms = []
    for header, path in columns:
        relaxed = path[1:] if not wrap else "{" + path + "}"
        forms.append(f"{header}:{relaxed}")
    parsed = parse_custom_columns(",".join(forms))
    document: dict[str, object] = {}
    for column, (_, path) in zip(parsed, columns, strict=True):
        assert render("{" + column.path + "}", document) == render("{" + path + "}", document)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "needs a spec"),
        ("NAME", "expected <header>:<json-path-expr>"),
        (":.metadata.name", "expected <header>:<json-path-expr>"),
        ("NAME:", "needs a path"),
        ("NAME:.a[", "unclosed"),
    ],
)
def test_bad_custom_columns(spec: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message.replace("[", r"\[")):
        parse_custom_columns(spec)


def test_custom_columns_cells() -> None:
    columns = parse_custom_columns(
        "NAME:.metadata.name,SEL:status.numberOfSelectedClusters,"
        "TYPES:{.status.conditions[*].type},SPEC:.spec"
    )
    assert render_columns(columns, LIST["items"]) == (  # type: ignore[arg-type]
        "NAME   SEL      TYPES                                       SPEC\n"
        "web    2        PlacementSatisfied,PlacementMisconfigured   <none>\n"
        "api    <none>   <none>                                      <none>\n"
    )
    headless = render_columns(columns, LIST["items"], no_headers=True)  # type: ignore[arg-type]
    assert headless.splitlines()[0].startswith("web ")


def test_custom_columns_file_needs_two_matching_lines() -> None:
    with pytest.raises(TemplateError, match="2 lines"):
        parse_custom_columns_file("NAME\n")
    with pytest.raises(TemplateError, match="2 headers and 1 paths"):
        parse_custom_columns_file("NAME UID\n.metadata.name\n")


# --- -o names -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["table", "wide", "yaml", "json", "name"])
def test_plain_formats(name: str) -> None:
    assert normalize_output(name) == name
    assert normalize_output("=" + name) == name  # -o=json, as kubectl's flags take it
    assert not is_template(name)


def test_text_is_the_older_name_of_table() -> None:
    assert normalize_output("text") == "table"


def test_templated_formats_and_their_files(tmp_path: Path) -> None:
    assert normalize_output("jsonpath={.kind}") == "jsonpath={.kind}"
    template = tmp_path / "t.jsonpath"
    template.write_text("{.kind}{'\\n'}")
    assert normalize_output(f"jsonpath-file={template}") == "jsonpath={.kind}{'\\n'}"
    columns = tmp_path / "columns.txt"
    columns.write_text("NAME   KIND\nmetadata.name   .kind\n")
    output = normalize_output(f"custom-columns-file={columns}")
    assert output == "custom-columns=NAME:metadata.name,KIND:.kind"
    assert is_template(output)
    assert render_template(output, None, [{"metadata": {"name": "x"}, "kind": "K"}]) == (
        "NAME   KIND\nx      K\n"
    )
    assert render_template("jsonpath={.kind}", {"kind": "K"}, []) == "K"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("xml", "unknown output format"),
        ("jsonpath", "needs a value"),
        ("custom-columns", "needs a value"),
        ("yaml=x", "takes no value"),
        ("jsonpath={.a", "unclosed action"),
        ("jsonpath-file=/no/such/file", "jsonpath-file /no/such/file: cannot read"),
        ("custom-columns=NAME", "expected <header>"),
    ],
)
def test_bad_output_values(value: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message):
        normalize_output(value)


def test_every_format_is_listed() -> None:
    assert OUTPUT_NAMES[:5] == ("table", "wide", "yaml", "json", "name")
    assert {n.partition("=")[0] for n in OUTPUT_NAMES[5:]} == {
        "jsonpath",
        "jsonpath-file",
        "custom-columns",
        "custom-columns-file",
        "go-template",
        "go-template-file",
    }


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {"apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
             "metadata": {"name": "c1"}},
            "managedcluster.cluster.open-cluster-management.io/c1",
        ),
        (
            {"apiVersion": "cluster.open-cluster-management.io/v1beta1", "kind": "Placement",
             "metadata": {"name": "p", "namespace": "apps"}},
            "placement.cluster.open-cluster-management.io/p",
        ),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, "configmap/c"),
    ],
)  # fmt: skip
def test_object_names_are_kubectl_s(data: dict[str, object], expected: str) -> None:
    assert object_name(data) == expected


# --- bounds: whatever the text, a template parses or is a TemplateError -----------------

_PIECES = st.sampled_from(
    [
        "{",
        "}",
        "{range ",
        "{end}",
        "{.items[*]}",
        "{range .items[*]}",
        "{$.kind}",
        "{@}",
        "{range @}",
        ".",
        "..",
        "[",
        "]",
        "(",
        ")",
        "[?(@.a==",
        "'",
        '"',
        "\\",
        "|",
        "&",
        "*",
        "$",
        "@",
        "a",
        "-1:",
        "\n",
        "\ud800",  # a lone surrogate
    ]
)
_TEMPLATE_TEXT = st.one_of(st.text(max_size=200), st.lists(_PIECES, max_size=60).map("".join))


@given(_TEMPLATE_TEXT)
def test_any_text_parses_or_is_a_template_error(text: str) -> None:
    try:
        template = JsonPathTemplate.parse(text)
    except TemplateError:
        return
    template.render(LIST)  # and what parses renders (a path that finds nothing prints "")


@given(_TEMPLATE_TEXT)
def test_any_output_value_is_a_format_or_a_template_error(text: str) -> None:
    for value in (f"jsonpath={text}", f"custom-columns={text}", text):
        with contextlib.suppress(TemplateError):
            normalize_output(value)


def test_limits_are_named() -> None:
    with pytest.raises(TemplateError, match=f"more than {MAX_PATH_STEPS} steps"):
        JsonPathTemplate.parse("{" + ".a" * (MAX_PATH_STEPS + 1) + "}")
    filters = MAX_PATH_STEPS // 3  # '[?(@.a' is three steps
    nested = "{.a" + "[?(@.a" * (filters + 1) + ")]" * (filters + 1) + "}"
    with pytest.raises(TemplateError, match=f"more than {MAX_PATH_STEPS} steps"):
        JsonPathTemplate.parse(nested)
    nested = "{.a" + "[?(@.a" * filters + ")]" * filters + "}"
    assert render(nested, {"a": [{"a": [{"a": 1}]}]}) == ""  # parses, and runs
    assert render("{.a[?(@.a[?(@.a)])]}", {"a": [{"a": [{"a": 1}]}]}) == '{"a":[{"a":1}]}'
    JsonPathTemplate.parse("{" + ".a" * MAX_PATH_STEPS + "}")
    depth = MAX_RANGE_DEPTH + 1
    with pytest.raises(TemplateError, match=f"nested more than {MAX_RANGE_DEPTH} deep"):
        JsonPathTemplate.parse("{range @}" * depth + "{end}" * depth)
    with pytest.raises(TemplateError, match=f"limit of {MAX_TEMPLATE_CHARS}"):
        JsonPathTemplate.parse("x" * (MAX_TEMPLATE_CHARS + 1))
    with pytest.raises(TemplateError, match=f"limit of {MAX_TEMPLATE_CHARS}"):
        parse_custom_columns("A:.a," * MAX_TEMPLATE_CHARS)


def test_the_deepest_path_allowed_is_evaluated() -> None:
    document: dict[str, object] = {"v": 1}
    for _ in range(MAX_PATH_STEPS):
        document = {"a": document}
    path = "{" + ".a" * (MAX_PATH_STEPS - 1) + ".a.v}"
    with pytest.raises(TemplateError):  # one step too many
        render(path, document)
    assert render("{" + ".a" * (MAX_PATH_STEPS - 1) + "}", document) == json.dumps(
        {"a": {"v": 1}}, separators=(",", ":")
    )


def test_output_is_written_in_pieces() -> None:
    template = JsonPathTemplate.parse('{range .items[*]}{.metadata.name}{"\\n"}{end}')
    pieces: list[str] = []
    many = {"items": [{"metadata": {"name": f"c{i:06}"}} for i in range(30_000)]}
    template.write(many, pieces.append)
    assert len(pieces) > 1 and max(len(p) for p in pieces) < 2 * 64 * 1024
    assert "".join(pieces) == template.render(many)
    assert "".join(pieces).splitlines() == [f"c{i:06}" for i in range(30_000)]
