"""This node and its peers (pure): identity, connections, direct messages, relays, faults and budgets.

The requests and replies of ``GET /id``, ``GET /peers``, ``POST /connect``, ``POST /send``, ``GET /inbox``,
``GET /relay``, ``POST /relay/connect``, ``GET /faults`` and ``GET /budgets`` (docs/protocol.md §7).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar

from ioa_p2p.api.codec import ApiObject, Json, JsonObject, JsonValue
from ioa_p2p.errors import InputError, InvalidField
from ioa_p2p.identity import PeerId


def check_peer(path: str, text: str) -> None:
    """InvalidField unless ``text`` is a peer ID (base58, ``12D3KooW...``)."""
    try:
        PeerId.from_string(text)
    except InputError as exc:
        raise InvalidField(path, f"must be a peer ID: {exc}") from None


@dataclass(frozen=True, slots=True)
class IdReply(ApiObject):
    """``GET /id``: this node's peer ID and listen addresses."""

    peer_id: str
    addrs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PeerInfo(ApiObject):
    """A connected peer (``GET /peers``, sorted by peer ID)."""

    peer_id: str
    addrs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConnectRequest(ApiObject):
    """``POST /connect``: dial a multiaddr that ends in ``/p2p/<peer id>``."""

    STRICT: ClassVar[bool] = True
    addr: str


@dataclass(frozen=True, slots=True)
class ConnectReply(ApiObject):
    peer_id: str


@dataclass(frozen=True, slots=True)
class SendRequest(ApiObject):
    """``POST /send``: a signed direct message; answered once the peer acknowledged it."""

    STRICT: ClassVar[bool] = True
    peer: str
    text: str
    data: JsonObject | None = None

    def __post_init__(self) -> None:
        check_peer("peer", self.peer)


@dataclass(frozen=True, slots=True)
class SendReply(ApiObject):
    hash: str
    acked: bool


@dataclass(frozen=True, slots=True)
class InboxMessage(ApiObject):
    """A direct message this node received (``GET /inbox``)."""

    sender: Annotated[str, Json(key="from")]
    hash: str
    seq: int
    ts: int
    text: str | None
    data: JsonValue


@dataclass(frozen=True, slots=True)
class FaultsReply(ApiObject):
    """``GET /faults``: exceptions the node's task boundaries stopped, by ``<where>:<exception type>``."""

    total: int
    counts: Mapping[str, int]


# --------------------------------------------------------------------------- budgets


@dataclass(frozen=True, slots=True)
class LedgerView(ApiObject):
    """An amount held per peer and in total (bytes, streams): what is held, the caps, refusals."""

    held: int
    total: int | None
    per_peer: int | None
    holders: int
    top_holder: int
    refused: int
    evicted: int


@dataclass(frozen=True, slots=True)
class StreamsView(LedgerView):
    """The inbound streams ledger, and the streams refused before protocol negotiation."""

    refused_before_negotiation: int


@dataclass(frozen=True, slots=True)
class RateView(ApiObject):
    """Work per period, per peer and in total (token buckets)."""

    period: float
    per_peer: int
    total: int | None
    peers: int
    refused: int


@dataclass(frozen=True, slots=True)
class BudgetsReply(ApiObject):
    """``GET /budgets`` (docs/security.md, "Resource budgets"); ``limits``: the ``[limits]`` in force."""

    partial_frame_bytes: LedgerView
    streams: StreamsView
    pending_bytes: LedgerView
    sync_requests: RateView
    sync_messages: RateView
    sync_answer_bytes: LedgerView
    sync_pulls: RateView
    limits: Mapping[str, float]


# --------------------------------------------------------------------------- relays


@dataclass(frozen=True, slots=True)
class RelayLimitsView(ApiObject):
    """The ``[relay]`` limits in force (docs/bootstrap.md)."""

    max_reservations: int
    max_circuits_per_peer: int
    circuit_duration: int
    circuit_bytes: int
    reservation_ttl: int


@dataclass(frozen=True, slots=True)
class ReservationView(ApiObject):
    """A reservation this node holds on a relay (``expires``: seconds since the Unix epoch)."""

    relay: str
    expires: float
    relay_addrs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RelayStatus(ApiObject):
    """``GET /relay``; ``reserved_peers`` only on a hop relay."""

    hop: bool
    client: bool
    limits: RelayLimitsView
    reservations: tuple[ReservationView, ...]
    circuit_addrs: tuple[str, ...]
    reserved_peers: Annotated[int | None, Json(omit="none")] = None


@dataclass(frozen=True, slots=True)
class RelayConnectRequest(ApiObject):
    """``POST /relay/connect``: a circuit multiaddr (``addr``), or a ``peer`` (through ``relay``, or any
    relay it is known to be reachable through)."""

    STRICT: ClassVar[bool] = True
    addr: str | None = None
    peer: str | None = None
    relay: str | None = None

    def __post_init__(self) -> None:
        if self.addr is None and self.peer is None:
            raise InvalidField("peer", "is missing (give addr, or peer and optionally relay)")
        for name in ("peer", "relay"):
            value = getattr(self, name)
            if value is not None:
                check_peer(name, value)


@dataclass(frozen=True, slots=True)
class RelayConnectReply(ApiObject):
    """``via``: the relay used (None when the peer was already connected)."""

    peer_id: str
    via: str | None


__all__ = [
    "BudgetsReply",
    "ConnectReply",
    "ConnectRequest",
    "FaultsReply",
    "IdReply",
    "InboxMessage",
    "LedgerView",
    "PeerInfo",
    "RateView",
    "RelayConnectReply",
    "RelayConnectRequest",
    "RelayLimitsView",
    "RelayStatus",
    "ReservationView",
    "SendReply",
    "SendRequest",
    "StreamsView",
    "check_peer",
]
