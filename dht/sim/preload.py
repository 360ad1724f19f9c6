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

With ``pages`` (the default of ``[discovery] pages``), each card's signed sketch is also entered in the
bucket page of each of its cells (the same provided levels), and every page is placed, complete, at the
``K`` online nodes closest to its key (each owner also keeps its own entry, as its local put does): the
pages a publishing round that reached every target leaves, with the storing peers' merge rule (one
entry per peer, at most :data:`~ioa_p2p.dht.pages.PAGE_ENTRIES`, first come in a random order of cards).
Neither the card records nor the pages are checked when placed here (they are the nodes' own, valid);
readers verify what they use, as they do over the network.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence

import numpy as np

from ioa_p2p.dht.forest import Forest
from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.pages import PAGE_ENTRIES, encode_page, page_key
from ioa_p2p.dht.probing import provided_levels
from ioa_p2p.dht.sim.cardflow import network_size
from ioa_p2p.dht.sim.kad import POSITION_BITS, PREFIX_BITS
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
        #: the top bits of each position (numpy): a window's nearest are preselected by them
        self.tops = np.array([p >> (POSITION_BITS - PREFIX_BITS) for p in self.positions], dtype=np.uint64)

    def closest(self, key: bytes, count: int = K) -> list[SimNode]:
        """The ``count`` online nodes closest to ``key`` by XOR, closest first."""
        target = position(key)
        at = bisect.bisect_left(self.positions, target)
        lo = max(0, at - WINDOW)
        near = self.tops[lo : at + WINDOW] ^ np.uint64(target >> (POSITION_BITS - PREFIX_BITS))
        if len(near) > count:  # the top bits order every pair whose top bits differ: compare the rest
            bound = np.partition(near, count - 1)[count - 1]
            window = [self.nodes[lo + int(i)] for i in np.flatnonzero(near <= bound)]
        else:
            window = self.nodes[lo : at + WINDOW]
        return sorted(window, key=lambda n: n.position ^ target)[:count]


def preload_cards(
    world: World, forest: Forest, nodes: Sequence[SimNode], rng: random.Random, *, pages: bool = True
) -> int:
    """Issue and place the cards of ``nodes`` (module docstring); returns the records placed (provider
    records, and with ``pages`` page copies)."""
    cards = world.cards
    assert cards is not None
    index = KeyspaceIndex(world.nodes)
    order = [n for n in nodes if n.online]
    rng.shuffle(order)
    placed = 0
    now_ms = world.now_ms()
    entries: dict[bytes, dict[int, bytes]] = {}  # page key -> owner index -> sketch (first come)
    for node in order:
        card = cards.issue(node.index, now_ms)
        node.card, node.withdrawal = card, None
        node.values[key_of(node.peer)] = card.encoded
        for holder in index.closest(key_of(node.peer)):
            holder.values[key_of(node.peer)] = card.encoded
        levels = provided_levels(network_size(world, node))
        for cell in forest.cells(cards.vectors[node.index], levels):
            node.add_provider(cell.key, node.peer)
            for holder in index.closest(cell.key):
                placed += holder.add_provider(cell.key, node.peer)
        if pages:
            sketch = cards.sketch(node.index, card, now_ms)
            for cell in forest.cells(sketch.vector(), levels):
                key = page_key(cell, forest.model_id, forest.dim).encode("utf-8")
                page = entries.setdefault(key, {})
                if len(page) < PAGE_ENTRIES:
                    page[node.index] = sketch.encoded
    nodes_ = world.nodes
    for key, held in entries.items():
        value = encode_page(held.values())
        closest = index.closest(key)
        for holder in closest:
            holder.values[key] = value
        for i, own in held.items():  # an owner keeps the page it put locally: its own entry
            if nodes_[i] not in closest:
                nodes_[i].values[key] = encode_page([own])
        placed += len(closest)
    return placed


__all__ = ["WINDOW", "KeyspaceIndex", "preload_cards"]
