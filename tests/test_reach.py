"""Reaching peers on real libp2p hosts on 127.0.0.1 (issue 19): wildcard listen addresses, the one dial path
(a dead address does not stop it, a restarted peer is reachable at once, an unreachable one is a typed error
naming what was tried), bootstrap sources and a node that keeps working without its bootstrap node.

NAT, relays and hole punching are in tests/test_nat.py (the same hosts behind a simulated NAT).
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import pytest
import trio
from multiaddr import Multiaddr

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import DialFailed, PeerUnreachable
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.host import to_libp2p_id

from .nodes import node_group

pytestmark = pytest.mark.slow

QUIET = {"discovery": {"enabled": False}}


def config(tmp: Path, name: str, **kwargs: Any) -> NodeConfig:
    raw = {**QUIET, **kwargs.pop("raw", {})}
    return NodeConfig(home=tmp / name, bootstrap_backoff=0.1, bootstrap_backoff_max=1.0, raw=raw, **kwargs)


async def until(predicate: Any, what: str, seconds: float = 20.0) -> None:
    with trio.fail_after(seconds):
        while not predicate():  # noqa: ASYNC110 - libp2p offers no event to wait on
            await trio.sleep(0.05)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_the_readme_join_command_works_with_wildcard_listen_addresses(tmp_path: Path) -> None:
    """Every node listens on /ip4/0.0.0.0 (the README's join command): the wildcard is expanded into this
    machine's addresses, never advertised, and peers that met only through the bootstrap node reach each
    other at what they learned."""
    wildcard = ("/ip4/0.0.0.0/tcp/0",)
    with trio.fail_after(60):
        async with node_group() as group:
            boot = await group.start("boot", config(tmp_path, "boot", listen=wildcard))
            listened = boot.listen_addrs()
            assert any(a.startswith("/ip4/127.0.0.1/tcp/") for a in listened), listened
            assert not [a for a in listened + boot.advertised_addrs() if "/0.0.0.0/" in a]
            entry = next(a for a in listened if a.startswith("/ip4/127.0.0.1/"))
            b = await group.start("b", config(tmp_path, "b", listen=wildcard, bootstrap=(entry,)))
            c = await group.start("c", config(tmp_path, "c", listen=wildcard, bootstrap=(entry,)))
            await until(lambda: boot.is_connected(b.peer_id) and boot.is_connected(c.peer_id), "joined")
            # c knows b only from what the network told it: the bootstrap node's peerstore, identify...
            await until(lambda: b.peer_id in c.connected_peers() or c.peer_addrs(b.peer_id), "c learns of b")
            learned = c.peer_addrs(b.peer_id) if not c.is_connected(b.peer_id) else b.advertised_addrs()
            assert not [a for a in learned if "/0.0.0.0/" in a], learned
            with trio.fail_after(10):
                await c.services.messaging.send_text(b.peer_id, "found you")
            assert [e.body.text for e in b.services.messaging.inbox] == ["found you"]


async def test_a_dead_address_does_not_stop_the_dial(tmp_path: Path) -> None:
    """py-libp2p would dial only the first TCP address it knows; ours tries the next one."""
    with trio.fail_after(40):
        async with node_group() as group:
            a = await group.start("a", config(tmp_path, "a"))
            b = await group.start("b", config(tmp_path, "b"))
            dead = f"/ip4/127.0.0.1/tcp/{free_port()}"
            store = a.net.host.get_peerstore()
            store.add_addrs(to_libp2p_id(b.peer_id), [Multiaddr(dead)], 600)  # known first, dead
            store.add_addrs(
                to_libp2p_id(b.peer_id), [Multiaddr(b.listen_addrs()[0].rsplit("/p2p/", 1)[0])], 600
            )
            await a.connect_peer(b.peer_id)
            assert a.is_connected(b.peer_id)
            assert [c["kind"] for c in a.connections(b.peer_id)] == ["direct"]


async def test_a_peer_restarted_on_a_new_port_is_reachable_at_once(tmp_path: Path) -> None:
    """A restarted peer (same key, new port) is dialed at its new address on the first attempt: no
    minute-long refusal after the failed dial to its old one (py-libp2p's negative cache)."""
    identity = Identity.generate()
    with trio.fail_after(60):
        async with node_group() as group:
            a = await group.start("a", config(tmp_path, "a"))
            b = await group.start("b", config(tmp_path, "b"), identity)
            await a.connect(b.listen_addrs()[0])
            await a.services.messaging.send_text(b.peer_id, "before")
            await group.stop("b")
            await until(lambda: not a.is_connected(b.peer_id), "a notices b is gone")
            with pytest.raises(DialFailed, match="connection refused"):
                await a.connect_peer(b.peer_id)  # the old port: refused, and remembered as failed
            b = await group.start("b2", config(tmp_path, "b2"), identity)
            new = b.listen_addrs()[0]
            # 1. ``POST /connect`` to the new address works on the first attempt
            assert await a.connect(new) == b.peer_id
            await a.net.host.get_network().close_peer(to_libp2p_id(b.peer_id))
            await until(lambda: not a.is_connected(b.peer_id), "disconnected")
            # 2. once a learns the new address (as from b's new signed card), a plain send finds it at once
            a.net.add_hints(lambda peer: [new] if peer == b.peer_id else [])
            await a.services.messaging.send_text(b.peer_id, "after")
            assert [e.body.text for e in b.services.messaging.inbox] == ["after"]


async def test_an_unreachable_peer_is_a_typed_error_naming_addresses_and_relays(tmp_path: Path) -> None:
    ghost = Identity.generate().peer_id
    with trio.fail_after(40):
        async with node_group() as group:
            relay = await group.start("relay", config(tmp_path, "relay", raw={"relay": {"hop": True}}))
            a = await group.start("a", config(tmp_path, "a"))
            dead = f"/ip4/127.0.0.1/tcp/{free_port()}"
            circuit = f"{relay.listen_addrs()[0]}/p2p-circuit/p2p/{ghost}"
            a.net.add_hints(lambda peer: [dead, circuit] if peer == ghost else [])
            with pytest.raises(DialFailed) as failed:
                await a.services.messaging.send_text(ghost, "anyone there?")
            text = str(failed.value)
            assert f"{dead} (connection refused)" in text, text
            assert "through relays:" in text and circuit in text and "NO_RESERVATION" in text, text
            assert "did not acknowledge" not in text
            assert [addr for addr, _ in failed.value.attempts] == [dead, circuit]
            with pytest.raises(PeerUnreachable, match="no address to dial"):
                await a.connect_peer(Identity.generate().peer_id)


async def test_bootstrap_from_the_environment_and_a_clear_word_when_none_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    identity = Identity.generate()
    port = free_port()
    boot_addr = f"/ip4/127.0.0.1/tcp/{port}/p2p/{identity.peer_id}"
    monkeypatch.setenv("IOA_BOOTSTRAP", boot_addr)
    with trio.fail_after(60), caplog.at_level(logging.WARNING, logger="ioa_p2p.routing"):
        async with node_group() as group:
            joiner = await group.start("joiner", config(tmp_path, "joiner"))
            await until(lambda: "no bootstrap peer is reachable" in caplog.text, "the warning")
            assert boot_addr in caplog.text and "connection refused" in caplog.text
            assert not joiner.bootstrap.joined
            monkeypatch.delenv("IOA_BOOTSTRAP")
            boot = await group.start(
                "boot", config(tmp_path, "boot", listen=(f"/ip4/127.0.0.1/tcp/{port}",)), identity
            )
            await until(lambda: joiner.is_connected(boot.peer_id), "joined once the bootstrap node is up")
            assert joiner.bootstrap.joined and joiner.net_status()["bootstrap"][0]["connected"]


async def test_a_joined_node_keeps_working_when_its_bootstrap_node_is_gone(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with node_group() as group:
            boot = await group.start("boot", config(tmp_path, "boot"))
            entry = (boot.listen_addrs()[0],)
            b = await group.start("b", config(tmp_path, "b", bootstrap=entry))
            c = await group.start("c", config(tmp_path, "c", bootstrap=entry))
            await until(lambda: b.is_connected(c.peer_id), "b and c meet through the DHT")
            await group.stop("boot")
            await b.net.host.get_network().close_peer(to_libp2p_id(c.peer_id))
            await until(lambda: not b.is_connected(c.peer_id), "disconnected")
            await b.services.messaging.send_text(c.peer_id, "still here")  # dialed from what b learned
            assert [e.body.text for e in c.services.messaging.inbox] == ["still here"]


async def test_nodes_on_one_lan_find_each_other_by_mdns_when_asked(tmp_path: Path) -> None:
    """``[node] mdns = true`` (off by default): two nodes with no bootstrap peer meet on the local network."""
    lan = ("/ip4/0.0.0.0/tcp/0",)
    with trio.fail_after(60):
        async with node_group() as group:
            a = await group.start("a", config(tmp_path, "a", listen=lan, mdns=True))
            b = await group.start("b", config(tmp_path, "b", listen=lan, mdns=True))
            quiet = await group.start("quiet", config(tmp_path, "quiet", listen=lan))
            await until(lambda: a.is_connected(b.peer_id), "found by mDNS", 40)
            assert not quiet.is_connected(a.peer_id) and not quiet.is_connected(b.peer_id)
