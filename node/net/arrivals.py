"""Peers as their connections open, numbered, for services that act on a (re)connection.

A service that must notice a new connection (the chats pull their shared chats from it and retry its
deliveries) used to compare ``connected_peers()`` every 0.5 s: two wake-ups a second of every idle node,
and a peer that dropped and came back between two looks went unnoticed. :class:`PeerArrivals` is told of
every connection the host registers (:func:`~ioa_p2p.node.net.conn_events.watch_connections`; the memory
network of the tests tells it of every new link), and a waiter sleeps until there is one::

    seen = arrivals.count
    while True:
        seen, peers = await arrivals.wait_after(seen)
        for peer in peers if peers is not None else node.connected_peers():
            ...

The last :data:`KEEP` arrivals are kept; a waiter that fell further behind gets ``None`` (look at every
connected peer again), so memory stays bounded whatever the connection churn.
"""

from __future__ import annotations

import collections

import trio

from ioa_p2p.identity import PeerId

#: Arrivals kept for waiters that are behind (a waiter further behind re-reads every connected peer).
KEEP = 256


class PeerArrivals:
    """Connections as they open: a running count, the last :data:`KEEP` peers, and waiters on the next."""

    def __init__(self, keep: int = KEEP) -> None:
        self._count = 0
        self._recent: collections.deque[PeerId] = collections.deque(maxlen=keep)
        self._changed = trio.Event()

    @property
    def count(self) -> int:
        """How many connections opened so far (pass it to :meth:`wait_after` to wait for the next)."""
        return self._count

    def note(self, peer: PeerId) -> None:
        """A connection to ``peer`` opened (any connection: a second one to a connected peer counts too)."""
        self._count += 1
        self._recent.append(peer)
        self._changed.set()
        self._changed = trio.Event()

    async def wait_after(self, seen: int) -> tuple[int, list[PeerId] | None]:
        """Wait until more than ``seen`` connections opened; the new count and the peers of the
        connections after ``seen`` (each once, in order), or ``None`` when more opened than are kept."""
        while self._count <= seen:
            await self._changed.wait()
        missed = self._count - seen
        if missed > len(self._recent):
            return self._count, None
        tail = list(self._recent)[len(self._recent) - missed :]
        return self._count, list(dict.fromkeys(tail))


__all__ = ["KEEP", "PeerArrivals"]
