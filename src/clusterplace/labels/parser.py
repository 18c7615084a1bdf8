"""The label-selector string syntax: ``a=b,c!=d,e in (x,y),!f,g>3``.

A port of apimachinery's lexer and recursive-descent parser: same tokens, same
keyword rules (``in``/``notin`` are keywords only in operator position), same
error messages. Errors also carry the offset of the token where parsing failed.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from clusterplace.labels._errors import SelectorError
from clusterplace.labels.requirement import Operator, Requirement
from clusterplace.labels.selector import Selector
from clusterplace.labels.validation import FieldError, label_key_errors

__all__ = ["parse", "parse_requirements"]


class _Tok(IntEnum):
    END = 1
    CLOSE_PAREN = 2
    COMMA = 3
    NOT = 4
    DOUBLE_EQUALS = 5
    EQUALS = 6
    GREATER = 7
    IDENTIFIER = 8
    IN = 9
    LESS = 10
    NOT_EQUALS = 11
    NOT_IN = 12
    OPEN_PAREN = 13


_SYMBOLS = {
    ")": _Tok.CLOSE_PAREN,
    ",": _Tok.COMMA,
    "!": _Tok.NOT,
    "==": _Tok.DOUBLE_EQUALS,
    "=": _Tok.EQUALS,
    ">": _Tok.GREATER,
    "<": _Tok.LESS,
    "!=": _Tok.NOT_EQUALS,
    "(": _Tok.OPEN_PAREN,
}
_KEYWORDS = {"in": _Tok.IN, "notin": _Tok.NOT_IN}
_SPECIAL = frozenset("=!(),><")
_SPACE = frozenset(" \t\r\n")
_BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt"
_OPERATOR_OF = {
    _Tok.IN: Operator.IN,
    _Tok.NOT_IN: Operator.NOT_IN,
    _Tok.EQUALS: Operator.EQUALS,
    _Tok.DOUBLE_EQUALS: Operator.DOUBLE_EQUALS,
    _Tok.NOT_EQUALS: Operator.NOT_EQUALS,
    _Tok.GREATER: Operator.GREATER_THAN,
    _Tok.LESS: Operator.LESS_THAN,
}


class _Item(NamedTuple):
    tok: _Tok
    literal: str
    pos: int


def _scan(text: str) -> list[_Item]:
    # Upstream reads byte 0 as "end of input", so a NUL ends the selector there too.
    end = text.find("\0")
    n = len(text) if end < 0 else end
    items: list[_Item] = []
    i = 0
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            items.append(_Item(_Tok.END, "", i))
            return items
        start = i
        if text[i] in _SPECIAL:
            # Longest match over the symbol table ("!=" and "==" before "!" and "=").
            two = text[i : i + 2]
            if len(two) == 2 and two in _SYMBOLS:
                items.append(_Item(_SYMBOLS[two], two, start))
                i += 2
            else:
                items.append(_Item(_SYMBOLS[text[i]], text[i], start))
                i += 1
            continue
        while i < n and text[i] not in _SPECIAL and text[i] not in _SPACE:
            i += 1
        word = text[start:i]
        items.append(_Item(_KEYWORDS.get(word, _Tok.IDENTIFIER), word, start))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.items = _scan(text)
        self.position = 0

    # In value context the keywords are plain identifiers.
    def _peek(self, values: bool = True) -> _Item:
        item = self.items[self.position]
        if values and item.tok in (_Tok.IN, _Tok.NOT_IN):
            return item._replace(tok=_Tok.IDENTIFIER)
        return item

    def _next(self, values: bool = True) -> _Item:
        item = self._peek(values)
        self.position += 1
        return item

    def _fail(self, message: str, at: _Item) -> SelectorError:
        return SelectorError(message, text=self.text, position=at.pos)

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            item = self._peek()
            if item.tok in (_Tok.IDENTIFIER, _Tok.NOT):
                try:
                    requirements.append(self._requirement())
                except SelectorError as err:
                    raise SelectorError(
                        f"unable to parse requirement: {err.message}",
                        text=self.text,
                        position=err.position if err.position is not None else item.pos,
                    ) from None
                after = self._next()
                if after.tok == _Tok.END:
                    return requirements
                if after.tok == _Tok.COMMA:
                    following = self._peek()
                    if following.tok not in (_Tok.IDENTIFIER, _Tok.NOT):
                        raise self._fail(
                            f"found '{following.literal}', expected: identifier after ','",
                            following,
                        )
                else:
                    raise self._fail(
                        f"found '{after.literal}', expected: ',' or 'end of string'", after
                    )
            elif item.tok == _Tok.END:
                return requirements
            else:
                raise self._fail(
                    f"found '{item.literal}', expected: !, identifier, or 'end of string'", item
                )

    def _requirement(self) -> Requirement:
        start = self._peek()
        key, operator = self._key_and_inferred_operator()
        if operator is not None:
            return self._new(key, operator, [], start)
        op_item = self._next(values=False)
        op = _OPERATOR_OF.get(op_item.tok)
        if op is None:
            raise self._fail(f"found '{op_item.literal}', expected: {_BINARY_OPERATORS}", op_item)
        value_start = self._peek()  # a bad value is reported where the values begin
        values = self._set_values() if op in (Operator.IN, Operator.NOT_IN) else self._exact()
        return self._new(key, op, sorted(values), value_start)

    def _new(self, key: str, op: Operator, values: list[str], at: _Item) -> Requirement:
        try:
            return Requirement(key, op, values)
        except SelectorError as err:
            raise self._fail(err.message, at) from None

    def _key_and_inferred_operator(self) -> tuple[str, Operator | None]:
        operator: Operator | None = None
        item = self._next()
        if item.tok == _Tok.NOT:
            operator = Operator.DOES_NOT_EXIST
            item = self._next()
        if item.tok != _Tok.IDENTIFIER:
            raise self._fail(f"found '{item.literal}', expected: identifier", item)
        errs = label_key_errors(item.literal)
        if errs:
            # Upstream validates with an empty field path, hence the leading ": ".
            raise self._fail(str(FieldError.invalid("", item.literal, "; ".join(errs))), item)
        if self._peek().tok in (_Tok.END, _Tok.COMMA) and operator is None:
            operator = Operator.EXISTS
        return item.literal, operator

    def _set_values(self) -> set[str]:
        item = self._next()
        if item.tok != _Tok.OPEN_PAREN:
            raise self._fail(f"found '{item.literal}' expected: '('", item)
        ahead = self._peek()
        if ahead.tok in (_Tok.IDENTIFIER, _Tok.COMMA):
            values = self._identifier_list()
            closing = self._next()
            if closing.tok != _Tok.CLOSE_PAREN:
                # Upstream reports the literal seen before the list, not the bad token.
                raise self._fail(f"found '{ahead.literal}', expected: ')'", closing)
            return values
        if ahead.tok == _Tok.CLOSE_PAREN:
            self._next()
            return {""}
        raise self._fail(f"found '{ahead.literal}', expected: ',', ')' or identifier", ahead)

    def _identifier_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            item = self._next()
            if item.tok == _Tok.IDENTIFIER:
                values.add(item.literal)
                ahead = self._peek()
                if ahead.tok == _Tok.COMMA:
                    continue
                if ahead.tok == _Tok.CLOSE_PAREN:
                    return values
                raise self._fail(f"found '{ahead.literal}', expected: ',' or ')'", ahead)
            if item.tok == _Tok.COMMA:
                if not values:
                    values.add("")  # "(,"
                ahead = self._peek()
                if ahead.tok == _Tok.CLOSE_PAREN:
                    values.add("")  # ",)"
                    return values
                if ahead.tok == _Tok.COMMA:
                    values.add("")  # ",,": the next comma is read by the next round
            else:
                raise self._fail(f"found '{item.literal}', expected: ',', or identifier", item)

    def _exact(self) -> set[str]:
        ahead = self._peek()
        if ahead.tok in (_Tok.END, _Tok.COMMA):
            return {""}
        item = self._next()
        if item.tok == _Tok.IDENTIFIER:
            return {item.literal}
        raise self._fail(f"found '{item.literal}', expected: identifier", item)


def parse_requirements(text: str) -> list[Requirement]:
    """The requirements of ``text`` in the order written (upstream ``ParseToRequirements``
    returns them sorted; :func:`parse` sorts)."""
    return _Parser(text).parse()


def parse(text: str) -> Selector:
    """Parse the label-selector string syntax into a :class:`Selector`.

    ``""`` is the empty selector (matches everything). Raises
    :class:`SelectorError` with upstream's message and the failing offset.
    """
    return Selector(parse_requirements(text))
