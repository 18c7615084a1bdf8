"""``-o go-template``: Go's text/template as kubectl runs it (the byte-for-byte
comparison with kubectl itself is in tests/envtest/test_kubectl_parity.py); here the
pieces: Go's number printing, missing values, scopes, trimming, bounds and errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.outputs import gotemplate
from clusterplace.outputs.errors import TemplateError
from clusterplace.outputs.gotemplate import GoTemplate, go_value_text

DOC: dict[str, Any] = {
    "items": [
        {"metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"n": 3, "f": 0.5, "z": None}},
        {"metadata": {"name": "b"}, "spec": {"n": 12}},
    ]
}


def render(template: str, doc: Any = DOC) -> str:
    return GoTemplate.parse(template).render(doc)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.5"),
        (1e-05, "1e-05"),
        (0.0001, "0.0001"),
        (100000.5, "100000.5"),
        (1234567.5, "1.2345675e+06"),
        (1e21, "1e+21"),
        (2.0, "2"),
        (-3.25, "-3.25"),
        (1000000, "1000000"),  # an integer stays one
        (True, "true"),
        (None, "<nil>"),
        ({"b": 1, "a": [1, "x"]}, "map[a:[1 x] b:1]"),
    ],
)
def test_values_print_as_go_prints_them(value: Any, text: str) -> None:
    assert go_value_text(value) == text


def test_actions_scopes_and_trimming() -> None:
    assert render('{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}') == "a\nb\n"
    assert render("{{range $i, $e := .items}}{{$i}}={{$e.metadata.name}} {{end}}") == "0=a 1=b "
    assert render("{{range .items}}{{.metadata.labels.x}}|{{end}}") == "1|<no value>|"
    assert render("{{- range .items -}}\n  {{ .metadata.name }}\n{{- end }}") == "ab"
    assert render("{{/* c */}}x{{- /* d */ -}} y") == "xy"
    assert render('{{with $x := "hi"}}{{$x}}{{end}} {{$.items | len}}') == "hi 2"
    assert render("{{if eq 1 2}}a{{else if eq 1 1}}b{{else}}c{{end}}") == "b"
    assert render("{{range .nope}}x{{else}}empty{{end}}") == "empty"
    assert render("{{range 3}}{{.}}{{end}}") == "012"
    assert render("{{.nope.deeper}} {{print .nope}}") == "<no value> <nil>"


def test_functions() -> None:
    assert render('{{print 1 2 "a" 3}} {{println "a" 1}}') == "1 2a3 a 1\n"
    assert render('{{printf "%s-%d-%5.1f-%q-%v" "x" 3 2.25 "q" .items}}').startswith(
        'x-3-  2.2-"q"-[map['
    )
    assert render('{{printf "%d" "x"}} {{printf "%s"}}') == "%!d(string=x) %!s(MISSING)"
    assert render('{{exists . "items" 0 "spec"}} {{exists . "nope"}}') == "true false"
    assert render('{{index .items 1 "metadata" "name"}} {{slice "abcdef" 1 3}}') == "b bc"
    assert render('{{not true}} {{or "" "x"}} {{and 1 0}}') == "false x 0"
    assert render('{{base64decode "aGk="}} {{html "<a>"}} {{urlquery "a b"}}') == "hi &lt;a&gt; a+b"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{eq 1 1.0}}", "incompatible types for comparison"),
        ("{{.items.x}}", "can't evaluate field x"),
        ("{{(index .items 0).spec.z.q}}", "nil pointer evaluating"),
        ("{{range .items}}", "has no {{end}}"),
        ("{{else}}", "unexpected {{else}}"),
        ("{{break}}", "outside {{range}}"),
        ("{{nofunc 1}}", 'function "nofunc" not defined'),
        ('{{define "x"}}{{end}}', "not supported"),
        ('{{"abc}}', "unclosed action"),
        ("{{index .items 5}}", "index out of range: 5"),
        ("{{$x}}", "undefined variable: $x"),
    ],
)
def test_errors_name_the_problem(template: str, message: str) -> None:
    with pytest.raises(TemplateError, match=re.escape(message)):
        render(template)


def test_templates_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TemplateError, match="longer than"):
        GoTemplate.parse("x" * (gotemplate.MAX_TEMPLATE + 1))
    with pytest.raises(TemplateError, match="nests more than"):
        GoTemplate.parse("{{if 1}}" * 60 + "{{end}}" * 60)
    monkeypatch.setattr(gotemplate, "MAX_STEPS", 1000)
    with pytest.raises(TemplateError, match="steps"):
        render("{{range 100}}{{range 100}}x{{end}}{{end}}")
    monkeypatch.setattr(gotemplate, "MAX_OUTPUT", 100)
    with pytest.raises(TemplateError, match="prints more than"):
        render("{{range 50}}xxxx{{end}}")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}.$|()" -abnrgex=:,0123456789\\/*')), max_size=40))
def test_any_text_is_a_template_or_a_template_error(text: str) -> None:
    try:
        out = render(text)
    except TemplateError as err:
        assert str(err)
        return
    assert isinstance(out, str)
