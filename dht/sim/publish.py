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

While the lookup runs, each answer sends the key's store at once to the candidates surely among its
closest (:class:`~ioa_p2p.dht.early.EarlyPlacement`, from the node's size estimate: ``world.early_rank``,
0 for the node before 2026-11-28); once it is done, the rest of the ``K`` closest are sent theirs. Each
run ends as the node's does (:mod:`~ioa_p2p.dht.quorum`): once the lookup is done, every key has a quorum
of acknowledgements (or no target left to hear from) and the round's other requests had the grace, or at
once when every target has been heard from (a ``complete`` put, a withdrawal's tombstone: only then);
acknowledgements after that are not counted. :attr:`PlacingRun.placed_at` is when every key first had
its quorum (the record findable at its closest peers), which can come before the lookup is over: then
the caller's wait ends (``on_done``, :attr:`PlacingRun.returned_at`, as ``nursery.start`` returns in
the node's publishing loop) and the round goes on. The experiments time both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

from ioa_p2p.dht.provide import WINDOW, ProvidePacer
from ioa_p2p.dht.sim.fabric import Fabric
from ioa_p2p.dht.sim.kad import (
    DEFAULT_ASK,
    PEER_TIMEOUT,
    PROVIDERS,
    VALUE,
    LookupRun,
    serve_add_providers,
    serve_put_value,
)
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.placing import PlacingRun, network_size
from ioa_p2p.errors import InvalidMessage

#: Tries per target peer of one provide round, and the back-off before a retry (times the tries so far).
PROVIDE_ATTEMPTS = 3
PROVIDE_RETRY = 2.0
#: One put or one provide round may take this long at most (``ioa_p2p.node.discovery.loops``).
DHT_PUBLISH_TIMEOUT = 60.0
PASS_MIN_SLEEP = 0.05


class PutRun(PlacingRun):
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
        complete: bool = False,
    ) -> None:
        super().__init__(world, node, on_done, ask, complete)
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
        self._look_up([self.key], VALUE)
        return self

    def _send_early(self, plan: dict[bytes, list[bytes]]) -> None:
        for peer in plan:
            self._store_at(peer)

    def _placed(self, run: LookupRun) -> None:
        self.targets = list(run.lookup.keys[self.key].candidates)
        rest = self._final(run)
        if self.early is not None:
            self.targets = list(dict.fromkeys([*self.early.targets(self.key), *self.targets]))
        if not self.targets:
            self._done(True)
            return
        for peer in rest:
            self._store_at(peer)
        self._check()

    def _store_at(self, peer: bytes) -> None:
        world = self.world
        target = world.node_of(peer)
        self._waiting.add(peer)
        at = world.loop.now
        timeout = partial(world.loop.at, at + PEER_TIMEOUT, self._stored, peer, False)
        if target is None:
            timeout()
            return
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


class PagePutRun(PlacingRun):
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
        self._waiting: dict[int, tuple[bytes, list[bytes]]] = {}  # request token -> (peer, its keys)
        self._token = 0
        self._heard_keys = 0  # (peer, key) puts answered or given up

    def start(self) -> PagePutRun:
        for key in self.keys:  # our own copy, as a put stores locally first
            serve_put_value(self.world, self.node, self.node, key, self.value)
        self.world.loop.after(DHT_PUBLISH_TIMEOUT, self._finish)
        self._look_up(self.keys, VALUE)
        return self

    def _send_early(self, plan: dict[bytes, list[bytes]]) -> None:
        self._send(plan)

    def _placed(self, run: LookupRun) -> None:
        if self.finished_at is not None:
            return
        plan = self._final(run)
        self._send(plan)
        self.expected = sum(len(keys) for _, keys in self._waiting.values()) + self._heard_keys
        if not self.expected:
            self._finish()
            return
        self._check()

    def _send(self, plan: dict[bytes, list[bytes]]) -> None:
        world = self.world
        for peer, keys in plan.items():
            self._token += 1
            token = self._token
            self._waiting[token] = (peer, keys)
            world.loop.after(PEER_TIMEOUT, self._stored, token, 0)
            target = world.node_of(peer)
            if target is not None:
                world.net.request(
                    self.node,
                    target,
                    "put_value",
                    len(keys),
                    partial(self._serve, target, keys),
                    partial(self._stored, token),
                )

    def _serve(self, target: SimNode, keys: list[bytes]) -> list[bytes]:
        return [key for key in keys if serve_put_value(self.world, target, self.node, key, self.value)]

    def _stored(self, token: int, stored: list[bytes] | int) -> None:
        sent = self._waiting.pop(token, None)
        if sent is None or self.finished_at is not None:
            return
        peer, keys = sent
        acked = stored if isinstance(stored, list) else []
        self.acknowledged += len(acked)
        self._heard_keys += len(keys)
        self._heard(peer, acked, keys)


