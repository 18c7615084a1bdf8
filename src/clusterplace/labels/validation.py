"""Label key and value rules, Go integer parsing, and Kubernetes field-error text.

Messages follow apimachinery's ``content.IsLabelKey`` / ``IsLabelValue`` and
``field.Error`` so that an invalid selector reads the same here as upstream.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = [
    "FieldError",
    "aggregate",
    "dns1035_label_errors",
    "dns1123_label_errors",
    "dns1123_subdomain_errors",
    "go_json_string",
    "go_quote",
    "is_label_key",
    "is_label_value",
    "label_key_errors",
    "label_value_errors",
    "parse_go_int64",
    "path_segment_errors",
]

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_NAME_MAX = 63
LABEL_VALUE_MAX = 63
PREFIX_MAX = 253

_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_VALUE_FMT = f"({_NAME_FMT})?"
_SUBDOMAIN_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
# ASCII-only classes: Go's regexp works on bytes here; never use \d or \w.
_NAME_RE = re.compile(_NAME_FMT)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_INT_RE = re.compile(r"[+-]?[0-9]+")
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1

_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
    "or '-', and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)


def _regex_error(msg: str, regex: str, *examples: str) -> str:
    if examples:
        quoted = ", ".join(f"'{e}'" for e in examples)
        return f"{msg} (e.g. {quoted}; regex: '{regex}')"
    return f"{msg} (regex: '{regex}')"


def _max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


def _byte_len(s: str) -> int:
    # Go measures strings in bytes.
    return len(s.encode("utf-8"))


def label_key_errors(key: str) -> list[str]:
    """Every reason ``key`` is not a valid label key (empty when it is valid)."""
    errs: list[str] = []
    prefix, slash, name = key.partition("/")
    if not slash:
        name = key
    elif "/" in name:
        return [
            "a valid label key "
            + _regex_error(_NAME_MSG, _NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    else:
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if _byte_len(prefix) > PREFIX_MAX:
                errs.append("prefix part " + _max_len_error(PREFIX_MAX))
            if not _SUBDOMAIN_RE.fullmatch(prefix):
                errs.append(
                    "prefix part " + _regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com")
                )
    if not name:
        errs.append("name part must be non-empty")
    elif _byte_len(name) > LABEL_NAME_MAX:
        errs.append("name part " + _max_len_error(LABEL_NAME_MAX))
    if not _NAME_RE.fullmatch(name):
        errs.append(
            "name part " + _regex_error(_NAME_MSG, _NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """Every reason ``value`` is not a valid label value (empty when it is valid)."""
    errs: list[str] = []
    if _byte_len(value) > LABEL_VALUE_MAX:
        errs.append(_max_len_error(LABEL_VALUE_MAX))
    if value and not _NAME_RE.fullmatch(value):
        errs.append(_regex_error(_VALUE_MSG, _VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _dns_errors(
    value: str, limit: int, regex: re.Pattern[str], msg: str, fmt: str, *examples: str
) -> list[str]:
    errs: list[str] = []
    if len(value) > limit:
        errs.append(_max_len_error(limit))
    if not regex.fullmatch(value):
        errs.append(_regex_error(msg, fmt, *examples))
    return errs


def dns1123_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain``: the rule for most object names (empty when valid)."""
    return _dns_errors(
        value, DNS1123_SUBDOMAIN_MAX, _SUBDOMAIN_RE, _SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"
    )


def dns1123_label_errors(value: str) -> list[str]:
    """``IsDNS1123Label``: namespaces and ManagedClusters (empty when valid)."""
    return _dns_errors(
        value,
        DNS1123_LABEL_MAX,
        _DNS1123_LABEL_RE,
        _DNS1123_LABEL_MSG,
        _DNS1123_LABEL_FMT,
        "my-name",
        "123-abc",
    )


def dns1035_label_errors(value: str) -> list[str]:
    """``IsDNS1035Label``: Service names (empty when valid)."""
    return _dns_errors(
        value,
        DNS1123_LABEL_MAX,
        _DNS1035_LABEL_RE,
        _DNS1035_LABEL_MSG,
        _DNS1035_LABEL_FMT,
        "my-name",
        "abc-123",
    )


def path_segment_errors(value: str) -> list[str]:
    """``ValidatePathSegmentName``: the least a name needs to be one URL path segment
    (RBAC names only need this); empty when valid."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in value]


def is_label_key(key: str) -> bool:
    """True when ``key`` is a qualified name: ``[prefix/]name`` as Kubernetes defines it."""
    return not label_key_errors(key)


def is_label_value(value: str) -> bool:
    """True when ``value`` is a valid label value (the empty string is valid)."""
    return not label_value_errors(value)


def parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: the integer, or None where Go fails.

    Python's ``int()`` is far more lenient (spaces, ``_``, non-ASCII digits).
    """
    if not _INT_RE.fullmatch(text):
        return None
    value = int(text)
    if value < _INT64_MIN or value > _INT64_MAX:
        return None
    return value


# --- Kubernetes field.Error text --------------------------------------------------------------


# Escapes both of Go's quotings use; each adds its own, and its rule for the rest.
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_QUOTE_ESCAPES = {**_ESCAPES, "\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"}


def _quote_other(ch: str) -> str:
    if ch.isprintable():
        return ch
    code = ord(ch)
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _json_other(ch: str) -> str:
    code = ord(ch)
    if code < 0x20 or ch in "<>&" or code in (0x2028, 0x2029):
        return f"\\u{code:04x}"
    return ch


def go_quote(s: str) -> str:
    """Go's ``strconv.Quote``: double quotes, Go escapes, printable Unicode kept."""
    return '"' + "".join(_QUOTE_ESCAPES.get(ch) or _quote_other(ch) for ch in s) + '"'


def go_json_string(s: str) -> str:
    """A string as Go's ``json.Marshal`` writes it (HTML-safe escapes included)."""
    return '"' + "".join(_ESCAPES.get(ch) or _json_other(ch) for ch in s) + '"'


class FieldError:
    """One ``field.Error``: a field path, an error type, the bad value and a detail."""

    __slots__ = ("bad_value", "detail", "field", "kind")

    def __init__(self, kind: str, field: str, bad_value: str, detail: str) -> None:
        self.kind = kind
        self.field = field
        self.bad_value = bad_value  # already rendered as Go would print it
        self.detail = detail

    @classmethod
    def invalid(cls, field: str, value: str | Sequence[str], detail: str) -> FieldError:
        if isinstance(value, str):
            rendered = go_quote(value)
        else:
            # Non-string bad values are rendered with json.Marshal upstream.
            rendered = "[" + ",".join(go_json_string(v) for v in value) + "]"
        return cls("Invalid value", field, rendered, detail)

    @classmethod
    def not_supported(cls, field: str, value: str, supported: Iterable[str]) -> FieldError:
        detail = "supported values: " + ", ".join(go_quote(v) for v in supported)
        # The operator is a named string type upstream, so it goes through json.Marshal.
        return cls("Unsupported value", field, go_json_string(value), detail)

    def __str__(self) -> str:
        body = f"{self.kind}: {self.bad_value}"
        if self.detail:
            body += f": {self.detail}"
        return f"{self.field}: {body}"


def aggregate(errors: Sequence[FieldError]) -> str:
    """Render a list of field errors as ``utilerrors.Aggregate`` does (deduplicated)."""
    msgs: list[str] = []
    for err in errors:
        msg = str(err)
        if msg not in msgs:
            msgs.append(msg)
    if len(msgs) == 1:
        return msgs[0]
    return "[" + ", ".join(msgs) + "]"
