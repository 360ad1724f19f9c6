"""Our circuit relay v2 HOP server (``/libp2p/circuit/relay/0.2.0/hop``), with limits that hold.

Why not py-libp2p 0.8.1's ``CircuitV2Protocol`` hop: it takes the reserving peer from the RESERVE message's
optional ``peer`` field (one connection can reserve any number of slots in other peers' names), keys its
active circuits by peer (a second circuit overwrites the first's bookkeeping), checks ``duration`` only when
data flows (an idle circuit outlives its limit for ever), and has no per-IP or total limits. This server
speaks the same wire protocol (the spec's ``HopMessage`` / ``StopMessage``, uvarint-delimited protobuf, the
library's generated classes) with the accounting of :class:`~ioa_p2p.node.net.relay_limits.RelayLedger`:

- ``RESERVE``: reserves for the connection's own peer (``peer`` in the message is ignored), refused over a
  relayed connection (spec); the answer carries the reservation (expiry, the relay's advertised addresses,
  a signed voucher) and the per-circuit limit;
- ``CONNECT``: the target must hold a reservation and be connected; the relay opens ``STOP`` to it, and once
  the target answers OK, answers OK and pipes bytes both ways until either side closes, the circuit's
  ``duration`` ends or its ``data`` is used up (then both streams are reset), never faster than the relay's
  total ``max_rate``.

Every read and the whole exchange before piping are bounded by :data:`EXCHANGE_TIMEOUT`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import trio
from libp2p.peer.envelope import Envelope, make_unsigned
from libp2p.peer.id import ID
from libp2p.relay.circuit_v2.pb.circuit_pb2 import (
    HopMessage,
    Limit,
    Reservation,
    Status,
    StopMessage,
    Voucher,
)
from libp2p.relay.circuit_v2.pb.circuit_pb2 import PeerId as PbPeerId
from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID as HOP_PROTOCOL_ID
from libp2p.relay.circuit_v2.protocol import STOP_PROTOCOL_ID
from libp2p.relay.circuit_v2.utils import read_delimited_msg, write_delimited_msg
from multiaddr import Multiaddr

from ioa_p2p.node.net import relay_limits as rl
from ioa_p2p.node.net.relay_limits import Circuit, HopLimits, Refused, RelayLedger

log = logging.getLogger("ioa_p2p.relay.hop")

#: Bound on reading a request, opening STOP and hearing the target's answer.
EXCHANGE_TIMEOUT = 10.0
PIPE_CHUNK = 64 * 1024
RSVP_DOMAIN = "libp2p-relay-rsvp"
VOUCHER_PAYLOAD_TYPE = bytes([0x03, 0x02])


def is_relayed(stream: Any) -> bool:
    """The stream runs over a relayed connection (fails closed: unknown counts as relayed)."""
    try:
        addrs = stream.muxed_conn.get_transport_addresses() or []
    except Exception:
        return True
    return not addrs or any("/p2p-circuit" in str(a) for a in addrs)


def remote_ip(stream: Any) -> str:
    try:
        remote = stream.muxed_conn.get_remote_address()
    except Exception:
        return "?"
    return str(remote[0]) if remote else "?"


class HopServer:
    """Serve HOP on ``host`` with ``limits``; ``advertised()`` gives the relay's own addresses."""

    def __init__(self, host: Any, limits: HopLimits, advertised: Callable[[], list[str]]) -> None:
        self.host = host
        self.ledger = RelayLedger(limits)
        self._advertised = advertised

    def register(self) -> None:
        self.host.set_stream_handler(HOP_PROTOCOL_ID, self.handle)

    def unregister(self) -> None:
        self.host.remove_stream_handler(HOP_PROTOCOL_ID)

    def status(self) -> dict[str, object]:
        self._sweep()
        return self.ledger.snapshot(time.time())

    async def handle(self, stream: Any) -> None:
        peer = stream.muxed_conn.peer_id
        try:
            if is_relayed(stream):
                self.ledger.refusals["over_relayed_connection"] += 1
                await self._status(stream, rl.PERMISSION_DENIED)
                return
            with trio.fail_after(EXCHANGE_TIMEOUT):
                msg = await read_delimited_msg(stream, HopMessage)
            if msg.type == HopMessage.RESERVE:
                await self._reserve(stream, peer)
            elif msg.type == HopMessage.CONNECT:
                await self._connect(stream, peer, msg)
            else:
                await self._status(stream, rl.UNEXPECTED_MESSAGE)
        except trio.TooSlowError:
            await _reset(stream)
        finally:
            await _close(stream)

    # ------------------------------------------------------------------ reserve

    async def _reserve(self, stream: Any, peer: ID) -> None:
        self._sweep()
        now = time.time()
        try:
            expires = self.ledger.reserve(str(peer), remote_ip(stream), now)
        except Refused as refused:
            log.info("reservation of %s refused: %s", peer, refused.reason)
            await self._status(stream, refused.status)
            return
        reservation = Reservation(
            expire=int(expires), addrs=self._relay_addrs(), voucher=self._voucher(peer, expires)
        )
        reply = HopMessage(
            type=HopMessage.STATUS,
            status=Status.ValueType(rl.OK),
            reservation=reservation,
            limit=self._limit(),
        )
        with trio.fail_after(EXCHANGE_TIMEOUT):
            await write_delimited_msg(stream, reply)

    def _relay_addrs(self) -> list[bytes]:
        out = []
        own = f"/p2p/{self.host.get_id()}"
        for text in self._advertised():
            if "/p2p-circuit" in text:
                continue
            try:
                out.append(Multiaddr(text if text.endswith(own) else text + own).to_bytes())
            except Exception:  # an unparsable advertised address: leave it out
                continue
        return out

    def _voucher(self, peer: ID, expires: float) -> bytes:
        try:
            payload = Voucher(
                relay=self.host.get_id().to_bytes(), peer=peer.to_bytes(), expiration=int(expires)
            ).SerializeToString()
            key = self.host.get_private_key()
            signature = key.sign(make_unsigned(RSVP_DOMAIN, VOUCHER_PAYLOAD_TYPE, payload))
            envelope = Envelope(key.get_public_key(), VOUCHER_PAYLOAD_TYPE, payload, signature)
            return bytes(envelope.marshal_envelope())
        except Exception as exc:  # vouchers are advisory (spec): a relay may omit one
            log.debug("cannot sign a reservation voucher: %s", exc)
            return b""

    def _sweep(self) -> None:
        """Reservations last only while their holder stays connected (spec)."""
        connections = self.host.get_network().connections
        for peer in list(self.ledger.reservations):
            try:
                held = bool(connections.get(ID.from_base58(peer)))
            except Exception:
                held = False
            if not held:
                self.ledger.drop_reservation(peer)

    # ------------------------------------------------------------------ connect

    async def _connect(self, stream: Any, source: ID, msg: Any) -> None:
        try:
            target = ID(msg.peer.id)
        except Exception:
            await self._status(stream, rl.MALFORMED_MESSAGE)
            return
        self._sweep()
        try:
            circuit = self.ledger.open_circuit(str(source), remote_ip(stream), str(target), time.time())
        except Refused as refused:
            log.info("circuit %s -> %s refused: %s", source, target, refused.reason)
            await self._status(stream, refused.status)
            return
        cut = ""
        try:
            dst = await self._open_stop(source, target)
            if dst is None:
                await self._status(stream, rl.CONNECTION_FAILED)
                return
            try:
                with trio.fail_after(EXCHANGE_TIMEOUT):
                    await write_delimited_msg(
                        stream,
                        HopMessage(
                            type=HopMessage.STATUS, status=Status.ValueType(rl.OK), limit=self._limit()
                        ),
                    )
                cut = await self._pipe(circuit, stream, dst)
            finally:
                await (_reset(dst) if cut else _close(dst))
            if cut:
                await _reset(stream)
        finally:
            self.ledger.close_circuit(circuit, "" if cut == "reset" else cut)

    async def _open_stop(self, source: ID, target: ID) -> Any:
        """STOP to ``target`` over its existing connection; the stream once it accepted, else None."""
        dst = None
        try:
            with trio.fail_after(EXCHANGE_TIMEOUT):
                dst = await self.host.new_stream(target, [STOP_PROTOCOL_ID])
                request = StopMessage(
                    type=StopMessage.CONNECT, peer=PbPeerId(id=source.to_bytes()), limit=self._limit()
                )
                await write_delimited_msg(dst, request)
                reply = await read_delimited_msg(dst, StopMessage)
        except Exception as exc:  # dial, negotiation or stream errors; a timeout
            log.info("relay could not reach %s: %s", target, exc or type(exc).__name__)
            if dst is not None:
                await _reset(dst)
            return None
        if reply.type != StopMessage.STATUS or reply.status != rl.OK:
            await _reset(dst)
            return None
        return dst

    async def _pipe(self, circuit: Circuit, a: Any, b: Any) -> str:
        """Copy bytes both ways until both sides closed (""), one side reset, or a limit cut the circuit
        (its name: ``duration`` or ``bytes``). An end of stream is passed on as a half-close."""
        limits = self.ledger.limits
        budget = [limits.circuit_bytes if limits.circuit_bytes > 0 else -1]
        cut = [""]
        with trio.CancelScope() as scope:
            if limits.circuit_duration > 0:
                scope.deadline = trio.current_time() + limits.circuit_duration
            async with trio.open_nursery() as nursery:
                for src, dst in ((a, b), (b, a)):
                    nursery.start_soon(self._copy, src, dst, budget, cut, nursery.cancel_scope)
        if scope.cancelled_caught and not cut[0]:
            cut[0] = "duration"
        return cut[0]

    async def _copy(
        self, src: Any, dst: Any, budget: list[int], cut: list[str], done: trio.CancelScope
    ) -> None:
        try:
            while True:
                data = await src.read(PIPE_CHUNK)
                if not data:
                    await dst.close()  # half-close; the other direction goes on
                    return
                if budget[0] >= 0:
                    if len(data) > budget[0]:
                        cut[0] = "bytes"
                        done.cancel()
                        return
                    budget[0] -= len(data)
                await self._throttle(len(data))
                await dst.write(data)
                self.ledger.count_bytes(len(data))
        except Exception as exc:  # either side reset: the circuit ends
            log.debug("relayed stream ended: %s", exc or type(exc).__name__)
            cut[0] = cut[0] or "reset"
            done.cancel()

    async def _throttle(self, n: int) -> None:
        while n > 0:
            granted, wait = self.ledger.grant_bytes(n, time.monotonic())
            n -= granted
            if n > 0:
                await trio.sleep(wait)

    # ------------------------------------------------------------------ helpers

    def _limit(self) -> Limit:
        limits = self.ledger.limits
        return Limit(duration=max(0, limits.circuit_duration), data=max(0, limits.circuit_bytes))

    async def _status(self, stream: Any, status: int) -> None:
        try:
            with trio.fail_after(EXCHANGE_TIMEOUT):
                await write_delimited_msg(
                    stream, HopMessage(type=HopMessage.STATUS, status=Status.ValueType(status))
                )
        except Exception as exc:  # the peer went away: nothing to tell it
            log.debug("cannot send relay status %d: %s", status, exc)


async def _close(stream: Any) -> None:
    with trio.CancelScope(shield=True), trio.move_on_after(2):
        try:
            await stream.close()
        except Exception as exc:  # already reset
            log.debug("closing relay stream: %s", exc)


async def _reset(stream: Any) -> None:
    with trio.CancelScope(shield=True), trio.move_on_after(2):
        try:
            await stream.reset()
        except Exception as exc:  # already gone
            log.debug("resetting relay stream: %s", exc)


__all__ = ["EXCHANGE_TIMEOUT", "HopServer", "is_relayed", "remote_ip"]
