"""Writing to the Kademlia DHT: values, bucket pages and provider records at the closest peers of their keys.

- :func:`put_value`: one record (a card) stored locally, validated and never replacing a better one, then
  at the ``K`` closest peers a fresh lookup finds, in parallel (:func:`put_request` / :func:`store_at`:
  one round trip per peer, the stream closed however the request ends; a refusal counts when the peer
  already holds this record or a newer one, :func:`holds_record`);
- :func:`put_many`: one value (our sketch page) under many keys: one batched lookup, then each target
  peer gets its keys pipelined on one stream;
- :func:`provide_many`: ``ADD_PROVIDER`` for many keys, each target peer paced by a
  :class:`~ioa_p2p.dht.provide.ProvidePacer` (py-libp2p resets the stream of a peer that sends more than
  10 in 10 s), unacknowledged keys retried.

While a round's lookup runs, each answer sends the key's store at once to the candidates surely among
its closest (:class:`~ioa_p2p.dht.early.EarlyPlacement`, from the node's size estimate), and a key whose
own lookup is over sends the rest of its closest without waiting for the batch's slowest key. Each round
ends once the lookup is done, every key has a quorum of acknowledgements and the other targets had a
grace to answer (:mod:`~ioa_p2p.dht.quorum`, :class:`QuorumRound`), not when the slowest target timed
out: under churn the targets that left since the lookup no longer cost the per-peer timeout, nor a
provide round its retries. A caller that starts a round with ``nursery.start(put_value, ...)`` (the
node's publishing loop) has its answer earlier, once every key has its quorum (the record is findable):
the rest of the round goes on in that nursery (:mod:`~ioa_p2p.node.net.store_round`), bounded by
:data:`ROUND_LIMIT`; awaited directly, a round answers at its end. Everything the library raises for one
peer is a missing acknowledgement, never the caller's exception; callers bound their wait with their own
cancel scope.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo
from libp2p.peer.peerstore import env_to_send_in_RPC

from ioa_p2p.dht.early import EarlyPlacement
from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.provide import ProvidePacer, assign
from ioa_p2p.node.net.kad_io import (
    PEER_TIMEOUT,
    PROVIDERS,
    VALUE,
    exchange,
    known_peers,
    network_size,
    run_lookup,
)
from ioa_p2p.node.net.store_round import ROUND_LIMIT, Handoff, QuorumRound, Started

log = logging.getLogger("ioa_p2p.node.net.kad")

#: Peers asked per key (records are stored on the 20 closest; a few answers suffice).
DEFAULT_ASK = 2
#: Peers asked per key at least by the lookups that find where to store a record (better converged).
PLACE_ASK = 3
#: Tries per target peer of one provide round, and the back-off before a retry (times the tries so far).
PROVIDE_ATTEMPTS = 3
PROVIDE_RETRY = 2.0


def early_placement(dht: Any, keys: list[bytes]) -> EarlyPlacement:
    """Which of ``keys``' targets get their store during the lookup (:mod:`~ioa_p2p.dht.early`)."""
    return EarlyPlacement(keys, network_size(dht))


def due_now(early: EarlyPlacement, lookup: Lookup, key: bytes) -> list[bytes]:
    """After an answer for ``key``: its candidates within the early line, and once its own lookup is over,
    the rest of its closest (not sent yet); nothing in a network too small for early stores."""
    if not early.active:
        return []
    due = early.due(key, lookup.closest(key))
    if lookup.finished(key):
        due += early.rest({key: list(lookup.keys[key].candidates)})[key]
    return due


def final_targets(early: EarlyPlacement, lookup: Lookup) -> dict[bytes, list[bytes]]:
    """The lookup is done: each key's closest candidates (every one, including those that timed out
    during the lookup: busy, not gone) not sent yet."""
    return early.rest({key: list(state.candidates) for key, state in lookup.keys.items()})


