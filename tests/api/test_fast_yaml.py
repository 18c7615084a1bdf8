"""The native YAML fast path must give exactly what the PyYAML loader gives.

The differential properties render random documents of the shapes people write (block
and flow collections, indentless lists, every scalar style, YAML 1.1's typed plain
scalars, comments, document markers, empty documents) and compare, value by value and
type by type, ``load_text`` (fast path, falling back to PyYAML) with the PyYAML path
alone. Mutated texts check that errors (message and line) come out identically too.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplace.codecs import fast_yaml
from clusterplace.codecs.yaml_io import StrictLoader, TextError, _load_yaml_stream, load_text

# --- comparing -------------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Equal values of identical types (True is not 1), dict keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def outcome(load: Any, text: str) -> tuple[str, Any]:
    try:
        return "data", load(text)
    except TextError as err:
        return "error", (err.message, err.line)


def assert_like_pyyaml(text: str) -> list[Any] | None:
    """load_text and the fast path agree with the PyYAML path; return the fast result."""
    fast = fast_yaml.load(text, StrictLoader)
    expected = outcome(_load_yaml_stream, text)
    if fast is not None:
        assert expected[0] == "data", (text, expected)
        assert same(fast, expected[1]), (text, fast, expected[1])
    got = outcome(load_text, text)
    assert got[0] == expected[0], (text, got, expected)
    if got[0] == "data":
        assert same(got[1], expected[1]), (text, got[1], expected[1])
    else:
        assert got[1] == expected[1], text
    return fast


# --- rendering random documents --------------------------------------------------------------

# Plain scalars whose type YAML 1.1 decides (or nearly does), ordinary ones, and keys.
TYPED = """
    yes Yes YES no No NO on On ON off Off OFF y n Y N true True TRUE false False FALSE
    null Null NULL ~ 0 -0 +1 -1 010 08 0x1f 0X1F 0o17 0b101 1_000 190:20:30 12:30
    1.0 1. .5 -.5 +.5 1e3 1.5e+3 -1.5E-3 6.8523015e+5 3.14 1_0.5 0.1_2 -0.0 00 +0
    .inf -.inf +.inf .Inf .INF .nan .NaN .NAN inf nan NaN Infinity -Infinity
    2026-01-01 2026-01-01T00:00:00Z 2001-12-14t21:59:43.10-05:00 = < <<
"""
WORDS = """
    abc us-east-1 8Gi 500m 16Gi gpu NoSelect ManagedCluster k8s.io/name a.b-c_d
    v1 id-00000042 é 日本 🙂 x=1 a:b a#b http://x.y/z?a=1 -x .x 1Gi 0.5Gi it's back\\slash
"""
KEYS = """
    name namespace labels tier on yes no y n 1 1.5 null ~ true inf nan key_2 a
    cluster.open-cluster-management.io/clusterset kubernetes-minor type operator
