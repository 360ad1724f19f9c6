"""The parts of py-libp2p's ``KadDHT`` the node's DHT drivers read (``node/net/kad_io.py``,
``kad_write.py``), as small fakes for tests that drive those functions over a scripted network: a
peerstore with one loopback address per peer, a routing table of given peers and an empty value store."""

from __future__ import annotations

from typing import Any

from libp2p.peer.id import ID


class FakePeerstore:
    def addrs(self, peer: ID) -> list[Any]:
        return ["/ip4/127.0.0.1/tcp/1"]

    def get_protocols(self, peer: ID) -> list[str]:
        return []


class FakeTable:
    def __init__(self, peers: list[bytes]) -> None:
        self.peers = [ID(p) for p in peers]

    def get_peer_ids(self) -> list[ID]:
        return list(self.peers)


class EmptyStore:
    def get(self, key: bytes) -> None:
        return None
