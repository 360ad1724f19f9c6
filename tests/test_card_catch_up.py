"""Which peers' cards the discovery catch-up fetches (``CardGossip.card_peer_ids``): gossip neighbours, and
connected peers that announced GossipSub by identify before their subscription reached us (under start-up
load that subscription can lag the connection by a minute), never peers without GossipSub (a bootstrap
node) nor peers whose identify has not answered."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net.gossip import GOSSIP_PROTOCOLS, TOPIC, CardGossip


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
            raise KeyError(peer)  # py-libp2p raises PeerStoreError for an unknown peer
        return self.protocols[peer]


def _gossip(subscribed: list[_Peer], connected: list[_Peer], protocols: dict[_Peer, list[str]]) -> CardGossip:
    host = SimpleNamespace(get_connected_peers=lambda: connected, get_peerstore=lambda: _Peerstore(protocols))
    pubsub: Any = SimpleNamespace(host=host, peer_topics={TOPIC: set(subscribed)})
    return CardGossip(pubsub, router=None)  # type: ignore[arg-type]


def test_connected_gossip_speakers_count_before_their_subscription_arrives() -> None:
    neighbour, agent, bootstrap, unidentified, gone = (_Peer(Identity.generate().peer_id) for _ in range(5))
    gossip_proto = sorted(GOSSIP_PROTOCOLS)[0]
    protocols = {
        neighbour: [gossip_proto],
        agent: ["/ipfs/id/1.0.0", gossip_proto],
        bootstrap: ["/ipfs/id/1.0.0", "/ioa/kad/1.0.0"],
        unidentified: [],
    }
    gossip = _gossip([neighbour, gone], [neighbour, agent, bootstrap, unidentified], protocols)
    assert set(gossip.topic_peer_ids()) == {neighbour.peer, gone.peer}
    assert gossip.card_peer_ids() == sorted([neighbour.peer, gone.peer, agent.peer])
