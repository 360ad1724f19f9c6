"""What the discovery service shows (pure reads of :class:`~ioa_p2p.node.discovery.service.Discovery`):
the cards it holds (``GET /cards``), its status (``GET /status``'s discovery part, ``GET /card``) and one
match of ``POST /find`` as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ioa_p2p.dht.directory import Match
    from ioa_p2p.node.discovery.service import Discovery


def cards_view(self: Discovery) -> dict[str, Any]:
    now = self.now_ms()
    out = []
    for entry in sorted(self.directory, key=lambda e: str(e.card.peer_id)):
        if entry.card.is_expired(now):
            continue
        item = entry.card.summary()
        item.update(
            source=entry.source,
            learned_ms=entry.learned_ms,
            signature=entry.card.signature_status(now),
            first_ms=entry.first_ms or None,  # when this node first held the peer's card (any version)
        )
        key = str(entry.card.peer_id)
        if self.directory.ranker is not None:
            item["standing"] = self.directory.ranker.standing(key)
        if key in self.reputation:
            item["record"] = self.reputation[key].to_json()
        out.append(item)
    return {"model": self.embedder.model_id, "cards": out}


def status(self: Discovery) -> dict[str, Any]:
    gossip = self.gossip
    return {
        "model": self.embedder.model_id,
        "cards": len(self.directory),
        "directory_partial": self.directory.partial,
        # past [discovery] relay_all: gossip carries only new and changed cards (dht/relaycap.py)
        "relay_capped": self.relay_cap.capped,
        "withdrawn": self.withdrawal is not None,
        "matcher": self.warm.to_json(),
        "kad_protocol": self.net.protocol(),
        "routing_table": self.net.routing_table_size(),
        "kad_traffic": self.net.kad_traffic() or None,
        "gossip": None
        if gossip is None
        else {
            "topic_peers": gossip.topic_peers(),
            "mesh_peers": gossip.mesh_peers(),
            "published": gossip.published,
            "received": gossip.received,
            "rejected": gossip.rejected,
            "traffic": gossip.traffic_counts() or None,
        },
        **self.stats,
    }


def match_json(self: Discovery, match: Match) -> dict[str, Any]:
    out = match.to_json()
    out["self"] = match.card.peer_id == self.node.peer_id
    out["signature"] = match.card.signature_status(self.now_ms())
    return out


__all__ = ["cards_view", "match_json", "status"]