class AnswerBatch:
    """The stores due after one answer of a lookup, sent per peer on one stream: the lookup reports each
    key of an answer in turn without a checkpoint between them, so a task started at the first one runs
    once they are all in."""

    def __init__(self, nursery: trio.Nursery, send: Callable[[bytes, list[bytes]], Awaitable[None]]) -> None:
        self.nursery, self.send = nursery, send
        self.plan: dict[bytes, list[bytes]] = {}

    def add(self, key: bytes, peers: list[bytes]) -> None:
        if peers and not self.plan:
            self.nursery.start_soon(self._flush)
        for peer in peers:
            self.plan.setdefault(peer, []).append(key)

    async def _flush(self) -> None:
        plan, self.plan = self.plan, {}
        for peer, keys in plan.items():
            self.nursery.start_soon(self.send, peer, keys)


def by_key(plan: dict[bytes, list[bytes]]) -> dict[bytes, list[bytes]]:
    """``{peer: keys}`` turned into ``{key: peers}``."""
    out: dict[bytes, list[bytes]] = {}
    for peer, keys in plan.items():
        for key in keys:
            out.setdefault(key, []).append(peer)
    return out


class PlacementRound:
    """What every store round shares (:func:`put_value`, :func:`put_many`, :func:`provide_many`): one batched
    lookup of its keys' closest peers (at least :data:`PLACE_ASK` asked per key), the stores each answer
    makes due (:func:`due_now`), and its quorum (:class:`QuorumRound`), begun now."""

    def __init__(self, dht: Any, keys: list[bytes], me: bytes, *, ask: int, complete: bool = False) -> None:
        self.dht = dht
        self.began = trio.current_time()
        self.lookup = Lookup(keys, known_peers(dht), me=me, ask=max(ask, PLACE_ASK))
        self.early = early_placement(dht, keys)
        self.done = QuorumRound({key: [] for key in keys}, self.began, final=False, complete=complete)

    async def place(self, kind: str, send: Callable[[bytes, list[bytes]], None]) -> dict[bytes, list[bytes]]:
        """Run the lookup (``kind``: VALUE or PROVIDERS); ``send(key, peers)`` after each answer with the
        stores due now (counted in the quorum first); then the targets not sent yet, by key (counted too)."""
        lookup, early, done = self.lookup, self.early, self.done

        def answered(key: bytes) -> None:
            due = due_now(early, lookup, key)
            done.add(key, due)
            send(key, due)

        await run_lookup(self.dht, lookup, kind, answered)
        rest = final_targets(early, lookup)
        done.finalise(rest)
        return rest


async def put_value(
    dht: Any,
    key: str,
    value: bytes,
    *,
    ask: int = DEFAULT_ASK,
    complete: bool = False,
    task_status: Started[bool] = trio.TASK_STATUS_IGNORED,
) -> bool:
    """Store locally (validated, never replacing a better record) and at the ``K`` closest peers a lookup
    finds, in parallel; False when the library refused (invalid, older) or no peer stored it while peers
    were known. Started with ``nursery.start``, the caller has its answer once a quorum stored it and
    the round's other stores go on in that nursery (:mod:`~ioa_p2p.node.net.store_round`); ``complete``
    (a tombstone): the round waits for every target, not only a grace after its quorum, and answers
    only then."""
    handoff: Handoff[bool] = Handoff(task_status)
    try:
        dht.validator.validate(key, value)
        key_bytes = key.encode("utf-8")
        old = dht.value_store.get(key_bytes)
        if old is not None and old.value != value and dht.validator.select(key, [value, old.value]) != 0:
            raise ValueError("refusing to replace a newer value with an older one")
        dht.value_store.put(key_bytes, value)
    except Exception as exc:  # validator errors, an older version
        log.info("DHT put of %s refused: %s", key, exc)
        handoff.release(False)
        return False
    placing = PlacementRound(dht, [key_bytes], dht.local_peer_id.to_bytes(), ask=ask, complete=complete)
    early, done = placing.early, placing.done
    request = put_request(dht, key_bytes)

    def result() -> bool:
        return done.quorum.stored(key_bytes) > 0 or not early.targets(key_bytes)

    async def store(peer: bytes) -> None:
        ok = False
        with trio.move_on_after(PEER_TIMEOUT):
            ok = await store_at(dht, peer, request)
        (done.acked if ok else done.gave_up)(peer, [key_bytes])

    with trio.move_on_at(placing.began + ROUND_LIMIT):
        async with trio.open_nursery() as nursery:
            # a tombstone (``complete``) answers at the round's end: every target heard from
            placed = (lambda: None) if complete else (lambda: handoff.release(result()))
            nursery.start_soon(done.watch, nursery.cancel_scope, lambda: False, placed)

            def send(key: bytes, due: list[bytes]) -> None:
                for peer in due:
                    nursery.start_soon(store, peer)

            rest = await placing.place(VALUE, send)
            for peer in rest[key_bytes]:
                nursery.start_soon(store, peer)
    handoff.release(result())
    return result()


