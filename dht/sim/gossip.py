"""Card announcements by gossip in the simulator: GossipSub as py-libp2p 0.8.1 runs the card topic, with the
node's own announcement rules on top.

py-libp2p's router cannot run here (trio tasks and streams), so its forwarding is simulated with the
node's parameters (``ioa_p2p.node.net.gossip.GossipSettings``: heartbeat 1 s, mesh degree 6 kept between
4 and 12; the node speaks GossipSub v1.1 and v1.0, so there is no IDONTWANT):

- **heartbeat**: every ``heartbeat`` seconds while the node's mesh is short, its topic peers changed
  or a message came in the last ``settle`` seconds, every ``heartbeat_idle`` seconds after that (the
  node's ``HeartbeatPacer``, ``[discovery] heartbeat_idle``);
- **mesh**: every node subscribes to the card topic, so its topic peers are its connections (the ones
  peer discovery keeps, :attr:`SimNode.neighbours`); it keeps ``degree`` of them as mesh peers (a graft
  is reciprocal). Each heartbeat drops mesh peers that are gone, grafts up to ``degree`` when fewer than
  ``degree_low`` are left and prunes back to ``degree`` above ``degree_high``;
- **forwarding**: the publisher sends a message to its mesh peers; a node receiving it for the first time
  validates it (below), remembers its ID and forwards it to its mesh peers except the one it came from
  and its origin; a copy already seen is counted and dropped;
- **gossip**: each heartbeat a node that received messages in the last :attr:`GossipConfig.window`
  heartbeats sends one IHAVE with their IDs to max(6, a quarter) of its topic peers outside its mesh
  (py-libp2p's Dlazy and gossip factor); a peer missing one asks with IWANT and gets the message.

Every RPC is one message in the counters (a publish or forward carries one card, an IHAVE several IDs).

The node's own code, driven as ``Discovery.check_gossip`` and ``Discovery.on_gossip`` use it:

- the topic validator :func:`~ioa_p2p.dht.validators.check_announcement` (signature, author, stamp, not
  older than the version held): a rejected message is neither delivered nor forwarded;
- on delivery, the gossip :class:`~ioa_p2p.dht.admission.CardAdmission` (identities new to the node per
  minute in total, versions per identity per hour) and then the node's
  :class:`~ioa_p2p.dht.directory.Directory` (newest-version rule, withdrawals remembered, and past
  ``keep_all`` cards only the cards the node asked for: a gossip card is then not kept, as
  ``[discovery] keep_all`` makes the node do). A directory here holds only the cards an experiment
  announces (no vectors: nothing is ranked). The cap bounds what a node holds, not what it relays: past
  ``keep_all`` the node's validator still passes every valid announcement, so GossipSub forwards it
  (the node does the same: ``check_gossip`` does not look at the directory's size). Past ``relay_all``
  (:mod:`~ioa_p2p.dht.relaycap`) the validator applies a renewal of unchanged content without forwarding
  it (:func:`~ioa_p2p.dht.relaycap.relay_verdict`, each node with its own :class:`ContentBook`), as the
  node's ``GossipIntake`` does;
- when to announce: on a new version (and a withdrawal), and re-announcements paced by
  :class:`~ioa_p2p.dht.pacing.AnnouncePacer` as more peers subscribe (:meth:`GossipLayer.pace`).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.card import SignedCard, SignedWithdrawal
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.directory import Directory, Offer
from ioa_p2p.dht.relaycap import ContentBook, Relay, RelayCap, relay_verdict
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.world import World
from ioa_p2p.dht.validators import check_announcement
from ioa_p2p.errors import InvalidMessage

#: py-libp2p's Dlazy: IHAVE goes to at least this many non-mesh topic peers per heartbeat ...
LAZY_MIN = 6
#: ... or to this share of them, whichever is more.
LAZY_SHARE = 0.25
#: A directory model no card has: the simulated directories index no vectors.
NO_MODEL = "sim/no-vectors"


@dataclass(frozen=True, slots=True)
class GossipConfig:
    """GossipSub's parameters as the node sets them (``GossipSettings``), and gossip's history window."""

    heartbeat: float = 1.0
    #: the heartbeat once nothing changed for ``settle`` seconds (``[discovery] heartbeat_idle``, the
    #: node's ``HeartbeatPacer``)
    heartbeat_idle: float = 5.0
    settle: float = 30.0
    degree: int = 6
    degree_low: int = 4
    degree_high: int = 12
    window: int = 3  # heartbeats whose message IDs an IHAVE carries (py-libp2p's gossip_window)
    min_stamp_bits: int = 8
    new_cards: int = 120
    updates: int = 30
    #: ``[discovery] keep_all`` (the node's default): past this many cards a directory keeps only wanted ones
    keep_all: int = 20_000
    #: ``[discovery] relay_all`` (default: ``keep_all``): past this many nodes the topic carries only new
    #: and changed cards and withdrawals (``dht/relaycap.py``; the network's true size stands in for each
    #: node's estimate)
    relay_all: int = 20_000

    def __post_init__(self) -> None:
        if not 1 <= self.degree_low <= self.degree <= self.degree_high or self.heartbeat <= 0:
            raise ValueError("gossip needs 1 <= degree_low <= degree <= degree_high and a heartbeat > 0")


@dataclass
class Message:
    """One announcement on the topic: who published it, its bytes, when, and who has applied it."""

    mid: int
    origin: int
    data: bytes
    published_at: float
    reached: dict[int, float] = field(default_factory=dict)  # node index -> when it first received it
    delivered: dict[int, float] = field(default_factory=dict)  # node index -> when its directory took it
    duplicates: int = 0
    rejected: int = 0


class GossipLayer:
    """The card topic on every node of ``world`` (see the module docstring). Call :meth:`start` once
    the network has formed; :meth:`announce` publishes a record of a node."""

    def __init__(self, world: World, config: GossipConfig | None = None) -> None:
        self.world = world
        self.config = config or GossipConfig()
        self.messages: dict[int, Message] = {}
        self.seen: dict[int, dict[int, None]] = {}  # node index -> message IDs received (in order)
        self.recent: dict[int, deque[tuple[float, int]]] = {}  # node index -> (when, message ID)
        self.admission: dict[int, CardAdmission] = {}
        self.directories: dict[int, Directory] = {}
        self.announcements = 0
        self.over_limit = 0
        self.not_kept = 0  # gossip cards a directory past keep_all did not keep (still forwarded)
        #: past ``relay_all``: the node's validator applies unchanged renewals without forwarding them
        self.capped = RelayCap(self.config.relay_all).observe(len(world.nodes))
        self.books: dict[int, ContentBook] = {}
        self.not_relayed = 0  # unchanged renewals applied and not forwarded (past relay_all)
        self._received: dict[int, int] = {}  # node index -> messages received (the heartbeat's pacing)
        self._seen: dict[int, tuple[frozenset[int], int]] = {}
        self._busy_at: dict[int, float] = {}
        self._next_id = 0
        self.on_delivered: Callable[[SimNode, Message], Any] | None = None

    # ------------------------------------------------------------------ mesh

    def start(self) -> None:
        """Every online node grafts its mesh, and heartbeats begin (each node at its own phase)."""
        world = self.world
        for node in world.nodes:
            if node.online:
                self._graft(node)
        for node in world.nodes:
            world.loop.after(world.rng.random() * self.config.heartbeat, self._heartbeat, node)

    def _graft(self, node: SimNode) -> None:
        nodes, config = self.world.nodes, self.config
        mesh = [i for i in node.mesh if nodes[i].online and i in node.conns]
        if len(mesh) < config.degree_low or not mesh:
            candidates = [i for i in node.neighbours if i not in mesh and nodes[i].online]
            self.world.rng.shuffle(candidates)
            for i in candidates[: config.degree - len(mesh)]:
                mesh.append(i)
                other = nodes[i]
                if node.index not in other.mesh:
                    other.mesh.append(node.index)
                    self.world.stats["graft"] += 1
        elif len(mesh) > config.degree_high:
            self.world.rng.shuffle(mesh)
            for i in mesh[config.degree :]:
                other = nodes[i]
                if node.index in other.mesh:
                    other.mesh.remove(node.index)
                self.world.stats["prune"] += 1
            mesh = mesh[: config.degree]
        node.mesh = mesh

    def _heartbeat(self, node: SimNode) -> None:
        world, config = self.world, self.config
        world.loop.after(self._interval(node), self._heartbeat, node)
        if not node.online:
            return
        self._graft(node)
        recent = self.recent.get(node.index)
        if not recent:
            return
        horizon = world.loop.now - config.window * config.heartbeat
        while recent and recent[0][0] < horizon:
            recent.popleft()
        if not recent:
            return
        ids = [mid for _, mid in recent]
        others = [i for i in node.neighbours if i not in node.mesh and world.nodes[i].online]
        count = min(len(others), max(LAZY_MIN, int(len(others) * LAZY_SHARE)))
        for i in world.rng.sample(others, count):
            world.net.send(node, world.nodes[i], "ihave", partial_ihave(self, world.nodes[i], node, ids))

    def _interval(self, node: SimNode) -> float:
        """The node's ``HeartbeatPacer``: ``heartbeat`` while its mesh is short, its topic peers changed
        or a message came within ``settle`` seconds, ``heartbeat_idle`` after that."""
        config, now = self.config, self.world.loop.now
        seen = (frozenset(node.neighbours), self._received.get(node.index, 0))
        if node.online and (len(node.mesh) < config.degree_low or seen != self._seen.get(node.index)):
            self._busy_at[node.index] = now
        self._seen[node.index] = seen
        if now - self._busy_at.get(node.index, -math.inf) < config.settle:
            return config.heartbeat
        return max(config.heartbeat, config.heartbeat_idle)

    def _ihave(self, node: SimNode, sender: SimNode, ids: list[int]) -> None:
        seen = self.seen.get(node.index, {})
        wanted = [mid for mid in ids if mid not in seen and mid in self.messages]
        if wanted and sender.online:
            self.world.net.send(node, sender, "iwant", lambda: self._iwant(sender, node, wanted))

    def _iwant(self, node: SimNode, asker: SimNode, ids: list[int]) -> None:
        for mid in ids:
            self.world.net.send(node, asker, "publish", partial_receive(self, asker, node, mid))

    # ------------------------------------------------------------------ messages

    def announce(self, node: SimNode, record: SignedCard | SignedWithdrawal) -> Message:
        """``node`` publishes ``record`` (its own card or withdrawal) to its mesh peers."""
        world = self.world
        message = Message(self._next_id, node.index, record.encoded, world.loop.now)
        self._next_id += 1
        self.messages[message.mid] = message
        self.announcements += 1
        node.pacer.announced(len(node.neighbours), world.loop.now)
        self._mark(node, message)
        for i in node.mesh:
            world.net.send(
                node, world.nodes[i], "publish", partial_receive(self, world.nodes[i], node, message.mid)
            )
        return message

    def _mark(self, node: SimNode, message: Message) -> None:
        self.seen.setdefault(node.index, {})[message.mid] = None
        self._received[node.index] = self._received.get(node.index, 0) + 1
        self.recent.setdefault(node.index, deque()).append((self.world.loop.now, message.mid))
        message.reached.setdefault(node.index, self.world.loop.now)

    def _receive(self, node: SimNode, sender: SimNode, mid: int) -> None:
        message = self.messages[mid]
        seen = self.seen.setdefault(node.index, {})
        if mid in seen:
            message.duplicates += 1
            return
        directory = self._directory(node)
        origin = self.world.nodes[message.origin]
        now_ms = self.world.now_ms()
        try:
            record = check_announcement(
                message.data,
                publisher=origin.identity.peer_id,
                known_version=directory.version_of(origin.identity.peer_id),
                now_ms=now_ms,
                min_stamp_bits=self.config.min_stamp_bits,
                parse=self.world.records.parse,
            )
        except InvalidMessage:
            message.rejected += 1
            seen[mid] = None
            return
        book = self.books.get(node.index)
        if book is None:
            book = self.books[node.index] = ContentBook()
        held = directory.get(origin.identity.peer_id)
        held_card = held if isinstance(held, SignedCard) else None
        verdict = relay_verdict(record, capped=self.capped, held=held_card, book=book, now_ms=now_ms)
        if verdict is Relay.LOCAL:  # applied here, not forwarded, not gossiped (the validator refused it)
            seen[mid] = None
            self.not_relayed += 1
            message.reached.setdefault(node.index, self.world.loop.now)
            self._deliver(node, message, record, now_ms)
            return
        self._mark(node, message)
        for i in node.mesh:
            if i != sender.index and i != message.origin:
                other = self.world.nodes[i]
                self.world.net.send(node, other, "publish", partial_receive(self, other, node, mid))
        self._deliver(node, message, record, now_ms)

    def _deliver(self, node: SimNode, message: Message, record: Any, now_ms: int) -> None:
        """``Discovery.on_gossip``: the rate limits, then the directory."""
        directory = self._directory(node)
        peer = record.peer_id
        known = directory.version_of(peer)
        admission = self.admission.get(node.index)
        if admission is None:
            config = self.config
            admission = self.admission[node.index] = CardAdmission(
                new_cards=config.new_cards, updates=config.updates, me=node.peer
            )
        if record.version != known and not admission.admit_card(
            peer, known=known is not None, now=now_ms / 1000
        ):
            self.over_limit += 1
            return
        if isinstance(record, SignedWithdrawal):
            directory.withdraw(record, now_ms)
        elif directory.offer(record, now_ms, "gossip", wanted=False) is Offer.NOT_KEPT:
            self.not_kept += 1
            return
        message.delivered.setdefault(node.index, self.world.loop.now)
        if self.on_delivered is not None:
            self.on_delivered(node, message)

    def _directory(self, node: SimNode) -> Directory:
        directory = self.directories.get(node.index)
        if directory is None:
            cards = self.world.cards
            dim = cards.dim if cards is not None else 1
            directory = self.directories[node.index] = Directory(NO_MODEL, dim, keep_all=self.config.keep_all)
        return directory

    # ------------------------------------------------------------------ pacing

    def pace(self, node: SimNode) -> bool:
        """One look of the node's announce loop: re-announce its card when :class:`AnnouncePacer` says
        more peers subscribed since the last announcement (True when it did)."""
        world = self.world
        peers = len(node.neighbours)
        if node.card is None or not node.online or not node.pacer.due(peers, world.loop.now):
            return False
        self.announce(node, node.card)
        node.pacer.reannounced(peers, world.loop.now)
        return True

    def forget(self, mid: int) -> None:
        """Drop a finished message's per-node state (memory stays bounded over long runs)."""
        self.messages.pop(mid, None)
        for seen in self.seen.values():
            seen.pop(mid, None)


def partial_receive(layer: GossipLayer, node: SimNode, sender: SimNode, mid: int) -> Callable[[], None]:
    return lambda: layer._receive(node, sender, mid)


def partial_ihave(layer: GossipLayer, node: SimNode, sender: SimNode, ids: list[int]) -> Callable[[], None]:
    return lambda: layer._ihave(node, sender, ids)


def reach_times(message: Message, online: int) -> dict[str, float]:
    """Seconds after publication until ``share`` of the ``online`` nodes had the message (50/95/100 %)."""
    times = sorted(t - message.published_at for t in message.reached.values())
    out = {}
    for name, share in (("p50", 0.5), ("p95", 0.95), ("all", 1.0)):
        need = math.ceil(share * online)
        out[name] = times[need - 1] if 0 < need <= len(times) else math.inf
    return out


__all__ = ["LAZY_MIN", "LAZY_SHARE", "GossipConfig", "GossipLayer", "Message", "reach_times"]
