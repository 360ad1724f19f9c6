"""Discovery (pure): finding agents, the cards this node holds, its own card (docs/protocol.md §7, §9).

The requests and replies of ``POST /find``, ``GET /cards``, ``GET /card``, ``POST /card`` and
``POST /card/withdraw``. A card's JSON (:class:`CardSummary`) is its signed fields without the vector;
``stamp_bits`` (the proof of work of its stamp) is added where a reply says so (0 from older nodes).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Annotated, ClassVar

from ioa_p2p.api.codec import ApiObject, Json, JsonObject
from ioa_p2p.errors import InvalidField

#: Agents one ``find`` returns at most.
FIND_MAX_K = 100


@dataclass(frozen=True, slots=True)
class CardSummary(ApiObject):
    """The fields of a signed card (no vector; ``version``, ``issued_at``, ``expires_at`` in ms)."""

    peer_id: str
    name: str
    description: str
    skills: tuple[str, ...]
    adapter: str
    task_types: tuple[str, ...]
    model: str
    addrs: tuple[str, ...]
    version: int
    issued_at: int
    expires_at: int
    languages: tuple[str, ...]
    input_types: tuple[str, ...]
    output_types: tuple[str, ...]
    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CardStanding(ApiObject):
    """What the ranking adds to a card's score whatever the query (``prior``, fused units): its breadth
    (unrelated claims; discounted past 8) and its reputation here (docs/matching.md)."""

    breadth: float
    reputation: float
    prior: float


@dataclass(frozen=True, slots=True)
class AgentRecord(ApiObject):
    """An agent's record in the signed chat histories this node holds (``p``: the chance it does its next
    task, 0.5 when nothing is known)."""

    done: int
    failed: int
    unanswered: int
    rejected: int
    p: float


@dataclass(frozen=True, slots=True)
class CardEntry(CardSummary):
    """A card of the local directory: how it was learned (``self``, ``gossip``, ``dht``) and when, and
    its signature checked again (``valid``, ``invalid``, ``expired``; absent from older nodes); its stamp,
    standing and record (absent from older nodes); ``first_ms``: when this node first held a card of the
    peer, kept across versions (absent from older nodes; ``learned_ms`` moves with every confirmation)."""

    source: str
    learned_ms: int
    signature: Annotated[str, Json(omit="empty")] = ""
    stamp_bits: int = 0
    standing: Annotated[CardStanding | None, Json(omit="none")] = None
    record: Annotated[AgentRecord | None, Json(omit="none")] = None
    first_ms: Annotated[int | None, Json(omit="none")] = None


@dataclass(frozen=True, slots=True)
class CardMatch(CardSummary):
    """A card that matched a query: its ``score``, ``source`` and whether it is this node's own."""

    score: float
    source: str
    is_self: Annotated[bool, Json(key="self")]
    signature: Annotated[str, Json(omit="empty")] = ""
    stamp_bits: int = 0


@dataclass(frozen=True, slots=True)
class GossipStatus(ApiObject):
    topic_peers: int
    mesh_peers: int
    published: int
    received: int
    rejected: int
    #: the topic's RPCs by kind: ``sent`` / ``received`` counts, ``heartbeats`` (absent from older nodes)
    traffic: Annotated[JsonObject | None, Json(omit="none")] = None


@dataclass(frozen=True, slots=True)
class MatcherStatus(ApiObject):
    """The offline matcher's models: ``policy`` (``[discovery] warm``: "true", "false" or "auto"),
    ``state`` cold, loading or warm; ``load_ms`` of the background load (null: not loaded in the
    background); ``unloads`` (models dropped after ``unload_idle`` s without a find); ``pending`` cards
    not yet embedded."""

    state: str
    load_ms: int | None
    pending: int
    policy: str = "auto"
    unloads: int = 0