def put_request(dht: Any, key: bytes) -> Message:
    """The PUT_VALUE request for the record this node holds under ``key`` (signed as stored), as
    py-libp2p's ``_store_at_peer`` sends it. Sent with :func:`exchange`, which closes the stream even
    when the caller's deadline ends the request (the library's client left it open at the peer, holding
    one of its DHT handler slots: :mod:`~ioa_p2p.node.net.kad_slots`), in one round trip instead of
    three."""
    record, _ = dht.value_store.store[key]
    message = Message(type=Message.MessageType.PUT_VALUE, key=key)
    message.record.CopyFrom(record)
    message.record.ClearField("timeReceived")
    message.senderRecord, _ = env_to_send_in_RPC(dht.host)
    return message


async def store_at(dht: Any, peer: bytes, request: Message) -> bool:
    """Send one PUT_VALUE (:func:`put_request`) to ``peer``; whether it stores the record. Its stream is
    closed however the request ends (the caller's deadline included). A refused put counts when the
    peer already holds this record or one the validator prefers (:func:`holds_record`): py-libp2p
    refuses (resets) a put of the record it holds (its ``select`` keeps the held one on a tie, where
    go-libp2p keeps the new one), so every re-put of an unchanged card failed at every peer."""
    try:
        [reply] = await exchange(dht.host, ID(peer), [request])
    except Exception as exc:  # dial / negotiation / stream errors, or refused
        log.debug("PUT_VALUE to %s failed: %r", ID(peer), exc)
        return await holds_record(dht, peer, request)
    return bool(reply.type == Message.MessageType.PUT_VALUE and reply.key == request.key)


async def holds_record(dht: Any, peer: bytes, put: Message) -> bool:
    """Whether ``peer`` answers GET_VALUE for ``put``'s key with its record or a valid one the validator
    prefers to it (a newer version)."""
    try:
        [reply] = await exchange(
            dht.host, ID(peer), [Message(type=Message.MessageType.GET_VALUE, key=put.key)]
        )
        held, ours = bytes(reply.record.value), bytes(put.record.value)
        if reply.type != Message.MessageType.GET_VALUE or not held:
            return False
        if held == ours:
            return True
        key = put.key.decode("utf-8")
        dht.validator.validate(key, held)
        return bool(dht.validator.select(key, [ours, held]) == 1)
    except Exception as exc:  # unreachable, reset, undecodable, invalid: it does not hold ours
        log.debug("GET_VALUE to %s after a refused put failed: %r", ID(peer), exc)
        return False


