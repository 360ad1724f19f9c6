"""This node and its peers (pure): identity, connections, direct messages, relays, faults and budgets.

The requests and replies of ``GET /id``, ``GET /peers``, ``GET /net``, ``POST /connect``, ``POST /send``,
``GET /inbox``, ``GET /relay``, ``POST /relay/connect``, ``GET /faults`` and ``GET /budgets``
(docs/protocol.md §7).
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
    """``GET /id``: this node's peer ID, listen addresses (wildcards expanded) and the addresses it
    advertises (docs/protocol.md §6.3)."""

    peer_id: str
    addrs: tuple[str, ...]
    advertised: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConnectionView(ApiObject):
    """One open connection to a peer: ``kind`` ``direct``, ``relayed`` (through a relay: ``addr`` is the
    circuit address) or ``punched`` (direct, made by hole punching); ``direction`` ``inbound`` or
    ``outbound``; ``streams`` open on it."""

    kind: str
    addr: str
    direction: str
    streams: int


@dataclass(frozen=True, slots=True)
class PeerInfo(ApiObject):
    """A connected peer (``GET /peers``, sorted by peer ID), its connections direct ones first."""

    peer_id: str
    addrs: tuple[str, ...]
    connections: tuple[ConnectionView, ...] = ()


@dataclass(frozen=True, slots=True)
class ReachabilityView(ApiObject):
    """Whether the node is reachable (docs/protocol.md §6.3): ``mode`` (``[node] reachability``),
    ``status`` (``public``, ``private``, ``unknown``), the AutoNAT servers that ``reached`` it or ``failed``
    to, when the status last ``changed_at`` (unix seconds), the public IPs peers see it at (``observed``:
    distinct observers each), those ``confirmed``, the observed addresses AutoNAT verified, and what this
    node answered as an AutoNAT server (``served``)."""

    mode: str
    status: str
    confirmations: int
    reached: int
    failed: int
    changed_at: float | None
    observed: Mapping[str, int]
    confirmed_ips: tuple[str, ...]
    verified_addrs: tuple[str, ...]
    served: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class BootstrapView(ApiObject):
    """A bootstrap peer: connected now, dial attempts, the last error (empty when none)."""

    addr: str
    connected: bool
    attempts: int
    last_error: str


@dataclass(frozen=True, slots=True)
class PunchView(ApiObject):
    """Hole punching (DCUtR) attempts this node made, and how many worked."""

    attempts: int
    successes: int


@dataclass(frozen=True, slots=True)
class CloseView(ApiObject):
    """One of the last connections that closed: why (as counted in ``closed``), the peer (the last 8
    characters of its ID), ``inbound`` / ``outbound``, its age in seconds, the protocols of its streams
    open then, its TCP addresses (``local``, ``remote``; empty when unknown, e.g. relayed) and, when it
    ended inside a Noise message, the bytes of it received and expected (``bytes``)."""

    reason: str
    peer: str
    direction: str
    age_s: float | None = None
    streams: tuple[str, ...] = ()
    local: str = ""
    remote: str = ""
    bytes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ConnectionCounts(ApiObject):
    """This node's connections since it started: ``opened`` by direction (``inbound``, ``outbound``),
    ``closed`` by the first reason its muxer saw (``remote closed``, ``remote closed mid-frame``, ``short
    reads``, ``remote GO_AWAY <code>``, ``read error <type>``, ``frame body timeout``, ``local: <who
    asked>``), ``refused`` (not registered: connection limits), ``open`` (opened minus closed) and the
    last closes with their details (``recent``, at most 32)."""

    open: int
    opened: Mapping[str, int]
    closed: Mapping[str, int]
    refused: Mapping[str, int]
    recent: tuple[CloseView, ...] = ()


@dataclass(frozen=True, slots=True)
class NetStatus(ApiObject):
    """``GET /net``: reachability, listen and advertised addresses, bootstrap peers, hole punching, and
    why connections opened and closed (``connections``)."""

    peer_id: str
    reachability: ReachabilityView
    listen: tuple[str, ...]
    advertised: tuple[str, ...]
    bootstrap: tuple[BootstrapView, ...]
    hole_punching: PunchView | None
    connections: ConnectionCounts | None = None


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
    """An amount held per peer and in total (bytes, streams): what is held, the caps, refusals; the
    share of the total kept for trusted peers, and what strangers hold together."""

    held: int
    total: int | None
    per_peer: int | None
    reserved_for_trusted: int
    held_by_strangers: int
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
class CpuView(ApiObject):
    """CPU seconds per second allowed per peer, loop seconds per second per pool (strangers, known
    peers), the CPU seconds charged by trust (``stranger``, ``known``, ``partner``) and the event
    loop's seconds they held, peers tracked, and how often peers waited."""

    per_peer: float
    pool: float
    charged_s: float
    charged_s_by_trust: Mapping[str, float]
    peers: int
    paced: int
    #: Loop seconds by trust; absent from older nodes.
    loop_s_by_trust: Mapping[str, float] | None = None
    #: How often a stranger waited for a trusted peer's work on a congested loop; absent from older nodes.
    yielded_to_trusted: int | None = None
    #: Share of the last 0.25 s the event loop ran tasks; null before the host runs, absent from older nodes.
    loop_busy: float | None = None


