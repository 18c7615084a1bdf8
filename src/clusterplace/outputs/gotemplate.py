"""kubectl's ``-o go-template=TEMPLATE``: Go's text/template over what ``-o json``
prints, as kubectl runs it.

As kubectl: the data is JSON as Kubernetes decodes it (whole numbers are integers,
others floats printed as Go prints them: ``0.5``, ``1e-05``; an integer written in the
template compares with the first, a float with the second), a missing key is
``<no value>``, and the functions are Go's (``and``,
``or``, ``not``, ``len``, ``index``, ``slice``, ``print``, ``printf``, ``println``,
``eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge``, ``html``, ``urlquery``) with
kubectl's ``exists`` and ``base64decode``. Actions: ``{{pipeline}}``, ``if``/``else
if``/``else``, ``range`` (with ``$i, $e :=``, ``break``, ``continue``), ``with``,
variables (``$x :=``, ``$x =``), comments and ``{{-``/``-}}`` trimming. ``define``,
``template`` and ``block`` are refused: one template is all ``-o`` takes.

A template is bounded: its size, its nesting, the work it may do and the text it may
print (a :class:`TemplateError` names the limit)."""

from __future__ import annotations

import base64
import html
import json
import math
import re
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from clusterplace.outputs.errors import TemplateError

__all__ = ["GoTemplate", "go_value_text"]

MAX_TEMPLATE = 64 * 1024  # characters
MAX_DEPTH = 50  # nested actions and parentheses
MAX_STEPS = 5_000_000  # actions run, over the whole output
MAX_OUTPUT = 64 * 1024 * 1024  # characters printed


class _NoValue:
    """Go's invalid reflect.Value: what a missing key gives; prints ``<no value>``."""

    def __repr__(self) -> str:
        return "<no value>"


NO_VALUE = _NoValue()

# --- printing values as Go's fmt %v prints what encoding/json decodes ----------------


