"""KubeVela defkit cluster placement: conditions, specs, evaluation and validation.

>>> from clusterplace.defkit.placement import All, Any, Label, Not, PlacementConstraints, evaluate
>>> spec = PlacementConstraints(run_on=[Label("provider").in_("aws", "gcp")],
...                             not_run_on=[Label("cluster-type").eq("vcluster")])
>>> evaluate(spec, {"provider": "aws"}).reason
'runOn conditions satisfied: provider in (aws, gcp)'
"""

from clusterplace.defkit.placement.cluster_identity import (
    CLUSTER_IDENTITY_CONFIGMAP,
    CLUSTER_IDENTITY_NAMESPACE,
    ConfigMapSource,
    cluster_labels_exist,
    format_cluster_labels,
    get_cluster_labels,
)
from clusterplace.defkit.placement.conditions import (
    OPERATORS,
    All,
    AllCondition,
    Any,
    AnyCondition,
    ClusterCondition,
    Eq,
    Exists,
    In,
    Label,
    LabelCondition,
    Ne,
    Not,
    NotCondition,
    NotExists,
    NotIn,
)
from clusterplace.defkit.placement.satisfiability import find_labels
from clusterplace.defkit.placement.spec import (
    Eligibility,
    PlacementConstraints,
    evaluate,
    get_effective_placement,
)
from clusterplace.defkit.placement.validate import ValidationError, validate_placement

__all__ = [
    "CLUSTER_IDENTITY_CONFIGMAP",
    "CLUSTER_IDENTITY_NAMESPACE",
    "OPERATORS",
    "All",
    "AllCondition",
    "Any",
    "AnyCondition",
    "ClusterCondition",
    "ConfigMapSource",
    "Eligibility",
    "Eq",
    "Exists",
    "In",
    "Label",
    "LabelCondition",
    "Ne",
    "Not",
    "NotCondition",
    "NotExists",
    "NotIn",
    "PlacementConstraints",
    "ValidationError",
    "cluster_labels_exist",
    "evaluate",
    "find_labels",
    "format_cluster_labels",
    "get_cluster_labels",
    "get_effective_placement",
    "validate_placement",
]