@dataclass(frozen=True, slots=True)
class BudgetsReply(ApiObject):
    """``GET /budgets`` (docs/security.md, "Resource budgets"); ``limits``: the ``[limits]`` in force."""

    partial_frame_bytes: LedgerView
    unread_bytes: LedgerView
    streams: StreamsView
    inbound_streams: LedgerView
    pending_bytes: LedgerView
    sync_requests: RateView
    sync_messages: RateView
    sync_answer_bytes: LedgerView
    sync_pulls: RateView
    cpu: CpuView
    limits: Mapping[str, float]
    #: What the process holds and this agent's part of it (:class:`MemoryView`); absent from older nodes.
    memory: MemoryView | None = None


@dataclass(frozen=True, slots=True)
class MemoryView(ApiObject):
    """``GET /budgets``' ``memory``, in bytes (``None``: not known on this system; :mod:`ioa_p2p.memory`).
    A process may run several agents (``ioa node start --agents FILE``) sharing imports, models and the
    event loop: ``process_rss``/``process_peak_rss`` are the process's; ``agents`` how many it runs;
    ``baseline_rss`` its RSS before the first agent opened; ``share_rss`` this agent's mean share of the
    rest, ``(process_rss - baseline_rss) / agents``; ``start_rss`` how much the process grew while this
    agent opened; ``held_bytes`` the network buffers this agent holds now."""

    process_rss: int | None
    process_peak_rss: int | None
    agents: int
    baseline_rss: int | None
    share_rss: int | None
    start_rss: int | None
    held_bytes: int


# --------------------------------------------------------------------------- relays


@dataclass(frozen=True, slots=True)
class RelayLimitsView(ApiObject):
    """The ``[relay]`` limits in force when this node relays (docs/protocol.md §6.2, docs/bootstrap.md)."""

    max_reservations: int
    max_reservations_per_ip: int
    reservation_ttl: int
    max_circuits: int
    max_circuits_per_peer: int
    max_circuits_per_ip: int
    circuit_duration: int
    circuit_bytes: int
    max_rate: int


@dataclass(frozen=True, slots=True)
class ReservationView(ApiObject):
    """A reservation this node holds on a relay (``expires``: seconds since the Unix epoch;
    ``expires_in``: seconds left); ``pinned``: from ``[relay] reserve`` (else held automatically while
    private); ``renewals`` so far."""

    relay: str
    expires: float
    relay_addrs: tuple[str, ...]
    expires_in: int = 0
    pinned: bool = False
    renewals: int = 0


@dataclass(frozen=True, slots=True)
class RelayUsage(ApiObject):
    """What this node relays for others: reservations held (and the most at one IP), circuits open and
    opened, circuits cut by a limit (``duration``, ``bytes``), bytes relayed, refusals by limit."""

    reservations: int
    reservations_by_ip_max: int
    circuits: int
    circuits_opened: int
    circuits_cut: Mapping[str, int]
    relayed_bytes: int
    refusals: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class RelayStatus(ApiObject):
    """``GET /relay``; ``reserved_peers`` and ``usage`` only while this node relays (hop)."""

    hop: bool
    client: bool
    limits: RelayLimitsView
    reservations: tuple[ReservationView, ...]
    circuit_addrs: tuple[str, ...]
    reserved_peers: Annotated[int | None, Json(omit="none")] = None
    reachability: str = "unknown"
    wanted_reservations: int = 0
    hole_punching: Annotated[PunchView | None, Json(omit="none")] = None
    usage: Annotated[RelayUsage | None, Json(omit="none")] = None


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
    "BootstrapView",
    "BudgetsReply",
    "CpuView",
    "CloseView",
    "ConnectionCounts",
    "ConnectionView",
    "ConnectReply",
    "ConnectRequest",
    "FaultsReply",
    "IdReply",
    "InboxMessage",
    "LedgerView",
    "MemoryView",
    "NetStatus",
    "PeerInfo",
    "PunchView",
    "RateView",
    "ReachabilityView",
    "RelayConnectReply",
    "RelayConnectRequest",
    "RelayLimitsView",
    "RelayStatus",
    "RelayUsage",
    "ReservationView",
    "SendReply",
    "SendRequest",
    "StreamsView",
    "check_peer",
]
