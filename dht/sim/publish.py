"""Publishing a card in the simulator: the record put and the provider records, as the node does them.

- :class:`PutRun` (``ioa_p2p.node.net.kad.put_value``): the record is validated and stored locally, a
  lookup (``ask`` >= :data:`~ioa_p2p.dht.sim.kad.PLACE_ASK`) finds the ``K`` closest peers of its key, and
  each of them is sent ``PUT_VALUE`` at once, each bounded by the per-peer timeout; it succeeded when one
  stored it (or no peer was known).
- :class:`PagePutRun` (``ioa_p2p.node.net.kad.put_many``): the node's sketch page put under each of its
  bucket page keys (one batched lookup, then every target peer gets its keys on one stream).
- :class:`ProvideRun` (``ioa_p2p.node.net.kad.provide_many``): one batched lookup finds the ``K`` closest
  peers of every bucket key (including peers that did not answer it: busy, not gone); every target peer
  then gets its keys on one stream, as many as the node's
  :class:`~ioa_p2p.dht.provide.ProvidePacer` allows now, in passes: a pass waits for all its peers
  (each bounded by the per-peer timeout), unacknowledged keys are retried after 2 s, then 4 s (3 tries in
  all), and the next pass starts when the pacer or a retry allows. The whole round is bounded by
  :data:`DHT_PUBLISH_TIMEOUT`, as the node's publishing loop bounds it.

Each run ends as the node's does (:mod:`~ioa_p2p.dht.quorum`): once every key has a quorum of
acknowledgements (or no target left to hear from) and the round's other requests had the grace, or at
once when every target has been heard from; acknowledgements after that are not counted.

All report when they finished (``on_done``); the experiments time them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ioa_p2p.dht.provide import WINDOW, ProvidePacer, assign
from ioa_p2p.dht.quorum import StoreQuorum, grace
from ioa_p2p.dht.sim.fabric import Fabric
from ioa_p2p.dht.sim.kad import (
    DEFAULT_ASK,
    PEER_TIMEOUT,
    PLACE_ASK,
    PROVIDERS,
    VALUE,
    LookupRun,
    serve_add_providers,
    serve_put_value,
    start_lookup,
)
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.errors import InvalidMessage

#: Tries per target peer of one provide round, and the back-off before a retry (times the tries so far).
PROVIDE_ATTEMPTS = 3
PROVIDE_RETRY = 2.0
#: One put or one provide round may take this long at most (``ioa_p2p.node.discovery.loops``).
DHT_PUBLISH_TIMEOUT = 60.0
PASS_MIN_SLEEP = 0.05


class _PlacingRun:
    """What the three runs share: who places what, when it started and finished, and ``on_done``."""

    def __init__(self, world: Fabric, node: SimNode, on_done: Callable[[Any], Any] | None, ask: int) -> None:
        self.world, self.node, self.on_done = world, node, on_done
        self.ask = max(ask, PLACE_ASK)
        self.started_at = world.loop.now
        self.finished_at: float | None = None
        self.quorum: StoreQuorum | None = None
        self._grace_set = False
        self._over = False  # the quorum's grace is over: the round ends once nothing holds it

    def _target(self, plan: dict[bytes, list[bytes]]) -> None:
        """Start counting the round's acknowledgements: ``plan`` maps each target peer to its keys."""
        targets: dict[bytes, list[bytes]] = {}
        for peer, keys in plan.items():
            for key in keys:
                targets.setdefault(key, []).append(peer)
        self.quorum = StoreQuorum(targets)

    def _heard(self, peer: bytes, acked: list[bytes], gave_up: list[bytes]) -> None:
        """``peer`` acknowledged ``acked`` and will not be asked ``gave_up`` again; ends the round as
        ``ioa_p2p.node.net.kad_write.QuorumRound`` does."""
        quorum = self.quorum
        if quorum is None or self.finished_at is not None:
            return
        quorum.acked(peer, acked)
        quorum.gave_up(peer, gave_up)
        if quorum.settled or (self._over and not self._holding()):
            self._finish()
        elif quorum.reached and not self._grace_set:
            self._grace_set = True
            self.world.loop.after(grace(self.world.loop.now - self.started_at), self._grace_over)

    def _holding(self) -> bool:
        """Keys not sent yet that the round sends, quorum or not (a provide round's paced keys)."""
        return False

    def _grace_over(self) -> None:
        self._over = True
        if not self._holding():
            self._finish()

    def _finish(self) -> None:
        if self.finished_at is not None:
            return
        self.finished_at = self.world.loop.now
        if self.on_done is not None:
            self.on_done(self)

    @property
    def elapsed(self) -> float:
        return (self.finished_at if self.finished_at is not None else self.world.loop.now) - self.started_at


