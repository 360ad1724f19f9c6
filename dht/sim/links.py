"""The simulated network: link latency, jitter, loss (as TCP sees it), connection set-up and message counts.

What a request costs (:class:`LinkModel`, one-way times in seconds):

- every one-way crossing of a link takes ``latency`` plus a uniform ``jitter`` in ``[0, jitter)``;
  libp2p runs over TCP, so a lost packet is retransmitted, not lost: with probability ``loss`` a crossing
  takes ``rto`` longer (Linux's minimum retransmission timeout);
- a request on an open connection takes ``request_rtts`` round trips. The node opens a new stream per
  request and sends the multistream-select negotiation with the request (lazy multistream-select,
  ``ioa_p2p.node.net.lazy_select``), so 1; py-libp2p 0.8.1's own ``new_stream`` waits for two sequential
  exchanges (header, then protocol) before the request, so 3 (``request_rtts=3`` models the node before
  it negotiated lazily);
- a request to a peer without an open connection first takes ``dial_rtts`` more: py-libp2p 0.8.1 waits
  for TCP, multistream for the security protocol (2), Noise XX, multistream for the muxer (2): 5; the
  node's dialer sends its single security protocol with Noise's first message and its muxer's lines
  with Noise's last (``ioa_p2p.node.net.lazy_upgrade``), and every request the simulator models is a KAD
  exchange (lookups, puts, provides, page and card fetches: ``ioa_p2p.node.net.kad_io.exchange``), whose
  dial does not wait for the muxer's answer: the request rides with Noise's last message
  (``pipelined_dials``). So TCP, Noise's first exchange, then the request's own round trip: 2
  (``dial_rtts=3`` models the node before 2026-11-27 21:30 UTC, when it waited for the muxer's answer).
  Measured through a delay line (``bench/bench_dial.py``, relay without the TCP handshake): dial and
  request 2.0 round trips pipelined, 3.7 waiting for the muxer's answer, 1.1 on an open connection;
- the server spends ``service`` seconds per request (CPU, the same for every request);
- bandwidth is not modelled (a KAD message is a few hundred bytes, a card 1.5 kB).

A node keeps at most ``max_connections`` open connections (least recently used closed first); py-libp2p
itself closes none, so the bound stands in for a connection manager or the file-descriptor limit.

A request to a peer that is offline (or goes offline before it serves) gets no answer: the caller's own
timers (hedging, the per-peer timeout) decide what happens, as on the real network.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from ioa_p2p.dht.sim.events import EventLoop
from ioa_p2p.dht.sim.peer import SimNode

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class LinkModel:
    """The cost of talking to a peer (see the module docstring)."""

    latency: float = 0.050
    jitter: float = 0.010
    loss: float = 0.0
    rto: float = 0.200
    request_rtts: int = 1
    dial_rtts: int = 2
    service: float = 0.001
    max_connections: int = 1024

    def __post_init__(self) -> None:
        if self.latency < 0 or self.jitter < 0 or not 0 <= self.loss < 1 or self.rto < 0:
            raise ValueError("link latency, jitter and rto must be >= 0 and loss in [0, 1)")
        if self.request_rtts < 1 or self.dial_rtts < 0 or self.max_connections < 1:
            raise ValueError("a request takes >= 1 round trip; dial_rtts >= 0; max_connections >= 1")


class Network:
    """Requests and one-way messages between :class:`SimNode` objects on an :class:`EventLoop`."""

    def __init__(self, loop: EventLoop, rng: random.Random, model: LinkModel) -> None:
        self.loop, self.rng, self.model = loop, rng, model
        self.dials = 0
        self.failed_dials = 0
        #: when the handshake of the last :meth:`request`'s dial is through (the listener answered Noise's
        #: first message; ``inf``: offline, nothing will answer), or when it was sent (no dial)
        self.reach_at = 0.0
        #: connections closed past ``max_connections``, and who is told of each (``World.closed``; None:
        #: the other end keeps it, the simulator before 2026-11-29)
        self.dropped = 0
        self.on_closed: Callable[[SimNode, int], Any] | None = None

    def crossing(self) -> float:
        """The time of one one-way crossing of a link."""
        m = self.model
        extra = m.rto if m.loss and self.rng.random() < m.loss else 0.0
        return m.latency + m.jitter * self.rng.random() + extra

    def crossings(self, count: int) -> float:
        """The time of ``count`` one-way crossings (the same draws as ``count`` calls of :meth:`crossing`)."""
        m = self.model
        rand = self.rng.random
        total = m.latency * count
        jitter, loss, rto = m.jitter, m.loss, m.rto
        for _ in range(count):
            if loss and rand() < loss:
                total += rto
            total += jitter * rand()
        return total

    def connect(self, a: SimNode, b: SimNode) -> None:
        """Record an open connection between ``a`` and ``b`` on both sides (LRU, bounded)."""
        self.connect_many(a, (b,))

    def connect_many(self, a: SimNode, others: Iterable[SimNode]) -> None:
        """:meth:`connect` ``a`` to each of ``others`` in turn."""
        limit, mine, me = self.model.max_connections, a.conns, a.index
        for b in others:
            theirs, them = b.conns, b.index
            mine.pop(them, None)
            mine[them] = None
            if len(mine) > limit:
                self._drop(a, next(iter(mine)))
            theirs.pop(me, None)
            theirs[me] = None
            if len(theirs) > limit:
                self._drop(b, next(iter(theirs)))

    def _drop(self, node: SimNode, index: int) -> None:
        """``node`` closes its least recently used connection (to node ``index``); :attr:`on_closed` is
        told (``World.closed``: the other end loses it too, and its remote closed it)."""
        del node.conns[index]
        self.dropped += 1
        if self.on_closed is not None:
            self.on_closed(node, index)

    def request(
        self,
        src: SimNode,
        dst: SimNode,
        kind: str,
        count: int,
        serve: Callable[[], R | None],
        answer: Callable[[R], Any],
        lost: Callable[[], Any] | None = None,
    ) -> float:
        """``src`` sends ``count`` requests of ``kind`` to ``dst`` on one stream; ``dst`` runs ``serve()``
        when they arrive (if it is online), and ``answer(result)`` runs at ``src`` when the replies are back
        (if ``src`` is still in the same session and ``serve`` returned something).

        Returns when the answer will be back if ``dst`` stays online and answers (``inf`` when it is
        offline now; :attr:`reach_at`: when a dial's handshake is through): the link times are drawn
        now, so a caller whose timers would fire only after the
        answer need not schedule them. When ``dst`` turns out not to answer (it went offline before the
        request arrived, or ``serve`` returned ``None``), ``lost()`` runs then, for the caller to
        schedule the timers it skipped."""
        m = self.model
        loop = self.loop
        handshake = 0.0
        if dst.index not in src.conns:
            handshake = self.crossings(2 * m.dial_rtts)
            self.dials += 1
            if not dst.online:
                self.failed_dials += 1
        self.reach_at = loop.now + handshake if dst.online else math.inf
        src.count_sent(kind, count)
        there = handshake + self.crossings(2 * m.request_rtts - 1)
        back = m.service + self.crossing()
        loop.after(there, self._serve, src, src.session, dst, kind, count, serve, answer, back, lost)
        return loop.now + there + back if dst.online else math.inf

    def _serve(
        self,
        src: SimNode,
        session: int,
        dst: SimNode,
        kind: str,
        count: int,
        serve: Callable[[], R | None],
        answer: Callable[[R], Any],
        back: float,
        lost: Callable[[], Any] | None,
    ) -> None:
        result = None
        if dst.online:
            self.connect(src, dst)
            dst.count_received(kind, count)
            result = serve()
        if result is None:
            if lost is not None:
                lost()
            return
        dst.count_sent(kind + " reply", count)
        self.loop.after(back, self._answer, src, session, kind, count, result, answer, lost)

    def _answer(
        self,
        src: SimNode,
        session: int,
        kind: str,
        count: int,
        result: Any,
        answer: Callable[[Any], Any],
        lost: Callable[[], Any] | None,
    ) -> None:
        if src.online and src.session == session:
            src.count_received(kind + " reply", count)
            answer(result)
        elif lost is not None:
            lost()

    def send(self, src: SimNode, dst: SimNode, kind: str, deliver: Callable[[], Any]) -> None:
        """A one-way message on an open connection (gossip): ``deliver()`` runs at ``dst`` if it is online."""
        src.count_sent(kind, 1)
        self.loop.after(self.crossing(), self._deliver, dst, kind, deliver)

    def _deliver(self, dst: SimNode, kind: str, deliver: Callable[[], Any]) -> None:
        if dst.online:
            dst.count_received(kind, 1)
            deliver()


__all__ = ["LinkModel", "Network"]
