"""One label-selector engine for every placement system clusterplace speaks.

Kubernetes semantics exactly (apimachinery ``labels``): the string syntax,
``metav1.LabelSelector``, key/value validation, and Gt/Lt as in node affinity.

>>> from clusterplace import labels
>>> s = labels.parse("env in (prod,staging),!deprecated,tier>2")
>>> str(s)
'!deprecated,env in (prod,staging),tier>2'
>>> s.matches({"env": "prod", "tier": "3"})
True
"""

from clusterplace.labels._errors import SelectorError
from clusterplace.labels.index import LabelIndex
from clusterplace.labels.label_selector import (
    LABEL_SELECTOR_OPERATORS,
    from_label_selector,
    from_requirements,
)
from clusterplace.labels.parser import parse, parse_requirements
from clusterplace.labels.requirement import Labels, Matcher, Operator, Requirement, compile_matcher
from clusterplace.labels.selector import Selector
from clusterplace.labels.validation import (
    is_label_key,
    is_label_value,
    label_key_errors,
    label_value_errors,
    parse_go_int64,
)

__all__ = [
    "LABEL_SELECTOR_OPERATORS",
    "LabelIndex",
    "Labels",
    "Matcher",
    "Operator",
    "Requirement",
    "Selector",
    "SelectorError",
    "compile_matcher",
    "from_label_selector",
    "from_requirements",
    "is_label_key",
    "is_label_value",
    "label_key_errors",
    "label_value_errors",
    "parse",
    "parse_go_int64",
    "parse_requirements",
]
