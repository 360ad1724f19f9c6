"""The limits of a body's fields and the typed checks of decoded values (pure).

:class:`Limit` is what a field's annotation carries (``Annotated[str, Limit(max_len=200)]``): text length,
item counts, number ranges, unique items, allowed values, plain data only (:func:`check_plain`).
:func:`typed_value`, :func:`uint_value` and :func:`check_uint` check one value's type and range;
:func:`key_names` prints map keys from the network. :mod:`ioa_p2p.wire.schema` compiles them into each
body's decoder (and re-exports them).
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from typing import Any, TypeVar

from ioa_p2p.errors import SchemaError

_UINT64_MAX = 2**64 - 1


@dataclass(frozen=True, slots=True)
class Limit:
    """Limits of one field, given as ``Annotated[<type>, Limit(...)]``; checked when a value is decoded.

    ``low`` / ``high``: numbers (inclusive); ``max_len``: characters of text, items of a list or map;
    ``min_len``: items of a list; ``non_empty``: text with a non-space character; ``unique``: list items
    distinct; ``one_of``: the allowed texts; ``plain``: only null, bool, int, finite float, text, lists and
    maps with text keys (what both CBOR and JSON carry), at most :data:`MAX_PLAIN_DEPTH` deep.
    """

    low: float | None = None
    high: float | None = None
    max_len: int | None = None
    min_len: int = 0
    non_empty: bool = False
    unique: bool = False
    one_of: frozenset[str] | None = None
    plain: bool = False

    def check(self, value: Any, where: str) -> None:
        if value is None:
            return
        if isinstance(value, str):
            self._check_text(value, where)
        elif isinstance(value, tuple | list | dict):
            self._check_items(value, where)
        elif isinstance(value, int | float) and not isinstance(value, bool) and not self._in_range(value):
            raise SchemaError(f"{where} = {value} is outside {_num(self.low)}..{_num(self.high)}")
        if self.plain:
            check_plain(value, where)

    def _in_range(self, value: float) -> bool:
        """NaN is never in range."""
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def _check_text(self, value: str, where: str) -> None:
        if self.max_len is not None and len(value) > self.max_len:
            raise SchemaError(f"{where} has {len(value)} characters (limit {self.max_len})")
        if self.non_empty and not value.strip():
            raise SchemaError(f"{where} must not be empty")
        if self.one_of is not None and value not in self.one_of:
            raise SchemaError(f"{where} {value!r} is not one of {sorted(self.one_of)}")

    def _check_items(self, value: tuple[Any, ...] | list[Any] | dict[Any, Any], where: str) -> None:
        if self.max_len is not None and len(value) > self.max_len:
            raise SchemaError(f"{where} has {len(value)} items (limit {self.max_len})")
        if len(value) < self.min_len:
            raise SchemaError(f"{where} needs at least {self.min_len} items")
        if self.unique and len(set(value)) != len(value):
            raise SchemaError(f"{where} lists the same item twice")


#: How deep plain data (``Limit(plain=True)``) may nest.
MAX_PLAIN_DEPTH = 16


def check_plain(value: Any, where: str, depth: int = 0) -> None:
    """Plain data only: null, bool, int, finite float, text, lists, maps with text keys."""
    if depth > MAX_PLAIN_DEPTH:
        raise SchemaError(f"{where} is nested too deeply")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SchemaError(f"{where} contains NaN or infinity")
        return
    if isinstance(value, list | tuple):
        for item in value:
            check_plain(item, where, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise SchemaError(f"{where} has a non-text map key")
            check_plain(item, where, depth + 1)
        return
    raise SchemaError(f"{where} contains a {type(value).__name__}, which is not plain data")


def _num(bound: float | None) -> str:
    if bound is None:
        return ""
    return str(int(bound)) if float(bound).is_integer() else str(bound)


T = TypeVar("T")


def typed_value(value: Any, kind: type[T], where: str) -> T:
    ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if not ok:
        raise SchemaError(f"{where} must be {kind.__name__}, got {type(value).__name__}")
    return typing.cast(T, value)


def uint_value(value: Any, where: str) -> int:
    number = typed_value(value, int, where)
    check_uint(where, number)
    return number


def check_uint(where: str, number: int) -> None:
    if not 0 <= number <= _UINT64_MAX:
        raise SchemaError(f"{where} must be an unsigned 64-bit integer, got {number}")


def key_names(keys: Any) -> list[str]:
    """Map keys from the network, as sorted printable names: keys of mixed types (text and
    integers, say) cannot be compared with each other, so they are sorted by their text (a non-text
    key by its ``repr``, cut to 64 characters)."""
    return sorted(k if isinstance(k, str) else repr(k)[:64] for k in keys)


__all__ = [
    "MAX_PLAIN_DEPTH",
    "Limit",
    "check_plain",
    "check_uint",
    "key_names",
    "typed_value",
    "uint_value",
]