"""
SPACED = ["hello world", "a  b", 'say "hi"', "key with space"]
plain_texts = st.sampled_from(TYPED.split() + WORDS.split() + SPACED) | st.from_regex(
    r"[a-zA-Z][a-zA-Z0-9._/-]{0,12}", fullmatch=True
)
any_texts = plain_texts | st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\ufeff"), max_size=12
)


def double_quoted(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F or ch in "\u2028\u2029":
            out.append(f"\\x{ord(ch):02x}" if ord(ch) <= 0xFF else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass
class Scalar:
    text: str
    style: str  # plain, single, double, literal, folded, multiline


@dataclass
class Mapping:
    items: list[tuple[Scalar, Any]]
    flow: bool


@dataclass
class Sequence:
    items: list[Any]
    flow: bool


@st.composite
def scalars(draw: st.DrawFn, *, key: bool = False) -> Scalar:
    if key:
        style = draw(st.sampled_from(["plain"] * 6 + ["single", "double"]))
        text = draw(st.sampled_from(KEYS.split()) | plain_texts if style == "plain" else any_texts)
        return Scalar(text, style)
    style = draw(
        st.sampled_from(["plain"] * 8 + ["single", "double"] * 2 + ["literal", "folded"])
        | st.just("multiline")
    )
    return Scalar(draw(plain_texts if style in ("plain", "multiline") else any_texts), style)


def nodes() -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars(),
        lambda children: (
            st.builds(
                Mapping,
                st.lists(st.tuples(scalars(key=True), children), max_size=4),
                st.booleans(),
            )
            | st.builds(Sequence, st.lists(children, max_size=4), st.booleans())
        ),
        max_leaves=12,
    )


def is_flow_safe(text: str) -> bool:
    return not any(c in text for c in ",[]{}#") and ": " not in text and not text.endswith(":")


def render_scalar(node: Scalar, indent: int, *, flow: bool, comment: bool) -> str:
    text, style = node.text, node.style
    if flow and style in ("literal", "folded", "multiline"):
        style = "double"
    if style == "plain" and flow and not is_flow_safe(text):
        style = "single"
    tail = "  # note" if comment and not flow and style != "multiline" else ""
    pad = " " * (indent + 2)
    if style == "plain":
        return text + tail
    if style == "single":
        return single_quoted(text) + tail
    if style == "double":
        return double_quoted(text) + tail
    if style == "multiline":  # a plain scalar over two lines
        return f"{text}\n{pad}{text}"
    body = text.replace("\r", " ").replace("\x85", " ").replace("\u2028", " ")
    lines = [line.strip() or "x" for line in body.splitlines() or ["x"]]
    indicator = "|" if style == "literal" else ">"
    chomp = random.Random(text).choice(["", "-", "+"])
    return f"{indicator}{chomp}{tail}\n" + "\n".join(pad + line for line in lines)


def render_flow(node: Any) -> str:
    if isinstance(node, Scalar):
        return render_scalar(node, 0, flow=True, comment=False)
    if isinstance(node, Mapping):
        inner = ", ".join(
            f"{render_scalar(k, 0, flow=True, comment=False)}: {render_flow(v)}"
            for k, v in node.items
        )
        return "{" + inner + "}"
    return "[" + ", ".join(render_flow(item) for item in node.items) + "]"


def render_block(node: Any, indent: int, rng: random.Random) -> list[str]:
    """Lines of ``node`` as a block collection at ``indent`` (``node`` is a collection)."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(node, Mapping):
        for key, value in node.items:
            head = f"{pad}{render_scalar(key, indent, flow=True, comment=False)}:"
            lines.extend(render_entry(head, value, indent, rng, in_seq=False))
    else:
        for item in node.items:
            lines.extend(render_entry(f"{pad}-", item, indent, rng, in_seq=True))
    if rng.random() < 0.2:
        lines.insert(rng.randrange(len(lines) + 1), f"{pad}# a comment")
    return lines


def render_entry(
    head: str, value: Any, indent: int, rng: random.Random, *, in_seq: bool
) -> list[str]:
    if isinstance(value, Scalar):
        text = render_scalar(value, indent, flow=False, comment=rng.random() < 0.1)
        return [f"{head} {text}".rstrip() if text else head]
    if value.flow or not value.items:
        return [f"{head} {render_flow(value)}"]
    if isinstance(value, Sequence) and not in_seq and rng.random() < 0.5:
        return [head, *render_block(value, indent, rng)]  # indentless, kubectl style
    if in_seq and isinstance(value, Mapping) and rng.random() < 0.6:
        inner = render_block(value, indent + 2, rng)  # "- key: value" on the dash line
        first = next(i for i, line in enumerate(inner) if not line.lstrip().startswith("#"))
        inner[first] = f"{head} {inner[first].lstrip()}"
        return inner
    return [head, *render_block(value, indent + 2, rng)]


def render_document(node: Any, rng: random.Random) -> str:
    if isinstance(node, Scalar):
        return render_scalar(node, 0, flow=True, comment=False) + "\n"
    if node.flow or not node.items:
        return render_flow(node) + "\n"
    return "\n".join(render_block(node, 0, rng)) + "\n"


@st.composite
def streams(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**32)))
    docs = draw(st.lists(nodes() | st.none(), min_size=1, max_size=3))
    out = []
    for i, doc in enumerate(docs):
        marker = rng.choice(["---\n", "--- # doc\n", "---\n# comment\n"])
        if i or rng.random() < 0.5:
            out.append(marker)
        if doc is not None:
            out.append(render_document(doc, rng))
    return "".join(out)


DIFFERENTIAL = settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])


@DIFFERENTIAL
@given(streams())
def test_random_documents_load_exactly_as_pyyaml_loads_them(text: str) -> None:
    assert_like_pyyaml(text)


@DIFFERENTIAL
@given(streams(), st.sampled_from(["\n", "\r\n"]))
def test_line_endings(text: str, newline: str) -> None:
    assert_like_pyyaml(text.replace("\n", newline))


EDITS = [*":-?[]{},#&*!|>'\"%@` \n\t\r", "  ", "\n  ", ": ", "- ", "---\n", "...\n", "y"]


