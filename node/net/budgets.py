"""The node's resource budgets (``[limits]``), shared by every service, and their control route.

One :class:`NodeBudgets` per node (``node.budgets``) owns the ledgers, rate and work budgets of
:mod:`ioa_p2p.budget`, sized by :class:`ioa_p2p.config.limits.Limits`. Every node-wide total
keeps ``trusted_share`` for trusted peers (:meth:`NodeBudgets.trust`: partners and peers with a
known card); strangers together hold at most the rest, and a full total sheds the least-trusted,
heaviest holder's newest claim first.

- ``frames``: bytes announced by incomplete frames, per peer and in total: every FramedStream the
  node makes (see :mod:`ioa_p2p.node.net.framing`), and every message py-libp2p reads on an
  inbound stream for its own protocols, protocol negotiation included
  (:mod:`ioa_p2p.node.net.inbound_meter`);
- ``unread``: bytes a peer sent that no reader took yet, in the muxer's stream buffers
  (:mod:`ioa_p2p.node.net.muxer_meter`);
- ``streams``: inbound ``/ioa/...`` streams open at once, per peer and in total (charged by
  :meth:`ioa_p2p.node.node.Node.set_stream_handler`); ``inbound``: inbound streams of every
  protocol before negotiation (py-libp2p's resource manager, ``stream_caps.cap_inbound_streams``,
  which also refuses there the streams of a peer :meth:`NodeBudgets.admits` does not admit);
- ``orphans``: encoded bytes of chat messages waiting for missing parents, across all chats
  (each chat's own cap lives in its :class:`ioa_p2p.history.pending.PendingSet`);
- ``sync_requests`` / ``sync_messages``: sync answers per peer and in total per period;
  ``sync_answers``: bytes of sync answers built and not yet sent, per peer and in total;
  ``sync_pulls``: pulls started because of what a peer sent, per peer per period;
- ``cpu``: CPU seconds per second spent on what each peer sends (:mod:`ioa_p2p.node.net.cpu_meter`).

The other agents of this node's process (:class:`~ioa_p2p.node.net.cohosted.CoHosted`, ``[[agents]]``)
are no remote peers: trusted as the operator's, their work is the process's own (never charged, never
paced, no priority over strangers).

``GET /budgets`` on the control API shows what each holds and how often it refused or evicted.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import trio

from ioa_p2p.budget import TRUST_KNOWN, TRUST_PARTNER, TRUST_STRANGER, Ledger, RateBudget, WorkBudget
from ioa_p2p.config.limits import Limits
from ioa_p2p.errors import IoAError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.framing import READ_CHUNK, FramedStream


class LoopGauge(Protocol):
    """How busy the event loop is (:class:`ioa_p2p.node.net.cpu_meter.StepTimer`)."""

    @property
    def busy(self) -> float: ...


#: How long a peer's trust is remembered before the vouchers are asked again (seconds).
TRUST_TTL = 5.0
#: After a step of work for a trusted peer, how long strangers wait while the loop is congested
#: (seconds): long enough for the few round trips of a request (a stream's negotiation, a frame,
#: its answer) to find the loop free.
PRIORITY_WINDOW = 0.15
#: The event loop is congested when it ran tasks at least this share of the last window.
CONGESTED = 0.25
#: The longest one piece of a stranger's work (a read of its connection, its next message) waits for
#: trusted peers' work (seconds); after that it goes on, in its pool's budget. Trusted work that never
#: pauses for :data:`PRIORITY_WINDOW` (a node whose known peers keep it busy, as the agents of a loaded
#: process do) otherwise held a stranger back for good: measured (issue 26), the coordinator of the
#: 20-agent testnet test lacked the card of the one agent it did not know yet after 120 s, its
#: strangers having waited 851 times for its 18 known peers.
MAX_YIELD = 1.0
#: Strangers' inbound streams in protocol negotiation at once, node-wide: past it a new stream of a
#: stranger is reset before negotiation. Paced negotiations shared by a thousand streams at once
#: all outlast their timeouts (measured: 1,000 streams of 4 identities, none negotiated in 30 s on
#: a loaded machine); a few at a time finish.
STRANGER_NEGOTIATIONS = 64
_MAX_TRUST_CACHE = 10_000

#: ``voucher(peer) -> trust``: a service saying how much it trusts a peer (TRUST_* of ioa_p2p.budget)
Voucher = Callable[[PeerId], int]


class NodeBudgets:
    def __init__(self, limits: Limits, cohosted: CoHosted | None = None) -> None:
        self.limits = limits
        #: the agents of this node's process (None: it runs alone, or with nodes it does not know)
        self.cohosted = cohosted
        self.frames = self._ledger(
            "partial_frame_bytes", limits.partial_frame_bytes_total, limits.partial_frame_bytes_per_peer
        )
        self.unread = self._ledger("unread_bytes", limits.unread_bytes_total, limits.unread_bytes_per_peer)
        self.streams = self._ledger("streams", limits.streams_total, limits.streams_per_peer)
        self.inbound = self._ledger("inbound_streams", limits.inbound_streams_total, limits.streams_per_peer)
        self.orphans = self._ledger("pending_bytes", limits.pending_bytes_total, None)
        period = limits.sync_period
        self.sync_requests = RateBudget(
            "sync_requests",
            period=period,
            per_key=limits.sync_requests_per_peer,
            total=limits.sync_requests_total,
        )
        self.sync_messages = RateBudget(
            "sync_messages",
            period=period,
            per_key=limits.sync_messages_per_peer,
            total=limits.sync_messages_total,
        )
        self.sync_answers = self._ledger(
            "sync_answer_bytes", limits.sync_answer_bytes_total, limits.sync_answer_bytes_per_peer
        )
        self.sync_pulls = RateBudget("sync_pulls", period=period, per_key=limits.sync_pulls_per_peer)
        self.cpu = WorkBudget("cpu", per_key=limits.cpu_per_peer, pool=limits.cpu_pool)
        #: inbound streams py-libp2p refused before negotiation (caps, budgets); set by the patch
        self.streams_refused_early = 0
        self._vouchers: list[Voucher] = []
        self._trusted: dict[PeerId, int] = {}
        #: peers this node awaits an answer from (:meth:`expecting`), with how many requests
        self._awaited: dict[PeerId, int] = {}
        self._trust_cache: dict[PeerId, tuple[int, float]] = {}
        #: CPU and loop seconds noted by the step timer, not yet booked into ``cpu``
        self._cpu_due: dict[PeerId, tuple[float, float]] = {}
        #: the step timer of the node's event loop (its busy share), once the host is guarded
        self._loop: LoopGauge | None = None
        #: until when strangers yield to the work of trusted peers (while the loop is congested)
        self._trusted_until = -1.0
        #: how often a stranger waited for a trusted peer's work
        self.yielded = 0
        #: how often a connection's read was let go unpaid (``cpu_meter.READ_PACE_MAX``)
        self.read_grants = 0
        #: strangers' inbound streams in protocol negotiation now
        self.negotiating = 0

    def _ledger(self, name: str, total: int, per_peer: int | None) -> Ledger:
        reserve = int(total * self.limits.trusted_share)
        return Ledger(name, total=total, per_key=per_peer, reserve=reserve)

    # ------------------------------------------------------------------ trust

    def add_voucher(self, voucher: Voucher) -> None:
        """Let a service vouch for peers (chats: partners; discovery: peers with a known card)."""
        self._vouchers.append(voucher)
        self._trust_cache.clear()

    def trust_peers(self, peers: Any, trust: int = TRUST_PARTNER) -> None:
        """Peers the operator named (bootstrap peers, allowlists): trusted whatever the services say."""
        for peer in peers:
            self._trusted[peer] = max(trust, self._trusted.get(peer, TRUST_STRANGER))
        self._trust_cache.clear()

    @contextmanager
    def expecting(self, peer: PeerId) -> Iterator[None]:
        """While this block runs the node awaits an answer from ``peer`` (a DHT request of ours): the
        CPU its connection takes meanwhile is charged and paced as a known peer's (its own bucket and
        the known peers' pool, both in CPU time), not in the strangers' pool, so the answer we asked
        for is not paced as a stranger's work. The strangers' pool is charged in event-loop time,
        which a loaded machine inflates many times: at N = 50 processes and load 50, a node whose
        peers were all strangers paced the answers to its own lookups until its finds timed out
        (recall@5 0.06; 0.94 with its own pool at its maximum; docs/performance.md, "A late joiner
        at N = 50"). Only the CPU budget: for every other limit (negotiation slots, ledgers, the
        priority of trusted work) the peer stays what it is, since the peer decides how long we
        await it (up to our deadline)."""
        self._awaited[peer] = self._awaited.get(peer, 0) + 1
        try:
            yield
        finally:
            left = self._awaited.pop(peer, 1) - 1
            if left > 0:
                self._awaited[peer] = left

    def awaits(self, peer: PeerId) -> bool:
        """Whether a request of ours awaits ``peer``'s answer now (:meth:`expecting`)."""
        return peer in self._awaited

    def _cpu_trust(self, peer: PeerId, trust: int) -> int:
        """The trust the CPU budget charges ``peer``'s work at (:meth:`expecting`)."""
        return max(trust, TRUST_KNOWN) if peer in self._awaited else trust

    def is_cohosted(self, peer: PeerId) -> bool:
        """Whether ``peer`` is another agent of this node's process (:mod:`~ioa_p2p.node.net.cohosted`)."""
        return self.cohosted is not None and peer in self.cohosted

    def trust(self, peer: PeerId) -> int:
        """How much this node trusts ``peer`` (``TRUST_*`` of :mod:`ioa_p2p.budget`), remembered
        for :data:`TRUST_TTL` seconds. The other agents of its process are partners (the operator
        listed them)."""
        if self.is_cohosted(peer):
            return TRUST_PARTNER
        now = trio.current_time()
        cached = self._trust_cache.get(peer)
        if cached is not None and now - cached[1] < TRUST_TTL:
            return cached[0]
        level = self._trusted.get(peer, TRUST_STRANGER)
        for voucher in self._vouchers:
            if level >= TRUST_PARTNER:
                break
            try:
                level = max(level, voucher(peer))
            except IoAError:  # a service that cannot tell: no trust from it
                continue
        if len(self._trust_cache) >= _MAX_TRUST_CACHE:
            self._trust_cache.clear()
        self._trust_cache[peer] = (level, now)
        return level

    def trust_of(self, peer: str) -> int:
        """:meth:`trust` of a peer ID string (an ID that does not parse is a stranger)."""
        try:
            return self.trust(PeerId.from_string(peer))
        except IoAError:
            return TRUST_STRANGER

    # ------------------------------------------------------------------ streams and frames

    def framed(self, stream: Any, remote: PeerId) -> FramedStream:
        """A FramedStream over ``stream`` with the node's deadlines, charged to its frame budget and
        paced by its CPU budget."""
        hand_over = getattr(stream, "ioa_hand_over", None)
        if hand_over is not None:  # the inbound meter stops counting: the FramedStream counts now
            hand_over()
        return FramedStream(
            stream,
            remote,
            read_timeout=self.limits.read_timeout,
            frame_timeout=self.limits.frame_timeout,
            budget=self.frames,
            trust=self.trust(remote),
            pace=self.pace,
        )

    def count_refused_early(self, peer: str) -> None:
        self.streams_refused_early += 1

    def start_negotiation(self, trust: int) -> bool:
        """Whether a new inbound stream of a peer of ``trust`` takes one of the strangers'
        :data:`STRANGER_NEGOTIATIONS` slots (trusted peers' streams take none: False)."""
        if trust > TRUST_STRANGER:
            return False
        if self.negotiating >= STRANGER_NEGOTIATIONS:
            self.streams_refused_early += 1
            return False
        self.negotiating += 1
        return True

    def end_negotiation(self) -> None:
        self.negotiating = max(0, self.negotiating - 1)

    def admits(self, peer: str) -> bool:
        """Whether a new inbound stream of ``peer`` may start protocol negotiation: not while its
        partial-frame budget is full (less than one read chunk left, per peer or in what its trust
        may use of the total), since any frame it would announce there is refused anyway, after
        the cost of negotiating and reading it (unless it could displace a heavier or less trusted
        holder); not while it owes CPU time itself. (While its pool owes, its connection is not
        read: the streams it opens meanwhile wait in the kernel, they are not refused.)"""
        try:
            key = PeerId.from_string(peer)
        except IoAError:
            return False
        trust = self.trust(key)
        if self.frames.held_total and not self.frames.could_claim(key, READ_CHUNK, trust):
            return False
        self._book_cpu()
        return self.cpu.delay(key, self.now(), trust, pool=False) <= 0

    # ------------------------------------------------------------------ CPU

    def charge_cpu(self, peer: PeerId, seconds: float, loop_seconds: float | None = None) -> None:
        """Note ``seconds`` of CPU time spent for ``peer``, which held the event loop for
        ``loop_seconds`` (default: the same). Called by the step timer between task steps, where
        no service code may run: the charge is booked (trust looked up) at the next question
        about CPU (:meth:`owes`, :meth:`pace`, :meth:`admits`, :meth:`snapshot`). The work of another
        agent of the process is the process's own: not charged."""
        if self.is_cohosted(peer):
            return
        cpu, loop = self._cpu_due.get(peer, (0.0, 0.0))
        self._cpu_due[peer] = (cpu + seconds, loop + (seconds if loop_seconds is None else loop_seconds))

    def watch_loop(self, timer: LoopGauge) -> None:
        """Let strangers yield to trusted peers when ``timer`` (the event loop's) finds it congested."""
        self._loop = timer

    def _book_cpu(self) -> None:
        if not self._cpu_due:
            return
        due, self._cpu_due = self._cpu_due, {}
        now = self.now()
        for peer, (seconds, loop) in due.items():
            trust = self.trust(peer)
            self.cpu.charge(peer, seconds, now, self._cpu_trust(peer, trust), loop_seconds=loop)
            if trust > TRUST_STRANGER:
                self._trusted_until = now + PRIORITY_WINDOW

    def cpu_delay(self, peer: PeerId, *, may_yield: bool = True) -> float:
        """Seconds ``peer`` (or its pool) must wait before more of its work; 0: none. A stranger
        also waits (unless ``may_yield`` is false) while the event loop is congested and a trusted
        peer's work ran in the last :data:`PRIORITY_WINDOW` seconds: trusted peers' requests are
        served first."""
        if self.is_cohosted(peer):
            return 0.0
        self._book_cpu()
        now = self.now()
        trust = self.trust(peer)
        wait = self.cpu.delay(peer, now, self._cpu_trust(peer, trust))
        if trust == TRUST_STRANGER and wait <= 0 and may_yield:
            wait = self._yield_to_trusted(now)
        return wait

    def _yield_to_trusted(self, now: float) -> float:
        if self._loop is None or now >= self._trusted_until or self._loop.busy < CONGESTED:
            return 0.0
        self.yielded += 1
        return self._trusted_until - now

    def owes(self, peer: PeerId) -> bool:
        """Whether ``peer`` (or its pool) owes CPU time now."""
        return self.cpu_delay(peer) > 0

    async def pace(self, peer: PeerId) -> None:
        """Wait while ``peer`` owes CPU time (its own, or its pool's): the next piece of its work
        starts only when it is paid back. Waits for trusted peers' work end after :data:`MAX_YIELD`
        seconds (what it owes itself, or its pool, is still paid)."""
        await self.pace_at_most(peer, math.inf)

    async def pace_at_most(self, peer: PeerId, at_most: float) -> bool:
        """:meth:`pace`, for ``at_most`` seconds: True when ``peer`` owes nothing any more, False when
        the bound ended the wait (it still owes)."""
        start = self.now()
        while True:
            now = self.now()
            wait = self.cpu_delay(peer, may_yield=now - start < MAX_YIELD)
            if wait <= 0:
                return True
            left = start + at_most - now
            if left <= 0:
                return False
            self.cpu.paced += 1
            # spread the wake-ups: a pool's members paced together would all resume in one batch
            # of the event loop and hold it for as long as their work takes
            await trio.sleep(min(min(wait, 1.0) * (1.0 + random.random()), left))

    @staticmethod
    def now() -> float:
        return trio.current_time()

    def snapshot(self) -> dict[str, Any]:
        self._book_cpu()
        streams = self.streams.snapshot()
        streams["refused_before_negotiation"] = self.streams_refused_early
        return {
            "partial_frame_bytes": self.frames.snapshot(),
            "unread_bytes": self.unread.snapshot(),
            "streams": streams,
            "inbound_streams": self.inbound.snapshot(),
            "pending_bytes": self.orphans.snapshot(),
            "sync_requests": self.sync_requests.snapshot(),
            "sync_messages": self.sync_messages.snapshot(),
            "sync_answer_bytes": self.sync_answers.snapshot(),
            "sync_pulls": self.sync_pulls.snapshot(),
            "cpu": {
                **self.cpu.snapshot(),
                "yielded_to_trusted": self.yielded,
                "read_grants": self.read_grants,
                "cohosted_agents": len(self.cohosted) if self.cohosted is not None else 1,
                "loop_busy": round(self._loop.busy, 3) if self._loop is not None else None,
            },
            "limits": _limits_view(self.limits),
        }


def _limits_view(limits: Limits) -> dict[str, Any]:
    return {name: getattr(limits, name) for name in limits.__dataclass_fields__}


__all__ = [
    "CONGESTED",
    "MAX_YIELD",
    "PRIORITY_WINDOW",
    "STRANGER_NEGOTIATIONS",
    "TRUST_TTL",
    "LoopGauge",
    "NodeBudgets",
    "Voucher",
]