def _go_float(value: float) -> str:
    """A float as Go's ``%v`` prints it: the shortest digits that read back, in
    exponent form when the exponent is below -4 or 6 and above (``1e+06``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    parts = Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, parts.digits)).rstrip("0") or "0"
    exponent = int(parts.exponent) + len(parts.digits) - 1  # of the first digit
    sign = "-" if parts.sign else ""
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole, rest = digits[: exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1 :]
    return f"{sign}{whole}.{rest}" if rest else f"{sign}{whole}"


def go_value_text(value: Any) -> str:
    """``value`` as Go's ``fmt.Sprint`` prints it (maps by key, ``map[a:1]``)."""
    if value is NO_VALUE:
        return "<no value>"
    if value is None:
        return "<nil>"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{k}:{go_value_text(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_value_text(v) for v in value) + "]"
    return str(value)


def _print_text(value: Any) -> str:
    """What an action prints: as fmt's ``%v``, a missing value as ``<no value>``."""
    return go_value_text(value)


# --- lexing ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<raw>`[^`]*`)
  | (?P<char>'(?:[^'\\\n]|\\.)+')
  | (?P<number>[+-]?(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))
  | (?P<declare>:=)
  | (?P<assign>=)
  | (?P<variable>\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<field>(?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[|(),])
    """,
    re.VERBOSE,
)

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _unquote(text: str) -> str:
    """A Go interpreted string literal's value."""
    out: list[str] = []
    i, body = 0, text[1:-1]
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        elif code in "\\\"'":
            out.append(code)
            i += 2
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise TemplateError(f"invalid escape in {text}")
            out.append(chr(int(digits, 16)))
            i += 2 + width
        elif code in "01234567":
            digits = body[i + 1 : i + 4]
            if len(digits) != 3 or not all(c in "01234567" for c in digits):
                raise TemplateError(f"invalid escape in {text}")
            out.append(chr(int(digits, 8)))
            i += 4
        else:
            raise TemplateError(f"unknown escape sequence \\{code} in {text}")
    return "".join(out)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str


def _tokens(action: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(action):
        match = _TOKEN.match(action, pos)
        if match is None:
            raise TemplateError(f"unexpected {action[pos]!r} in action {{{{{action}}}}}")
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(_Token(kind, match.group()))
        pos = match.end()
    return tokens


# --- the tree -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Literal:
    value: Any


@dataclass(frozen=True)
class _Field:
    chain: tuple[str, ...]  # () is dot itself


@dataclass(frozen=True)
class _Variable:
    name: str
    chain: tuple[str, ...]


@dataclass(frozen=True)
class _Function:
    name: str


@dataclass(frozen=True)
class _Sub:
    pipeline: _Pipeline
    chain: tuple[str, ...]


_Operand = _Literal | _Field | _Variable | _Function | _Sub


@dataclass(frozen=True)
class _Pipeline:
    declare: tuple[str, ...]  # variables this pipeline declares ($x :=) or assigns
    assign: bool  # $x = (assigns an existing variable)
    commands: tuple[tuple[_Operand, ...], ...]


@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Action:
    pipeline: _Pipeline


@dataclass(frozen=True)
class _Branch:
    kind: str  # if, range, with
    pipeline: _Pipeline
    body: tuple[_Node, ...]
    otherwise: tuple[_Node, ...]


@dataclass(frozen=True)
class _Loop:
    kind: str  # break, continue


_Node = _Text | _Action | _Branch | _Loop

_FUNCTIONS_NAMES = frozenset(
    [
        "and",
        "or",
        "not",
        "len",
        "index",
        "slice",
        "print",
        "printf",
        "println",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "html",
        "urlquery",
        "exists",
        "base64decode",
    ]
)


def _split_actions(text: str) -> Iterator[tuple[str, str]]:
    """("text", ...) and ("action", ...) pieces, with ``{{-``/``-}}`` trimming done."""
    pos = 0
    pending_trim = False
    while True:
        start = text.find("{{", pos)
        chunk = text[pos:] if start < 0 else text[pos:start]
        if pending_trim:
            chunk = chunk.lstrip(" \t\r\n")
        if start < 0:
            if chunk:
                yield "text", chunk
            return
        inner_start = start + 2
        after = text[inner_start + 1 : inner_start + 2]
        trim_left = text.startswith("-", inner_start) and after != "" and after in " \t\r\n"
        if trim_left:
            chunk = chunk.rstrip(" \t\r\n")
            inner_start += 2
        if chunk:
            yield "text", chunk
        if text.startswith("/*", inner_start):
            close = text.find("*/", inner_start + 2)
            if close < 0:
                raise TemplateError("unclosed comment")
            end = text.find("}}", close + 2)
            if end < 0 or text[close + 2 : end].strip(" -") != "":
                raise TemplateError("comment ends before closing delimiter")
            pending_trim = text[close + 2 : end].strip() == "-"
            pos = end + 2
            continue
        end = _action_end(text, inner_start)
        inner = text[inner_start:end]
        pending_trim = len(inner) >= 2 and inner[-1] == "-" and inner[-2] in " \t\r\n"
        if pending_trim:
            inner = inner[:-2]
        yield "action", inner
        pos = end + 2


def _action_end(text: str, start: int) -> int:
    """Where the action that starts at ``start`` closes (quotes skipped)."""
    i = start
    while i < len(text):
        if text.startswith("}}", i):
            return i
        char = text[i]
        if char in "\"'`":
            close = i + 1
            while close < len(text) and text[close] != char:
                close += 2 if text[close] == "\\" and char != "`" else 1
            i = close + 1
            continue
        i += 1
    raise TemplateError("unclosed action: missing }}")


class _Parser:
    def __init__(self, text: str) -> None:
        self.pieces = list(_split_actions(text))
        self.pos = 0

    def parse(self) -> tuple[_Node, ...]:
        nodes, end = self._list(0, loop=False)
        if end is not None:
            raise TemplateError(f"unexpected {{{{{end}}}}}")
        return nodes

    def _list(self, depth: int, *, loop: bool) -> tuple[tuple[_Node, ...], str | None]:
        """Nodes up to an ``end``/``else`` (returned, its text) or the end of input."""
        if depth > MAX_DEPTH:
            raise TemplateError(f"the template nests more than {MAX_DEPTH} actions deep")
        nodes: list[_Node] = []
        while self.pos < len(self.pieces):
            kind, text = self.pieces[self.pos]
            self.pos += 1
            if kind == "text":
                nodes.append(_Text(text))
                continue
            tokens = _tokens(text)
            if not tokens:
                raise TemplateError("missing value for command")
            head = tokens[0]
            if head.kind == "ident" and head.text in ("end", "else"):
                return tuple(nodes), text.strip()
            if head.kind == "ident" and head.text in ("if", "range", "with"):
                nodes.append(self._branch(head.text, tokens[1:], depth, loop=loop))
            elif head.kind == "ident" and head.text in ("break", "continue"):
                if not loop:
                    raise TemplateError(f"{{{{{head.text}}}}} outside {{{{range}}}}")
                nodes.append(_Loop(head.text))
            elif head.kind == "ident" and head.text in ("define", "template", "block"):
                raise TemplateError(f"{{{{{head.text}}}}} is not supported in an -o template")
            else:
                nodes.append(_Action(_pipeline(tokens, depth, declarations=True)))
        return tuple(nodes), None

    def _branch(self, kind: str, tokens: list[_Token], depth: int, *, loop: bool) -> _Branch:
        pipeline = _pipeline(tokens, depth, declarations=True, range_vars=kind == "range")
        body, end = self._list(depth + 1, loop=loop or kind == "range")
        otherwise: tuple[_Node, ...] = ()
        if end is None:
            raise TemplateError(f"unexpected EOF: {{{{{kind}}}}} has no {{{{end}}}}")
        if end != "end":
            rest = _tokens(end)[1:]  # after "else"
            if (
                rest
                and rest[0].kind == "ident"
                and rest[0].text in ("if", "with")
                and kind
                in (
                    "if",
                    "with",
                )
            ):
                # {{else if x}} is {{else}}{{if x}}...{{end}}, sharing this {{end}}
                self.pos -= 1
                self.pieces[self.pos] = ("action", " ".join(t.text for t in rest))
                otherwise = (self._chained(depth + 1, loop=loop),)
            elif rest:
                raise TemplateError(f"unexpected {{{{{end}}}}}")
            else:
                otherwise, final = self._list(depth + 1, loop=loop)
                if final != "end":
                    raise TemplateError(f"expected {{{{end}}}} after {{{{else}}}} of {kind}")
        return _Branch(kind, pipeline, body, otherwise)

    def _chained(self, depth: int, *, loop: bool) -> _Branch:
        _, text = self.pieces[self.pos]
        self.pos += 1
        tokens = _tokens(text)
        return self._branch(tokens[0].text, tokens[1:], depth, loop=loop)


def _pipeline(
    tokens: list[_Token], depth: int, *, declarations: bool, range_vars: bool = False
) -> _Pipeline:
    if depth > MAX_DEPTH:
        raise TemplateError(f"the template nests more than {MAX_DEPTH} actions deep")
    declare: tuple[str, ...] = ()
    assign = False
    if declarations and tokens and tokens[0].kind == "variable":
        names = [tokens[0].text]
        rest = tokens[1:]
        if range_vars and len(rest) >= 2 and rest[0].text == "," and rest[1].kind == "variable":
            names.append(rest[1].text)
            rest = rest[2:]
        if rest and rest[0].kind in ("declare", "assign"):
            declare, assign, tokens = tuple(names), rest[0].kind == "assign", rest[1:]
    commands: list[tuple[_Operand, ...]] = []
    current: list[_Operand] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.text == "|":
            if not current:
                raise TemplateError("missing command before |")
            commands.append(tuple(current))
            current = []
            i += 1
            continue
        if token.text == "(":
            close, level = i + 1, 1
            while close < len(tokens) and level:
                level += {"(": 1, ")": -1}.get(tokens[close].text, 0)
                close += 1
            if level:
                raise TemplateError("unclosed left paren")
            inner = _pipeline(tokens[i + 1 : close - 1], depth + 1, declarations=False)
            chain: tuple[str, ...] = ()
            if close < len(tokens) and tokens[close].kind == "field" and tokens[close].text != ".":
                chain = tuple(tokens[close].text.split(".")[1:])
                close += 1
            current.append(_Sub(inner, chain))
            i = close
            continue
        current.append(_operand(token))
        i += 1
    if current:
        commands.append(tuple(current))
    if not commands:
        raise TemplateError("missing value for command")
    return _Pipeline(declare, assign, tuple(commands))


def _operand(token: _Token) -> _Operand:
    kind, text = token.kind, token.text
    if kind == "field":
        return _Field(() if text == "." else tuple(text.split(".")[1:]))
    if kind == "variable":
        name, *chain = text.split(".")
        return _Variable(name, tuple(chain))
    if kind == "string":
        return _Literal(_unquote(text))
    if kind == "raw":
        return _Literal(text[1:-1])
    if kind == "char":
        value = _unquote('"' + text[1:-1].replace('"', '\\"') + '"')
        if len(value) != 1:
            raise TemplateError(f"malformed character constant: {text}")
        return _Literal(ord(value))
    if kind == "number":
        clean = text.replace("_", "")
        try:
            if clean.lower().lstrip("+-").startswith("0x"):
                return _Literal(int(clean, 16))
            if re.fullmatch(r"[+-]?\d+", clean):
                return _Literal(int(clean))
            return _Literal(float(clean))
        except ValueError:
            raise TemplateError(f"bad number syntax: {text!r}") from None
    if kind == "ident":
        if text in ("true", "false"):
            return _Literal(text == "true")
        if text == "nil":
            return _Literal(None)
        if text not in _FUNCTIONS_NAMES:
            raise TemplateError(f'function "{text}" not defined')
        return _Function(text)
    raise TemplateError(f"unexpected {text!r} in command")


# --- running --------------------------------------------------------------------------


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _truth(value: Any) -> bool:
    if value is NO_VALUE or value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str | list | tuple | Mapping):
        return len(value) > 0
    return True


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "other"


def _compare(name: str, left: Any, right: Any) -> int:
    """-1, 0 or 1 as Go's template comparisons order two basic values (a float from
    the JSON and an integer written in the template do not compare, as in Go)."""
    missing = (left is NO_VALUE or left is None, right is NO_VALUE or right is None)
    if any(missing):
        if name in ("eq", "ne"):
            return 0 if all(missing) else 1
        raise TemplateError(f"{name}: invalid type for comparison")
    kinds = (_kind(left), _kind(right))
    if kinds[0] != kinds[1] or kinds[0] == "other":
        if name in ("eq", "ne") and kinds[0] == kinds[1] == "other":
            raise TemplateError(f"{name}: non-comparable types")
        raise TemplateError(f"{name}: incompatible types for comparison")
    if kinds[0] == "bool" and name not in ("eq", "ne"):
        raise TemplateError(f"{name}: invalid type for comparison")
    order: int = (left > right) - (left < right)
    return order


def _index(item: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(item, Mapping):
            if not isinstance(key, str):
                raise TemplateError(f"index: value has type {_kind(key)}; should be string")
            item = item.get(key, NO_VALUE)
        elif isinstance(item, list | str):
            if not isinstance(key, int) or isinstance(key, bool):
                raise TemplateError("index: cannot index slice/array with a non-integer")
            if not 0 <= key < len(item):
                raise TemplateError(f"index: index out of range: {key}")
            item = item[key] if isinstance(item, list) else ord(item[key])
        elif item is None or item is NO_VALUE:
            raise TemplateError("index of untyped nil")
        else:
            raise TemplateError(f"can't index item of type {_kind(item)}")
    return item


def _exists(item: Any, *keys: Any) -> bool:
    """kubectl's ``exists``: whether indexing ``item`` by ``keys`` finds something."""
    for key in keys:
        in_map = isinstance(item, Mapping) and isinstance(key, str) and key in item
        in_list = isinstance(item, list) and isinstance(key, int) and 0 <= key < len(item)
        if not (in_map or in_list):
            return False
        item = item[key]
    return True


def _base64decode(value: Any) -> str:
    if not isinstance(value, str):
        raise TemplateError("base64decode: the value is not a string")
    try:
        return base64.b64decode(value, validate=True).decode("utf-8", "replace")
    except (ValueError, TypeError) as err:
        raise TemplateError(f"base64decode: {err}") from None


_VERB = re.compile(r"%([-+# 0]*)(\d+)?(?:\.(\d+)?)?([a-zA-Z%])")


def _printf(form: Any, *args: Any) -> str:
    """Go's Sprintf for the verbs templates use: %s %v %d %q %f %e %g %t %x %X %c %%."""
    if not isinstance(form, str):
        raise TemplateError("printf: the format is not a string")
    out: list[str] = []
    pos, used = 0, 0
    for match in _VERB.finditer(form):
        out.append(form[pos : match.start()])
        pos = match.end()
        flags, width, precision, verb = match.groups()
        if verb == "%":
            out.append("%")
            continue
        if used >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        arg = args[used]
        used += 1
        spec = (
            "%" + (flags or "") + (width or "") + (f".{precision}" if precision is not None else "")
        )
        if verb == "v" or (verb == "s" and (isinstance(arg, str | list | Mapping))):
            out.append((spec + "s") % go_value_text(arg))
        elif verb == "q" and isinstance(arg, str):
            out.append((spec + "s") % json.dumps(arg, ensure_ascii=False))
        elif verb == "t" and isinstance(arg, bool):
            out.append((spec + "s") % ("true" if arg else "false"))
        elif verb in "dxXoc" and isinstance(arg, int) and not isinstance(arg, bool):
            out.append((spec + verb) % arg)
        elif verb in "feEgG" and isinstance(arg, int | float) and not isinstance(arg, bool):
            out.append((spec + verb) % float(arg))
        else:
            out.append(f"%!{verb}({_go_type(arg)}={go_value_text(arg)})")
    out.append(form[pos:])
    if used < len(args):
        extra = ", ".join(f"{_go_type(a)}={go_value_text(a)}" for a in args[used:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def _go_type(value: Any) -> str:
    return {
        "bool": "bool",
        "int": "int",
        "float": "float64",
        "string": "string",
    }.get(
        _kind(value), "map[string]interface {}" if isinstance(value, Mapping) else "[]interface {}"
    )


def _sprint(*args: Any) -> str:
    """Go's Sprint: a space between two operands when neither is a string."""
    out: list[str] = []
    for i, arg in enumerate(args):
        if i and not isinstance(arg, str) and not isinstance(args[i - 1], str):
            out.append(" ")
        out.append(go_value_text(arg))
    return "".join(out)


def _length(value: Any) -> int:
    if isinstance(value, str | list | Mapping):
        return len(value)
    raise TemplateError(f"len of type {_go_type(value)}")


def _slice(item: Any, *indexes: Any) -> Any:
    if not isinstance(item, str | list):
        raise TemplateError(f"can't slice item of type {_go_type(item)}")
    if len(indexes) > 2 or not all(isinstance(i, int) for i in indexes):
        raise TemplateError("slice: indexes must be at most two integers here")
    start = indexes[0] if indexes else 0
    end = indexes[1] if len(indexes) > 1 else len(item)
    if not 0 <= start <= end <= len(item):
        raise TemplateError(f"slice: index out of range: {start}:{end}")
    return item[start:end]


_PLAIN: dict[str, Callable[..., Any]] = {
    "not": lambda value: not _truth(value),
    "len": _length,
    "index": _index,
    "slice": _slice,
    "print": _sprint,
    "printf": _printf,
    "println": lambda *args: " ".join(go_value_text(a) for a in args) + "\n",
    "html": lambda *args: (
        html.escape(_sprint(*args)).replace("&#x27;", "&#39;").replace("&quot;", "&#34;")
    ),
    "urlquery": lambda *args: urllib.parse.quote_plus(_sprint(*args)),
    "exists": _exists,
    "base64decode": _base64decode,
}


@dataclass
class _Run:
    root: Any
    out: list[str] = field(default_factory=list)
    steps: int = 0
    size: int = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TemplateError(f"the template takes more than {MAX_STEPS:,} steps")

    def emit(self, text: str) -> None:
        self.size += len(text)
        if self.size > MAX_OUTPUT:
            raise TemplateError(f"the template prints more than {MAX_OUTPUT:,} characters")
        self.out.append(text)

    def walk(self, nodes: Sequence[_Node], dot: Any, scope: list[dict[str, Any]]) -> None:
        for node in nodes:
            self.step()
            if isinstance(node, _Text):
                self.emit(node.text)
            elif isinstance(node, _Action):
                value = self.pipeline(node.pipeline, dot, scope)
                if not node.pipeline.declare:
                    self.emit(_print_text(value))
            elif isinstance(node, _Loop):
                raise _Break() if node.kind == "break" else _Continue()
            else:
                self.branch(node, dot, scope)

    def branch(self, node: _Branch, dot: Any, scope: list[dict[str, Any]]) -> None:
        inner = [*scope, {}]
        if node.kind == "range":
            self.range(node, dot, inner)
            return
        value = self.pipeline(node.pipeline, dot, inner, range_vars=False)
        if _truth(value):
            self.walk(node.body, value if node.kind == "with" else dot, inner)
        else:
            self.walk(node.otherwise, dot, inner)

    def range(self, node: _Branch, dot: Any, scope: list[dict[str, Any]]) -> None:
        pipeline = node.pipeline
        value = self.pipeline(_Pipeline((), False, pipeline.commands), dot, scope, range_vars=False)
        if isinstance(value, Mapping):
            items: list[tuple[Any, Any]] = [(k, value[k]) for k in sorted(value)]
        elif isinstance(value, list):
            items = list(enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            items = [(i, i) for i in range(max(value, 0))]
        elif value is NO_VALUE or value is None:
            items = []
        else:
            raise TemplateError(f"range can't iterate over {go_value_text(value)}")
        if not items:
            self.walk(node.otherwise, dot, scope)
            return
        for key, item in items:
            names = pipeline.declare
            frame = scope[-1]
            if len(names) == 1:
                frame[names[0]] = item
            elif len(names) == 2:
                frame[names[0]], frame[names[1]] = key, item
            try:
                self.walk(node.body, item, [*scope, {}])
            except _Break:
                break
            except _Continue:
                continue

    def pipeline(
        self,
        pipeline: _Pipeline,
        dot: Any,
        scope: list[dict[str, Any]],
        *,
        range_vars: bool = False,
    ) -> Any:
        value: Any = NO_VALUE
        for i, command in enumerate(pipeline.commands):
            value = self.command(command, dot, scope, piped=value if i else None, has_piped=i > 0)
        if pipeline.declare:
            if pipeline.assign:
                name = pipeline.declare[0]
                for frame in reversed(scope):
                    if name in frame:
                        frame[name] = value
                        break
                else:
                    raise TemplateError(f"undefined variable: {name}")
            else:
                scope[-1][pipeline.declare[0]] = value
        return value

    def command(
        self,
        command: tuple[_Operand, ...],
        dot: Any,
        scope: list[dict[str, Any]],
        *,
        piped: Any,
        has_piped: bool,
    ) -> Any:
        self.step()
        head, args = command[0], command[1:]
        if isinstance(head, _Function):
            return self.call(head.name, args, dot, scope, piped, has_piped)
        if args or has_piped:
            raise TemplateError("can't give argument to non-function")
        return self.operand(head, dot, scope)

    def call(
        self,
        name: str,
        args: Sequence[_Operand],
        dot: Any,
        scope: list[dict[str, Any]],
        piped: Any,
        has_piped: bool,
    ) -> Any:
        def operands() -> Iterator[Any]:
            for arg in args:
                yield self.operand(arg, dot, scope)
            if has_piped:
                yield piped

        if name in ("and", "or"):  # short-circuit: the first false (true) value decides
            if not args and not has_piped:
                raise TemplateError(f"wrong number of args for {name}: want at least 1 got 0")
            result: Any = NO_VALUE
            for result in operands():
                if _truth(result) is (name == "or"):
                    return result
            return result
        found = list(operands())
        if name in ("eq", "ne", "lt", "le", "gt", "ge"):
            if len(found) < 2 or (name != "eq" and len(found) != 2):
                raise TemplateError(f"wrong number of args for {name}")
            if name == "eq":
                return any(_compare("eq", found[0], other) == 0 for other in found[1:])
            order = _compare(name, found[0], found[1])
            return {
                "ne": order != 0,
                "lt": order < 0,
                "le": order <= 0,
                "gt": order > 0,
                "ge": order >= 0,
            }[name]
        if name in ("not", "len") and len(found) != 1:
            raise TemplateError(f"wrong number of args for {name}: want 1 got {len(found)}")
        if name in ("index", "slice", "exists") and not found:
            raise TemplateError(f"wrong number of args for {name}: want at least 1 got 0")
        if name not in ("index", "exists", "not"):
            # A missing value passed to a function is Go's nil (printed <nil>).
            found = [None if v is NO_VALUE else v for v in found]
        return _PLAIN[name](*found)

    def operand(self, operand: _Operand, dot: Any, scope: list[dict[str, Any]]) -> Any:
        if isinstance(operand, _Literal):
            return operand.value
        if isinstance(operand, _Field):
            return _fields(dot, operand.chain)
        if isinstance(operand, _Variable):
            if operand.name == "$":
                return _fields(self.root, operand.chain)
            for frame in reversed(scope):
                if operand.name in frame:
                    return _fields(frame[operand.name], operand.chain)
            raise TemplateError(f"undefined variable: {operand.name}")
        if isinstance(operand, _Sub):
            return _fields(self.pipeline(operand.pipeline, dot, scope), operand.chain)
        return self.call(operand.name, (), dot, scope, None, has_piped=False)


def _fields(value: Any, chain: Sequence[str]) -> Any:
    for name in chain:
        if value is NO_VALUE:
            return NO_VALUE  # missingkey=default: a missing key prints <no value>
        if value is None:
            raise TemplateError(f"nil pointer evaluating interface {{}}.{name}")
        if not isinstance(value, Mapping):
            raise TemplateError(f"can't evaluate field {name} in type {_go_type(value)}")
        value = value.get(name, NO_VALUE)
    return value


@dataclass(frozen=True)
class GoTemplate:
    """A parsed template; :meth:`render` runs it over a document."""

    source: str
    nodes: tuple[_Node, ...]

    @classmethod
    def parse(cls, text: str) -> GoTemplate:
        if len(text) > MAX_TEMPLATE:
            raise TemplateError(f"the template is longer than {MAX_TEMPLATE:,} characters")
        return cls(text, _Parser(text).parse())

    def render(self, document: Any) -> str:
        """The text the template prints over ``document`` (JSON data)."""
        run = _Run(document)
        try:
            run.walk(self.nodes, document, [{"$": document}])
        except (_Break, _Continue):  # the parser allows them only inside range
            raise TemplateError("break or continue outside range") from None
        return "".join(run.out)
