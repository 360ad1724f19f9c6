"""The agents of one process (``[[agents]]``, ``open_agents``): who they are, so that they do not budget
each other as remote peers.

The per-peer budgets of :mod:`ioa_p2p.node.net.budgets` protect a node from what remote peers make it
do: identities are free, so a stranger's work is paced in a pool, and strangers yield to trusted peers
while the loop is congested. The agents of one process are not remote: they are this process's own
code, on its one event loop and its one CPU, and their peer IDs are proven by the Noise handshake of
every connection between them. Budgeting them against each other only adds waits: while they start,
each agent is a stranger to every other (none holds another's card yet), so every agent kept the
others waiting for its trusted bootstrap peer's work, and the CPU they took was charged per step by
the step timer for nothing (measured: a 25-agent process, 4 of 25 cards at the coordinator after
150 s, team formation 42.7 s p50; docs/performance.md, issue 26).

So a node hosted with others (:class:`CoHosted`, one per ``open_agents``) treats their connections as
its process's own work: not charged to a peer, never paced, trusted as the operator's (the operator
listed them); what bounds them is the process's own CPU, as for the node's own tasks. Remote peers keep
their per-peer budgets and pools. Nodes that merely share a trio run (tests with an attacker node
beside its victim) are not co-hosted unless they are given the same :class:`CoHosted`.

What else the agents of a process share through it (issue 26, docs/performance.md "Seventh round"):
their card announcements (:meth:`CoHosted.card_topic`) and the remote records one of them accepted
(:meth:`CoHosted.pass_on`), each checked again by every receiver's own validator: one view of the
network's cards per process; the way out for an agent's announcement (:meth:`CoHosted.carrying`: the
agents with the largest gossip mesh forward it, :mod:`~ioa_p2p.node.net.gossip_carry`); one census
(:attr:`CoHosted.census`); and their streams to each other, in memory (:meth:`CoHosted.serving`,
:mod:`~ioa_p2p.node.net.local_streams`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ioa_p2p.dht.census import SharedCensus
from ioa_p2p.faults import Faults
from ioa_p2p.identity import PeerId

#: ``validate(publisher, data)`` / ``deliver(publisher, data)``: a node's card-topic callbacks (gossip.py)
CardCheck = Callable[[PeerId, bytes], bool]
CardTake = Callable[[PeerId, bytes], None]
#: ``accept(protocol, stream, opener)``: an agent serves an in-process stream another agent of the process
#: opened to it (its handler started, True), or does not serve ``protocol`` (False): ``Node.accept_local``
AcceptStream = Callable[[str, Any, PeerId], bool]
#: Process-mates that forward one agent's announcement to their gossip mesh (:meth:`CoHosted.carrying`).
CARRIERS = 2
#: Remote publishers whose newest record the process remembers to hand to its agents (oldest dropped first).
VIEW_MAX = 10_000


@dataclass(frozen=True, slots=True)
class _CardReader:
    validate: CardCheck
    deliver: CardTake
    faults: Faults


class CoHosted:
    """The peer IDs of the agents that run in this process (as one ``[[agents]]`` list), and their card
    topic in the process (:meth:`card_topic`)."""

    __slots__ = (
        "_announced",
        "_carriers",
        "_caught_up",
        "_peers",
        "_readers",
        "_servers",
        "_view",
        "census",
        "local_streams",
        "carried",
        "passed",
        "shared",
    )

    def __init__(self) -> None:
        self._peers: dict[PeerId, int] = {}
        self._readers: dict[PeerId, _CardReader] = {}
        #: the last record (card or withdrawal) each agent of the process announced
        self._announced: dict[PeerId, bytes] = {}
        #: the agents that were handed the others' announcements (at their own first announcement)
        self._caught_up: set[PeerId] = set()
        #: announcements handed to another agent of the process (and accepted by its validator)
        self.shared = 0
        #: remote publishers -> (version, record) of the newest record an agent of the process accepted from
        #: the network, handed to the others (:meth:`pass_on`)
        self._view: dict[PeerId, tuple[int, bytes]] = {}
        #: remote records handed to another agent of the process (and accepted by its validator)
        self.passed = 0
        #: the census of the process's agents (node/discovery/census.py): one taken at a time, adopted by all
        self.census = SharedCensus()
        #: the agents that serve in-process streams now (``Node.accept_local``), and how many were opened
        self._servers: dict[PeerId, AcceptStream] = {}
        self.local_streams = 0
        #: the agents that forward the others' signed announcements to their gossip mesh (:meth:`carrying`)
        self._carriers: dict[PeerId, tuple[Callable[[], int], Callable[[Any], bool]]] = {}
        #: announcements handed to a carrier (and queued by it)
        self.carried = 0

    def __contains__(self, peer: object) -> bool:
        return peer in self._peers

    def __len__(self) -> int:
        return len(self._peers)

    @contextmanager
    def hosting(self, peer: PeerId) -> Iterator[None]:
        """While this block runs, ``peer`` is one of the process's agents (from before its host
        listens or dials until it has closed)."""
        self._peers[peer] = self._peers.get(peer, 0) + 1
        try:
            yield
        finally:
            left = self._peers.pop(peer, 1) - 1
            if left > 0:
                self._peers[peer] = left
            else:
                self._announced.pop(peer, None)
                self._caught_up.discard(peer)

    @contextmanager
    def serving(self, peer: PeerId, accept: AcceptStream) -> Iterator[None]:
        """While this block runs, the other agents of the process open their streams to ``peer`` in
        memory (:mod:`~ioa_p2p.node.net.local_streams`), served by ``accept``."""
        self._servers[peer] = accept
        try:
            yield
        finally:
            if self._servers.get(peer) is accept:
                del self._servers[peer]

    def serving_peers(self, other_than: PeerId) -> list[PeerId]:
        """The agents of the process that take in-process streams now, ``other_than`` apart (where a
        joining agent's self-lookup may start: they answer in memory, naming the peers they know)."""
        return [peer for peer in self._servers if peer != other_than]

    def server(self, peer: PeerId) -> AcceptStream | None:
        """How to hand ``peer`` an in-process stream, when it is an agent of this process that serves them."""
        return self._servers.get(peer)

    @contextmanager
    def card_topic(
        self, me: PeerId, validate: CardCheck, deliver: CardTake, faults: Faults
    ) -> Iterator[Callable[[bytes], None]]:
        """While this block runs, ``me`` reads the card announcements of the other agents of the process
        straight from them, through its own topic validator and delivery (as if they came by gossip:
        the same checks, rate limits and directory); the block's value announces ``me``'s records to
        them. At its first announcement (its discovery is live: its card is out) ``me`` is also handed
        the last announcement of every other agent of the process, so an agent that starts after the
        others holds their cards as soon as they hold its. GossipSub still carries every announcement
        (to the agents of other processes, and among these as a second path): this saves each agent of
        a process the wait for its gossip mesh (25 agents x ~16-28 connections of pubsub set-up on one
        loop) before it knows its neighbours in the process."""
        reader = _CardReader(validate, deliver, faults)
        self._readers[me] = reader
        try:
            yield lambda data: self._announce(me, data)
        finally:
            if self._readers.get(me) is reader:
                del self._readers[me]
                self._caught_up.discard(me)

    def _announce(self, publisher: PeerId, data: bytes) -> None:
        self._announced[publisher] = data
        for peer, reader in list(self._readers.items()):
            if peer != publisher and _hand(reader, publisher, data):
                self.shared += 1
        own = self._readers.get(publisher)
        if own is not None and publisher not in self._caught_up:
            self._caught_up.add(publisher)
            for other, record in list(self._announced.items()):
                if other != publisher and _hand(own, other, record):
                    self.shared += 1
            for other, (_, record) in list(self._view.items()):
                if other != publisher and _hand(own, other, record):
                    self.passed += 1

    @contextmanager
    def carrying(
        self, me: PeerId, mesh: Callable[[], int], offer: Callable[[Any], bool]
    ) -> Iterator[Callable[[Any], None]]:
        """While this block runs, ``me`` may forward the other agents' announcements (their signed pubsub
        messages, handed to ``offer``) to its gossip mesh, of ``mesh()`` remote peers; the block's value
        hands ``me``'s own signed announcement to the :data:`CARRIERS` agents with the largest mesh
        (:mod:`~ioa_p2p.node.net.gossip_carry`: an agent that started after the others of its process has
        no remote gossip neighbour of its own for a while)."""
        entry = (mesh, offer)
        self._carriers[me] = entry
        try:
            yield lambda msg: self._carry(me, msg)
        finally:
            if self._carriers.get(me) is entry:
                del self._carriers[me]

    def _carry(self, origin: PeerId, msg: Any) -> None:
        meshes = {peer: mesh() for peer, (mesh, _) in self._carriers.items() if peer != origin}
        for peer in pick_carriers(meshes):
            if self._carriers[peer][1](msg):
                self.carried += 1

    def pass_on(self, receiver: PeerId, publisher: PeerId, version: int, data: bytes) -> None:
        """``receiver``, an agent of the process, accepted a record (card or withdrawal) of the remote
        ``publisher`` that changed its directory (by gossip, or fetched from the DHT or its owner): hand it
        to the other agents of the process through their own validators and deliveries, once per version
        in the process. So the process holds one view of the network's cards: a card any of its agents
        learnt is every agent's, where each agent waited for its own gossip mesh and its own DHT fetches
        before (with 4 processes of 25 agents, 33 of 100 cards at a coordinator after 150 s). Remote
        peers see nothing of it; the records are the publishers' own signed bytes."""
        if publisher in self._peers:  # an agent of this process: its own announcements go by _announce
            return
        held = self._view.get(publisher)
        if held is not None and held[0] >= version:
            return
        self._view.pop(publisher, None)
        self._view[publisher] = (version, data)
        while len(self._view) > VIEW_MAX:
            del self._view[next(iter(self._view))]
        for peer, reader in list(self._readers.items()):
            if peer not in (receiver, publisher) and _hand(reader, publisher, data):
                self.passed += 1


def pick_carriers(meshes: dict[PeerId, int], most: int = CARRIERS) -> list[PeerId]:
    """Up to ``most`` agents with the largest mesh (a mesh of 0 carries nothing), the earlier listed first
    among equals."""
    ranked = sorted((-size, i) for i, size in enumerate(meshes.values()) if size > 0)
    peers = list(meshes)
    return [peers[i] for _, i in ranked[:most]]


def _hand(reader: _CardReader, publisher: PeerId, data: bytes) -> bool:
    """Give one announcement to one agent's validator, then to its delivery if valid (a failure stops it)."""
    with reader.faults.boundary("co-hosted card announcement", publisher):
        if reader.validate(publisher, data):
            reader.deliver(publisher, data)
            return True
    return False


__all__ = ["CARRIERS", "CoHosted", "pick_carriers"]
