"""Moved to :mod:`clusterplace.outputs.serialize`; this alias goes away in the next release."""

import warnings

from clusterplace.outputs.serialize import *  # noqa: F403
from clusterplace.outputs.serialize import __all__  # noqa: F401

warnings.warn(
    "clusterplace.api.codec moved to clusterplace.outputs.serialize",
    DeprecationWarning,
    stacklevel=2,
)
