"""A peer that stopped leaves the routing table; one whose connection we closed stays (issue 25, churn):
real py-libp2p hosts (TCP, Noise, yamux) on 127.0.0.1, the node's DHT (``routing.new_dht``), its
connection events and ``node/net/stale_contacts.py`` as ``Libp2pNetwork`` installs them."""

from __future__ import annotations

import itertools
from functools import partial
from typing import Any

import pytest
import trio
from libp2p.peer.peerinfo import PeerInfo

from ioa_p2p.identity import Identity
from ioa_p2p.node.net import stale_contacts
from ioa_p2p.node.net.conn_events import ConnectionEvents, watch_connections
from ioa_p2p.node.net.host import new_noise_host
from ioa_p2p.node.net.routing import new_dht

from .raw_hosts import run_raw_host


async def _until(check: Any, seconds: float = 15.0) -> None:
    with trio.fail_after(seconds):
        for _ in itertools.count():
            if check():
                return
            await trio.sleep(0.05)


async def _join(host: Any, other: Any, dht: Any) -> None:
    """``other`` dials ``host``, and ``host``'s routing table holds ``other``."""
    await other.connect(PeerInfo(host.get_id(), host.get_addrs()))
    info = PeerInfo(other.get_id(), other.get_addrs())
    assert await dht.routing_table.add_peer(info, skip_server_mode_check=True)


@pytest.mark.slow
async def test_a_peer_that_stopped_leaves_the_table_and_one_we_disconnected_stays() -> None:
    a = new_noise_host(Identity.generate())
    events = ConnectionEvents()
    watch_connections(a, events)
    dht = new_dht(a)
    stale_contacts.watch_stale_contacts(dht, events)
    contacts = stale_contacts.contacts_of(dht)
    contacts.grace = 1.0  # the sweep's wait, shortened for the test (30 s in a node)
    table = dht.routing_table
    b, c = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    with trio.fail_after(90):
        async with run_raw_host(a), run_raw_host(c), trio.open_nursery() as nursery:
            nursery.start_soon(partial(stale_contacts.sweep_stale_contacts, dht, every=0.2))
            async with run_raw_host(b):
                await _join(a, b, dht)
                await _join(a, c, dht)
                assert table.peer_in_table(b.get_id()) and table.peer_in_table(c.get_id())
                await a.disconnect(c.get_id())  # our own close: no failure of c
                await _until(lambda: not a.get_network().connections.get(c.get_id()))
            # b stopped: its host closed every connection; to a, the remote ended it
            await _until(lambda: b.get_id().to_bytes() in contacts or not table.peer_in_table(b.get_id()))
            named = table.find_local_closest_peers(b.get_id().to_bytes(), 20)
            assert b.get_id() not in named and c.get_id() in named
            await _until(lambda: not table.peer_in_table(b.get_id()))
            assert table.peer_in_table(c.get_id()) and c.get_id().to_bytes() not in contacts
            closes = events.snapshot()["closed"]
            assert any(stale_contacts.ended_by_remote(r) for r in closes), closes
            assert any(r.startswith("local") for r in closes), closes
            nursery.cancel_scope.cancel()
