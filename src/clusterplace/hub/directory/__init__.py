"""The directory hub: a folder of manifests as an OCM hub, for the live controller."""

from clusterplace.hub.directory.hub import DirectoryHub, RunSummary, run_directory_controller
from clusterplace.hub.directory.layout import DEFAULT_OUT, OutLayout

__all__ = ["DEFAULT_OUT", "DirectoryHub", "OutLayout", "RunSummary", "run_directory_controller"]
