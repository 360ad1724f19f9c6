"""Whose cards the discovery catch-up fetches besides its gossip neighbours' (``Libp2pCardNet.card_peers``):
the peers of the routing table and the connections that announced GossipSub by identify (under start-up load
the subscription of a new peer lags its connection by up to a minute, and gossip drops the announcements of
forwarders that owe CPU time), and the connected peers whose identify has not answered (py-libp2p runs it once
per connection, bounded by 10 s: on a loaded process most connections made during a start never learn their
peer's protocols); never peers without GossipSub (a bootstrap node) nor peers of the routing table that are
not connected and were never identified."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net.card_net import Libp2pCardNet
from ioa_p2p.node.net.gossip import GOSSIP_PROTOCOLS


class _Peer:
    """What py-libp2p's ID offers the code under test: its bytes."""

    def __init__(self, peer: PeerId) -> None:
        self.peer = peer

    def to_bytes(self) -> bytes:
        return self.peer.raw

    def __hash__(self) -> int:
        return hash(self.peer)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Peer) and other.peer == self.peer


class _Peerstore:
    def __init__(self, protocols: dict[_Peer, list[str]]) -> None:
        self.protocols = protocols

    def get_protocols(self, peer: _Peer) -> list[str]:
        if peer not in self.protocols:
            raise KeyError(peer)  # py-libp2p raises PeerStoreError for a peer it never identified
        return self.protocols[peer]


def test_card_peers_are_the_known_gossip_speakers_and_the_unidentified_connections() -> None:
    connected, routed, bootstrap, unidentified, unknown, silent = (
        _Peer(Identity.generate().peer_id) for _ in range(6)
    )
    gossip = sorted(GOSSIP_PROTOCOLS)[0]
    protocols = {
        connected: ["/ipfs/id/1.0.0", gossip],
        routed: [gossip, "/ioa/kad/1.0.0"],
        bootstrap: ["/ipfs/id/1.0.0", "/ioa/kad/1.0.0"],
        unidentified: [],
    }
    host: Any = SimpleNamespace(
        get_connected_peers=lambda: [connected, bootstrap, unidentified, silent],
        get_peerstore=lambda: _Peerstore(protocols),
    )
    dht: Any = SimpleNamespace(
        routing_table=SimpleNamespace(get_peer_ids=lambda: [routed, bootstrap, unknown])
    )
    net = Libp2pCardNet(host, dht, faults=None)  # type: ignore[arg-type]
    # ``silent``: connected, identify never answered (not in the peerstore); ``unidentified``: in the
    # peerstore with no protocols yet; ``unknown``: only in the routing table, never identified
    assert net.card_peers() == sorted([connected.peer, routed.peer, unidentified.peer, silent.peer])
