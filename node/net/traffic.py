"""What a node's card gossip and Kademlia send and receive, counted by kind (issue 26: where an idle
node's CPU goes; ``GET /card``'s ``status.gossip.traffic`` and ``status.kad_traffic``, read by
``bench/bench_light.py``).

Counters only, no behaviour: :func:`tally_pubsub` wraps the instance methods py-libp2p's ``Pubsub`` and
``GossipSub`` route every RPC through (``write_msg`` for everything written; ``push_msg``,
``handle_subscription`` and the router's ``handle_rpc`` for what a peer sent; ``mesh_heartbeat`` once per
heartbeat), and counts, per RPC:

- ``publish_own`` / ``publish_fwd``: card messages we originated / forwarded (one per message in the RPC;
  received: ``publish`` for every copy that arrived, duplicates included);
- ``subscription``: subscription announcements;
- ``ihave`` / ``iwant`` / ``graft`` / ``prune`` / ``idontwant``: GossipSub control entries;
- ``rpcs``: RPCs written / read (several of the above may share one).

``heartbeats`` counts GossipSub heartbeats. :class:`KadTraffic` counts the Kademlia requests this node
sent by type (``FIND_NODE``, ``GET_VALUE``, ``PUT_VALUE``, ``ADD_PROVIDER``, ``GET_PROVIDERS``; from
:func:`~ioa_p2p.node.net.kad_io._exchange`) and the inbound DHT streams it served; ``by_caller`` splits the
requests sent by the background loop that made them (``caller.TYPE``: :func:`tagged` names a loop's task,
and the tasks it starts inherit the name; ``other`` for the rest, finds and goals among them).
"""

from __future__ import annotations

import collections
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from libp2p.kad_dht.pb.kademlia_pb2 import Message

#: The Kademlia message types by number (``Message.MessageType``).
_KAD_TYPES = {value: name for name, value in Message.MessageType.items()}


class GossipTraffic:
    """Pubsub RPCs and their parts, sent and received, by kind (see the module docstring)."""

    def __init__(self) -> None:
        self.sent: collections.Counter[str] = collections.Counter()
        self.received: collections.Counter[str] = collections.Counter()
        self.heartbeats = 0

    def note_sent(self, rpc: Any, me: bytes) -> None:
        count_rpc(self.sent, rpc, me)

    def to_json(self) -> dict[str, Any]:
        return {"sent": dict(self.sent), "received": dict(self.received), "heartbeats": self.heartbeats}


def count_rpc(counter: collections.Counter[str], rpc: Any, me: bytes) -> None:
    """Count one pubsub RPC's parts into ``counter``: its messages as ``publish_own`` (``from_id`` is
    ``me``) or ``publish_fwd``, its subscriptions, and its control entries by kind."""
    counter["rpcs"] += 1
    for msg in rpc.publish:
        counter["publish_own" if bytes(msg.from_id) == me else "publish_fwd"] += 1
    if rpc.subscriptions:
        counter["subscription"] += len(rpc.subscriptions)
    if rpc.HasField("control"):
        _count_entries(counter, rpc.control)


def _count_entries(counter: collections.Counter[str], control: Any) -> None:
    for kind in ("ihave", "iwant", "graft", "prune", "idontwant"):
        entries = getattr(control, kind, ())
        if entries:
            counter[kind] += len(entries)


def tally_pubsub(pubsub: Any, router: Any, traffic: GossipTraffic) -> None:
    """Count ``pubsub``'s and ``router``'s traffic into ``traffic`` (wrapping their instance methods;
    call it after any patch of ``push_msg``, so a message that patch drops is still counted as received).
    RuntimeError when py-libp2p no longer has the methods."""
    names = [(pubsub, "write_msg"), (pubsub, "push_msg"), (pubsub, "handle_subscription")]
    names += [(router, "handle_rpc"), (router, "mesh_heartbeat")]
    missing = [name for obj, name in names if not callable(getattr(obj, name, None))]
    if missing:
        raise RuntimeError(
            f"py-libp2p's pubsub has no {', '.join(missing)} any more: revisit node/net/traffic.py"
        )
    me = pubsub.my_id.to_bytes()
    write, push, subscription = pubsub.write_msg, pubsub.push_msg, pubsub.handle_subscription
    control, heartbeat = router.handle_rpc, router.mesh_heartbeat

    async def write_msg(stream: Any, rpc: Any) -> bool:
        traffic.note_sent(rpc, me)
        return bool(await write(stream, rpc))

    async def push_msg(forwarder: Any, msg: Any) -> None:
        if forwarder != pubsub.my_id:  # our own announcements enter here too
            traffic.received["publish"] += 1
        await push(forwarder, msg)

    def handle_subscription(origin: Any, sub: Any) -> None:
        traffic.received["subscription"] += 1
        subscription(origin, sub)

    async def handle_rpc(rpc: Any, sender: Any) -> None:
        count_control(traffic.received, rpc)
        await control(rpc, sender)

    def mesh_heartbeat(*args: Any, **kwargs: Any) -> Any:
        traffic.heartbeats += 1
        return heartbeat(*args, **kwargs)

    pubsub.write_msg, pubsub.push_msg, pubsub.handle_subscription = write_msg, push_msg, handle_subscription
    router.handle_rpc, router.mesh_heartbeat = handle_rpc, mesh_heartbeat


def count_control(counter: collections.Counter[str], rpc: Any) -> None:
    """The control entries of a received RPC (the router sees only RPCs that carry control), and the RPC."""
    counter["control_rpcs"] += 1
    _count_entries(counter, rpc.control)


#: The background loop whose task (or a task it started) sends a Kademlia request (:func:`tagged`).
KAD_CALLER: ContextVar[str] = ContextVar("ioa_kad_caller", default="other")


def tagged(caller: str, loop: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """``loop`` run with its Kademlia requests counted as ``caller``'s (for ``nursery.start_soon``)."""

    async def run(*args: Any) -> None:
        KAD_CALLER.set(caller)  # this task's own context: the tasks it starts copy it
        await loop(*args)

    return run


class KadTraffic:
    """Kademlia requests this node sent, by type and by caller, and the inbound DHT streams it served."""

    def __init__(self) -> None:
        self.sent: collections.Counter[str] = collections.Counter()
        self.by_caller: collections.Counter[str] = collections.Counter()
        self.served = 0

    def note_requests(self, requests: list[Any]) -> None:
        caller = KAD_CALLER.get()
        for request in requests:
            kind = _KAD_TYPES.get(int(request.type), str(request.type))
            self.sent[kind] += 1
            self.by_caller[f"{caller}.{kind}"] += 1

    def to_json(self) -> dict[str, Any]:
        return {"sent": dict(self.sent), "by_caller": dict(self.by_caller), "served": self.served}


def kad_traffic(host: Any) -> KadTraffic | None:
    """The :class:`KadTraffic` of ``host`` (set by :func:`count_kad`), if any."""
    traffic = getattr(host, "ioa_kad_traffic", None)
    return traffic if isinstance(traffic, KadTraffic) else None


def count_kad(host: Any) -> KadTraffic:
    """Give ``host`` a :class:`KadTraffic` (once) that the DHT request paths count into."""
    traffic = kad_traffic(host)
    if traffic is None:
        traffic = KadTraffic()
        host.ioa_kad_traffic = traffic
    return traffic


__all__ = [
    "KAD_CALLER",
    "GossipTraffic",
    "KadTraffic",
    "count_control",
    "count_kad",
    "count_rpc",
    "kad_traffic",
    "tagged",
    "tally_pubsub",
]
