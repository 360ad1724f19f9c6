"""Checks of a card's fields (pure): text within its byte limit, lists of tags, the embedding vector. Each
failure is an :class:`~ioa_p2p.errors.InvalidCard` naming the field and the limit."""

from __future__ import annotations

import math
import struct

from ioa_p2p.errors import InvalidCard

#: Largest embedding dimension accepted (OpenAI text-embedding-3-large has 3072).
MAX_DIM = 4096


def check_text(field: str, value: str, limit: int, *, required: bool = False) -> None:
    if not isinstance(value, str):
        raise InvalidCard(f"card {field} must be text, got {type(value).__name__}")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise InvalidCard(f"card {field} is {size} bytes, over the limit of {limit}")
    if required and not value.strip():
        raise InvalidCard(f"card {field} must not be empty")


def check_tags(field: str, values: tuple[str, ...], count: int, limit: int) -> None:
    if not isinstance(values, tuple):
        raise InvalidCard(f"card {field} must be a list of text, got {type(values).__name__}")
    if len(values) > count:
        raise InvalidCard(f"card {field} has {len(values)} entries, over the limit of {count}")
    for value in values:
        check_text(field, value, limit, required=True)


def check_vector(dim: int, raw: bytes) -> None:
    if isinstance(dim, bool) or not isinstance(dim, int) or not isinstance(raw, bytes):
        raise InvalidCard("card embedding must be bytes with an integer dimension")
    if not 1 <= dim <= MAX_DIM:
        raise InvalidCard(f"card embedding dimension {dim} is outside 1..{MAX_DIM}")
    if len(raw) != 4 * dim:
        raise InvalidCard(f"card embedding has {len(raw)} bytes; {dim} float32 values need {4 * dim}")
    # struct, not numpy: a node that only validates cards (a bootstrap node) never loads numpy
    if not all(map(math.isfinite, struct.unpack(f"<{dim}f", raw))):
        raise InvalidCard("card embedding contains NaN or infinite values")


__all__ = ["MAX_DIM", "check_tags", "check_text", "check_vector"]
