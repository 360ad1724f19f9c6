"""The offline matcher's models over a node's life: loaded when needed, kept warm while used, dropped when
idle.

The matcher loads its models on first use (MiniLM: ~0.5 s of one core on an idle machine, seconds on a busy
one, and ~190 MB of memory) and embeds the cards that arrived since the last ranking (a MiniLM pass each).
:func:`keep_matcher` runs in the discovery service's nursery for the node's life and applies
``[discovery] warm`` (:class:`~ioa_p2p.dht.settings.DiscoverySettings`):

- ``true`` (a coordinator): after the node's first card is out and a short pause (:data:`WARM_DELAY`, so
  start-up work goes first) it loads the models in a worker thread (bounded by :data:`WARM_TIMEOUT`; on
  failure or timeout the first find loads them), then embeds newly arrived cards every
  :data:`WARM_PERIOD` seconds, a few (:data:`WARM_BATCH`) at a time, so the queue a find must embed stays
  short. The models stay loaded. Without warming, a node's first goal waited ~10 s in discovery at N = 25.
- ``"auto"`` (the default): nothing at start (a node that only serves never holds the models: an idle
  agent stays small). Once a find or a goal loaded them (the node searches or coordinates), arriving cards
  are embedded in the background as with ``true``.
- ``false``: no background work; a find embeds what arrived since the last one.

With ``"auto"`` and ``false`` the models are unloaded (unless a node of the same process runs with
``true``: the models are the process's) (:meth:`~ioa_p2p.dht.ranking.CardRanker.unload`,
then the freed heap is handed back: :func:`~ioa_p2p.memory.release_free_memory`) once no ranking was asked
of the process for ``unload_idle`` seconds (0: never); the index and the cached card vectors stay, so the
next find pays the load (~0.5-1 s) but no re-embedding of the cards it already indexed. A process that never
ranked (its nodes only serve) holds wordllama's tokenizer (~15 MB) only to embed its own cards: it drops it
after :data:`CARD_ENCODER_IDLE` s without an embedding in the process (``unload_idle`` if shorter); a
re-issue with new agent settings loads it again (~0.2 s). Checks run every
:data:`IDLE_CHECK` seconds at most (a quick look at counters: an idle node wakes rarely). It never blocks
readiness (``open_node`` returns before) and yields the CPU between steps; docs/matching.md, "Memory
budget", and docs/performance.md, "Light nodes", have the figures.
"""

from __future__ import annotations

import logging

import trio
import trio.lowlevel

from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.memory import release_free_memory
from ioa_p2p.node.ports import NodePort

log = logging.getLogger("ioa_p2p.discovery")

#: Seconds after the node's first card before the models load (``warm = true``).
WARM_DELAY = 2.0
#: Longest the model load may take (a busy machine); past it the first find loads them.
WARM_TIMEOUT = 120.0
#: Seconds between two background embeddings of the cards that arrived, and how many cards at most each
#: embeds (a MiniLM pass each: a find that comes meanwhile waits for these few at most).
WARM_PERIOD = 2.0
WARM_BATCH = 16
#: Longest pause between two looks at whether the models were loaded or fell idle.
IDLE_CHECK = 30.0
#: Seconds without an embedding after which a process that never ranked drops the encoder its nodes
#: loaded for their own cards (several agents of a process issue theirs one after the other meanwhile).
CARD_ENCODER_IDLE = 60.0


class WarmState:
    """What :func:`keep_matcher` has done (``GET /card``'s ``status.matcher``)."""

    #: Nodes of this process running with ``warm = true``: the models are the process's, so none of its
    #: other nodes unloads them while one is running.
    keepers = 0
    #: Embeddings asked by the discovery services of this process (own cards, queries), and when the last
    #: was asked (``trio.current_time()``): a use of the models (:meth:`note_embedding`).
    embeddings = 0
    last_embedding = 0.0

    @classmethod
    def note_embedding(cls) -> None:
        cls.embeddings += 1
        cls.last_embedding = trio.current_time()

    def __init__(self, ranker: CardRanker | None = None, policy: bool | str = "auto") -> None:
        self.ranker = ranker
        self.policy = policy
        self.state = "cold"  # "cold" -> "loading" -> "warm" -> "cold" (unloaded when idle, or a failed load)
        self.load_ms: int | None = None
        self.unloads = 0
        self.warmed = trio.Event()

    def to_json(self) -> dict[str, object]:
        """``policy``, ``state``, ``load_ms`` (the background load), ``unloads`` (models dropped when idle)
        and ``pending`` (cards not yet embedded)."""
        pending = self.ranker.pending() if self.ranker is not None else 0
        return {
            "policy": str(self.policy).lower(),  # "true", "false" or "auto"
            "state": self.state,
            "load_ms": self.load_ms,
            "unloads": self.unloads,
            "pending": pending,
        }


