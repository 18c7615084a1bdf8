"""Moved to :mod:`clusterplace.codecs.yaml_io` (reading) and
:mod:`clusterplace.outputs.dumpers` (writing); this alias goes away in the next release."""

import warnings

from clusterplace.codecs.yaml_io import *  # noqa: F403
from clusterplace.codecs.yaml_io import __all__ as _reading
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream

__all__ = [*_reading, "dump_json", "dump_yaml_stream"]

warnings.warn(
    "clusterplace.api.yaml_io moved to clusterplace.codecs.yaml_io",
    DeprecationWarning,
    stacklevel=2,
)
