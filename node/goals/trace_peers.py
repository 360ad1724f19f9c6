"""Which members accept the optional ``trace`` key in conversation messages (docs/protocol.md §10.11).

A node of a version that reads the key serves the protocol :data:`TRACE_FEATURE`: a feature flag whose
handler closes any stream at once. A node of an earlier version serves no such protocol, and its decoder
refuses a ``conv.start`` or a task turn that carries the key. So before a traced sender puts its
``traceparent`` into one of them, :meth:`TracePeers.context_for` asks every other member of the round
whether it serves the flag (a multistream negotiation, answered by the member's libp2p host itself: one
round trip, all members at once, within :data:`PROBE_TIMEOUT`), and leaves the key out unless all do. The
answers are remembered (at most :data:`MAX_REMEMBERED` peers, for :data:`REMEMBER_FOR` seconds), so a
round's task turns ask nobody again. With tracing off nothing is asked and nothing is sent.

A member that cannot be asked now (not reachable, or no answer in time) counts as one that does not
accept, for this message only: it goes out without the key (its receivers' spans then start traces of
their own); interoperation never depends on a trace. Only a connected member that refuses the protocol is
remembered as one that does not read the key.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from contextlib import suppress

import trio

from ioa_p2p.errors import IoAError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.ports import NodePort

log = logging.getLogger("ioa_p2p.goals")

#: The feature flag of the ``trace`` key (a protocol ID served by nodes that read the key).
TRACE_FEATURE = "/ioa/conv/trace/1.0.0"
#: Seconds the probes of one message wait, all members together.
PROBE_TIMEOUT = 3.0
#: Peers whose answer is remembered, and for how long (seconds; a peer may be upgraded or replaced).
MAX_REMEMBERED = 1024
REMEMBER_FOR = 600.0


class TracePeers:
    """Serves the feature flag and remembers which peers serve it (see the module docstring)."""

    def __init__(self, node: NodePort) -> None:
        self.node = node
        self.known: dict[PeerId, tuple[bool, float]] = {}

    def serve(self) -> None:
        self.node.set_stream_handler(TRACE_FEATURE, _answer)

    async def context_for(self, traceparent: str, members: Iterable[str]) -> str:
        """``traceparent`` when every member but this node accepts the ``trace`` key, else ``""``."""
        if not traceparent:
            return ""
        peers = []
        for member in dict.fromkeys(members):
            if member == str(self.node.peer_id):
                continue
            try:
                peers.append(PeerId.from_string(member))
            except IoAError:  # not a peer ID: nobody to ask
                return ""
        return traceparent if await self.all_accept(peers) else ""

    async def all_accept(self, peers: list[PeerId]) -> bool:
        now = trio.current_time()
        unknown = [p for p in peers if self._remembered(p, now) is None]
        if unknown:
            answers: dict[PeerId, bool | None] = {}

            async def probe(peer: PeerId) -> None:
                answers[peer] = await self._probe(peer)

            with trio.move_on_after(PROBE_TIMEOUT):
                async with trio.open_nursery() as nursery:
                    for peer in unknown:
                        nursery.start_soon(probe, peer)
            for peer in unknown:
                self._remember(peer, answers.get(peer), now)
        return all(self._remembered(p, now) for p in peers)

    async def _probe(self, peer: PeerId) -> bool | None:
        """True: it serves the flag; False: connected, it refused the protocol (an earlier version);
        None: it could not be asked now (not reachable)."""
        try:
            stream = await self.node.open_stream(peer, TRACE_FEATURE)
        except IoAError as exc:
            log.debug("peer %s: no trace context (%s)", str(peer)[-8:], exc)
            return False if self.node.is_connected(peer) else None
        with suppress(IoAError):
            await stream.close()
        return True

    def _remembered(self, peer: PeerId, now: float) -> bool | None:
        found = self.known.get(peer)
        if found is None or now - found[1] > REMEMBER_FOR:
            return None
        return found[0]

    def _remember(self, peer: PeerId, accepts: bool | None, now: float) -> None:
        if accepts is None:  # no answer (in time): not now, but ask again next time
            self.known.pop(peer, None)
            return
        if peer not in self.known and len(self.known) >= MAX_REMEMBERED:
            self.known.pop(next(iter(self.known)))
        self.known[peer] = (accepts, now)


async def _answer(stream: FramedStream) -> None:
    """The flag's handler: nothing to say (the node closes the stream when it returns)."""
    return None


__all__ = ["MAX_REMEMBERED", "PROBE_TIMEOUT", "REMEMBER_FOR", "TRACE_FEATURE", "TracePeers"]
