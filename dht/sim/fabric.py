"""What the simulated protocols need of the simulated network (:class:`Fabric`, a ``Protocol``).

:class:`~ioa_p2p.dht.sim.world.World` provides it; the protocol modules (:mod:`~ioa_p2p.dht.sim.kad`,
:mod:`~ioa_p2p.dht.sim.publish`, :mod:`~ioa_p2p.dht.sim.search`) are typed against it, so that the world
can import them without an import cycle.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol

from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.events import EventLoop
from ioa_p2p.dht.sim.links import Network
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.records import RecordCache


class Fabric(Protocol):
    """The event loop, links, nodes, shared record cache and counters of one simulated network."""

    loop: EventLoop
    rng: random.Random
    net: Network
    records: RecordCache
    counters: Counter[str]
    stats: Counter[str]
    cards: CardSet | None
    nodes: list[SimNode]
    #: stores are sent during a lookup to candidates nearer than ``early_rank / N`` (0: none early)
    early_rank: float

    def now_ms(self) -> int:
        """Virtual time as a wall clock in milliseconds (what cards are issued and checked at)."""
        ...

    def node_of(self, peer: bytes) -> SimNode | None:
        """The node with peer ID bytes ``peer`` (None for a made-up ID)."""
        ...

    def ping(self, peer: bytes) -> bool:
        """Whether ``peer`` answers a ping now."""
        ...


__all__ = ["Fabric"]
