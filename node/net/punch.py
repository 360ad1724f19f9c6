"""Hole punching (DCUtR, ``/libp2p/dcutr``): a relayed connection upgraded to a direct one.

We run py-libp2p 0.8.1's ``DCUtRProtocol`` (interop-fixed in 0.8.1): every 2 s it looks for peers we are
connected to only through a relay and, per the spec, first tries a plain direct dial (step 0, the peer may
be reachable after all), then exchanges addresses over the relayed connection (``CONNECT``), measures the
round trip, sends ``SYNC`` and both sides dial each other at the same moment from their listen ports (TCP
simultaneous open through endpoint-independent NATs), up to 3 rounds per attempt and 3 attempts per peer.
New streams then go to the direct connection (the swarm prefers direct connections); streams already
open on the relayed one finish there, and the relayed connection is closed 60 s after the upgrade, so no
message in flight is lost.

:class:`HolePuncher` changes one thing: only one side of a relayed pair initiates. The library drives a
hole punch from both ends of every relayed connection, and two sessions at once collide (each side dials
with both handshake roles) until the 3 attempts are spent. As in go-libp2p, the side that *accepted* the
relayed connection initiates; when both did (each dialed the other through a relay), the one with the
smaller peer ID does. It also reports which direct connections a punch made (``ioa peers`` shows them as
``punched``) and counts attempts and successes.

**Our retry policy.** The library gives a peer 3 attempts and gives them back only when a connection to
the peer closes, and a failed attempt takes 21 s (3 rounds of dials of up to 5 s, 2 s apart). A punch
either works in its first round (within a fraction of a second, measured in the netns world) or not at
all: the rounds after it repeat the same timing, set by one ``SYNC``, so on a busy machine the attempts
were spent on rounds that could not work, and a peer whose 3 attempts failed was never punched again.
So: the dial rounds of an attempt end :data:`PUNCH_DEADLINE` seconds after they began (on both sides: a
new attempt, with a new ``SYNC``, is what has a chance), and the initiator's attempts follow
:class:`~ioa_p2p.node.net.punch_budget.PunchBudget` (bursts of 3, a growing cooldown between failed
bursts, a success forgets the failures) instead of the library's lifetime budget.

And where the library reads *our listen ports*: it takes them from ``host.get_addrs()`` (its
``_local_tcp_listen_addrs``), both to predict the address it tells the peer (the NAT's external IP, our
listen port) and to bind the source of its dials to that port. But ``get_addrs()`` is what we advertise
to the world, and a node behind NAT with a relay advertises only its ``/p2p-circuit`` addresses
(:mod:`~ioa_p2p.node.net.addrs`): the library would find no port, predict nothing and dial from random
ports. :func:`use_listen_addrs` makes it read the node's own listen addresses instead (non-loopback
ones first: the source of a dial to another machine cannot be 127.0.0.1). The sentinel test checks the
library still calls that function from both places.

**LAN peers.** Those LAN addresses are not in the card any more, yet two nodes behind the *same* NAT (an
office) should talk directly. The address exchange of a hole punch is between two peers only: our
``CONNECT`` carries, after the library's predicted addresses, our private-network listen addresses, and
the addresses we dial on a peer's word go through the dialer's scope rule
(:func:`~ioa_p2p.node.net.addrs.plan_dial`: a private address only inside one of our networks, never
our own address, loopback only for a peer on this machine). The rule guards every dial of a hole punch
(:meth:`HolePuncher.may_dial`, wrapping the library's ``_dial_peer``), not only the offered list: the
library stores the offered addresses in the peerstore and dials all the peer's peerstore addresses, in
the plain dial before the exchange and in the punch rounds. Measured in the netns world, where three
homes number their agents 192.168.1.10: every punch between two of them also dialed 192.168.1.10:4001
from 192.168.1.10:4001, a TCP connection of the node to itself (Linux completes it: a simultaneous
open with itself), beside the real punch dials from the same port. A peer in the same office is then dialed at
its LAN address and the relayed connection is upgraded to a direct one within one round (the
connection shows as ``punched``); a peer in another network numbered alike gets a dial that Noise
refuses (another peer ID answers), which costs nothing more.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import trio
from libp2p.relay.circuit_v2 import dcutr
from libp2p.relay.circuit_v2.dcutr import PROTOCOL_ID as DCUTR_PROTOCOL_ID
from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol
from libp2p.tools.anyio_service import background_trio_service
from multiaddr import Multiaddr

from ioa_p2p.node.net.addrs import LocalView, parse_direct, plan_dial, scope_of
from ioa_p2p.node.net.libp2p_patches import live_connections
from ioa_p2p.node.net.punch_budget import PunchBudget
from ioa_p2p.node.net.source_dial import close_source_dials_on_failure

log = logging.getLogger("ioa_p2p.punch")

DCUTR_PROTOCOL = str(DCUTR_PROTOCOL_ID)
#: Seconds the dial rounds of one hole punch may take, from their start: the first round (the library's
#: ``_HOLE_PUNCH_ROUND_TIMEOUT``, 5 s) and a little more (module docstring).
PUNCH_DEADLINE = 6.0


#: Each host's listen addresses (multiaddr text), for the library's ``_local_tcp_listen_addrs``.
_LISTEN: weakref.WeakKeyDictionary[Any, Callable[[], list[str]]] = weakref.WeakKeyDictionary()
_UPSTREAM_LISTEN = getattr(dcutr, "_local_tcp_listen_addrs", None)


def use_listen_addrs(host: Any, listen_addrs: Callable[[], list[str]]) -> None:
    """DCUtR on ``host`` reads its listen ports from ``listen_addrs()`` (module docstring)."""
    if _UPSTREAM_LISTEN is None:
        raise RuntimeError(
            "py-libp2p's dcutr module has no _local_tcp_listen_addrs any more: revisit ioa_p2p.node.net.punch"
        )
    _LISTEN[host] = listen_addrs
    dcutr._local_tcp_listen_addrs = _local_tcp_listen_addrs


def _local_tcp_listen_addrs(host: Any) -> list[tuple[int, str, int]]:
    listen = _LISTEN.get(host)
    if listen is None:
        assert _UPSTREAM_LISTEN is not None
        return list(_UPSTREAM_LISTEN(host))
    return tcp_listen_ports(listen())


def tcp_listen_ports(addrs: list[str]) -> list[tuple[int, str, int]]:
    """``(family, ip, port)`` of each direct IP address, loopback ones last (pure)."""
    out = []
    for addr in addrs:
        direct = parse_direct(addr)
        if direct is None or direct.ip is None or direct.host in ("0.0.0.0", "::"):
            continue
        out.append((scope_of(addr) == "loopback", (direct.ip.version, direct.host, direct.port)))
    return [entry for _, entry in sorted(out, key=lambda item: item[0])]


class HolePuncher:
    """DCUtR on ``host``; remembers the connections hole punching made. ``listen_addrs()``: the node's
    listen addresses (wildcards expanded), where the library looks for its listen ports and what LAN
    addresses it offers; ``local()``: what the dialer knows of this machine, to filter what it dials."""

    def __init__(
        self,
        host: Any,
        listen_addrs: Callable[[], list[str]] | None = None,
        local: Callable[[], LocalView] | None = None,
    ) -> None:
        self.host = host
        self.local = local
        self.listen_addrs = listen_addrs
        if listen_addrs is not None:
            use_listen_addrs(host, listen_addrs)
        close_source_dials_on_failure()  # its dials from the listen port close their sockets when cancelled
        self.protocol = DCUtRProtocol(host)
        self._punched: weakref.WeakSet[Any] = weakref.WeakSet()
        self.attempts = 0
        self.successes = 0
        self.budget = PunchBudget()
        self._wrap_protocol()

    def _wrap_protocol(self) -> None:
        perform_upstream = _require(self.protocol, "_perform_hole_punch")
        offer_upstream = _require(self.protocol, "_get_observed_addrs")
        initiate = _require(self.protocol, "initiate_hole_punch")
        dial_upstream = _require(self.protocol, "_dial_peer")
        library_attempts: dict[Any, int] = _require(self.protocol, "_hole_punch_attempts")
        host = self.host

        async def perform(peer_id: Any, addrs: Any, as_responder: bool = False) -> bool:
            before = {id(c) for c in live_connections(host, peer_id)}
            self.attempts += 1
            began, ok = trio.current_time(), False
            with trio.move_on_after(PUNCH_DEADLINE):
                ok = bool(await perform_upstream(peer_id, self.usable(addrs), as_responder))
            took, side = trio.current_time() - began, "initiator" if as_responder else "responder"
            log.info("hole punch with %s as %s: %s in %.1f s", peer_id, side, "ok" if ok else "failed", took)
            if ok:
                self.successes += 1
                for conn in live_connections(host, peer_id):
                    if id(conn) not in before and not _relayed(conn):
                        self._punched.add(conn)
            return ok

        async def offer() -> list[bytes]:
            return self.with_lan_addrs(list(await offer_upstream()))

        async def initiate_if_ours(peer_id: Any) -> bool:
            now = trio.current_time()
            if not self.initiates(peer_id) or not self.budget.may_try(peer_id, now):
                log.debug("hole punch with %s: not ours to start now (%s)", peer_id, _kinds(host, peer_id))
                return False
            kinds = _kinds(host, peer_id)
            ok = bool(await initiate(peer_id))
            log.info(
                "hole punch with %s started by the auto-drive (%s): %s in %.1f s",
                *(peer_id, kinds, "ok" if ok else "failed", trio.current_time() - now),
            )
            # our budget, not the library's: it counted an attempt only if one began
            if library_attempts.pop(peer_id, 0) or ok:
                self.budget.record(peer_id, ok, trio.current_time())
            return ok

        async def dial_in_scope(peer_id: Any, addr: Any, *args: Any, **kwargs: Any) -> None:
            if not self.may_dial(peer_id, addr):
                log.debug("hole punch with %s: %s not dialed (the dialer's scope rule)", peer_id, addr)
                return
            await dial_upstream(peer_id, addr, *args, **kwargs)

        self.protocol._dial_peer = dial_in_scope  # type: ignore[method-assign]
        self.protocol._perform_hole_punch = perform  # type: ignore[method-assign]
        self.protocol._get_observed_addrs = offer  # type: ignore[method-assign]
        self.protocol.initiate_hole_punch = initiate_if_ours  # type: ignore[method-assign]

    def usable(self, addrs: list[Any]) -> list[Any]:
        """Of the addresses a peer gave, those the dialer's scope rule lets us dial (module docstring)."""
        if self.local is None:
            return addrs
        keep = self._in_scope([str(a) for a in addrs])
        return [a for a in addrs if str(a) in keep]

    def may_dial(self, peer_id: Any, addr: Any) -> bool:
        """Whether the dialer's scope rule lets a hole punch dial ``addr`` of ``peer_id``, judged with
        the peer's other known addresses (module docstring)."""
        if self.local is None:
            return True
        try:
            known = [str(a) for a in self.host.get_peerstore().addrs(peer_id)]
        except Exception:  # no address known
            known = []
        return str(addr) in self._in_scope([str(addr), *known])

    def _in_scope(self, addrs: list[str]) -> set[str]:
        assert self.local is not None
        plan = plan_dial(addrs, self.local())
        return set(plan.direct) | set(plan.relayed)

    def with_lan_addrs(self, offered: list[bytes]) -> list[bytes]:
        """``offered`` (the library's predicted addresses) and then our private-network listen addresses."""
        if self.listen_addrs is None:
            return offered
        out = list(offered)
        for addr in self.listen_addrs():
            if scope_of(addr) == "private" and len(out) < dcutr.MAX_OBSERVED_ADDRS:
                raw = Multiaddr(addr).to_bytes()
                if raw not in out:
                    out.append(raw)
        return out

    def initiates(self, peer_id: Any) -> bool:
        """Whether this side starts the hole punch with ``peer_id`` (module docstring)."""
        relayed = [c for c in live_connections(self.host, peer_id) if _relayed(c)]
        inbound = any(_direction(c) == "inbound" for c in relayed)
        outbound = any(_direction(c) == "outbound" for c in relayed)
        if inbound and outbound:
            return bool(self.host.get_id().to_bytes() < peer_id.to_bytes())
        return inbound

    def run(self) -> AbstractAsyncContextManager[Any]:
        return background_trio_service(self.protocol)

    def is_punched(self, conn: Any) -> bool:
        return conn in self._punched

    def status(self) -> dict[str, int]:
        return {"attempts": self.attempts, "successes": self.successes}


def _kinds(host: Any, peer_id: Any) -> str:
    """The connections to ``peer_id``, e.g. ``inbound relayed, outbound direct`` (for the logs)."""
    conns = live_connections(host, peer_id)
    return ", ".join(f"{_direction(c)} {'relayed' if _relayed(c) else 'direct'}" for c in conns) or "none"


def _require(protocol: Any, name: str) -> Any:
    found = getattr(protocol, name, None)
    if found is None:
        raise RuntimeError(
            f"py-libp2p's DCUtRProtocol has no {name} any more: revisit ioa_p2p.node.net.punch"
        )
    return found


def _direction(conn: Any) -> str:
    """``inbound``, ``outbound`` or ``unknown`` (py-libp2p's ``Direction`` by name)."""
    return str(getattr(getattr(conn, "direction", None), "name", "unknown")).lower()


def _relayed(conn: Any) -> bool:
    try:
        return any("/p2p-circuit" in str(a) for a in conn.get_transport_addresses())
    except Exception:  # unreadable addresses: not known to be relayed
        return False


__all__ = ["DCUTR_PROTOCOL", "HolePuncher", "tcp_listen_ports", "use_listen_addrs"]
