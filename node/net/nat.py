"""Reachability: is this node behind a NAT? :class:`NatState` asks its peers and keeps the answer.

Two sources, both from peers (no server of ours anywhere):

- **identify observations** (:mod:`~ioa_p2p.node.net.observed`): the IP other peers see us at; confirmed
  by several distinct observers, it gives candidate public addresses (that IP, our listen ports);
- **AutoNAT** (:mod:`~ioa_p2p.node.net.autonat`): connected peers that serve ``/libp2p/autonat/1.0.0``
  over a direct connection are asked to dial us back at our candidate addresses (first the IP that very
  peer sees us at, then our public, then other addresses; at most 4). A dial-back that worked makes that
  address *verified* (advertised from then on if it is not an interface address); the verdicts make the
  status (:class:`~ioa_p2p.node.net.reachability.ReachabilityTracker`: several confirmations).

Rounds run every :data:`FAST` s while the status is unknown, every :data:`SLOW` s once known, and at once
when our addresses or observed IPs change. Each server is asked at most once per :data:`REASK` s (unless
our addresses changed). A node without any address to dial is private without asking; a node listening on
loopback only (and observed nowhere) stays unknown: it is meant for its own machine.

When the status changes, the node re-advertises (a private node drops its public addresses, its relay
circuits come first), its DHT switches to client mode while private (peers cannot dial it: it should not
sit in their routing tables) and back to server mode, and :meth:`NatState.wait_change` wakes the relay
service (auto relay).
"""

from __future__ import annotations

import ipaddress
import logging
import random
import time
from dataclasses import dataclass
from typing import Any, Protocol

import trio
from libp2p.kad_dht.kad_dht import DHTMode

from ioa_p2p.node.net import autonat
from ioa_p2p.node.net.addrs import Reachability, ip_scope, parse_direct, scope_of
from ioa_p2p.node.net.autonat import AUTONAT_PROTOCOL, E_DIAL_ERROR, OK, AutoNATServer, ask_dialback
from ioa_p2p.node.net.interfaces import InterfaceCache
from ioa_p2p.node.net.libp2p_patches import live_connections, observe_identify
from ioa_p2p.node.net.observed import ObservedAddrs, candidate_addrs
from ioa_p2p.node.net.reachability import Mode, ReachabilityTracker

log = logging.getLogger("ioa_p2p.nat")

FAST = 3.0
SLOW = 300.0
REASK = 120.0
ASK_TIMEOUT = 20.0
#: Seconds a verified address stays advertised without a new confirmation.
VERIFIED_TTL = 3600.0


@dataclass(frozen=True, slots=True)
class NatOptions:
    mode: Mode = "auto"
    #: Distinct AutoNAT servers (and distinct observers of an IP) that must agree.
    confirmations: int = 3


class _Net(Protocol):
    host: Any
    dht: Any
    interfaces: InterfaceCache

    def listen_addrs(self) -> list[str]: ...
    def check_addrs(self) -> None: ...
    @property
    def options(self) -> Any: ...


