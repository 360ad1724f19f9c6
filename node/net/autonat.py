"""AutoNAT v1 (``/libp2p/autonat/1.0.0``): peers dial us back to tell whether we are reachable.

The wire protocol and the request checks are py-libp2p 0.8.1's ``AutoNATService`` (spec messages; only
addresses with the IP the server sees the requester at are dialed; never over a relayed connection). Its
dial-back is broken: it calls ``host.connect``, which returns the connection the request itself arrived
on, so every requester is told it is reachable. :class:`AutoNATServer` replaces the dial-back with a fresh
connection to the address (:func:`~ioa_p2p.node.net.libp2p_patches.probe_address`: TCP, then the Noise
handshake proving the requester's identity, then closed; it never joins the swarm) and adds what a public
service needs:

- it dials back only requesters it sees at a **public** IP (a peer on our LAN or machine learns nothing
  about the internet from us) — :data:`DIALBACK_SCOPES` — and never one at an IP of this machine (a
  dial-back from a machine to itself proves nothing);
- at most :data:`MAX_ADDRS` addresses per request, each bounded by :data:`PROBE_TIMEOUT`, the whole
  request by :data:`REQUEST_TIMEOUT`; at most :data:`MAX_CONCURRENT` dial-backs at once in total and one
  per peer; at most :data:`REQUESTS_PER_MINUTE` requests from one IP address (the rest are answered
  ``E_DIAL_REFUSED``): the service cannot be turned into a port scanner or an amplifier.

The client side, :func:`ask_dialback`, names the addresses to try and returns the server's status.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import trio
from libp2p.host.autonat.autonat import AUTONAT_PROTOCOL_ID, AutoNATService
from libp2p.host.autonat.pb.autonat_pb2 import Message
from libp2p.peer.id import ID
from libp2p.utils.varint import encode_varint_prefixed, read_varint_prefixed_bytes_limited
from multiaddr import Multiaddr

from ioa_p2p.node.net.addrs import ip_scope
from ioa_p2p.node.net.libp2p_patches import probe_address

log = logging.getLogger("ioa_p2p.autonat")

AUTONAT_PROTOCOL = str(AUTONAT_PROTOCOL_ID)
OK = int(Message.OK)
E_DIAL_ERROR = int(Message.E_DIAL_ERROR)
E_DIAL_REFUSED = int(Message.E_DIAL_REFUSED)
#: Scopes of requester IPs we dial back (tests on one machine add "loopback").
DIALBACK_SCOPES: frozenset[str] = frozenset({"public"})
MAX_ADDRS = 4
PROBE_TIMEOUT = 5.0
REQUEST_TIMEOUT = 15.0
MAX_CONCURRENT = 4
REQUESTS_PER_MINUTE = 12
MAX_MESSAGE = 8 * 1024
_TRACKED_IPS = 4096


class AutoNATServer(AutoNATService):
    """Answers AutoNAT dial-back requests with fresh dials (module docstring)."""

    def __init__(self, host: Any, own_ips: Callable[[], set[str]] = set) -> None:
        super().__init__(host, serve=False)
        self._own_ips = own_ips
        self._limiter = trio.CapacityLimiter(MAX_CONCURRENT)
        self._busy: set[ID] = set()
        self._recent: dict[str, deque[float]] = {}
        self.answered: dict[str, int] = {"ok": 0, "dial_error": 0, "refused": 0}

    def register(self) -> None:
        self.host.set_stream_handler(AUTONAT_PROTOCOL_ID, self.handle_stream)

    async def handle_stream(self, stream: Any) -> None:
        peer = stream.muxed_conn.peer_id
        try:
            with trio.fail_after(REQUEST_TIMEOUT):
                request = Message()
                request.ParseFromString(await read_varint_prefixed_bytes_limited(stream, MAX_MESSAGE))
                observed = self._observed_ip(stream)
                if not self._admit(peer, observed):
                    response = _response(E_DIAL_REFUSED, "too many requests; ask again later")
                else:
                    self._busy.add(peer)
                    try:
                        async with self._limiter:
                            response = await self._handle_request(request, observed, is_relayed(stream))
                    finally:
                        self._busy.discard(peer)
                self._count(int(response.dialResponse.status))
                await stream.write(encode_varint_prefixed(response.SerializeToString()))
        except Exception as exc:  # a bad request, a timeout, a reset: that request only
            log.debug("AutoNAT request from %s failed: %s", peer, exc or type(exc).__name__)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(2):
                try:
                    await stream.close()
                except Exception as exc:
                    log.debug("closing AutoNAT stream: %s", exc)

    def _admit(self, peer: ID, observed: str | None) -> bool:
        if peer in self._busy or observed is None:
            return False
        now = time.monotonic()
        times = self._recent.setdefault(observed, deque())
        while times and now - times[0] > 60:
            times.popleft()
        if len(times) >= REQUESTS_PER_MINUTE:
            return False
        times.append(now)
        if len(self._recent) > _TRACKED_IPS:
            for ip in [ip for ip, t in self._recent.items() if not t or now - t[-1] > 60]:
                del self._recent[ip]
        return True

    async def _handle_dial(self, message: Any, observed_ip: str | None, is_relayed: bool) -> Any:
        if observed_ip is not None:
            try:
                scope = ip_scope(_ip(observed_ip))
            except ValueError:
                scope = "unsupported"
            if scope not in DIALBACK_SCOPES:
                return _response(E_DIAL_REFUSED, f"dial-back is for requesters at a public IP, not {scope}")
            if scope != "loopback" and observed_ip in self._own_ips():
                return _response(
                    E_DIAL_REFUSED, "the requester runs on this machine: a dial-back proves nothing"
                )
        del message.dial.peer.addrs[MAX_ADDRS:]
        return await super()._handle_dial(message, observed_ip, is_relayed)

    async def _try_dial(self, peer_id: ID, addrs: list[bytes]) -> bytes | None:
        for raw in addrs[:MAX_ADDRS]:
            try:
                with trio.fail_after(PROBE_TIMEOUT):
                    await probe_address(self.host, Multiaddr(raw), peer_id)
                return bytes(raw)
            except Exception as exc:  # refused, timed out, another identity: not reachable there
                log.debug("AutoNAT dial-back to %s failed: %s", peer_id, exc or type(exc).__name__)
        return None

    def _count(self, status: int) -> None:
        key = {OK: "ok", E_DIAL_ERROR: "dial_error"}.get(status, "refused")
        self.answered[key] += 1


def is_relayed(stream: Any) -> bool:
    try:
        addrs = stream.muxed_conn.get_transport_addresses() or []
    except Exception:
        return True
    return not addrs or any("/p2p-circuit" in str(a) for a in addrs)


def _ip(text: str) -> Any:
    import ipaddress

    return ipaddress.ip_address(text)


def _response(status: int, text: str) -> Any:
    response = Message()
    response.type = Message.DIAL_RESPONSE
    response.dialResponse.status = status  # type: ignore[assignment]
    response.dialResponse.statusText = text
    return response


async def ask_dialback(host: Any, server: ID, addrs: Sequence[str]) -> tuple[int, str | None]:
    """Ask ``server`` to dial us back at ``addrs``: its status (``OK``, ``E_DIAL_ERROR``, ...) and the
    address it reached us at. Raises on transport errors (the caller counts those as no answer); the
    caller bounds the wait."""
    request = Message()
    request.type = Message.DIAL
    request.dial.peer.id = host.get_id().to_bytes()
    for addr in addrs[:MAX_ADDRS]:
        request.dial.peer.addrs.append(Multiaddr(addr).to_bytes())
    stream = await host.new_stream(server, [AUTONAT_PROTOCOL_ID])
    try:
        await stream.write(encode_varint_prefixed(request.SerializeToString()))
        response = Message()
        response.ParseFromString(await read_varint_prefixed_bytes_limited(stream, MAX_MESSAGE))
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            try:
                await stream.close()
            except Exception as exc:
                log.debug("closing AutoNAT stream: %s", exc)
    reached = None
    if response.dialResponse.HasField("addr"):
        try:
            reached = str(Multiaddr(bytes(response.dialResponse.addr)))
        except Exception:  # an unparsable address: the verdict still counts
            reached = None
    return int(response.dialResponse.status), reached


__all__ = [
    "AUTONAT_PROTOCOL",
    "DIALBACK_SCOPES",
    "E_DIAL_ERROR",
    "E_DIAL_REFUSED",
    "OK",
    "AutoNATServer",
    "ask_dialback",
]
