"""Test-wide settings: hypothesis without timing deadlines, and deterministic in CI."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None)
# CI must not fail on a random draw that no developer ever saw: derandomize there.
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
