"""One simulated node: its identity, routing table, what it stores for others, its card and its counters.

Only what the simulated protocols need is kept, so that 10,000 nodes fit in one process: the routing
table (:class:`~ioa_p2p.dht.kbuckets.RoutingTable`, bytes shared with the other nodes), the DHT records
stored here (card records by key, provider lists by key: py-libp2p keeps the first ``K`` providers of a
key, :meth:`SimNode.add_provider`), open connections (indices, least recently used first), the publishing
policies of :mod:`ioa_p2p.dht.pacing`, and a :class:`~ioa_p2p.dht.directory.Directory` only for the cards
an experiment tracks (it is given no vectors: the simulated search ranks with the card vectors itself).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from ioa_p2p.card import SignedCard, SignedWithdrawal
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.contacts import EVICT, StaleContacts
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.kbuckets import RoutingTable, Split
from ioa_p2p.dht.keyspace import K
from ioa_p2p.dht.pacing import AnnouncePacer, PublishPolicy
from ioa_p2p.dht.provide import ProvidePacer
from ioa_p2p.dht.rtt import Hedges, Unreached
from ioa_p2p.dht.validators import IoaNamespaceValidator
from ioa_p2p.identity import Identity


class SimNode:
    """A node of the simulation (see the module docstring). ``stats`` is shared by every node: message
    counts by kind; :attr:`sent` and :attr:`received` are this node's totals."""

    __slots__ = (
        "index",
        "identity",
        "peer",
        "online",
        "session",
        "joined_at",
        "table",
        "position",
        "conns",
        "values",
        "providers",
        "admission",
        "validator",
        "card",
        "withdrawal",
        "policy",
        "pacer",
        "provide_pacer",
        "directory",
        "mesh",
        "neighbours",
        "refresh_delay",
        "sent",
        "received",
        "stats",
        "busy",
        "round_trips",
        "unreached",
        "contacts",
        "sweep_at",
    )

    def __init__(self, index: int, identity: Identity, stats: Counter[str], *, split: Split = "any") -> None:
        self.index = index
        self.identity = identity
        self.peer = identity.peer_id.raw
        self.online = False
        self.session = 0
        self.joined_at = 0.0
        self.table = RoutingTable(self.peer, split=split)
        #: the node's keyspace position (its table's; an attribute, read millions of times a run)
        self.position = self.table.own_position
        self.conns: dict[int, None] = {}
        self.values: dict[bytes, bytes] = {}
        self.providers: dict[bytes, list[bytes]] = {}
        self.admission: CardAdmission | None = None
        self.validator: IoaNamespaceValidator | None = None
        self.card: SignedCard | None = None
        self.withdrawal: SignedWithdrawal | None = None
        self.policy = PublishPolicy()
        self.pacer = AnnouncePacer()
        self.provide_pacer: tuple[float, ProvidePacer] | None = None  # (last used, pacer)
        self.directory: Directory | None = None
        self.mesh: list[int] = []  # gossip mesh peers (indices)
        self.neighbours: list[int] = []  # the connections peer discovery keeps (target_peers)
        self.refresh_delay = 1.0
        self.sent = 0
        self.received = 0
        self.stats = stats
        self.busy: dict[str, Any] = {}  # operations in flight by name (one of each at a time)
        #: the lookups' round trips, whose wait is the hedge (None: the fixed ``kad.HEDGE``)
        self.round_trips: Hedges | None = None
        #: peers its lookups recently failed to reach (None: every peer waited for; ``kad_io``'s own)
        self.unreached: Unreached | None = None
        #: its table's stale contacts (:mod:`~ioa_p2p.dht.contacts`; None: gone peers stay, the node
        #: before 2026-11-29), and when its next sweep of them is scheduled (inf: none)
        self.contacts: StaleContacts[bytes] | None = None
        self.sweep_at = math.inf

    def count_sent(self, kind: str, count: int) -> None:
        self.sent += count
        self.stats[kind] += count

    def count_received(self, kind: str, count: int) -> None:
        self.received += count

    def add_provider(self, key: bytes, provider: bytes) -> bool:
        """Store ``provider`` for ``key`` as py-libp2p does: the first ``K`` providers of a key are kept, a
        known provider is refreshed, the others are ignored (records live 48 h, longer than any run)."""
        found = self.providers.get(key)
        if found is None:
            self.providers[key] = [provider]
            return True
        if provider in found:
            return True
        if len(found) >= K:
            return False
        found.append(provider)
        return True

    def contact_failed(self, peer: bytes, now: float) -> bool:
        """A failure of the contact ``peer`` (the remote ended our connection, or a request without one
        failed), as the node's ``stale_contacts.note_failure``: evicted at the second failure, else
        demoted and suspected by our lookups. True when it left the table."""
        contacts = self.contacts
        if contacts is None:
            return False
        if self.unreached is not None:
            self.unreached.note(peer, now)
        if contacts.failed(peer, now) == EVICT:
            return self.table.remove(peer)
        self.table.demote(peer)
        return False

    def contact_heard(self, peer: bytes) -> None:
        """A sign of life from ``peer``: no longer a stale contact."""
        contacts = self.contacts
        if contacts is not None and contacts.heard(peer) and self.unreached is not None:
            self.unreached.clear(peer)

    def forget_state(self) -> None:
        """What a restarted node loses: connections, the provide pacer's and the round trips' memory."""
        self.conns.clear()
        self.provide_pacer = None
        if self.round_trips is not None:
            self.round_trips = self.round_trips.fresh()
        if self.unreached is not None:
            self.unreached = Unreached(ttl=self.unreached.ttl, limit=self.unreached.limit)
        self.mesh = []
        self.neighbours = []


__all__ = ["SimNode"]
