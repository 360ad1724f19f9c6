"""Metering what py-libp2p reads on inbound streams: protocol negotiation and its own protocols.

py-libp2p reads length-prefixed messages (multistream-select negotiation, identify, Kademlia,
GossipSub, circuit relay) into memory until each is complete, with its own size limit per message
but none for a negotiation line, and no deadline: a peer announcing a 50 MB protocol name and
pushing it was read into memory until the 30 s negotiation timeout (16 identities took a node to
733 MB, issue 20). A :class:`MessageMeter` replaces the ``read`` of each inbound stream and parses
the same varint length prefixes as the bytes go by:

- each message's announced length is held in the node's partial-frame budget (``frames``: per
  peer, in total, by trust; :class:`~ioa_p2p.node.net.budgets.NodeBudgets`) until its last byte
  was read; a message the budget cannot hold is refused from its prefix (:class:`OverBudget`);
- a negotiation line (before a protocol is chosen) may announce at most
  :data:`MAX_NEGOTIATION_LINE` bytes (protocol IDs are short);
- a message must be complete ``frame_timeout`` seconds after its first byte (:class:`IoATimeout`);
- each read first waits while the peer owes CPU time (``NodeBudgets.pace``).

The read raising ends the stream: the contained stream handler resets it
(``libp2p_patches.contain_inbound_streams``). When one of our ``/ioa/...`` handlers takes the
stream, :meth:`NodeBudgets.framed` hands it over (:meth:`MessageMeter.hand_over`): its
FramedStream holds its frames in the same budget. Raw protocols (ping) are not parsed.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.budget import TRUST_STRANGER, Claim
from ioa_p2p.errors import IoATimeout, OverBudget, ProtocolViolation
from ioa_p2p.identity import PeerId

if TYPE_CHECKING:
    from ioa_p2p.node.net.budgets import NodeBudgets

#: Bytes a multistream-select line may announce (a protocol ID and a newline).
MAX_NEGOTIATION_LINE = 1024
#: Protocols whose bytes are not varint-prefixed messages (not parsed, not held).
RAW_PROTOCOLS = frozenset({"/ipfs/ping/1.0.0"})
#: Protocols that open with one varint-prefixed message and then carry raw bytes (circuit relay v2:
#: after the handshake a hop or stop stream pipes a relayed connection, bounded by the relay's own
#: per-circuit limits): only their first message is metered.
HANDSHAKE_PROTOCOLS = frozenset({"/libp2p/circuit/relay/0.2.0/hop", "/libp2p/circuit/relay/0.2.0/stop"})
_MAX_PREFIX_SHIFT = 35  # a varint of 5 bytes announces up to 32 GiB: refused long before


class MessageMeter:
    """The metered ``read`` of one inbound stream of ``peer`` (see the module docstring)."""

    def __init__(self, stream: Any, peer: PeerId, budgets: NodeBudgets) -> None:
        self._stream = stream
        self._upstream: Callable[[int | None], Awaitable[bytes]] = stream.read
        self.peer = peer
        self.budgets = budgets
        self.trust = budgets.trust(peer)
        self.active = True
        self._value = 0
        self._shift = 0
        #: bytes left of the body of the current message (0: a length prefix comes next)
        self._left = 0
        self._claim: Claim | None = None
        self._started: float | None = None
        self._evicted = False
        self._scope: trio.CancelScope | None = None
        #: this stream holds one of the strangers' negotiation slots (NodeBudgets.start_negotiation)
        self._negotiating = False

    def start_negotiation(self) -> bool:
        """Take a negotiation slot (strangers share a few, node-wide); False: refuse the stream."""
        self._negotiating = self.budgets.start_negotiation(self.trust)
        return self._negotiating or self.trust > TRUST_STRANGER

    def _negotiated(self) -> None:
        if self._negotiating:
            self._negotiating = False
            self.budgets.end_negotiation()

    def finish(self) -> None:
        """The stream ended: give back what it held."""
        self._negotiated()
        self.release()

    def install(self) -> None:
        """Replace the stream's ``read`` (py-libp2p and its handlers read through it)."""
        self._stream.read = self.read
        self._stream.ioa_hand_over = self.hand_over

    def hand_over(self) -> None:
        """One of our handlers reads the stream from now on (it holds its frames itself)."""
        self.active = False
        self._negotiated()
        self.release()

    def release(self) -> None:
        claim, self._claim = self._claim, None
        if claim is not None:
            self.budgets.frames.release(claim)

    async def read(self, n: int | None = None) -> bytes:
        if not self.active:
            return await self._upstream(n)
        protocol = self._stream.get_protocol()
        if protocol and self._negotiating:
            self._negotiated()
        if protocol in RAW_PROTOCOLS:
            self.hand_over()
            return await self._upstream(n)
        await self.budgets.pace(self.peer)
        try:
            data = await self._read_within_deadline(n)
            self._feed(data)
        except BaseException:
            self.release()
            raise
        return data

    async def _read_within_deadline(self, n: int | None) -> bytes:
        if self._evicted:
            raise self._eviction_error()
        timeout = self.budgets.limits.frame_timeout
        deadline = math.inf if self._started is None else self._started + timeout
        with trio.CancelScope(deadline=deadline) as scope:
            self._scope = scope
            try:
                return bytes(await self._upstream(n))
            finally:
                self._scope = None
        if self._evicted:
            raise self._eviction_error()
        if self._started is not None and trio.current_time() >= self._started + timeout:
            raise IoATimeout(
                f"{self.peer} did not complete a message within {timeout:.1f} s on {self._where()}"
            )
        return b""  # pragma: no cover - only our own scope is ever cancelled

    def _feed(self, data: bytes) -> None:
        i, size = 0, len(data)
        while i < size:
            if self._left:
                take = min(self._left, size - i)
                i += take
                self._left -= take
                if not self._left:
                    self._message_done()
                continue
            byte = data[i]
            i += 1
            if self._started is None:
                self._started = trio.current_time()
            self._value |= (byte & 0x7F) << self._shift
            self._shift += 7
            if byte & 0x80:
                if self._shift >= _MAX_PREFIX_SHIFT:
                    raise ProtocolViolation(f"{self.peer} sent an over-long length prefix on {self._where()}")
                continue
            length, self._value, self._shift = self._value, 0, 0
            self._hold(length)
            self._left = length
            if not length:
                self._message_done()

    def _hold(self, length: int) -> None:
        if self._stream.get_protocol() is None and length > MAX_NEGOTIATION_LINE:
            raise OverBudget(
                f"{self.peer} announced a protocol negotiation line of {length} bytes "
                f"(at most {MAX_NEGOTIATION_LINE}); stream reset"
            )
        frames = self.budgets.frames
        self._claim = frames.try_claim(self.peer, length, self._on_evicted, self.trust)
        if self._claim is None:
            raise OverBudget(
                f"{self.peer} announced a message of {length} bytes on {self._where()}, more than the "
                f"partial-frame budget has left for it ({frames.room(self.peer, self.trust)} bytes); "
                "stream reset"
            )

    def _message_done(self) -> None:
        self.release()
        self._started = None
        if self._stream.get_protocol() in HANDSHAKE_PROTOCOLS:
            self.active = False  # what follows the handshake is a relayed connection's raw bytes

    def _on_evicted(self) -> None:
        self._claim = None
        self._evicted = True
        if self._scope is not None:
            self._scope.cancel()

    def _eviction_error(self) -> OverBudget:
        return OverBudget(
            f"the partial message of {self.peer} on {self._where()} was evicted: the node's "
            "partial-frame budget was full and this peer was the least trusted, heaviest holder"
        )

    def _where(self) -> str:
        return str(self._stream.get_protocol() or "protocol negotiation")


__all__ = ["HANDSHAKE_PROTOCOLS", "MAX_NEGOTIATION_LINE", "RAW_PROTOCOLS", "MessageMeter"]
