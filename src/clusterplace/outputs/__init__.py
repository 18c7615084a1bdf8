"""Everything clusterplace writes: printed formats, tables, and atomic file writes."""

from clusterplace.outputs.errors import OutputError
from clusterplace.outputs.printers import FORMATS, as_json_list, print_objects
from clusterplace.outputs.table import format_table
from clusterplace.outputs.transaction import FileTransaction, open_output

__all__ = [
    "FORMATS",
    "FileTransaction",
    "OutputError",
    "as_json_list",
    "format_table",
    "open_output",
    "print_objects",
]