class NatState:
    def __init__(self, net: _Net, options: NatOptions) -> None:
        self.net = net
        self.options = options
        self.observed = ObservedAddrs(confirmations=options.confirmations)
        self.tracker = ReachabilityTracker(mode=options.mode, confirmations=options.confirmations)
        self.server = AutoNATServer(net.host, self._own_ips)
        self._verified: dict[str, float] = {}
        self._asked: dict[Any, float] = {}
        self._wake = trio.Event()
        self._changed = trio.Event()

    def install(self) -> None:
        observe_identify(self.net.host, self._on_observation, self._on_closed)
        self.server.register()

    # ------------------------------------------------------------------ state

    def status(self) -> Reachability:
        return self.tracker.status

    def verified_addrs(self) -> list[str]:
        now = time.time()
        return [a for a, at in self._verified.items() if now - at < VERIFIED_TTL]

    async def wait_change(self) -> None:
        await self._changed.wait()

    def addresses_changed(self) -> None:
        self.tracker.addresses_changed()
        self._asked.clear()
        self._wake.set()

    def summary(self) -> dict[str, Any]:
        out = self.tracker.summary()
        out["observed"] = self.observed.observers()
        out["confirmed_ips"] = self.observed.confirmed()
        out["verified_addrs"] = self.verified_addrs()
        out["served"] = dict(self.server.answered)
        return out

    # ------------------------------------------------------------------ identify hooks

    def _on_observation(self, conn: Any, observed: Any) -> None:
        try:
            remote = conn.muxed_conn.get_remote_address()
        except Exception:  # a connection without a socket address (relayed): no observer to count
            return
        if remote and self.observed.record(id(conn), str(remote[0]), str(observed)):
            log.info("observed public address(es) confirmed: %s", ", ".join(self.observed.confirmed()))
            self._wake.set()

    def _on_closed(self, conn: Any) -> None:
        self.observed.forget(id(conn))

    # ------------------------------------------------------------------ rounds

    async def run(self) -> None:
        if self.options.mode != "auto":
            await self._sync_dht_mode()
            await trio.sleep_forever()
        while True:
            await self._round()
            await self._sync_dht_mode()
            delay = FAST if self.tracker.status == "unknown" else SLOW
            with trio.move_on_after(delay):
                await self._wake.wait()
            self._wake = trio.Event()

    async def _round(self) -> None:
        now = time.time()
        listen = self.net.listen_addrs()
        announce = [a for a in self.net.options.announce if parse_direct(a) is not None]
        testable = {"public", "private", *autonat.DIALBACK_SCOPES}
        direct = [a for a in [*announce, *listen] if scope_of(a) in testable]
        if not listen and not announce:
            self._apply(self.tracker.no_direct_address(now))
            return
        servers = self._servers()
        if not direct and not self.observed.observers():
            return  # loopback only: a node for its own machine
        todo = [s for s in servers if now - self._asked.get(s, 0.0) >= REASK][: self.options.confirmations]
        async with trio.open_nursery() as nursery:
            for server in todo:
                self._asked[server] = now
                nursery.start_soon(self._ask, server, direct, len(servers))
        changed = self.tracker.decide(time.time(), max(len(servers), 1))
        self._apply(changed)

    def _servers(self) -> list[Any]:
        """Connected peers that can give a verdict: they serve AutoNAT, and we reach them directly at an
        address of a scope they dial back from (a peer on our LAN sees us at a LAN address and refuses)."""
        host = self.net.host
        out = []
        for peer in host.get_connected_peers():
            if not any(self._eligible(c) for c in live_connections(host, peer)):
                continue
            try:
                protocols = {str(p) for p in host.get_peerstore().get_protocols(peer)}
            except Exception:  # not identified yet
                continue
            if AUTONAT_PROTOCOL in protocols:
                out.append(peer)
        random.shuffle(out)
        return out

    def _eligible(self, conn: Any) -> bool:
        try:
            if any("/p2p-circuit" in str(a) for a in conn.get_transport_addresses()):
                return False
            remote = conn.muxed_conn.get_remote_address()
            if not remote:
                return False
            scope = ip_scope(ipaddress.ip_address(remote[0]))
        except (ValueError, AttributeError, TypeError):  # no socket address: not a direct connection
            return False
        if scope != "loopback" and str(ipaddress.ip_address(remote[0])) in self._own_ips():
            return False  # a peer on this machine: its dial-back would prove nothing
        return scope in autonat.DIALBACK_SCOPES

    def _own_ips(self) -> set[str]:
        return {str(i.ip) for i in self.net.interfaces.get()}

    def _request_addrs(self, server: Any, direct: list[str]) -> list[str]:
        listen = self.net.listen_addrs()
        seen = [self.observed.seen_by(id(c)) for c in live_connections(self.net.host, server)]
        own = {str(d.ip) for d in (parse_direct(a) for a in listen) if d is not None and d.ip is not None}
        first = candidate_addrs([ip for ip in seen if ip], listen, own)
        confirmed = candidate_addrs(self.observed.confirmed(), listen, own)
        public = [a for a in direct if scope_of(a) == "public"]
        return list(dict.fromkeys([*first, *public, *confirmed, *direct]))

    async def _ask(self, server: Any, direct: list[str], known: int) -> None:
        addrs = self._request_addrs(server, direct)
        if not addrs:
            return
        try:
            with trio.fail_after(ASK_TIMEOUT):
                status, reached = await ask_dialback(self.net.host, server, addrs)
        except Exception as exc:  # no answer: no verdict
            log.debug("AutoNAT request to %s failed: %s", server, exc or type(exc).__name__)
            return
        now = time.time()
        if status == OK:
            if reached and reached not in direct:
                self._verified[reached] = now
            self._apply(self.tracker.record(str(server), True, now, known))
        elif status == E_DIAL_ERROR:
            self._apply(self.tracker.record(str(server), False, now, known))
        log.debug("AutoNAT %s answered %d for %s", server, status, addrs)

    def _apply(self, changed: bool) -> None:
        if not changed:
            return
        status = self.tracker.status
        log.warning("reachability: %s (AutoNAT: %s)", status, self.tracker.summary())
        self._changed.set()
        self._changed = trio.Event()
        self.net.check_addrs()

    async def _sync_dht_mode(self) -> None:
        """DHT client mode while private (peers cannot dial us), server mode otherwise."""
        dht = self.net.dht
        if dht is None:
            return
        wanted = DHTMode.CLIENT if self.tracker.status == "private" else DHTMode.SERVER
        if dht.mode == wanted:
            return
        try:
            await dht.switch_mode(wanted)
            log.info("DHT now in %s mode", wanted.name.lower())
        except Exception as exc:  # the DHT keeps its mode: lookups work either way
            log.info("could not switch the DHT mode: %s", exc)


__all__ = ["FAST", "NatOptions", "NatState"]
