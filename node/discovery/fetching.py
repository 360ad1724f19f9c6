"""The card fetch of a page search: owners first with an adaptive wait, and an early end (network I/O).

:func:`fetch_ranked` fetches the cards of candidates ranked best first (the page search's choice):

1. every owner is asked for its own record at once (or, when a
   :class:`~ioa_p2p.node.discovery.prefetch.Prefetch` asked it while the pages arrived, its answer is
   taken from there), each answer verified and applied to the directory as it arrives
   (:meth:`CardSearch.store_fetched`), its round trip fed to the search's
   :class:`~ioa_p2p.dht.rtt.RoundTrips`;
2. once the best ``settle`` candidates have all answered (the others rank below them by sketch;
   :func:`~ioa_p2p.dht.sketchscore.settle_count`) the others get a grace (:data:`FETCH_GRACE` of the time
   so far) and the fetch **ends early** without them; if the best have not all answered within the wait
   the round trips call for (``srtt + 4 rttvar``, 0.15..1 s; 1 s before any sample), the best owners that
   have not answered (not the candidates below them: the ranking does not need those) are looked up in
   the DHT in one batched lookup, while their own answers still count;
3. it ends when every candidate has a card, or the DHT lookup is done, or the best have all answered
   (from their owners or the DHT) and the others' grace is over: a late owner's answer ends it without
   waiting for the lookup's slowest peer (issue 25, d-n50e: at N = 50 processes a slow find waited for a
   lookup of 11-45 requests after its owners had answered); owner requests still running are cancelled.

The caller bounds the whole fetch with its cancel scope (``find_timeout``).
"""

from __future__ import annotations

from typing import Any

import trio

from ioa_p2p.dht.lookup import grace_after_covered
from ioa_p2p.dht.validators import card_key
from ioa_p2p.identity import PeerId
from ioa_p2p.node.discovery.prefetch import Prefetch
from ioa_p2p.node.discovery.search import DIRECT_TIMEOUT, CardSearch

#: An owner's own answer is awaited this long at most (it still counts while the DHT lookup runs).
OWNER_LIMIT = 2 * DIRECT_TIMEOUT
#: Once the best ``settle`` candidates answered, the others get this share of the time so far
#: (:func:`~ioa_p2p.dht.lookup.grace_after_covered`), not the rest of the adaptive wait.
FETCH_GRACE = 0.25
#: After the adaptive wait only the best unanswered candidates are looked up in the DHT and the fetch ends
#: once the best have answered (plus the grace); False: every unanswered candidate is looked up and the
#: fetch waits for the lookup's end (what it did before d-n50e; ``bench_find.py --ab fallback``).
BEST_ONLY = True


async def fetch_ranked(
    search: CardSearch, peers: list[PeerId], *, settle: int, prefetch: Prefetch | None = None
) -> dict[str, Any]:
    """Fetch the cards of ``peers`` (best first; see the module docstring). Returns what it did:
    ``owners`` (answered by their owner), ``from_dht``, ``early`` (ended early), ``wait_s``."""
    if not peers:
        return {"owners": 0, "from_dht": 0, "early": False, "wait_s": 0.0}
    answered: set[PeerId] = set()
    finished = trio.Event()  # every candidate has a card, or the DHT lookup is done
    settled = trio.Event()  # the best ``settle`` candidates have a card
    wait = search.round_trips.wait()
    result: dict[str, Any] = {"owners": 0, "from_dht": 0, "early": False, "wait_s": round(wait, 3)}
    best, started = set(peers[:settle]), trio.current_time()

    def got(new: set[PeerId]) -> None:
        answered.update(new)
        if answered >= best:
            settled.set()
        if answered >= set(peers):
            finished.set()

    async def ask_owner(peer: PeerId) -> None:
        started = trio.current_time()
        if prefetch is not None and prefetch.has(peer):  # asked while the pages arrived: its answer
            own, rtt = await prefetch.wait_answer(peer) or ({}, 0.0)
        else:
            own = await search.net.ask_values({peer: [card_key(peer)]}, per_peer=OWNER_LIMIT)
            rtt = trio.current_time() - started
        ok = search.store_fetched([peer], own, confirms=True)[1]
        if ok:
            search.round_trips.sample(rtt)
            result["owners"] += 1
            got(ok)

    async def ask_dht(rest: list[PeerId]) -> None:
        found = await search.net.get_values([card_key(p) for p in rest], ask=search.settings.ask)
        late = search.store_fetched([p for p in rest if p not in answered], found, confirms=False)[1]
        result["from_dht"] = len(late)
        got(late)
        finished.set()

    async def settled_or_finished() -> None:
        async with trio.open_nursery() as race:
            for event in (settled, finished):
                race.start_soon(_set_then_cancel, event, race.cancel_scope)

    async with trio.open_nursery() as nursery:
        for peer in peers:
            nursery.start_soon(ask_owner, peer)
        with trio.move_on_after(wait):
            await settled.wait()
        if not settled.is_set():  # only the best the ranking needs are looked up, not the tail below them
            nursery.start_soon(
                ask_dht, [p for p in peers[: settle if BEST_ONLY else None] if p not in answered]
            )
            await (settled_or_finished() if BEST_ONLY else finished.wait())
        if not finished.is_set():  # the rest get a grace, not the whole wait or the DHT lookup's end
            with trio.move_on_after(grace_after_covered(trio.current_time() - started, FETCH_GRACE)):
                await finished.wait()
            result["early"] = not finished.is_set()
        nursery.cancel_scope.cancel()
    return result


async def _set_then_cancel(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


__all__ = ["BEST_ONLY", "FETCH_GRACE", "OWNER_LIMIT", "fetch_ranked"]
