"""Leader election on a ``coordination.k8s.io/v1`` Lease, so that of several replicas
exactly one acts: ``kubernetes.aio.leaderelection`` (client-go's algorithm: acquire when
the lease is free or expired, renew every retry period, give up after the renew
deadline), with a lock that adds what the library leaves out:

- a 403 is raised (with the RBAC rule to add) instead of being retried for ever;
- failures are reported in one line, not logged with a traceback;
- :meth:`ControllerLease.release` frees the lease on shutdown (holder cleared, as
  client-go's ``ReleaseOnCancel``), so a standby takes over at its next retry instead of
  waiting for the lease to expire.

Upstream's defaults (library-go controllercmd): Lease ``placement-lock``, 137 s lease,
107 s renew deadline, 26 s retry period.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from clusterplace.hub.kubernetes.api import ApiError, HubApi
from clusterplace.hub.kubernetes.resources import LEASES

__all__ = ["ElectionTimes", "LeaderElector", "identity"]

LEASE_NAME = "placement-lock"


@dataclass(frozen=True)
class ElectionTimes:
    # Whole seconds: the Lease stores leaseDurationSeconds as an integer.
    lease: int = 137
    renew_deadline: int = 107
    retry: int = 26

    def problem(self) -> str | None:
        """Why the library would refuse these times (it checks the same)."""
        if min(self.lease, self.renew_deadline, self.retry) < 1:
            return "lease duration, renew deadline and retry period must be at least 1 second"
        if self.lease <= self.renew_deadline:
            return "the lease duration must be longer than the renew deadline"
        if self.renew_deadline <= 1.2 * self.retry:
            return "the renew deadline must be longer than 1.2 x the retry period"
        return None


def identity() -> str:
    """``<hostname>_<uuid>``, as upstream's."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


class _Quiet(logging.Handler):
    """The library logs failures with tracebacks; we say them in one line."""

    def __init__(self, report: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.report = report

    def emit(self, record: logging.LogRecord) -> None:
        self.report(f"leader election: {record.getMessage()}")


def _lock_class() -> Any:
    from kubernetes.aio.client.exceptions import ApiException
    from kubernetes.aio.leaderelection.resourcelock.leaselock import LeaseLock

    class ControllerLease(LeaseLock):
        """The library's LeaseLock; each request checked against the permission table,
        refusals raised, and a release."""

        def __init__(self, api: HubApi, name: str, namespace: str, holder: str) -> None:
            super().__init__(name, namespace, holder, api.api_client)
            self.hub = api
            self.refusal: ApiError | None = None

        def _refuse(self, verb: str, err: Any) -> None:
            error = self.hub.error(verb, LEASES, f"{LEASES} {self.namespace}/{self.name}", err)
            if error.status == 403:
                self.refusal = error
                raise error

        async def get(self, name: str, namespace: str) -> Any:
            try:
                lease = await self.api_instance.read_namespaced_lease(name, namespace)
            except ApiException as err:
                self._refuse("get", err)
                return False, err
            self.lease_reference = lease
            return True, self.election_record(lease)

        async def create(self, name: str, namespace: str, election_record: Any) -> bool:
            from kubernetes.aio import client

            body = client.V1Lease(
                metadata=client.V1ObjectMeta(name=name),
                spec=self.update_lease(election_record),
            )
            try:
                await self.api_instance.create_namespaced_lease(namespace, body)
            except ApiException as err:
                self._refuse("create", err)
                return False  # another replica created it first: not ours
            return True

        async def update(self, name: str, namespace: str, updated_record: Any) -> bool:
            assert self.lease_reference is not None
            self.lease_reference.spec = self.update_lease(updated_record, self.lease_reference.spec)
            try:
                # A replace carries the resourceVersion read: two replicas racing for
                # an expired lease cannot both win (the second gets 409).
                self.lease_reference = await self.api_instance.replace_namespaced_lease(
                    name=name, namespace=namespace, body=self.lease_reference
                )
            except ApiException as err:
                self._refuse("update", err)
                return False
            return True

        async def release(self) -> None:
            """Clear the holder (as client-go on a cancelled context)."""
            found, record = await self.get(self.name, self.namespace)
            if not found or record.holder_identity != self.identity:
                return
            assert self.lease_reference is not None
            spec = self.lease_reference.spec
            assert spec is not None
            spec.holder_identity = None
            spec.lease_duration_seconds = 1
            with contextlib.suppress(ApiException):
                await self.api_instance.replace_namespaced_lease(
                    name=self.name, namespace=self.namespace, body=self.lease_reference
                )

    return ControllerLease


class LeaderElector:
    """Run ``lead`` while holding the lease; see :meth:`run`."""

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
    ) -> None:
        self.times = times
        self.report = report
        self.on_change = on_change  # True when leading, False when not
        self.lock = _lock_class()(api, name, namespace, holder or identity())
        logger = logging.getLogger("kubernetes.aio.leaderelection")
        logger.propagate = False
        logger.handlers[:] = [_Quiet(report)]

    @property
    def identity(self) -> str:
        return str(self.lock.identity)

    async def run(self, lead: Callable[[], Awaitable[None]], stop: asyncio.Event) -> bool:
        """Stand by until the lease is ours, then run ``lead`` (which returns once
        ``stop`` is set) while renewing it; release it after. Returns False when the
        lease was lost (``lead`` is then cancelled: another replica may act now).
        ``lead`` 's error, if any, is raised here."""
        from kubernetes.aio.leaderelection import electionconfig, leaderelection

        started = asyncio.Event()
        finished = asyncio.Event()
        failure: list[BaseException] = []
        lost = False

        async def leading() -> None:
            started.set()
            self.on_change(True)
            self.report(f"leading (lease {self.lock.namespace}/{self.lock.name})")
            try:
                await lead()
            except Exception as err:  # raised by run(), not lost in the library's task
                failure.append(err)
            finally:
                finished.set()

        async def stopped() -> None:
            nonlocal lost
            lost = not finished.is_set()

        config = electionconfig.Config(
            self.lock,
            lease_duration=self.times.lease,
            renew_deadline=self.times.renew_deadline,
            retry_period=self.times.retry,
            onstarted_leading=leading,
            onstopped_leading=stopped,
        )
        self.report(
            f"standing by for lease {self.lock.namespace}/{self.lock.name} as {self.identity}"
        )
        election = asyncio.create_task(leaderelection.LeaderElection(config).run())
        stopping = asyncio.create_task(stop.wait())
        ending = asyncio.create_task(finished.wait())
        try:
            pending: set[asyncio.Task[Any]] = {election, stopping, ending}
            while True:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                if election in done:
                    election.result()  # a 403 from the lock
                    return not lost
                if ending in done:
                    if failure:
                        raise failure[0]
                    return True
                if stopping in done and not started.is_set():
                    return True  # stopped while standing by
                # Stopped while leading: ``lead`` sees ``stop``, finishes its sync, returns.
        finally:
            for task in (election, stopping, ending):
                task.cancel()
            await asyncio.gather(election, return_exceptions=True)
            if started.is_set():
                self.on_change(False)
                if not lost:
                    with contextlib.suppress(ApiError):
                        await self.lock.release()
