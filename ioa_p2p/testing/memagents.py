"""Whole agents on the in-memory transport fake: a node with every service, composed as ``open_node`` does.

:func:`open_memory_agent` opens a :class:`~ioa_p2p.testing.memnet.MemoryNode` and runs
:func:`ioa_p2p.node.services.open_services` on it (messaging, relay, chats, discovery over
:mod:`ioa_p2p.testing.memcards`, goals), so goal and discovery tests exercise the real services under
``trio.testing.MockClock(autojump_threshold=0)``.

:data:`MEMORY_DEFAULTS` holds the settings this needs, merged under the caller's tables: no circuit relay
(it needs a libp2p host), the hashing embedder (no model load, no thread), the exact vector index (the annoy
index rebuilds in a worker thread), no background warm-up of the matcher, the offline brain. Adapters:
``echo`` and ``calculator`` run no thread of their own (the calculator's CPU work goes through the node's
``run_sync``, inline here); the ``python`` adapter (a subprocess) and ``retrieval`` (worker threads) do not
belong on a mock clock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from ioa_p2p.identity import Identity
from ioa_p2p.node.services import NodeServices, open_services
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork, MemoryNode

MEMORY_DEFAULTS: dict[str, dict[str, Any]] = {
    "relay": {"hop": False, "client": False},
    "embedding": {"backend": "hashing"},
    "discovery": {"index": {"kind": "exact"}, "warm": False},
    "goals": {"brain": "offline"},
}


def memory_config(raw: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``raw`` over :data:`MEMORY_DEFAULTS`, table by table (a key the caller sets wins)."""
    merged: dict[str, Any] = {name: dict(table) for name, table in MEMORY_DEFAULTS.items()}
    for name, value in (raw or {}).items():
        if isinstance(value, Mapping) and isinstance(merged.get(name), dict):
            merged[name] = {**merged[name], **value}
        else:
            merged[name] = value
    return merged


@asynccontextmanager
async def open_memory_agent(
    net: MemoryNetwork,
    cards: MemoryCards,
    home: Path,
    raw: Mapping[str, Any] | None = None,
    identity: Identity | None = None,
) -> AsyncIterator[tuple[MemoryNode, NodeServices]]:
    """A memory node running every node service until the block exits (services close first); the same
    ``identity`` and ``home`` restart a node."""
    async with (
        net.open_node(home, raw=memory_config(raw), identity=identity) as node,
        AsyncExitStack() as stack,
    ):
        services = NodeServices()
        await open_services(node, stack, services, card_net=cards.net_of(node))
        node.services_ready.set()
        yield node, services


__all__ = ["MEMORY_DEFAULTS", "memory_config", "open_memory_agent"]
