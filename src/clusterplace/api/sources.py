"""Moved to :mod:`clusterplace.codecs.sources`; this alias goes away in the next release."""

import warnings

from clusterplace.codecs.sources import *  # noqa: F403
from clusterplace.codecs.sources import __all__  # noqa: F401

warnings.warn(
    "clusterplace.api.sources moved to clusterplace.codecs.sources",
    DeprecationWarning,
    stacklevel=2,
)
