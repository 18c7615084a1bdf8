"""Write KubeVela definitions in Python, with cluster placement, and render them to CUE.

>>> from clusterplace import defkit
>>> from clusterplace.defkit.placement import Label
>>> web = (defkit.component("web").workload("apps/v1", "Deployment")
...        .run_on(Label("provider").eq("aws")).params(defkit.string_param("image")))
"""

from clusterplace.defkit.definitions import (
    ComponentDefinition,
    Definition,
    PolicyDefinition,
    TraitDefinition,
    WorkflowStepDefinition,
    component,
    policy,
    trait,
    workflow_step,
)
from clusterplace.defkit.params import (
    Param,
    ParamError,
    bool_param,
    enum_param,
    float_param,
    int_param,
    list_param,
    map_param,
    string_param,
)
from clusterplace.defkit.registry import DefinitionError, register
from clusterplace.defkit.template import Resource, Template, resource, vela_context

__all__ = [
    "ComponentDefinition",
    "Definition",
    "DefinitionError",
    "Param",
    "ParamError",
    "PolicyDefinition",
    "Resource",
    "Template",
    "TraitDefinition",
    "WorkflowStepDefinition",
    "bool_param",
    "component",
    "enum_param",
    "float_param",
    "int_param",
    "list_param",
    "map_param",
    "policy",
    "register",
    "resource",
    "string_param",
    "trait",
    "vela_context",
    "workflow_step",
]
