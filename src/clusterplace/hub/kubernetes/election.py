"""Leader election on a ``coordination.k8s.io/v1`` Lease, so that of several replicas
exactly one acts. The algorithm is client-go's, written here on :class:`HubApi` (its
requests checked against the permission table, its writes named ``clusterplace`` in
managedFields):

- a try reads the Lease (creating it, in the given namespace, when there is none); a
  standby takes it when it has no holder, or when its record has not changed for
  ``leaseDurationSeconds`` *as this replica's own clock measured it* (no trust in
  another machine's clock); taking it from another holder (or from none) adds one to
  ``leaseTransitions``; every update carries the resourceVersion read, so of two
  replicas racing for it one wins and the other gets 409;
- a standby tries every retry period (plus up to 1.2 x that, at random, as client-go's
  jitter); the leader renews every retry period, retrying failures, and **steps down**
  once ``renew_deadline`` has passed since the last renewal that succeeded (counted from
  when that request was *sent*), or as soon as a read of the Lease shows another holder;
- :meth:`LeaderElector.fence` is checked before every write the controller sends: once
  the renew deadline has passed (by ``time.monotonic``, so a process paused with
  SIGSTOP, or an event loop that stalled, sees it at once on waking) no write starts,
  whatever the renewal loop has noticed yet. The standby takes over a lease duration
  after it last saw the record change, later than that, so only writes already in
  flight can reach the server beside the new leader's;
- the controller runs the election in a thread of its own (:mod:`.lease_thread`), so
  the fence is read from another thread than the one renewing: what it reads is one
  immutable :class:`Tenure` (which stretch of leading, renewed when), replaced whole at
  each renewal and cleared at a step-down;
- on shutdown the leader releases the Lease (holder cleared, duration 1 s, as
  client-go's ``ReleaseOnCancel``), so a standby takes over at its next try;
- a 403 is raised at once with the RBAC rule to add; any other answer that will not
  change by retrying (4xx but 408, 409 and 429: e.g. 404 when the Lease's namespace
  does not exist) is reported with the server's message and retried, and after one
  lease duration of nothing but such answers the election gives up
  (:class:`ElectionFailed`): a namespace created meanwhile still fixes it, a
  misconfiguration does not wait for ever. A server that cannot be reached (or
  answers 5xx) is retried for ever, as client-go does.

Upstream's defaults (library-go controllercmd): Lease ``placement-lock``, 137 s lease,
107 s renew deadline, 26 s retry period.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from clusterplace.controller.sink import HubRefused
from clusterplace.errors import ClusterplaceError
from clusterplace.hub.kubernetes.api import ApiError, Conflict, Forbidden, HubApi, NotFound
from clusterplace.hub.kubernetes.resources import LEASES

__all__ = [
    "ElectionFailed",
    "ElectionTimes",
    "LeaderElector",
    "LeaseLost",
    "Tenure",
    "identity",
]

LEASE_NAME = "placement-lock"
JITTER = 1.2  # a standby waits a retry period plus up to this many more, at random
RETRIED = (408, 409, 429)  # 4xx answers that retrying may change


@dataclass(frozen=True)
class ElectionTimes:
    # Whole seconds: the Lease stores leaseDurationSeconds as an integer.
    lease: int = 137
    renew_deadline: int = 107
    retry: int = 26

    def problem(self) -> str | None:
        """Why these times would not work (client-go refuses the same)."""
        if min(self.lease, self.renew_deadline, self.retry) < 1:
            return "lease duration, renew deadline and retry period must be at least 1 second"
        if self.lease <= self.renew_deadline:
            return "the lease duration must be longer than the renew deadline"
        if self.renew_deadline <= JITTER * self.retry:
            return "the renew deadline must be longer than 1.2 x the retry period"
        return None


class LeaseLost(HubRefused):
    """A write was not sent: the leader may have lost its lease (not renewed within the
    renew deadline, or held by another replica now). Raised by :meth:`LeaderElector.fence`;
    like a refusal, it ends the controller's loops instead of being retried."""


@dataclass(frozen=True)
class Tenure:
    """One stretch of leading a lease, as the renewing side last published it: the
    ``epoch`` counts the times this elector began to lead (a lease lost and taken again
    is another tenure), ``renewed_at`` is when its last successful acquire or renew was
    sent (by the elector's clock). Replaced whole, never changed: another thread reads
    it without a lock."""

    epoch: int
    renewed_at: float


