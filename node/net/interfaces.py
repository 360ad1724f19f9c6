"""This machine's network interface addresses (``ifaddr``), cached and refreshed.

A wildcard listen address (``0.0.0.0`` / ``::``) is advertised as these addresses
(:func:`~ioa_p2p.node.net.addrs.expand_wildcards`), and a dialer uses their networks to decide which
private addresses of a peer it shares (:func:`~ioa_p2p.node.net.addrs.plan_dial`). A laptop changes
networks: :meth:`InterfaceCache.refresh_loop` re-reads them every :data:`REFRESH` s and calls back when
they changed (the node then re-advertises and re-checks its reachability).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import ifaddr
import trio

from ioa_p2p.node.net.addrs import Interface

log = logging.getLogger("ioa_p2p.net.interfaces")

REFRESH = 30.0


def read_interfaces() -> list[Interface]:
    """Every IPv4/IPv6 address of every interface (IPv6 zone left out), loopback first."""
    out: list[Interface] = []
    try:
        adapters = ifaddr.get_adapters()
    except OSError as exc:  # no permission / no interfaces: the node then advertises what it was given
        log.warning("cannot list this machine's network interfaces: %s", exc)
        return out
    for adapter in adapters:
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            try:
                out.append(Interface.of(text.split("%", 1)[0], ip.network_prefix))
            except ValueError:
                continue
    return sorted(out, key=lambda i: (not i.ip.is_loopback, i.ip.version, str(i.ip)))


class InterfaceCache:
    """The interface addresses, read at first use and refreshed by :meth:`refresh_loop`."""

    def __init__(self, reader: Callable[[], list[Interface]] = read_interfaces) -> None:
        self._reader = reader
        self._current: list[Interface] | None = None

    def get(self) -> list[Interface]:
        if self._current is None:
            self._current = self._reader()
        return self._current

    async def refresh_loop(self, on_change: Callable[[], None]) -> None:
        while True:
            await trio.sleep(REFRESH)
            fresh = self._reader()
            if fresh != self._current:
                log.info("network interfaces changed: %s", ", ".join(str(i.ip) for i in fresh))
                self._current = fresh
                on_change()


__all__ = ["REFRESH", "InterfaceCache", "read_interfaces"]
