"""The examples in docs/api.md run as written."""

from __future__ import annotations

import doctest
from pathlib import Path

API_DOC = Path(__file__).parents[2] / "docs" / "api.md"


def test_api_doc_examples() -> None:
    failures, tried = doctest.testfile(str(API_DOC), module_relative=False, verbose=False)
    assert tried > 0 and failures == 0