class ElectionFailed(ClusterplaceError):
    """The lease cannot be had: the API server kept refusing the election's requests."""


def identity() -> str:
    """``<hostname>_<uuid>``, as upstream's."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def micro_time(moment: datetime | None = None) -> str:
    """A MicroTime: RFC 3339 in UTC with microseconds, as the API server stores them."""
    return (moment or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def refusal(err: ApiError) -> bool:
    """Whether ``err`` is an answer that retrying will not change by itself (a 4xx but
    408, 409 and 429; a 404 of an update only means the Lease was deleted meanwhile)."""
    if not 400 <= err.status <= 499 or err.status in RETRIED:
        return False
    return not (err.status == 404 and err.verb == "update")


def _hint(err: ApiError) -> str:
    if err.status == 404 and err.verb == "create":
        return " (the Lease's namespace must exist: create it, or choose another with --namespace)"
    return ""


def _seconds(value: float) -> str:
    return f"{value:g} s"


class LeaderElector:
    """Run ``lead`` while holding the lease; see :meth:`run`. ``api`` sends the Lease's
    requests: give the controller's writes another :class:`HubApi` whose ``fence`` is
    :meth:`fence` (this one's own must stay unfenced, or it could not renew)."""

    def __init__(
        self,
        api: HubApi,
        namespace: str,
        times: ElectionTimes,
        report: Callable[[str], None],
        *,
        name: str = LEASE_NAME,
        holder: str | None = None,
        on_change: Callable[[bool], None] = lambda _: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api
        self.namespace = namespace
        self.name = name
        self.times = times
        self.report = report
        self.on_change = on_change  # True when leading, False when not
        self.identity = holder or identity()
        self.clock = clock
        self.lease: dict[str, Any] | None = None  # as last read or written
        self.record: dict[str, Any] | None = None  # its spec, as last observed
        self.observed_at = 0.0  # when ``record`` last changed, by ``clock``
        self.renewed_at = 0.0  # when the last successful acquire or renew was sent
        self.lost: str | None = None  # why this replica stopped leading
        self.failure: ApiError | None = None  # the last try's error
        self._told = ""  # the last failure reported (each is said once in a row)
        # Written by the renewing side only; read by the fence from any thread.
        self.tenure: Tenure | None = None  # None: not leading
        self._epochs = 0
        # The fence's own (its caller's thread): the tenure it refused, and why.
        self._fenced: int | None = None
        self._fenced_why = ""

    @property
    def where(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def leading(self) -> bool:
        return self.tenure is not None

    def lead(self) -> Tenure:
        """Begin a tenure: the lease was just acquired (``renewed_at`` is that try's)."""
        self._epochs += 1
        self.lost = None
        self.tenure = Tenure(self._epochs, self.renewed_at)
        return self.tenure

    def step_down(self, why: str) -> None:
        """End the tenure, if leading: ``why`` is kept in ``lost``."""
        if self.tenure is not None:
            self.lost = why
            self.tenure = None

    # -- the fence -----------------------------------------------------------------------

    def doubt(self, epoch: int) -> str | None:
        """Why a write of tenure ``epoch`` may not be sent now (None: it may): the
        tenure ended, or its renew deadline passed since its last renewal, by this
        elector's clock, whatever the renewing side has noticed yet. Reads one
        :class:`Tenure`, so it may be called from any thread."""
        tenure = self.tenure
        if tenure is None:
            return self.lost or "not held"
        if tenure.epoch != epoch:
            return "lost, and taken again since"
        since = self.clock() - tenure.renewed_at
        if since >= self.times.renew_deadline:
            return f"not renewed for {since:.1f} s (renew deadline {self.times.renew_deadline} s)"
        return None

    def fence(self, verb: str, what: str) -> None:
        """Raise :class:`LeaseLost` unless this replica leads and renewed the lease
        within the renew deadline: checked before each of the controller's writes (from
        the controller's thread). Once it refused a tenure, it refuses it for good: a
        renewal that lands later does not make the writes after a gap safe (the
        renewing side steps down by itself)."""
        tenure = self.tenure
        if tenure is None:
            why = self.lost or "not held"
        elif tenure.epoch == self._fenced:
            why = self._fenced_why
        else:
            found = self.doubt(tenure.epoch)
            if found is None:
                return
            self._fenced, self._fenced_why = tenure.epoch, found
            why = found
        raise LeaseLost(f"{verb} {what}: not sent: lease {self.where} lost ({why})")

    # -- one try -------------------------------------------------------------------------

    def _observe(self, lease: dict[str, Any]) -> dict[str, Any]:
        self.lease = lease
        spec = dict(lease.get("spec") or {})
        if spec != self.record:
            self.record = spec
            self.observed_at = self.clock()
        return spec

    def _body(self, spec: dict[str, Any]) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.lease is not None:
            # Its resourceVersion makes the update conditional; the server keeps the
            # managedFields an update leaves out.
            kept = dict(self.lease.get("metadata") or {})
            kept.pop("managedFields", None)
            meta = {**kept, **meta}
        return {
            "apiVersion": LEASES.api_version,
            "kind": "Lease",
            "metadata": meta,
            "spec": spec,
        }

    def _spec(self, acquired: str, transitions: int, now: str) -> dict[str, Any]:
        return {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": self.times.lease,
            "acquireTime": acquired,
            "renewTime": now,
            "leaseTransitions": transitions,
        }

    async def _update(self, spec: dict[str, Any], sent: float) -> bool:
        try:
            lease = await self.api.replace(LEASES, self.namespace, self.name, self._body(spec))
        except Forbidden:
            raise
        except ApiError as err:
            self.failure = err
            return False
        self._won(lease or self._body(spec), sent)
        return True

    def _won(self, lease: dict[str, Any], sent: float) -> None:
        self._observe(lease)
        self.renewed_at = sent
        self.failure = None
        tenure = self.tenure
        if tenure is not None:
            self.tenure = Tenure(tenure.epoch, sent)  # published whole

    async def try_acquire_or_renew(self) -> bool:
        """One try (client-go's tryAcquireOrRenew); True when the lease is ours now.
        ``failure`` says why not, when a request failed (None: held by another)."""
        sent = self.clock()
        now = micro_time()
        self.failure = None
        record = self.record or {}
        if self.leading and self.lease is not None:
            # The fast path: update what was written last; on any failure, read.
            spec = self._spec(
                str(record.get("acquireTime") or now),
                int(record.get("leaseTransitions") or 0),
                now,
            )
            if await self._update(spec, sent):
                return True
        try:
            lease = await self.api.get(LEASES, self.namespace, self.name)
        except NotFound:
            return await self._create(self._spec(now, 0, now), sent)
        except Forbidden:
            raise
        except ApiError as err:
            self.failure = err
            return False
        record = self._observe(lease)
        holder = str(record.get("holderIdentity") or "")
        if self.leading and holder != self.identity:
            self.step_down(f"held by {holder or 'no one'} now")
            return False
        duration = float(record.get("leaseDurationSeconds") or 0)
        if holder and holder != self.identity and self.clock() < self.observed_at + duration:
            return False  # held, and renewed within its duration as seen from here
        if holder == self.identity:
            spec = self._spec(
                str(record.get("acquireTime") or now),
                int(record.get("leaseTransitions") or 0),
                now,
            )
        else:
            spec = self._spec(now, int(record.get("leaseTransitions") or 0) + 1, now)
        return await self._update(spec, sent)

    async def _create(self, spec: dict[str, Any], sent: float) -> bool:
        self.lease = None
        body = self._body(spec)
        try:
            lease = await self.api.create(LEASES, self.namespace, body)
        except Forbidden:
            raise
        except Conflict:
            return False  # another replica created it first: not ours
        except ApiError as err:
            self.failure = err
            return False
        self._won(lease if isinstance(lease, dict) and lease else body, sent)
        return True

    async def _try(self, bound: float) -> bool:
        """:meth:`try_acquire_or_renew` within ``bound`` seconds."""
        try:
            async with asyncio.timeout(bound):
                return await self.try_acquire_or_renew()
        except TimeoutError:
            self.failure = ApiError(
                "renew" if self.leading else "acquire",
                f"lease {self.where}",
                0,
                f"the API server did not answer in {_seconds(bound)}",
            )
            return False

    def _tell(self, err: ApiError | None, suffix: str = "") -> None:
        """Report a failed try, once in a row for the same failure."""
        text = "" if err is None else f"leader election: {err}{_hint(err)}"
        if text and text != self._told:
            self.report(text + suffix)
        self._told = text

    # -- the loops -----------------------------------------------------------------------

    async def acquire(self, stop: asyncio.Event) -> bool:
        """Try until the lease is ours (True) or ``stop`` is set (False). Raises
        :class:`ElectionFailed` after a lease duration of nothing but refusals."""
        refused_since: float | None = None
        while not stop.is_set():
            if await self._try(self.times.renew_deadline):
                return True
            err = self.failure
            if err is not None and refusal(err):
                moment = self.clock()
                if refused_since is None:
                    refused_since = moment
                elif moment - refused_since >= self.times.lease:
                    raise ElectionFailed(
                        f"leader election: gave up on lease {self.where} after "
                        f"{moment - refused_since:.0f} s of refusals: {err}{_hint(err)}"
                    )
                self._tell(
                    err,
                    f"; retrying, for at most {self.times.lease} s while refused",
                )
            else:
                refused_since = None
                self._tell(err, "; retrying" if err is not None else "")
            pause = self.times.retry * (1 + JITTER * random.random())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
        return False

    async def renew(self) -> None:
        """Renew every retry period until the lease is lost (then return: ``lost``
        says why). Failed renewals are retried every retry period until the renew
        deadline, counted from the last renewal that succeeded."""
        deadline = self.times.renew_deadline
        while self.leading:
            await asyncio.sleep(self.times.retry)
            while self.leading:
                left = deadline - (self.clock() - self.renewed_at)
                if left <= 0:
                    self.step_down(f"not renewed within the renew deadline ({deadline} s)")
                    break
                if await self._try(left):
                    self._told = ""
                    break
                if not self.leading:
                    break  # another holder: stepped down
                self._tell(self.failure, "; retrying until the renew deadline")
                await asyncio.sleep(min(self.times.retry, max(left - 0.001, 0.0)))

    async def release(self) -> None:
        """Give the lease up (holder cleared, duration 1 s), if this replica still
        holds it within its renew deadline; a failure is reported, not raised."""
        if self.lease is None or self.clock() - self.renewed_at >= self.times.renew_deadline:
            return
        now = micro_time()
        record = self.record or {}
        spec = {
            "holderIdentity": "",
            "leaseDurationSeconds": 1,
            "acquireTime": now,
            "renewTime": now,
            "leaseTransitions": int(record.get("leaseTransitions") or 0),
        }
        try:
            async with asyncio.timeout(self.times.retry):
                lease = await self.api.replace(LEASES, self.namespace, self.name, self._body(spec))
        except TimeoutError:
            self.report(f"leader election: lease {self.where} not released: no answer in time")
            return
        except ApiError as err:
            self.report(f"leader election: lease {self.where} not released: {err}")
            return
        self._observe(lease or self._body(spec))
        self.report(f"released lease {self.where}")

    async def run(self, lead: Callable[[], Coroutine[Any, Any, None]], stop: asyncio.Event) -> bool:
        """Stand by until the lease is ours, then run ``lead`` (which returns once
        ``stop`` is set) while renewing it; release it after. Returns False when the
        lease was lost (``lead`` is then cancelled: another replica may act now).
        ``lead`` 's error, if any, is raised here; so are a 403 and
        :class:`ElectionFailed`."""
        self.report(f"standing by for lease {self.where} as {self.identity}")
        if not await self.acquire(stop):
            return True  # stopped while standing by
        self.lead()
        self._told = ""
        self.on_change(True)
        self.report(f"leading (lease {self.where})")
        leading = asyncio.create_task(lead())
        renewing = asyncio.create_task(self.renew())
        try:
            await asyncio.wait({leading, renewing}, return_when=asyncio.FIRST_COMPLETED)
            if renewing.done():
                renewing.result()  # a 403 from a renewal
                # Lost: nothing new is written (the fence), and the work stops.
                leading.cancel()
                await asyncio.gather(leading, return_exceptions=True)
                self.report(f"leader election: stopped leading: lease {self.where} {self.lost}")
                return False
            try:
                leading.result()
            except LeaseLost as err:
                # The fence refused a write before this side noticed: the same loss.
                why = self.lost or f"lost: {err}"
                self.report(f"leader election: stopped leading: lease {self.where} {why}")
                return False
            return True
        finally:
            was_leading = self.leading
            self.step_down("stopping")
            for task in (leading, renewing):
                task.cancel()
            await asyncio.gather(leading, renewing, return_exceptions=True)
            self.on_change(False)
            if was_leading:
                await self.release()
