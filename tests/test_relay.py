"""Circuit relay v2: the [relay] settings, circuit addresses, and peers talking through a relay.

The peer behind the relay ("hidden") listens on nothing at all, so the only way to reach it is through the
relay: a passing test proves the relayed path, not a direct dial.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.control_client import AsyncControlClient, Endpoint
from ioa_p2p.errors import (
    ConfigError,
    InvalidAddress,
    IoATimeout,
    PeerClosed,
    PeerRejected,
    PeerUnreachable,
    UsageError,
)
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import open_node
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.relay.service import circuit_addr, parse_circuit_addr, with_peer
from ioa_p2p.node.relay.settings import RelaySettings

# --------------------------------------------------------------------------- settings and addresses (pure)


def test_settings_defaults_and_parsing() -> None:
    assert RelaySettings.from_section({}) == RelaySettings()
    assert RelaySettings().hop is False and RelaySettings().client is True
    s = RelaySettings.from_section(
        {"hop": True, "reserve": "/ip4/1.2.3.4/tcp/1/p2p/x", "max_reservations": 2, "circuit_bytes": 0}
    )
    assert s.hop and s.reserve == ("/ip4/1.2.3.4/tcp/1/p2p/x",) and s.max_reservations == 2
    limits = s.limits()
    assert (limits.max_reservations, limits.circuit_bytes, limits.circuit_duration) == (2, 0, 1800)
    assert limits.reservation_ttl == 600 and limits.max_circuits_per_peer == 16
    assert (limits.max_reservations_per_ip, limits.max_circuits, limits.max_circuits_per_ip) == (8, 256, 16)


@pytest.mark.parametrize(
    "table",
    [
        {"hops": True},
        {"hop": "yes"},
        {"reserve": [1]},
        {"max_reservations": 0},
        {"circuit_bytes": -1},
        {"reservation_ttl": 1.5},
        {"max_circuits_per_peer": True},
    ],
)
def test_settings_reject_bad_tables(table: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=r"\[relay\]"):
        RelaySettings.from_section(table, "x.toml")


def test_reservation_targets_dedupe_and_bootstrap_switch() -> None:
    s = RelaySettings(reserve=("/a", "/b"))
    assert s.reservation_targets(("/b", "/c")) == ("/a", "/b")
    s = RelaySettings(reserve=("/a", "/b"), reserve_on_bootstrap=True)
    assert s.reservation_targets(("/b", "/c")) == ("/a", "/b", "/c")


def test_circuit_addresses_round_trip_and_errors() -> None:
    relay, target = Identity.generate().peer_id, Identity.generate().peer_id
    base = f"/ip4/127.0.0.1/tcp/4001/p2p/{relay}"
    addr = circuit_addr(base, target)
    assert addr == f"{base}/p2p-circuit/p2p/{target}"
    assert parse_circuit_addr(addr) == (base, relay, target)
    assert parse_circuit_addr(f"/p2p/{relay}/p2p-circuit/p2p/{target}")[1:] == (relay, target)
    assert with_peer(f"{base}/p2p/{relay}", relay) == base == with_peer(base.rsplit("/p2p/", 1)[0], relay)
    for bad in (
        base,  # no circuit
        f"{base}/p2p-circuit",  # no target
        f"/ip4/127.0.0.1/tcp/1/p2p-circuit/p2p/{target}",  # no relay id
        f"{base}/p2p-circuit/p2p/not-a-peer",
        f"{base}/p2p-circuit/p2p/{target}/extra",
    ):
        with pytest.raises(InvalidAddress):
            parse_circuit_addr(bad)


# --------------------------------------------------------------------------- live nodes on 127.0.0.1


async def _start(
    stack: AsyncExitStack, tmp: Path, name: str, *, control_api: bool = False, **config: Any
) -> Any:
    raw = {"relay": config.pop("relay", {})}
    cfg = NodeConfig(home=tmp / name, bootstrap_backoff=0.1, raw=raw, **config)
    return await stack.enter_async_context(
        open_node(cfg, identity=Identity.generate(), write_info=False, control_api=control_api)
    )


async def _until(predicate: Any) -> None:
    while True:
        if predicate():
            return
        await trio.sleep(0.02)


def _relayed(node: Any, peer: PeerId) -> bool:
    """A relayed connection to ``peer`` exists. (The hidden peer may also have dialed out directly:
    peers behind NAT can dial out, and peer discovery connects to routing-table peers.)"""
    conns = node.net.host.get_network().connections.get(to_libp2p_id(peer)) or []
    addrs = [str(a) for c in conns for a in c.get_transport_addresses()]
    return any("/p2p-circuit" in a for a in addrs)


async def _network_shows_relayed(node: Any, peer: PeerId, relay: PeerId) -> None:
    """The dashboard's network view (``GET /network``, through the node's real control server; its live
    stream ``GET /network/events`` sends the same view) marks the connection to ``peer`` relayed, at a
    ``/p2p-circuit`` address through ``relay``."""
    endpoint = Endpoint(node.control.port, node.control.token)
    async with AsyncControlClient(endpoint=endpoint) as client:
        view = await client.network()
    [link] = [p for p in view.peers if p.peer_id == str(peer)]
    relayed = [c for c in link.connections if c["kind"] == "relayed"]
    assert relayed, link.connections
    assert all("/p2p-circuit" in str(c["addr"]) and str(relay) in str(c["addr"]) for c in relayed), relayed
    # a direct connection (the hidden peer may also dial out) is never reported relayed, and vice versa
    assert all("/p2p-circuit" not in str(c["addr"]) for c in link.connections if c["kind"] != "relayed")


async def test_peer_behind_relay_is_reached_only_through_it(tmp_path: Path) -> None:
    with trio.fail_after(40):
        async with AsyncExitStack() as stack:
            relay = await _start(stack, tmp_path, "relay", relay={"hop": True})
            boot = (relay.listen_addrs()[0],)
            hidden = await _start(
                stack, tmp_path, "hidden", listen=(), bootstrap=boot, relay={"reserve_on_bootstrap": True}
            )
            caller = await _start(stack, tmp_path, "caller", bootstrap=boot, control_api=True)
            assert hidden.listen_addrs() == []
            await hidden.services.relay.wait_reservation(relay.peer_id)
            assert relay.services.relay.status().reserved_peers == 1
            [advertised] = hidden.services.relay.circuit_addrs()
            assert advertised == circuit_addr(relay.listen_addrs()[0], hidden.peer_id)

            # A direct dial cannot work: the hidden peer has no address at all.
            with pytest.raises(PeerUnreachable):
                await caller.connect_peer(hidden.peer_id)
            # identify tells the caller that the relay speaks hop
            await _until(lambda: relay.peer_id in caller.services.relay.known_relays())
            via = await caller.services.relay.connect_through(hidden.peer_id)
            assert via == advertised
            assert _relayed(caller, hidden.peer_id)
            # the hidden side registers the inbound relayed connection when its own upgrade ends
            await _until(lambda: _relayed(hidden, caller.peer_id))
            await _network_shows_relayed(caller, hidden.peer_id, relay.peer_id)

            # Signed messages both ways over the relayed (end-to-end Noise) connection.
            await caller.services.messaging.send_text(hidden.peer_id, "through the relay")
            await hidden.services.messaging.send_text(caller.peer_id, "and back")
            await caller.services.messaging.send_text(hidden.peer_id, "x" * 100_000)
            first, big = hidden.services.messaging.inbox
            assert (first.author, first.body.text) == (caller.peer_id, "through the relay")
            assert big.body.text == "x" * 100_000
            assert [e.body.text for e in caller.services.messaging.inbox] == ["and back"]

            # A third peer dials the advertised /p2p-circuit address explicitly.
            third = await _start(stack, tmp_path, "third")
            assert await third.services.relay.connect_via(advertised) == hidden.peer_id
            await third.services.messaging.send_text(hidden.peer_id, "hello via address")
            assert _relayed(third, hidden.peer_id)


async def test_relay_refusals_are_typed_errors(tmp_path: Path) -> None:
    with trio.fail_after(40):
        async with AsyncExitStack() as stack:
            relay = await _start(stack, tmp_path, "relay", relay={"hop": True, "max_reservations": 1})
            plain = await _start(stack, tmp_path, "plain")  # not a relay (hop = false)
            first = await _start(stack, tmp_path, "first", listen=())
            second = await _start(stack, tmp_path, "second", listen=())
            raddr = relay.listen_addrs()[0]
            for node in (first, second):
                await node.connect(raddr)
                await node.connect(plain.listen_addrs()[0])

            await first.services.relay.reserve(relay.peer_id)
            with pytest.raises(PeerRejected, match="refused a reservation"):
                await second.services.relay.reserve(relay.peer_id)  # max_reservations = 1
            with pytest.raises(PeerUnreachable, match="reservation"):
                await first.services.relay.reserve(plain.peer_id)  # does not speak hop

            # second holds no reservation on the relay: nobody can reach it through it.
            with pytest.raises(PeerUnreachable, match="no relay could reach"):
                await first.services.relay.connect_through(second.peer_id, relay.peer_id)
            with pytest.raises(UsageError):
                await first.services.relay.connect_via(circuit_addr(raddr, first.peer_id))
            with pytest.raises(PeerUnreachable, match="no address to dial"):
                await first.services.relay.connect_via(
                    f"/p2p/{Identity.generate().peer_id}/p2p-circuit/p2p/{second.peer_id}"
                )


async def test_circuit_data_limit_cuts_the_relayed_connection(tmp_path: Path) -> None:
    with trio.fail_after(40):
        async with AsyncExitStack() as stack:
            relay = await _start(stack, tmp_path, "relay", relay={"hop": True, "circuit_bytes": 48 * 1024})
            raddr = relay.listen_addrs()[0]
            hidden = await _start(stack, tmp_path, "hidden", listen=(), relay={"reserve": [raddr]})
            # The caller listens nowhere either: else the hidden peer, which can dial out, may connect to it
            # directly (its peer discovery learns the caller's address from the relay's DHT), the messages
            # then take that direct connection and never meet the circuit's limit (failed 2 of 4 runs).
            caller = await _start(stack, tmp_path, "caller", listen=())
            await hidden.services.relay.wait_reservation(relay.peer_id)
            await caller.connect(raddr)
            await caller.services.relay.connect_via(circuit_addr(raddr, hidden.peer_id))
            await caller.services.messaging.send_text(hidden.peer_id, "small")
            assert [c["kind"] for c in caller.net.connections(hidden.peer_id)] == ["relayed"]
            # The same 100 kB message passes a relay with default limits (the first test); here it breaks
            # the circuit's 48 KiB budget and the relay resets the connection.
            with pytest.raises((PeerClosed, PeerUnreachable, IoATimeout)):
                await caller.services.messaging.send_text(hidden.peer_id, "x" * 100_000)
            assert [e.body.text for e in hidden.services.messaging.inbox] == ["small"]


async def test_client_off_means_no_relay_protocols(tmp_path: Path) -> None:
    with trio.fail_after(20):
        async with AsyncExitStack() as stack:
            node = await _start(stack, tmp_path, "n", relay={"client": False})
            service = node.services.relay
            assert service.keeper is None
            target = Identity.generate().peer_id
            with pytest.raises(UsageError, match="client = false"):
                await service.connect_via(f"/p2p/{Identity.generate().peer_id}/p2p-circuit/p2p/{target}")


async def test_bad_reserve_address_fails_the_node_start(tmp_path: Path) -> None:
    caught: BaseExceptionGroup[InvalidAddress] | None = None
    with trio.fail_after(20):
        try:  # open_node may hand the error on inside an exception group: accept both
            async with AsyncExitStack() as stack:
                await _start(stack, tmp_path, "n", relay={"reserve": ["/ip4/127.0.0.1/tcp/1"]})
        except* InvalidAddress as group:
            caught = group
    assert caught is not None
    leaf: BaseException = caught
    while isinstance(leaf, BaseExceptionGroup):
        leaf = leaf.exceptions[0]
    assert isinstance(leaf, InvalidAddress) and "/p2p/<peer id>" in str(leaf)