async def provide_many(
    dht: Any,
    keys: list[bytes],
    pacer: ProvidePacer,
    *,
    ask: int = DEFAULT_ASK,
    task_status: Started[int] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Announce ourselves as provider of ``keys`` to the ``K`` closest peers of each (and locally); returns
    how many (peer, key) announcements were acknowledged (started with ``nursery.start``: when every key
    has its quorum, the round going on in that nursery, :mod:`~ioa_p2p.node.net.store_round`).

    One batched lookup finds the closest peers of every key; every target peer then gets its keys
    pipelined on one stream, as many as ``pacer`` allows now (py-libp2p resets the stream past 10
    ADD_PROVIDER per 10 s from one peer), the rest when the pacer allows. The round is bounded by
    :data:`~ioa_p2p.node.net.store_round.ROUND_LIMIT`; callers bound their wait.
    """
    handoff: Handoff[int] = Handoff(task_status)
    me = dht.host.get_id()
    addrs = list(dht.host.get_addrs())
    for key in keys:
        dht.provider_store.add_provider(key, PeerInfo(me, addrs))
    if not addrs:
        handoff.release(0)
        return 0
    placing = PlacementRound(dht, keys, me.to_bytes(), ask=ask)
    done = placing.done
    remaining: dict[bytes, list[bytes]] = {}
    acknowledged = 0
    failures: dict[bytes, int] = {}
    retry_at: dict[bytes, float] = {}
    asked: set[tuple[bytes, bytes]] = set()
    answered: set[bytes] = set()  # peers whose last try got an answer, a refusal included (not gone)

    def holding() -> bool:
        """Keys the pacer held back, or retries of peers that answered: the round sends them, quorum or
        not (only silent targets, likely gone, are left to the quorum)."""
        return any(
            peer in answered or (peer, key) not in asked
            for peer, peer_keys in remaining.items()
            for key in peer_keys
        )

    async def announce(peer: bytes, peer_keys: list[bytes]) -> None:
        nonlocal acknowledged
        requests = []
        for key in peer_keys:
            message = Message(type=Message.MessageType.ADD_PROVIDER, key=key)
            provider = message.providerPeers.add()
            provider.id = me.to_bytes()
            provider.addrs.extend(addr.to_bytes() for addr in addrs)
            requests.append(message)
        replies: list[Any] = []
        answered.discard(peer)
        with trio.move_on_after(PEER_TIMEOUT):
            try:
                replies = await exchange(dht.host, ID(peer), requests)
            except Exception as exc:  # reset (the peer's inbound limit), refused, unreachable
                log.debug("ADD_PROVIDER to %s failed: %r", ID(peer), exc)
            answered.add(peer)
        stored = sum(r.type == Message.MessageType.ADD_PROVIDER for r in replies)
        acknowledged += stored
        done.acked(peer, peer_keys[:stored])
        if stored < len(peer_keys) and failures.get(peer, 0) < PROVIDE_ATTEMPTS - 1:
            failures[peer] = failures.get(peer, 0) + 1  # the unacknowledged keys go again later
            remaining[peer] = peer_keys[stored:] + remaining.get(peer, [])
            retry_at[peer] = trio.current_time() + PROVIDE_RETRY * failures[peer]
            if peer not in answered:  # silent: its retry does not hold the round
                done.gave_up(peer, peer_keys[stored:])
        else:
            done.gave_up(peer, peer_keys[stored:])
        done.note()

    async def passes() -> None:
        while remaining:
            now = trio.current_time()
            async with trio.open_nursery() as nursery:
                for peer, peer_keys in list(remaining.items()):
                    if retry_at.get(peer, now) > now:
                        continue
                    count = pacer.take(peer, len(peer_keys), now)
                    if count:
                        nursery.start_soon(announce, peer, peer_keys[:count])
                        asked.update((peer, key) for key in peer_keys[:count])
                        remaining[peer] = peer_keys[count:]
                    if not remaining[peer]:
                        del remaining[peer]
                done.note()
            if remaining:
                now = trio.current_time()
                wake = min(max(pacer.next_free(p, now), retry_at.get(p, now)) for p in remaining)
                await trio.sleep(max(0.05, wake - now))

    with trio.move_on_at(placing.began + ROUND_LIMIT):
        async with trio.open_nursery() as outer:
            outer.start_soon(done.watch, outer.cancel_scope, holding, lambda: handoff.release(acknowledged))
            async with trio.open_nursery() as early_sends:

                async def announce_early(peer: bytes, peer_keys: list[bytes]) -> None:
                    """What the pacer allows now (the rest goes with the passes)."""
                    count = pacer.take(peer, len(peer_keys), trio.current_time())
                    if peer_keys[count:]:
                        remaining.setdefault(peer, []).extend(peer_keys[count:])
                    if count:
                        asked.update((peer, key) for key in peer_keys[:count])
                        await announce(peer, peer_keys[:count])

                rest = await placing.place(PROVIDERS, AnswerBatch(early_sends, announce_early).add)
                for peer, peer_keys in assign(rest).items():
                    remaining.setdefault(peer, []).extend(peer_keys)
                await passes()
            outer.cancel_scope.cancel()
    handoff.release(acknowledged)
    return acknowledged


async def put_many(
    dht: Any,
    keys: list[str],
    value: bytes,
    *,
    ask: int = DEFAULT_ASK,
    task_status: Started[int] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Store ``value`` under every key locally (validated; bucket pages merge) and at the ``K`` closest
    peers of each: one batched lookup finds them, then every target peer gets its keys as ``PUT_VALUE``
    pipelined on one stream (py-libp2p limits no rate of puts), each bounded by the per-peer timeout;
    returns how many (peer, key) puts were acknowledged (started with ``nursery.start``: when every key
    has its quorum, the round going on in that nursery, :mod:`~ioa_p2p.node.net.store_round`)."""
    handoff: Handoff[int] = Handoff(task_status)
    stored: list[bytes] = []
    for key in dict.fromkeys(keys):
        try:
            dht.validator.validate(key, value)
            dht.value_store.put(key.encode("utf-8"), value)
            stored.append(key.encode("utf-8"))
        except Exception as exc:  # validator errors
            log.info("DHT put of %s refused: %s", key, exc)
    if not stored:
        handoff.release(0)
        return 0
    placing = PlacementRound(dht, stored, dht.local_peer_id.to_bytes(), ask=ask)
    done = placing.done
    acknowledged = 0

    async def put_at(peer: bytes, peer_keys: list[bytes]) -> None:
        nonlocal acknowledged
        messages = []
        for key in peer_keys:
            message = Message(type=Message.MessageType.PUT_VALUE, key=key)
            message.record.key, message.record.value = key, value
            messages.append(message)
        acked: list[bytes] = []
        with trio.move_on_after(PEER_TIMEOUT):
            try:
                replies = await exchange(dht.host, ID(peer), messages)
                acked = [
                    k
                    for k, r in zip(peer_keys, replies, strict=False)
                    if r.type == Message.MessageType.PUT_VALUE
                ]
            except Exception as exc:  # reset, refused, unreachable
                log.debug("PUT_VALUE to %s failed: %r", ID(peer), exc)
        acknowledged += len(acked)
        done.acked(peer, acked)
        done.gave_up(peer, peer_keys)

    with trio.move_on_at(placing.began + ROUND_LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                done.watch, nursery.cancel_scope, lambda: False, lambda: handoff.release(acknowledged)
            )
            rest = await placing.place(VALUE, AnswerBatch(nursery, put_at).add)
            for peer, peer_keys in assign(rest).items():
                nursery.start_soon(put_at, peer, peer_keys)
    handoff.release(acknowledged)
    return acknowledged


__all__ = [
    "DEFAULT_ASK",
    "ROUND_LIMIT",
    "Handoff",
    "AnswerBatch",
    "PlacementRound",
    "QuorumRound",
    "by_key",
    "due_now",
    "early_placement",
    "final_targets",
    "PLACE_ASK",
    "holds_record",
    "provide_many",
    "put_many",
    "put_request",
    "put_value",
    "store_at",
]
