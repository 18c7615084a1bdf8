"""DefinitionModule (core.oam.dev/v1beta1): a KubeVela module.yaml."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field, field_validator, model_validator

from clusterplace.api.base import KubeModel, KubeObject
from clusterplace.durations import DurationError, parse_go_duration
from clusterplace.labels.validation import label_key_errors

__all__ = ["DefinitionModule", "ModulePlacement", "PlacementCondition"]

VALID_OPERATORS = ("Eq", "Ne", "In", "NotIn", "Exists", "NotExists")
_NEEDS_VALUES = frozenset({"Eq", "Ne", "In", "NotIn"})
MAX_HOOK_TIMEOUT = 24 * 3600.0  # seconds


class _Lenient(KubeModel):
    # Upstream ignores unknown module.yaml keys silently; a typo (`preApply:`, `hook:`)
    # then switches a hook or a condition off without a word. Refused here, as every
    # other kind's unknown fields are, with a did-you-mean (see docs/semantics.md).
    model_config = ConfigDict(extra="forbid")


class PlacementCondition(_Lenient):
    """A flat module-level condition: ``{key, operator, values}``."""

    key: str
    operator: str
    values: list[str] | None = None

    @field_validator("key")
    @classmethod
    def _valid_key(cls, key: str) -> str:
        reasons = label_key_errors(key)
        if reasons:
            raise ValueError(f"invalid label key {_quote(key)}: {'; '.join(reasons)}")
        return key

    @model_validator(mode="after")
    def _check(self) -> PlacementCondition:
        # Upstream accepts these silently and the condition never matches; we refuse
        # them at load (docs/defkit.md), with upstream validate-module's wording.
        if self.operator not in VALID_OPERATORS:
            raise ValueError(
                f"invalid operator {_quote(self.operator)} (key={_quote(self.key)}); "
                f"valid operators: {', '.join(VALID_OPERATORS)}"
            )
        if self.operator in _NEEDS_VALUES and not self.values:
            raise ValueError(
                f"operator {self.operator} (key={_quote(self.key)}) requires at least one value"
            )
        return self


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ModulePlacement(_Lenient):
    run_on: list[PlacementCondition] | None = None
    not_run_on: list[PlacementCondition] | None = None


class Maintainer(_Lenient):
    name: str | None = None
    email: str | None = None


class Dependency(_Lenient):
    module: str | None = None
    version: str | None = None


class Hook(_Lenient):
    path: str | None = None
    script: str | None = None
    wait: bool | None = None
    wait_for: str | None = None
    optional: bool | None = None
    timeout: str | None = None

    @field_validator("timeout")
    @classmethod
    def _valid_timeout(cls, text: str | None) -> str | None:
        if text is None:
            return None
        try:
            seconds = parse_go_duration(text)
        except DurationError as err:
            raise ValueError(f"{err}; use a Go duration such as 30s or 5m") from None
        if not 0 < seconds <= MAX_HOOK_TIMEOUT:
            raise ValueError(f"timeout {_quote(text)} must be more than 0 and at most 24h")
        return text

    @model_validator(mode="after")
    def _one_action(self) -> Hook:
        # A hook does one thing: with neither it would fail only when run, and with both
        # the script would be skipped without a word. Refused at load instead.
        if self.path is not None and self.script is not None:
            raise ValueError("a hook has a path or a script, not both")
        if self.path is None and self.script is None:
            raise ValueError("a hook needs a path (manifests) or a script (run with sh -c)")
        if not (self.path or self.script or "").strip():
            raise ValueError(f"a hook's {'path' if self.path is not None else 'script'} is empty")
        return self


class Hooks(_Lenient):
    pre_apply: list[Hook] | None = Field(default=None, alias="pre-apply")
    post_apply: list[Hook] | None = Field(default=None, alias="post-apply")


class DefinitionModuleSpec(_Lenient):
    description: str | None = None
    maintainers: list[Maintainer] | None = None
    min_vela_version: str | None = None
    min_defkit_version: str | None = None
    categories: list[str] | None = None
    dependencies: list[Dependency] | None = None
    exclude: list[str] | None = None
    name_overrides: dict[str, str] | None = None
    placement: ModulePlacement | None = None
    hooks: Hooks | None = None


class DefinitionModule(KubeObject):
    """A module of definitions with module-wide placement and hooks."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = ("core.oam.dev/v1beta1",)
    KIND: ClassVar[str] = "DefinitionModule"
    NAMESPACED: ClassVar[bool] = False

    spec: DefinitionModuleSpec = Field(default_factory=DefinitionModuleSpec)
