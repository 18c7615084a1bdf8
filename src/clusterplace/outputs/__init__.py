"""Everything clusterplace writes: printed formats, tables, and atomic file writes."""

from clusterplace.outputs.atomic import FileTransaction, write_atomic
from clusterplace.outputs.printers import FORMATS, as_json_list, print_objects
from clusterplace.outputs.table import format_table

__all__ = [
    "FORMATS",
    "FileTransaction",
    "as_json_list",
    "format_table",
    "print_objects",
    "write_atomic",
]
