"""Moved to :mod:`clusterplace.codecs.yaml_io`; this alias goes away in the next release."""

import warnings

from clusterplace.codecs.yaml_io import *  # noqa: F403
from clusterplace.codecs.yaml_io import __all__  # noqa: F401

warnings.warn(
    "clusterplace.api.yaml_io moved to clusterplace.codecs.yaml_io",
    DeprecationWarning,
    stacklevel=2,
)
