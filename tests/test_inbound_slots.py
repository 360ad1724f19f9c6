"""Patch 32 (node/net/inbound_slots.py): an inbound connection gives back its slot of py-libp2p's inbound
connection cap when it closes. Upstream held the slot for the host's life, so a node that had accepted 250
inbound connections in all refused every new one (issue 26: the bootstrap node past ~90 starting agents).
Real hosts on 127.0.0.1; the cap is lowered to 2 so that the third connection shows it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import trio
from libp2p import new_host
from libp2p.peer.peerinfo import PeerInfo

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.host import libp2p_key_pair, new_noise_host
from ioa_p2p.node.net.inbound_slots import free_inbound_slots
from tests.raw_hosts import run_raw_host

CAP = 2


async def _until(check: Callable[[], bool]) -> None:
    """Until ``check()`` holds, at most 10 s (then the test fails)."""
    for _ in range(500):
        if check():
            return
        await trio.sleep(0.02)
    raise AssertionError("not within 10 s")


async def _until_held(listener: Any, peer: Any, held: bool) -> None:
    """Until ``listener`` holds a connection of ``peer`` (``held``) or none, at most 10 s."""
    await _until(functools.partial(_holds, listener, peer, held))


def _holds(listener: Any, peer: Any, held: bool) -> bool:
    return (peer in listener.get_network().connections) == held


async def _connect_and_close(listener: Any, times: int) -> list[bool]:
    """``times`` dialers in turn: each connects to ``listener``, holds the connection until the listener
    has it, then closes it; whether the listener had each one (a refused connection never shows there)."""
    held = []
    for _ in range(times):
        dialer = new_noise_host(Identity.generate())
        async with run_raw_host(dialer):
            ok = True
            try:
                with trio.fail_after(10):
                    await dialer.connect(PeerInfo(listener.get_id(), listener.get_addrs()))
                    await _until_held(listener, dialer.get_id(), True)
            except Exception:
                ok = False
            held.append(ok)
        await _until_held(listener, dialer.get_id(), False)  # the listener saw the close
    return held


async def test_upstream_still_holds_an_inbound_slot_after_its_connection_closed() -> None:
    """The sentinel: if upstream gives the slot back, patch 32 can go."""
    upstream = new_host(key_pair=libp2p_key_pair(Identity.generate()))
    upstream.get_network()._inbound_limiter = trio.CapacityLimiter(CAP)
    async with run_raw_host(upstream):
        held = await _connect_and_close(upstream, CAP + 1)
        assert upstream.get_network()._inbound_limiter.borrowed_tokens == CAP
    assert held == [True, True, False], "upstream now frees the slot of a closed connection: patch 32 may go"


async def test_a_closed_inbound_connection_gives_its_slot_back() -> None:
    host = new_noise_host(Identity.generate())  # patched by new_noise_host
    limiter = host.get_network()._inbound_limiter = trio.CapacityLimiter(CAP)
    free_inbound_slots(host)  # idempotent
    async with run_raw_host(host):
        held = await _connect_and_close(host, CAP + 3)
        await _until(lambda: not limiter.borrowed_tokens)
        # the cap still holds connections open at once: two held, a third refused
        first, second = (new_noise_host(Identity.generate()) for _ in range(2))
        third = new_noise_host(Identity.generate())
        async with run_raw_host(first), run_raw_host(second), run_raw_host(third):
            info = PeerInfo(host.get_id(), host.get_addrs())
            with trio.fail_after(10):
                await first.connect(info)
                await second.connect(info)
                await _until(lambda: limiter.borrowed_tokens == CAP)
            refused = False
            try:
                with trio.fail_after(10):
                    await third.connect(info)
                    await trio.sleep(0.5)
                    refused = third.get_id() not in host.get_network().connections
            except Exception:
                refused = True
            assert refused
    assert held == [True] * (CAP + 3)
