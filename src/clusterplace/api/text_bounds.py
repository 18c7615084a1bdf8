"""Moved to :mod:`clusterplace.codecs.text_bounds`; this alias goes away in the next release."""

import warnings

from clusterplace.codecs.text_bounds import *  # noqa: F403
from clusterplace.codecs.text_bounds import __all__  # noqa: F401

warnings.warn(
    "clusterplace.api.text_bounds moved to clusterplace.codecs.text_bounds",
    DeprecationWarning,
    stacklevel=2,
)
