"""Tell when upstream py-libp2p changes make a workaround in ioa_p2p.node.libp2p_patches stale or wrong."""

from __future__ import annotations

import libp2p.network.swarm as swarm
import trio

from ioa_p2p.node import libp2p_patches

from .conftest import open_test_nodes


def test_patches_target_the_version_they_were_written_for() -> None:
    assert libp2p_patches.libp2p_version() == libp2p_patches.PATCHED_FOR_VERSION, (
        "py-libp2p changed version: re-check every patch in ioa_p2p/node/libp2p_patches.py"
    )


def test_happy_eyeballs_constant_still_exists_with_upstream_value() -> None:
    assert (
        libp2p_patches.upstream_happy_eyeballs_delay()
        == libp2p_patches.UPSTREAM_HAPPY_EYEBALLS_DELAY
    ), "upstream removed or changed _HAPPY_EYEBALLS_DELAY: the dial-delay patch may be unnecessary"
    libp2p_patches.apply_patches()
    assert swarm._HAPPY_EYEBALLS_DELAY == 0


async def test_running_nodes_have_the_patch_applied(tmp_path) -> None:
    async with open_test_nodes(tmp_path, 2, connect="none") as (a, b):
        assert swarm._HAPPY_EYEBALLS_DELAY == 0
        with trio.fail_after(10):
            assert await b.connect(a.listen_addrs()[0]) == a.peer_id


def test_kademlia_speaks_the_ioa_protocol_id(tmp_path) -> None:
    import importlib

    libp2p_patches.apply_patches()
    for name in libp2p_patches.KAD_MODULES:
        assert importlib.import_module(name).PROTOCOL_ID == libp2p_patches.IOA_KAD_PROTOCOL


async def test_the_node_dht_serves_only_the_ioa_protocol(tmp_path) -> None:
    async with open_test_nodes(tmp_path, 1) as (node,):
        handlers = {str(p) for p in node.host.get_mux().handlers}
        assert libp2p_patches.IOA_KAD_PROTOCOL in handlers
        assert libp2p_patches.UPSTREAM_KAD_PROTOCOL not in handlers
