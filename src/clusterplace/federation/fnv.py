"""32-bit FNV-1 hashing, as Go's ``hash/fnv`` ``New32`` computes it.

The Federation planner breaks weight ties with this hash (FNV-1: multiply, then XOR;
not FNV-1a), so a cluster's place in the order must come out bit for bit the same.
"""

from __future__ import annotations

__all__ = ["FNV32_OFFSET", "FNV32_PRIME", "fnv1_32"]

FNV32_OFFSET = 0x811C9DC5
FNV32_PRIME = 0x01000193
_MASK = 0xFFFFFFFF


def fnv1_32(*parts: bytes) -> int:
    """The FNV-1 hash of ``parts`` written one after the other (as successive
    ``hasher.Write`` calls do), as an unsigned 32-bit integer."""
    value = FNV32_OFFSET
    for part in parts:
        for byte in part:
            value = ((value * FNV32_PRIME) & _MASK) ^ byte
    return value
