"""The DHT content that publishing every card would leave, placed directly (a shortcut for 10,000 nodes).

Publishing 10,000 cards through the simulated network (a lookup, 20 puts and ~300 ADD_PROVIDER requests
each: ~10^7 events) costs more CPU than a shared 2-core machine gives one run, so large runs may load the
cards of the *other* nodes directly and publish only the cards they measure for real:
:func:`preload_cards` issues a real signed card for each node given, stores its record at the ``K``
online nodes closest to its key, and its provider records (the bucket keys at the levels the node's own
network-size estimate calls for, :func:`~ioa_p2p.dht.probing.provided_levels`) at the ``K`` online nodes
closest to each key, in a random order of cards (a storing node keeps the first ``K`` providers of a key,
as py-libp2p does: which ones depends on arrival). That is what a provide round that reached every target
leaves (publish_cards measures ``provide_acked`` = 1.000 without churn). :class:`KeyspaceIndex` finds the
closest online nodes of a key without sorting the whole network.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence

from ioa_p2p.dht.forest import Forest
from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.probing import provided_levels
from ioa_p2p.dht.sim.cardflow import network_size
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.search import key_of
from ioa_p2p.dht.sim.world import World

#: Nodes on each side of a key's place in keyspace order looked at; the K closest by XOR lie in the
#: smallest prefix subtree holding K nodes, a contiguous run of ~K to ~4K nodes around the key.
WINDOW = 4 * K


class KeyspaceIndex:
    """The online nodes in keyspace order (build it when the online set is the one to use)."""

    def __init__(self, nodes: Sequence[SimNode]) -> None:
        self.nodes = sorted((n for n in nodes if n.online), key=lambda n: n.position)
        self.positions = [n.position for n in self.nodes]

    def closest(self, key: bytes, count: int = K) -> list[SimNode]:
        target = position(key)
        at = bisect.bisect_left(self.positions, target)
        window = self.nodes[max(0, at - WINDOW) : at + WINDOW]
        return sorted(window, key=lambda n: n.position ^ target)[:count]


def preload_cards(world: World, forest: Forest, nodes: Sequence[SimNode], rng: random.Random) -> int:
    """Issue and place the cards of ``nodes`` (module docstring); returns the provider records placed."""
    cards = world.cards
    assert cards is not None
    index = KeyspaceIndex(world.nodes)
    order = [n for n in nodes if n.online]
    rng.shuffle(order)
    placed = 0
    for node in order:
        card = cards.issue(node.index, world.now_ms())
        node.card, node.withdrawal = card, None
        node.values[key_of(node.peer)] = card.encoded
        for holder in index.closest(key_of(node.peer)):
            holder.values[key_of(node.peer)] = card.encoded
        levels = provided_levels(network_size(world, node))
        for cell in forest.cells(cards.vectors[node.index], levels):
            node.add_provider(cell.key, node.peer)
            for holder in index.closest(cell.key):
                placed += holder.add_provider(cell.key, node.peer)
    return placed


__all__ = ["WINDOW", "KeyspaceIndex", "preload_cards"]
