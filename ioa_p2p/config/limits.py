"""The ``[limits]`` table of ``config.toml``: every resource budget of a node, typed, with defaults.

The defaults keep a laptop node under ~300 MB of memory while hostile peers flood it
(docs/security.md, "Resource budgets", lists each budget, what happens when it is exceeded and
the test that shows it). Sizes are bytes, times seconds, rates "per ``sync_period`` seconds".

:meth:`Limits.from_section` reads the table with the one section parser
(:func:`~ioa_p2p.config.sections.parse_section`): unknown keys, wrong types, negative counts and
non-positive times are :class:`ConfigError` naming the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ioa_p2p.config.sections import parse_section, setting

MiB = 1024 * 1024


def _seconds(default: float) -> Any:
    return setting(default, above=0, unit="seconds")


def _count(default: int) -> Any:
    return setting(default, low=0)


def _fraction(default: float) -> Any:
    return setting(default, low=0, high=1, what="a fraction between 0 and 1")


@dataclass(frozen=True, slots=True)
class Limits:
    #: seconds a frame may take from its first byte to its last (a whole-frame deadline)
    frame_timeout: float = _seconds(20.0)
    #: seconds of silence between frames before a reader gives up on the stream
    read_timeout: float = _seconds(30.0)
    #: the share of every node-wide total below kept for trusted peers (peers sharing a chat this
    #: node worked in, operator-configured peers, peers with a known card): strangers together
    #: never hold more than the rest
    trusted_share: float = _fraction(0.25)
    #: bytes announced by the length prefixes of frames not yet complete, per peer and in total
    #: (our protocols' frames and the messages py-libp2p reads for its own protocols, negotiation
    #: included)
    partial_frame_bytes_per_peer: int = _count(8 * MiB)
    partial_frame_bytes_total: int = _count(32 * MiB)
    #: bytes a peer sent that no reader has taken yet (the muxer's stream buffers), per peer and
    #: in total
    unread_bytes_per_peer: int = _count(4 * MiB)
    unread_bytes_total: int = _count(16 * MiB)
    #: inbound streams open at once, per peer (all protocols) and in total (``/ioa/...`` protocols)
    streams_per_peer: int = _count(128)
    streams_total: int = _count(1024)
    #: inbound streams of every protocol open at once in total, before protocol negotiation
    inbound_streams_total: int = _count(1024)
    #: CPU seconds per second the node spends on what one peer sends (decoding, answers, DHT and
    #: gossip handling; partners get 4 times as much), and the share of wall time the work of all
    #: strangers, and of all peers with a known card, may hold the event loop (one pool each,
    #: measured in loop time: it holds whatever the machine's load); a peer past either is paced
    cpu_per_peer: float = setting(0.2, above=0, high=2, unit="CPU seconds per second")
    cpu_pool: float = setting(0.4, above=0, high=2, unit="seconds of event-loop time per second")
    #: encoded bytes of chat messages waiting for missing parents, per chat and across all chats
    pending_bytes_per_chat: int = _count(8 * MiB)
    pending_bytes_total: int = _count(32 * MiB)
    #: the period of the sync rates below (seconds)
    sync_period: float = _seconds(10.0)
    #: ``/ioa/chat/sync`` requests answered per peer and in total, per period
    sync_requests_per_peer: int = _count(300)
    sync_requests_total: int = _count(3000)
    #: messages sent in sync answers per peer and in total, per period
    sync_messages_per_peer: int = _count(10_000)
    sync_messages_total: int = _count(50_000)
    #: bytes of sync answers built but not yet sent, per peer and in total
    sync_answer_bytes_per_peer: int = _count(8 * MiB)
    sync_answer_bytes_total: int = _count(32 * MiB)
    #: pulls this node starts because of what a peer sent (unknown parents), per peer per period
    sync_pulls_per_peer: int = _count(6)
    #: sync pulls this node starts in all, per period (a member that cannot be reached is also
    #: backed off from, 5 s doubling to 10 min)
    sync_pulls_total: int = _count(300)

    @classmethod
    def from_section(cls, section: dict[str, Any]) -> Limits:
        return parse_section(cls, section, "[limits]")


__all__ = ["Limits", "MiB"]
