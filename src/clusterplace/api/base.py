"""Shared pieces of every typed Kubernetes object: model config, metadata, time, conditions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StringConstraints,
)
from pydantic.alias_generators import to_camel

from clusterplace.quantity import Quantity, QuantityError, parse_quantity

__all__ = [
    "EARLIEST_TIME",
    "LATEST_TIME",
    "Condition",
    "Int32",
    "Int64",
    "KubeModel",
    "KubeObject",
    "ObjectMeta",
    "OwnerReference",
    "QuantityValue",
    "StatusModel",
    "Time",
    "format_time",
    "parse_time",
    "set_condition",
]

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|z|[+-]\d{2}:\d{2})"
)


def parse_time(value: object) -> datetime:
    """An RFC 3339 timestamp (``metav1.Time``) as an aware UTC datetime, from
    :data:`EARLIEST_TIME` to :data:`LATEST_TIME` once in UTC (ValueError otherwise)."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        try:
            return _in_range(aware.astimezone(UTC), value)
        except OverflowError:
            raise ValueError(_out_of_range(value)) from None
    if not isinstance(value, str):
        raise ValueError("must be an RFC 3339 timestamp string, e.g. 2026-01-02T15:04:05Z")
    m = _RFC3339.fullmatch(value.strip())
    if not m:
        raise ValueError(f"{value!r} is not an RFC 3339 timestamp (e.g. 2026-01-02T15:04:05Z)")
    text = value.strip().replace("z", "Z").replace("t", "T").replace(" ", "T")
    frac = m.group(7)
    if frac and len(frac) > 7:  # Python parses at most microseconds
        text = text.replace(frac, frac[:7])
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except (OverflowError, ValueError):
        raise ValueError(_out_of_range(value)) from None
    return _in_range(moment, value)


# The times clusterplace reads: Python's range less a day at each end, so that adding
# a toleration's seconds, the 60 s of an unschedulable pod or a requeue delay to any
# time read can never leave the range.
EARLIEST_TIME = datetime(1, 1, 2, tzinfo=UTC)
LATEST_TIME = datetime(9999, 12, 30, 23, 59, 59, tzinfo=UTC)


def _out_of_range(value: object) -> str:
    shown = value if isinstance(value, str) else str(value)
    return (
        f"{shown[:80]!r} is out of range: in UTC a time must lie from "
        f"{format_time(EARLIEST_TIME)} to {format_time(LATEST_TIME)}"
    )


def _in_range(moment: datetime, value: object) -> datetime:
    if not EARLIEST_TIME <= moment <= LATEST_TIME + timedelta(seconds=1) - timedelta.resolution:
        raise ValueError(_out_of_range(value))
    return moment


def format_time(value: datetime) -> str:
    """``metav1.Time`` text: second precision, UTC, ``Z``."""
    moment = value.astimezone(UTC)
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%SZ")  # %Y: no zeros


Time = Annotated[datetime, BeforeValidator(parse_time), PlainSerializer(format_time)]


# Quantities are immutable, and a fleet repeats the same few texts ("8", "16Gi") many times.
_parse_quantity = lru_cache(maxsize=4096)(parse_quantity)


def _to_quantity(value: object) -> Quantity:
    # Quantity.UnmarshalJSON accepts JSON numbers and trims surrounding space.
    if isinstance(value, Quantity):
        return value
    if isinstance(value, bool):
        raise ValueError("must be a quantity such as 4, 500m or 16Gi, not a boolean")
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        text = str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise ValueError("must be a quantity such as 4, 500m or 16Gi")
    try:
        return _parse_quantity(text)
    except QuantityError as err:
        raise ValueError(f"{value!r} is not a quantity: {err}") from None


QuantityValue = Annotated[Quantity, BeforeValidator(_to_quantity), PlainSerializer(str)]

QUALIFIED_NAME_PATTERN = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
)
QualifiedName = Annotated[str, StringConstraints(max_length=316, pattern=QUALIFIED_NAME_PATTERN)]
Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]


class KubeModel(BaseModel):
    """Base of every nested API struct: camelCase JSON names, unknown fields refused.

    Refusing unknown fields is what ``kubectl --validate=strict`` (its default) does,
    and it turns a typo such as ``numberOfCluster`` into an error instead of a no-op.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        # Kubernetes never turns "3" into 3 or "true" into True: neither do we.
        strict=True,
        validate_default=False,
        ser_json_inf_nan="strings",
    )


class StatusModel(KubeModel):
    """Base of status structs: fields a newer API version adds are kept, not refused."""

    model_config = ConfigDict(extra="allow")


class OwnerReference(KubeModel):
    api_version: str
    kind: str
    name: str
    uid: str = ""
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ObjectMeta(KubeModel):
    name: str = ""
    generate_name: str | None = None
    namespace: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: Time | None = None
    deletion_timestamp: Time | None = None
    deletion_grace_period_seconds: int | None = None
    owner_references: list[OwnerReference] | None = None
    finalizers: list[str] | None = None
    managed_fields: list[dict[str, Any]] | None = None
    self_link: str | None = None


class Condition(KubeModel):
    """``metav1.Condition``. Frozen: the scheduler shares one object among results, so
    an edit in one result must not leak into another (``model_copy(update=...)`` makes
    a changed copy)."""

    model_config = ConfigDict(frozen=True)

    type: QualifiedName
    status: Literal["True", "False", "Unknown"]
    observed_generation: int | None = Field(default=None, ge=0)
    last_transition_time: Time
    reason: Annotated[
        str,
        StringConstraints(
            min_length=1, max_length=1024, pattern=r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
        ),
    ]
    message: Annotated[str, StringConstraints(max_length=32768)] = ""


class KubeObject(KubeModel):
    """A top-level object: apiVersion, kind, metadata. Subclasses pin kind and versions."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = ()
    KIND: ClassVar[str] = ""
    NAMESPACED: ClassVar[bool] = True

    api_version: str
    kind: str
    metadata: ObjectMeta

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or ""

    @property
    def labels(self) -> dict[str, str]:
        return self.metadata.labels or {}

    @property
    def annotations(self) -> dict[str, str]:
        return self.metadata.annotations or {}

    @property
    def ref(self) -> str:
        """``Kind/name`` or ``Kind/namespace/name``, as used in messages."""
        if self.NAMESPACED and self.namespace:
            return f"{self.kind}/{self.namespace}/{self.name}"
        return f"{self.kind}/{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """The object in Kubernetes JSON shape (camelCase, unset optionals omitted)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def set_condition(conditions: Sequence[Condition], new: Condition) -> list[Condition]:
    """``meta.SetStatusCondition``: replace by type; keep lastTransitionTime unless status flips."""
    out: list[Condition] = []
    found = False
    for existing in conditions:
        if existing.type != new.type:
            out.append(existing)
            continue
        found = True
        keep_time = existing.status == new.status
        if (
            keep_time
            and existing.reason == new.reason
            and existing.message == new.message
            and existing.observed_generation == new.observed_generation
        ):
            out.append(existing)  # the copy would equal it field for field (conditions are frozen)
            continue
        out.append(
            new.model_copy(
                update={
                    "last_transition_time": existing.last_transition_time
                    if keep_time
                    else new.last_transition_time,
                    "observed_generation": new.observed_generation,
                }
            )
        )
    if not found:
        out.append(new)
    return out