class PutRun(_PlacingRun):
    """Store ``value`` under ``key`` at the closest peers (see the module docstring)."""

    def __init__(
        self,
        world: Fabric,
        node: SimNode,
        key: bytes,
        value: bytes,
        on_done: Callable[[PutRun], Any] | None = None,
        *,
        ask: int = DEFAULT_ASK,
    ) -> None:
        super().__init__(world, node, on_done, ask)
        self.key, self.value = key, value
        self.first_stored_at: float | None = None  # when the first peer acknowledged it
        self.stored = 0
        self.targets: list[bytes] = []
        self._waiting: set[bytes] = set()
        self.ok = False

    def start(self) -> PutRun:
        validator = self.node.validator
        assert validator is not None
        text = self.key.decode("utf-8")
        try:
            validator.validate(text, self.value)
        except (InvalidMessage, ValueError):
            self._done(False)
            return self
        self.node.values[self.key] = self.value
        start_lookup(self.world, self.node, [self.key], VALUE, ask=self.ask, on_done=self._placed)
        return self

    def _placed(self, run: LookupRun) -> None:
        world = self.world
        self.targets = list(run.lookup.keys[self.key].candidates)
        if not self.targets:
            self._done(True)
            return
        self._target({peer: [self.key] for peer in self.targets})
        for peer in self.targets:
            target = world.node_of(peer)
            self._waiting.add(peer)
            at = world.loop.now
            timeout = partial(world.loop.at, at + PEER_TIMEOUT, self._stored, peer, False)
            if target is None:
                timeout()
                continue
            eta = world.net.request(
                self.node,
                target,
                "put_value",
                1,
                partial(serve_put_value, world, target, self.node, self.key, self.value),
                partial(self._stored, peer),
                timeout,
            )
            if eta > at + PEER_TIMEOUT:  # the answer would come too late (links.Network.request)
                timeout()

    def _stored(self, peer: bytes, ok: bool) -> None:
        if peer not in self._waiting or self.finished_at is not None:
            return
        self._waiting.discard(peer)
        self.stored += bool(ok)
        self.ok = self.stored > 0
        if ok and self.first_stored_at is None:
            self.first_stored_at = self.world.loop.now
        self._heard(peer, [self.key] if ok else [], [self.key])

    def _done(self, ok: bool) -> None:
        self.ok = ok
        self._finish()


class PagePutRun(_PlacingRun):
    """Put ``value`` (a page holding the node's own sketch) under every key of ``keys`` at the closest
    peers of each, as ``ioa_p2p.node.net.kad.put_many`` does: one batched lookup (``ask`` >=
    :data:`~ioa_p2p.dht.sim.kad.PLACE_ASK`), then every target peer gets its keys on one stream
    (``PUT_VALUE`` has no per-peer rate limit in py-libp2p), each bounded by the per-peer timeout."""

    def __init__(
        self,
        world: Fabric,
        node: SimNode,
        keys: list[bytes],
        value: bytes,
        on_done: Callable[[PagePutRun], Any] | None = None,
        *,
        ask: int = DEFAULT_ASK,
    ) -> None:
        super().__init__(world, node, on_done, ask)
        self.keys, self.value = list(dict.fromkeys(keys)), value
        self.expected = 0
        self.acknowledged = 0
        self._waiting: set[bytes] = set()
        self._plan: dict[bytes, list[bytes]] = {}

    def start(self) -> PagePutRun:
        for key in self.keys:  # our own copy, as a put stores locally first
            serve_put_value(self.world, self.node, self.node, key, self.value)
        self.world.loop.after(DHT_PUBLISH_TIMEOUT, self._finish)
        start_lookup(self.world, self.node, self.keys, VALUE, ask=self.ask, on_done=self._placed)
        return self

    def _placed(self, run: LookupRun) -> None:
        if self.finished_at is not None:
            return
        world = self.world
        plan = assign({key: state.candidates for key, state in run.lookup.keys.items()})
        self.expected = sum(len(keys) for keys in plan.values())
        if not plan:
            self._finish()
            return
        self._target(plan)
        self._plan = plan
        for peer, keys in plan.items():
            self._waiting.add(peer)
            world.loop.after(PEER_TIMEOUT, self._stored, peer, 0)
            target = world.node_of(peer)
            if target is not None:
                world.net.request(
                    self.node,
                    target,
                    "put_value",
                    len(keys),
                    partial(self._serve, target, keys),
                    partial(self._stored, peer),
                )

    def _serve(self, target: SimNode, keys: list[bytes]) -> list[bytes]:
        return [key for key in keys if serve_put_value(self.world, target, self.node, key, self.value)]

    def _stored(self, peer: bytes, stored: list[bytes] | int) -> None:
        if peer not in self._waiting or self.finished_at is not None:
            return
        self._waiting.discard(peer)
        acked = stored if isinstance(stored, list) else []
        self.acknowledged += len(acked)
        self._heard(peer, acked, self._plan[peer])


