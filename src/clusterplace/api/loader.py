"""Moved to :mod:`clusterplace.codecs.loader`; this alias goes away in the next release."""

import warnings

from clusterplace.codecs.loader import *  # noqa: F403
from clusterplace.codecs.loader import __all__  # noqa: F401

warnings.warn(
    "clusterplace.api.loader moved to clusterplace.codecs.loader", DeprecationWarning, stacklevel=2
)
