"""Moved to :mod:`clusterplace.codecs.fast_yaml`; this alias goes away in the next release."""

import warnings

from clusterplace.codecs.fast_yaml import *  # noqa: F403
from clusterplace.codecs.fast_yaml import __all__  # noqa: F401

warnings.warn(
    "clusterplace.api.fast_yaml moved to clusterplace.codecs.fast_yaml",
    DeprecationWarning,
    stacklevel=2,
)