class ProvideRun(_PlacingRun):
    """Announce ``node`` as provider of ``keys`` to the closest peers of each (see the module docstring)."""

    def __init__(
        self,
        world: Fabric,
        node: SimNode,
        keys: list[bytes],
        on_done: Callable[[ProvideRun], Any] | None = None,
        *,
        ask: int = DEFAULT_ASK,
    ) -> None:
        super().__init__(world, node, on_done, ask)
        self.keys = list(dict.fromkeys(keys))
        self.expected = 0
        self.acknowledged = 0
        self.remaining: dict[bytes, list[bytes]] = {}
        self.failures: dict[bytes, int] = {}
        self.retry_at: dict[bytes, float] = {}
        self._outstanding: dict[bytes, int] = {}  # peer -> the token of its announcement in flight
        self._asked: set[tuple[bytes, bytes]] = set()  # (peer, key) sent at least once
        self._answered: set[bytes] = set()  # peers whose last try got an answer (a refusal included)
        self._token = 0
        self.pacer = self._pacer()

    def _pacer(self) -> ProvidePacer:
        """The node's pacer (its memory matters only within one window: an older one starts afresh)."""
        now = self.world.loop.now
        held = self.node.provide_pacer
        pacer = held[1] if held is not None and now - held[0] < 2 * WINDOW else ProvidePacer()
        self.node.provide_pacer = (now, pacer)
        return pacer

    def start(self) -> ProvideRun:
        for key in self.keys:
            self.node.add_provider(key, self.node.peer)
        self.world.loop.after(DHT_PUBLISH_TIMEOUT, self._finish)
        start_lookup(self.world, self.node, self.keys, PROVIDERS, ask=self.ask, on_done=self._placed)
        return self

    def _placed(self, run: LookupRun) -> None:
        if self.finished_at is not None:
            return
        self.remaining = assign({key: state.candidates for key, state in run.lookup.keys.items()})
        self.expected = sum(len(keys) for keys in self.remaining.values())
        self._target(self.remaining)
        if not self.remaining:
            self._finish()
            return
        self._pass()

    def _pass(self) -> None:
        if self.finished_at is not None:
            return
        now = self.world.loop.now
        for peer, keys in list(self.remaining.items()):
            if self.retry_at.get(peer, now) > now:
                continue
            count = self.pacer.take(peer, len(keys), now)
            if count:
                self._announce(peer, keys[:count])
                self._asked.update((peer, key) for key in keys[:count])
                self.remaining[peer] = keys[count:]
            if not self.remaining[peer]:
                del self.remaining[peer]
        if self._over and not self._holding():
            self._finish()
        elif not self._outstanding:
            self._after_pass()

    def _holding(self) -> bool:
        return any(
            peer in self._answered or (peer, key) not in self._asked
            for peer, keys in self.remaining.items()
            for key in keys
        )

    def _announce(self, peer: bytes, keys: list[bytes]) -> None:
        world = self.world
        self._token += 1
        token = self._outstanding[peer] = self._token
        timeout = partial(
            world.loop.at, world.loop.now + PEER_TIMEOUT, self._acked, peer, keys, 0, token, False
        )
        target = world.node_of(peer)
        if target is None:
            timeout()
            return
        eta = world.net.request(
            self.node,
            target,
            "add_provider",
            len(keys),
            partial(serve_add_providers, world, target, self.node, keys),
            partial(self._acked_by, peer, keys, token),
            timeout,
        )
        if eta > world.loop.now + PEER_TIMEOUT:  # the answer would come too late (links.Network.request)
            timeout()

    def _acked_by(self, peer: bytes, keys: list[bytes], token: int, done: int) -> None:
        self._acked(peer, keys, done, token)

    def _acked(self, peer: bytes, keys: list[bytes], done: int, token: int, answered: bool = True) -> None:
        if self._outstanding.get(peer) != token or self.finished_at is not None:
            return
        del self._outstanding[peer]
        self.acknowledged += done
        retry = done < len(keys) and self.failures.get(peer, 0) < PROVIDE_ATTEMPTS - 1
        if answered:
            self._answered.add(peer)
        else:
            self._answered.discard(peer)
        if retry:
            self.failures[peer] = self.failures.get(peer, 0) + 1
            self.remaining[peer] = keys[done:] + self.remaining.get(peer, [])
            self.retry_at[peer] = self.world.loop.now + PROVIDE_RETRY * self.failures[peer]
        # a silent peer's retry does not hold the round; one that answered (a refusal) does
        self._heard(peer, keys[:done], [] if retry and answered else keys[done:])
        if not self._outstanding and self.finished_at is None:
            self._after_pass()

    def _after_pass(self) -> None:
        if not self.remaining:
            self._finish()
            return
        now = self.world.loop.now
        wake = min(max(self.pacer.next_free(p, now), self.retry_at.get(p, now)) for p in self.remaining)
        self.world.loop.after(max(PASS_MIN_SLEEP, wake - now), self._pass)


__all__ = ["DHT_PUBLISH_TIMEOUT", "PROVIDE_ATTEMPTS", "PROVIDE_RETRY", "PagePutRun", "ProvideRun", "PutRun"]