@DIFFERENTIAL
@given(
    streams(),
    st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from(["+", "-", "="]), st.sampled_from(EDITS)),
        min_size=1,
        max_size=3,
    ),
)
def test_mutated_documents_give_the_same_data_or_the_same_error(
    text: str, edits: list[tuple[float, str, str]]
) -> None:
    chars = list(text)
    for where, op, piece in edits:
        pos = min(int(where * len(chars)), max(len(chars) - 1, 0))
        if op == "+" or not chars:
            chars.insert(pos, piece)
        elif op == "-":
            del chars[pos]
        else:
            chars[pos] = piece
    assert_like_pyyaml("".join(chars))


# --- what takes the fast path and what does not ----------------------------------------------


def test_typical_manifests_take_the_fast_path() -> None:
    text = (
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        "metadata:\n  name: c1\n  labels:\n    env: prod\n    minor: '31'\n"
        "spec:\n  hubAcceptsClient: true\n  leaseDurationSeconds: 60\n"
        "  taints:\n  - key: gpu\n    effect: NoSelect\n    timeAdded: '2026-01-01T00:00:00Z'\n"
        "status:\n  capacity: {cpu: '8', memory: 24Gi}\n  version:\n    kubernetes: v1.31.2\n"
        "---\n# the next one\n---\n" + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
        "data:\n  script: |\n    echo yes\n    exit 0\n  folded: >-\n    a\n    b\n"
    )
    fast = assert_like_pyyaml(text)
    assert fast is not None
    assert fast[0]["spec"] == {
        "hubAcceptsClient": True,
        "leaseDurationSeconds": 60,
        "taints": [{"key": "gpu", "effect": "NoSelect", "timeAdded": "2026-01-01T00:00:00Z"}],
    }
    assert fast[1]["data"] == {"script": "echo yes\nexit 0\n", "folded": "a b"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("yes", True),
        ("Off", False),
        ("~", None),
        ("", None),
        ("010", 8),
        ("0x1f", 31),
        ("1_000", 1000),
        ("190:20:30", 685230),
        ("1.10", 1.1),
        ("-.inf", -math.inf),
        ("1e3", "1e3"),
        ("-.5", "-.5"),
        ("inf", "inf"),
        ("2026-01-01", "2026-01-01"),
        ("'yes'", "yes"),
        ('"010"', "010"),
        ("|\n    yes\n", "yes\n"),
    ],
)
def test_yaml_1_1_typing_of_plain_scalars(value: str, expected: object) -> None:
    fast = assert_like_pyyaml(f"a:\n  b: {value}\n")
    assert fast is not None
    assert same(fast[0]["a"]["b"], expected)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # anchors and aliases
        "a: !!str 1\n",  # tags
        "{a: !!int '1'}\n",
        "base: &b {x: 1}\nc:\n  <<: *b\n",  # merge keys
        "<<: {x: 1}\n",
        "on: 1\n",  # keys that YAML 1.1 types
        "1: a\n",
        "~: a\n",
        "'yes': a\n",  # quoted, but the fast path does not tell keys apart
        "a: 1\na: 2\n",  # duplicate keys
        "{a: 1, a: 2}\n",
        "a:\tb\n",  # tabs, lone CRs, NEL, BOM, control characters
        "a: b\r",
        "a: b\x85c\n",
        "\ufeffa: b\n",
        "a: \x07\n",
        "a: |\n  x",  # a block scalar at the very end, without a line break
        "a: [b\n",  # errors
        "a: b\n c: d\n",
        "? [a]\n: b\n",
    ],
)
def test_what_the_fast_path_leaves_to_pyyaml(text: str) -> None:
    assert fast_yaml.load(text, StrictLoader) is None
    assert_like_pyyaml(text)


def test_rapidyaml_errors_do_not_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    # Valid YAML that libyaml reads but rapidyaml refuses (an under-indented continuation).
    text = "top:\n- 'a': 'a  b\n  x'\n"
    assert fast_yaml.load(text, StrictLoader) is None
    assert load_text(text) == [{"top": [{"a": "a  b x"}]}]
    assert capfd.readouterr().err == ""


def test_a_dumped_fleet_takes_the_fast_path() -> None:
    """PyYAML's own output (the shape of the S4 benchmark) is read natively."""
    clusters = [
        {
            "apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": f"c{i}", "labels": {"tier": "gold", "minor": str(27 + i % 5)}},
            "spec": {"hubAcceptsClient": i % 2 == 0, "leaseDurationSeconds": 60 + i},
            "status": {
                "capacity": {"cpu": str(i), "memory": f"{i}Gi"},
                "clusterClaims": [{"name": "id.k8s.io", "value": f"id-{i:08d}"}],
            },
        }
        for i in range(50)
    ]
    text = yaml.safe_dump_all(clusters, sort_keys=False)
    fast = fast_yaml.load(text, StrictLoader)
    assert fast is not None
    assert same(fast, clusters)