async def keep_matcher(
    node: NodePort, ranker: CardRanker, card_ready: trio.Event, state: WarmState, unload_idle: float
) -> None:
    """Apply ``state.policy`` to ``ranker``'s models until cancelled (see the module docstring); a
    failure is recorded as a fault, never raised."""
    if state.policy is True:
        WarmState.keepers += 1
    try:
        await _keep(node, ranker, card_ready, state, unload_idle)
    finally:
        if state.policy is True:
            WarmState.keepers -= 1


async def _keep(
    node: NodePort, ranker: CardRanker, card_ready: trio.Event, state: WarmState, unload_idle: float
) -> None:
    await card_ready.wait()
    if state.policy is True:
        await _load_in_background(node, ranker, state)
    seen, last_use = CardRanker.queries, trio.current_time()
    embedded, last_embedding = WarmState.embeddings, last_use
    while True:
        if CardRanker.queries != seen:
            seen, last_use = CardRanker.queries, trio.current_time()
        if WarmState.embeddings != embedded:  # asked in this run: its time is of this run's clock
            embedded, last_embedding = (
                WarmState.embeddings,
                min(WarmState.last_embedding, trio.current_time()),
            )
        if state.policy is not False:  # false: "cold" always (no background work of this node's)
            if ranker.loaded():
                state.state = "warm"
                state.warmed.set()
                await _embed_some(node, ranker)
            elif state.state != "loading":
                state.state = "cold"
        limit = unload_idle
        idle = trio.current_time() - last_use
        if CardRanker.queries == 0 and unload_idle > 0:  # only own cards embedded so far: see the docstring
            limit = min(unload_idle, CARD_ENCODER_IDLE)
            idle = trio.current_time() - max(last_use, last_embedding)
        if limit > 0 and idle >= limit and ranker.holds_models() and not WarmState.keepers:
            await _unload(node, ranker, state, idle)
        until_idle = limit - idle if 0 < idle < limit else IDLE_CHECK
        await trio.sleep(_pause(state, ranker, until_idle))


def _pause(state: WarmState, ranker: CardRanker, until_idle: float) -> float:
    """Seconds to the next look: :data:`WARM_PERIOD` while arrived cards wait to be embedded, else
    :data:`IDLE_CHECK` at most (and no later than when the models fall idle)."""
    if state.policy is not False and ranker.pending() and ranker.loaded():
        return WARM_PERIOD
    return max(WARM_PERIOD, min(IDLE_CHECK, until_idle))


async def _load_in_background(node: NodePort, ranker: CardRanker, state: WarmState) -> None:
    await trio.sleep(WARM_DELAY)
    state.state = "loading"
    started = trio.current_time()
    with node.faults.boundary("discovery warm-up"), trio.move_on_after(WARM_TIMEOUT):
        await node.run_sync(ranker.matcher.load)
        await node.run_sync(release_free_memory)  # the load's temporaries (~40 MB) back to the system
        state.state, state.load_ms = "warm", int((trio.current_time() - started) * 1000)
    if state.state != "warm":
        state.state = "cold"
        log.warning("the matcher's models did not load in the background; the first find loads them")


async def _unload(node: NodePort, ranker: CardRanker, state: WarmState, idle: float) -> None:
    with node.faults.boundary("discovery unload"):
        await node.run_sync(ranker.unload)
        await node.run_sync(release_free_memory)
        state.state = "cold"
        state.unloads += 1
        log.info("the matcher's models were unloaded after %.0f s without a find or goal", idle)


async def _embed_some(node: NodePort, ranker: CardRanker) -> None:
    while ranker.pending():
        done = 0
        with node.faults.boundary("discovery warm-up"):
            done = await node.run_sync(lambda: ranker.refresh_some(WARM_BATCH))
        if not done:  # removals only, or a failure (recorded): wait for the next period
            break
        await trio.lowlevel.checkpoint()  # let the event loop run between batches


__all__ = [
    "CARD_ENCODER_IDLE",
    "IDLE_CHECK",
    "WARM_BATCH",
    "WARM_DELAY",
    "WARM_PERIOD",
    "WARM_TIMEOUT",
    "WarmState",
    "keep_matcher",
]
