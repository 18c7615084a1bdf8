"""Reading Kubernetes objects from text, kubectl style: sources (files, directories,
stdin, bounded and strictly decoded), YAML and JSON with their limits, and decoding into
the typed models of :mod:`clusterplace.api` with located errors.

The models know nothing of text; this package is the only one that parses it, so the
decision core never loads a YAML parser.

>>> from clusterplace.codecs import expand_sources, load_fleet
>>> fleet = load_fleet(expand_sources(["examples/fleet"]))  # doctest: +SKIP
"""

from clusterplace.codecs.fleet_loader import load_fleet
from clusterplace.codecs.loader import Document, Loaded, LoadError, decode, read_documents
from clusterplace.codecs.sources import Source, expand_sources

__all__ = [
    "Document",
    "LoadError",
    "Loaded",
    "Source",
    "decode",
    "expand_sources",
    "load_fleet",
    "read_documents",
]