class ProvideRun(PlacingRun):
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
        self._outstanding: dict[int, bytes] = {}  # token of each announcement in flight -> its peer
        self._pass_tokens: set[int] = set()  # those a pass sent (a pass waits for them, not early ones)
        self._wake_at = math.inf  # when the next pass is scheduled
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
        self._look_up(self.keys, PROVIDERS)
        return self

    def _queue(self, plan: dict[bytes, list[bytes]]) -> None:
        for peer, keys in plan.items():
            if keys:
                self.remaining.setdefault(peer, []).extend(keys)
                self.expected += len(keys)

    def _send_early(self, plan: dict[bytes, list[bytes]]) -> None:
        """Announce now what the pacer allows (not part of a pass); the rest waits for the passes."""
        now = self.world.loop.now
        for peer, keys in plan.items():
            self.expected += len(keys)
            count = self.pacer.take(peer, len(keys), now)
            if count:
                self._announce(peer, keys[:count], in_pass=False)
            if keys[count:]:
                self.remaining.setdefault(peer, []).extend(keys[count:])
        if self.remaining and not self._pass_tokens:
            self._after_pass()

    def _placed(self, run: LookupRun) -> None:
        if self.finished_at is not None:
            return
        # every closest candidate, including those that timed out during the lookup (busy, not gone)
        self._queue(self._final(run))
        if not self.remaining and not self._outstanding:
            self._check()
            self._finish()
            return
        self._pass()

    def _pass(self) -> None:
        if self.finished_at is not None:
            return
        now = self.world.loop.now
        self._wake_at = math.inf
        for peer, keys in list(self.remaining.items()):
            if self.retry_at.get(peer, now) > now:
                continue
            count = self.pacer.take(peer, len(keys), now)
            if count:
                self._announce(peer, keys[:count], in_pass=True)
                self.remaining[peer] = keys[count:]
            if not self.remaining[peer]:
                del self.remaining[peer]
        if self._over and not self._holding():
            self._finish()
        elif not self._pass_tokens:
            self._after_pass()

    def _holding(self) -> bool:
        return any(
            peer in self._answered or (peer, key) not in self._asked
            for peer, keys in self.remaining.items()
            for key in keys
        )

    def _announce(self, peer: bytes, keys: list[bytes], *, in_pass: bool) -> None:
        world = self.world
        self._asked.update((peer, key) for key in keys)
        self._token += 1
        token = self._token
        self._outstanding[token] = peer
        if in_pass:
            self._pass_tokens.add(token)
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
        if token not in self._outstanding or self.finished_at is not None:
            return
        del self._outstanding[token]
        self._pass_tokens.discard(token)
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
        if not self._pass_tokens and self.finished_at is None:
            self._after_pass()

    def _after_pass(self) -> None:
        quorum = self.quorum
        if not self.remaining:
            if quorum is not None and quorum.final and not self._outstanding:
                self._finish()
            return
        now = self.world.loop.now
        wake = min(max(self.pacer.next_free(p, now), self.retry_at.get(p, now)) for p in self.remaining)
        at = now + max(PASS_MIN_SLEEP, wake - now)
        if at < self._wake_at:
            self._wake_at = at
            self.world.loop.at(at, self._pass_at, at)

    def _pass_at(self, at: float) -> None:
        if at == self._wake_at:
            self._pass()


__all__ = [
    "DHT_PUBLISH_TIMEOUT",
    "PROVIDE_ATTEMPTS",
    "PROVIDE_RETRY",
    "PagePutRun",
    "ProvideRun",
    "PutRun",
    "network_size",
]
