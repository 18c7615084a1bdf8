"""Definitions in Python: components, traits, policies and workflow steps.

``defkit.component("web").workload("apps/v1", "Deployment").params(...).template(fn)``
describes a KubeVela definition; ``run_on``/``not_run_on`` attach placement, which
decides whether apply-module installs it and never changes its CUE.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from clusterplace.api.naming import plural
from clusterplace.defkit import cue
from clusterplace.defkit.cue_reader import CueReadError, dedent, top_level_blocks
from clusterplace.defkit.params import Param
from clusterplace.defkit.placement import ClusterCondition, PlacementConstraints
from clusterplace.defkit.template import Template

__all__ = [
    "ComponentDefinition",
    "Definition",
    "PolicyDefinition",
    "TraitDefinition",
    "WorkflowStepDefinition",
    "component",
    "policy",
    "trait",
    "workflow_step",
]

DESCRIPTION_ANNOTATION = "definition.oam.dev/description"


def _template_body(text: str) -> str | None:
    """The body of the top-level ``template: {...}`` of a CUE definition, if it has one."""
    try:
        blocks = top_level_blocks(text)
    except CueReadError:
        return None
    body = next((b for label, b, _ in blocks if label == "template"), None)
    return dedent(body) if body is not None else None


class Definition:
    """Common to all definition types: name, description, placement, parameters, template."""

    TYPE: ClassVar[str] = ""
    KIND: ClassVar[str] = ""

    def __init__(self, name: str) -> None:
        self.name = name
        self._description = ""
        self._run_on: list[ClusterCondition] = []
        self._not_run_on: list[ClusterCondition] = []
        self._params: list[Param] = []
        self._template: Callable[[Template], Any] | None = None
        self._raw_cue: str | None = None
        self._raw_template: str | None = None

    def description(self, text: str) -> Any:
        self._description = text
        return self

    def run_on(self, *conditions: ClusterCondition) -> Any:
        """Conditions that must all hold; repeated calls add more (AND)."""
        self._run_on.extend(conditions)
        return self

    def not_run_on(self, *conditions: ClusterCondition) -> Any:
        """Conditions any of which excludes a cluster; repeated calls add more."""
        self._not_run_on.extend(conditions)
        return self

    def params(self, *params: Param) -> Any:
        self._params.extend(params)
        return self

    def template(self, fn: Callable[[Template], Any]) -> Any:
        """``fn(tpl)`` builds the rendered resources with ``tpl.output(...)``."""
        self._template = fn
        return self

    def raw_cue(self, text: str, template: str | None = None) -> Any:
        """Use this CUE text as the definition as is (as a ``.cue`` file would);
        ``template`` is the body of its ``template: {...}``, which a definition object
        stores (the whole text when not given)."""
        self._raw_cue = text
        if template is None:
            template = _template_body(text)
        self._raw_template = template
        return self

    @property
    def placement(self) -> PlacementConstraints:
        return PlacementConstraints(run_on=self._run_on, not_run_on=self._not_run_on)

    @property
    def description_text(self) -> str:
        return self._description

    # --- CUE --------------------------------------------------------------------------

    def attributes(self) -> cue.Struct | None:
        return None

    def header(self) -> cue.Struct:
        items: list[cue.Field | cue.If | cue.Comment] = [
            cue.Field("type", cue.literal(self.TYPE)),
            cue.Field("annotations", cue.Struct()),
            cue.Field("labels", cue.Struct()),
            cue.Field("description", cue.literal(self._description)),
        ]
        attributes = self.attributes()
        if attributes is not None:
            items.append(cue.Field("attributes", attributes))
        return cue.Struct(items)

    def template_struct(self) -> cue.Struct:
        tpl = Template()
        if self._template is not None:
            self._template(tpl)
        items: list[cue.Field | cue.If | cue.Comment] = []
        if tpl.output_resource is not None:
            items.append(cue.Field("output", tpl.output_resource.to_cue()))
        if tpl.named_outputs:
            items.append(
                cue.Field(
                    "outputs",
                    cue.Struct([cue.Field(n, r.to_cue()) for n, r in tpl.named_outputs.items()]),
                )
            )
        parameter: list[cue.Field | cue.If | cue.Comment] = []
        for param in self._params:
            parameter.extend(param.schema())
        items.append(cue.Field("parameter", cue.Struct(parameter)))
        return cue.Struct(items)

    def to_cue(self) -> str:
        """The definition as CUE, laid out as ``cue fmt`` would."""
        if self._raw_cue is not None:
            return self._raw_cue if self._raw_cue.endswith("\n") else self._raw_cue + "\n"
        return cue.render(
            [
                cue.Field(self.name, self.header(), quoted=True),
                cue.Field("template", self.template_struct()),
            ]
        )

    def template_cue(self) -> str:
        """The body of ``template: {...}``: what a definition object stores."""
        if self._raw_cue is not None:
            text = self._raw_template if self._raw_template is not None else self._raw_cue
            return text if text.endswith("\n") else text + "\n"
        return cue.render(self.template_struct().items)

    # --- Kubernetes object --------------------------------------------------------------

    def spec_extra(self) -> dict[str, Any]:
        return {}

    def to_manifest(self, namespace: str) -> dict[str, Any]:
        """The core.oam.dev/v1beta1 object apply-module creates."""
        metadata: dict[str, Any] = {"name": self.name, "namespace": namespace}
        if self._description:
            metadata["annotations"] = {DESCRIPTION_ANNOTATION: self._description}
        spec = {**self.spec_extra(), "schematic": {"cue": {"template": self.template_cue()}}}
        return {
            "apiVersion": "core.oam.dev/v1beta1",
            "kind": self.KIND,
            "metadata": metadata,
            "spec": spec,
        }


class ComponentDefinition(Definition):
    TYPE = "component"
    KIND = "ComponentDefinition"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._workload: tuple[str, str] | None = None

    def workload(self, api_version: str, kind: str) -> ComponentDefinition:
        self._workload = (api_version, kind)
        return self

    def _workload_type(self) -> str | None:
        if self._workload is None:
            return None
        api_version, kind = self._workload
        group = api_version.rpartition("/")[0]
        return f"{plural(kind)}.{group}" if group else plural(kind)

    def attributes(self) -> cue.Struct | None:
        if self._workload is None:
            return None
        api_version, kind = self._workload
        definition = cue.Struct(
            [
                cue.Field("apiVersion", cue.literal(api_version)),
                cue.Field("kind", cue.literal(kind)),
            ]
        )
        workload = cue.Struct(
            [
                cue.Field("definition", definition),
                cue.Field("type", cue.literal(self._workload_type() or "")),
            ]
        )
        return cue.Struct([cue.Field("workload", workload)])

    def spec_extra(self) -> dict[str, Any]:
        if self._workload is None:
            return {}
        api_version, kind = self._workload
        return {
            "workload": {
                "definition": {"apiVersion": api_version, "kind": kind},
                "type": self._workload_type(),
            }
        }


class TraitDefinition(Definition):
    TYPE = "trait"
    KIND = "TraitDefinition"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._applies_to: list[str] = []

    def applies_to(self, *workloads: str) -> TraitDefinition:
        self._applies_to.extend(workloads)
        return self

    def attributes(self) -> cue.Struct | None:
        if not self._applies_to:
            return None
        listing = cue.ListLit([cue.literal(w) for w in self._applies_to])
        return cue.Struct([cue.Field("appliesToWorkloads", listing)])

    def spec_extra(self) -> dict[str, Any]:
        return {"appliesToWorkloads": list(self._applies_to)} if self._applies_to else {}


class PolicyDefinition(Definition):
    TYPE = "policy"
    KIND = "PolicyDefinition"


class WorkflowStepDefinition(Definition):
    TYPE = "workflow-step"
    KIND = "WorkflowStepDefinition"


def component(name: str) -> ComponentDefinition:
    return ComponentDefinition(name)


def trait(name: str) -> TraitDefinition:
    return TraitDefinition(name)


def policy(name: str) -> PolicyDefinition:
    return PolicyDefinition(name)


def workflow_step(name: str) -> WorkflowStepDefinition:
    return WorkflowStepDefinition(name)
