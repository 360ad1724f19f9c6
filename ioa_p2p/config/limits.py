"""The ``[limits]`` table of ``config.toml``: every resource budget of a node, typed, with defaults.

The defaults keep a laptop node under ~300 MB of memory while hostile peers flood it
(docs/security.md, "Resource budgets", lists each budget, what happens when it is exceeded and
the test that shows it). Sizes are bytes, times seconds, rates "per ``sync_period`` seconds".

:func:`parse_table` is a small generic parser from a TOML table to a frozen dataclass of ints,
floats and bools: unknown keys, wrong types and negative numbers are :class:`ConfigError`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar

from ioa_p2p.errors import ConfigError

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    #: seconds a frame may take from its first byte to its last (a whole-frame deadline)
    frame_timeout: float = 20.0
    #: seconds of silence between frames before a reader gives up on the stream
    read_timeout: float = 30.0
    #: bytes announced by the length prefixes of frames not yet complete, per peer and in total
    partial_frame_bytes_per_peer: int = 8 * MiB
    partial_frame_bytes_total: int = 64 * MiB
    #: inbound streams open at once, per peer (all protocols) and in total (``/ioa/...`` protocols)
    streams_per_peer: int = 128
    streams_total: int = 1024
    #: encoded bytes of chat messages waiting for missing parents, per chat and across all chats
    pending_bytes_per_chat: int = 8 * MiB
    pending_bytes_total: int = 32 * MiB
    #: the period of the sync rates below (seconds)
    sync_period: float = 10.0
    #: ``/ioa/chat/sync`` requests answered per peer and in total, per period
    sync_requests_per_peer: int = 300
    sync_requests_total: int = 3000
    #: messages sent in sync answers per peer and in total, per period
    sync_messages_per_peer: int = 10_000
    sync_messages_total: int = 50_000
    #: bytes of sync answers built but not yet sent, per peer and in total
    sync_answer_bytes_per_peer: int = 8 * MiB
    sync_answer_bytes_total: int = 32 * MiB
    #: pulls this node starts because of what a peer sent (unknown parents), per peer per period
    sync_pulls_per_peer: int = 6

    @classmethod
    def from_section(cls, section: dict[str, Any]) -> Limits:
        return parse_table(cls, section, "limits")


D = TypeVar("D")


def parse_table(cls: type[D], table: dict[str, Any], name: str) -> D:
    """Build the frozen dataclass ``cls`` from the TOML table ``[name]`` (absent keys: defaults).

    Field types come from the defaults: a bool field takes ``true``/``false``, an int field an
    integer (not negative), a float field a positive number."""
    if not isinstance(table, dict):
        raise ConfigError(f"[{name}] must be a table")
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise ConfigError(f"unknown keys in [{name}]: {unknown} (known: {sorted(fields)})")
    values: dict[str, Any] = {}
    for key, value in table.items():
        default = fields[key].default
        where = f"[{name}].{key}"
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false, not {value!r}")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{where} must be a non-negative integer, not {value!r}")
        elif isinstance(default, float):
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ConfigError(f"{where} must be a positive number of seconds, not {value!r}")
            value = float(value)
        values[key] = value
    return cls(**values)


__all__ = ["Limits", "MiB", "parse_table"]
