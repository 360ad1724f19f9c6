"""Warming the offline matcher after start, so the first ``find`` does not pay for its models.

The matcher loads its models on first use (MiniLM: ~0.5 s of one core on an idle machine, seconds on a busy
one, and ~190 MB of memory) and embeds the cards that arrived since the last ranking (a MiniLM pass each).
Without warming, all of it lands on the first ``find`` after start: a node's first goal waited ~10 s in
discovery at N = 25. :func:`warm_matcher` does it in the background instead, in the discovery service's
nursery: after the node's first card is out and a short pause (:data:`WARM_DELAY`, so start-up work goes
first), it loads the models in a worker thread (bounded by :data:`WARM_TIMEOUT`; on failure or timeout the
first find loads them as before), then embeds newly arrived cards every :data:`WARM_PERIOD` seconds, a few
(:data:`WARM_BATCH`) at a time, so the queue a find must embed stays short. It never blocks readiness
(``open_node`` returns before) and yields the CPU between steps. ``[discovery] warm = false`` turns it off
(a node that only serves then never holds the models: docs/matching.md, "Memory budget").
"""

from __future__ import annotations

import logging

import trio
import trio.lowlevel

from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.node.ports import NodePort

log = logging.getLogger("ioa_p2p.discovery")

#: Seconds after the node's first card before the models load.
WARM_DELAY = 2.0
#: Longest the model load may take (a busy machine); past it the first find loads them.
WARM_TIMEOUT = 120.0
#: Seconds between two background embeddings of the cards that arrived, and how many cards at most each
#: embeds (a MiniLM pass each: a find that comes meanwhile waits for these few at most).
WARM_PERIOD = 2.0
WARM_BATCH = 16


class WarmState:
    """What :func:`warm_matcher` has done (``GET /card``'s ``status.matcher``)."""

    def __init__(self, ranker: CardRanker | None = None) -> None:
        self.ranker = ranker
        self.state = "cold"  # "cold" -> "loading" -> "warm" (or "cold" again when the load failed)
        self.load_ms: int | None = None
        self.warmed = trio.Event()

    def to_json(self) -> dict[str, object]:
        """``state``, ``load_ms`` (the background load) and ``pending`` (cards not yet embedded)."""
        pending = self.ranker.pending() if self.ranker is not None else 0
        return {"state": self.state, "load_ms": self.load_ms, "pending": pending}


async def warm_matcher(node: NodePort, ranker: CardRanker, card_ready: trio.Event, state: WarmState) -> None:
    """Load ``ranker``'s models, then keep its queue of arrived cards embedded (see the module docstring).
    Runs until cancelled; a failure is recorded as a fault, never raised."""
    await card_ready.wait()
    await trio.sleep(WARM_DELAY)
    state.state = "loading"
    started = trio.current_time()
    with node.faults.boundary("discovery warm-up"), trio.move_on_after(WARM_TIMEOUT):
        await node.run_sync(ranker.matcher.load)
        state.state, state.load_ms = "warm", int((trio.current_time() - started) * 1000)
    if state.state != "warm":
        state.state = "cold"
        log.warning("the matcher's models did not load in the background; the first find loads them")
        return
    state.warmed.set()
    while True:
        while ranker.pending():
            done = 0
            with node.faults.boundary("discovery warm-up"):
                done = await node.run_sync(lambda: ranker.refresh_some(WARM_BATCH))
            if not done:  # removals only, or a failure (recorded): wait for the next period
                break
            await trio.lowlevel.checkpoint()  # let the event loop run between batches
        await trio.sleep(WARM_PERIOD)


__all__ = ["WARM_BATCH", "WARM_DELAY", "WARM_PERIOD", "WARM_TIMEOUT", "WarmState", "warm_matcher"]
