"""JSON answers that can always be encoded.

A JSON request body may hold ``\\ud800``, a lone surrogate: valid JSON text, but no
character UTF-8 can encode. Echoed in an answer (a refused edit's message, a validation
error's input), it would make the usual ``ensure_ascii=False`` rendering fail, and the
answer a 500. Here such an answer is rendered with ``\\u`` escapes instead: the same
JSON value, in ASCII.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse

__all__ = ["SafeJSONResponse"]


class SafeJSONResponse(JSONResponse):
    """:class:`JSONResponse`, falling back to ASCII escapes for text UTF-8 cannot hold."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            text = json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
            return text.encode("ascii")
