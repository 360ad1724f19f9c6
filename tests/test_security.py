"""Noise only: a plaintext (or any non-Noise) dial to our node is refused."""

from __future__ import annotations

import multiaddr
import pytest
import trio
from libp2p import new_host
from libp2p.crypto.ed25519 import create_new_key_pair
from libp2p.peer.peerinfo import info_from_p2p_addr
from libp2p.security.insecure.transport import PLAINTEXT_PROTOCOL_ID, InsecureTransport

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.host import SECURITY_PROTOCOLS, new_noise_host
from tests.raw_hosts import run_raw_host

from .conftest import open_test_nodes


def test_our_host_offers_noise_only() -> None:
    host = new_noise_host(Identity.generate())
    offered = list(host.get_network().upgrader.security_multistream.transports)
    assert [str(p) for p in offered] == list(SECURITY_PROTOCOLS) == ["/noise"]


def test_upstream_default_still_accepts_plaintext() -> None:
    # Why we pass sec_opt: upstream's default also offers /plaintext/2.0.0. When this test fails, upstream
    # changed its default; our explicit Noise-only list stays correct either way.
    host = new_host(key_pair=create_new_key_pair())
    offered = [str(p) for p in host.get_network().upgrader.security_multistream.transports]
    assert str(PLAINTEXT_PROTOCOL_ID) in offered


async def test_plaintext_dial_is_refused(tmp_path) -> None:
    async with open_test_nodes(tmp_path, 1) as (ours,):
        key_pair = create_new_key_pair()
        plaintext_only = new_host(
            key_pair=key_pair,
            sec_opt={PLAINTEXT_PROTOCOL_ID: InsecureTransport(key_pair)},
        )
        async with run_raw_host(plaintext_only):
            info = info_from_p2p_addr(multiaddr.Multiaddr(ours.listen_addrs()[0]))
            with trio.fail_after(20), pytest.raises(Exception) as caught:  # noqa: B017
                await plaintext_only.connect(info)
            assert not isinstance(caught.value, trio.TooSlowError)
        assert not ours.connected_peers()