@dataclass(frozen=True, slots=True)
class DiscoveryStatus(ApiObject):
    """The discovery service's state: model, cards held, the matcher, DHT and gossip counters."""

    model: str
    cards: int
    matcher: MatcherStatus
    kad_protocol: str
    routing_table: int
    gossip: GossipStatus | None
    finds: int
    dht_fetched: int
    dht_rejected: int
    gossip_accepted: int
    gossip_over_limit: int = 0
    #: new identities' announcements held back by the topic validator (their first-hop source's share)
    gossip_held_back: int = 0
    revalidated: int = 0
    dropped_unconfirmed: int = 0
    directory_partial: bool = False
    withdrawn: bool = False
    #: Kademlia requests sent by type (``sent``) and by type and the loop that sent them (``by_caller``,
    #: ``CALLER.TYPE``), and DHT streams served (``served``); absent from older nodes
    kad_traffic: Annotated[JsonObject | None, Json(omit="none")] = None
    announced_growth: int = 0
    renewals: int = 0
    #: past ``[discovery] relay_all`` (``dht/relaycap.py``): gossip carries only new and changed cards;
    #: renewals of ours left to the DHT, others' unchanged renewals applied and not forwarded, cards not
    #: needed let go at their revalidation (absent from older nodes)
    relay_capped: bool = False
    renewals_not_announced: int = 0
    gossip_not_relayed: int = 0
    lapsed: int = 0


@dataclass(frozen=True, slots=True)
class Withdrawal(ApiObject):
    """A signed withdrawal of a card (docs/protocol.md §9.1.2): it replaces every earlier version."""

    peer_id: str
    withdrawn: bool
    version: int
    issued_at: int
    expires_at: int
    reason: str


@dataclass(frozen=True, slots=True)
class OwnCard(CardSummary):
    """``GET /card``: this node's card and the discovery status; ``withdrawn``: the withdrawal in force,
    if any (the card is withdrawn until ``POST /card`` publishes a new version)."""

    status: DiscoveryStatus
    stamp_bits: int = 0
    withdrawn: Withdrawal | None = None


@dataclass(frozen=True, slots=True)
class PublishedCard(CardSummary):
    """``POST /card``: the new version, with the bits of its stamp."""

    stamp_bits: int = 0


@dataclass(frozen=True, slots=True)
class WithdrawRequest(ApiObject):
    """``POST /card/withdraw``: withdraw this node's card everywhere (``reason``: at most 200 bytes)."""

    STRICT: ClassVar[bool] = True
    reason: str = ""


@dataclass(frozen=True, slots=True)
class CardsReply(ApiObject):
    """``GET /cards``: the live cards of the local directory, by peer ID."""

    model: str
    cards: tuple[CardEntry, ...]


@dataclass(frozen=True, slots=True)
class FindRequest(ApiObject):
    """``POST /find``: the ``k`` agents best suited to ``text``; ``dht`` false ranks only the cards held."""

    STRICT: ClassVar[bool] = True
    text: str
    k: int = 5
    dht: bool | None = None

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise InvalidField("text", "find needs a non-empty text describing the task")
        if not 1 <= self.k <= FIND_MAX_K:
            raise InvalidField("k", f"must be an integer between 1 and {FIND_MAX_K}, not {self.k}")


@dataclass(frozen=True, slots=True)
class FindReply(ApiObject):
    """The matches, best first (``took_ms``: the node's time for the query)."""

    query: str
    k: int
    model: str
    took_ms: float
    results: tuple[CardMatch, ...]


@dataclass(frozen=True, slots=True)
class CardUpdate(ApiObject):
    """``POST /card``: the card fields to change (the others stay); the node signs a new version."""

    STRICT: ClassVar[bool] = True
    name: str | None = None
    description: str | None = None
    adapter: str | None = None
    skills: tuple[str, ...] | None = None
    task_types: tuple[str, ...] | None = None
    languages: tuple[str, ...] | None = None
    input_types: tuple[str, ...] | None = None
    output_types: tuple[str, ...] | None = None
    tools: tuple[str, ...] | None = None

    def changes(self) -> JsonObject:
        """The fields given, as the agent settings read them (lists as lists)."""
        out: JsonObject = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


__all__ = [
    "FIND_MAX_K",
    "AgentRecord",
    "CardEntry",
    "CardMatch",
    "CardStanding",
    "CardSummary",
    "CardUpdate",
    "CardsReply",
    "DiscoveryStatus",
    "FindReply",
    "FindRequest",
    "GossipStatus",
    "OwnCard",
    "PublishedCard",
    "WithdrawRequest",
    "Withdrawal",
]
