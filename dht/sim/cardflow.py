"""Measurements of cards in the simulator: publishing, capability search and spread (revocation:
:mod:`~ioa_p2p.dht.sim.revocation`).

- :func:`publish_cards`: the chosen nodes issue a real signed card each, at random moments of a window,
  and publish it as the node's DHT loop does on a new version (:class:`~ioa_p2p.dht.pacing.PublishPolicy`
  says both are due): the record put (:class:`~ioa_p2p.dht.sim.publish.PutRun`) and the provider
  records of its bucket keys at the levels the node's network-size estimate calls for
  (:func:`~ioa_p2p.dht.probing.provided_levels`, :class:`~ioa_p2p.dht.sim.publish.ProvideRun`), both at
  once. A card's *publish time* is when the later of them answered its caller: every key at its quorum
  (the card findable), as ``nursery.start`` returns in the node's publishing loop; the rounds go on
  after that (:attr:`Published.round_s`: until every target answered or timed out, or the quorum's
  grace). :attr:`Published.put_first_s` is when the first closest peer stored the record (from then on
  a DHT fetch can find it).
- :func:`run_searches`: DHT-only capability searches (:class:`~ioa_p2p.dht.sim.pagesearch.PageSearchRun`
  over bucket pages, or :class:`~ioa_p2p.dht.sim.search.SearchRun` over provider records) from
  random online nodes; each result is held against the exact search over every card published (the same
  ranking over all cards: top ``k`` by cosine) and, when the query has one, against its gold team.
- :func:`card_spread`: how many nodes find a fresh card by its own description ``t`` seconds after its
  owner started publishing it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ioa_p2p.dht.forest import Forest
from ioa_p2p.dht.keyspace import K, position
from ioa_p2p.dht.pages import encode_page, page_key
from ioa_p2p.dht.probing import provided_levels
from ioa_p2p.dht.quorum import round_target
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.kad import serve_add_providers, serve_put_value
from ioa_p2p.dht.sim.pagesearch import PageSearchRun
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.placing import PlacingRun
from ioa_p2p.dht.sim.publish import PagePutRun, ProvideRun, PutRun, network_size
from ioa_p2p.dht.sim.search import SearchResult, SearchRun, key_of
from ioa_p2p.dht.sim.world import World


@dataclass
class Published:
    """One card's publication (times in seconds of virtual time; ``None``: not finished)."""

    node: int
    started: float
    put_s: float | None = None
    put_first_s: float | None = None
    provide_s: float | None = None
    put_ok: bool = False
    keys: int = 0
    pages_s: float | None = 0.0  # the sketch pages' put (0: none published)
    #: when every key of the put, the pages and the provide round had its quorum (the card findable
    #: at its closest peers), by part; a part without a quorum in its round is missing
    placed: dict[str, float] = field(default_factory=dict)
    parts: int = 0
    #: the rounds (put, pages, provide), which go on after answering (their later acknowledgements count)
    runs: list[PlacingRun] = field(default_factory=list)
    provide: ProvideRun | None = None

    @property
    def acknowledged(self) -> int:
        """(peer, key) announcements of the provide round acknowledged, its later ones included."""
        return 0 if self.provide is None else self.provide.acknowledged

    @property
    def expected(self) -> int:
        return 0 if self.provide is None else self.provide.expected

    @property
    def over(self) -> bool:
        """Every round ended (not only answered)."""
        return all(run.finished_at is not None for run in self.runs)

    @property
    def round_s(self) -> float | None:
        """Seconds until the last of its rounds ended (None: one has not)."""
        ends = [run.round_s for run in self.runs]
        return None if any(end is None for end in ends) else max((e or 0.0 for e in ends), default=0.0)

    @property
    def done_s(self) -> float | None:
        if self.put_s is None or self.provide_s is None or self.pages_s is None:
            return None
        return max(self.put_s, self.provide_s, self.pages_s)

    @property
    def placed_s(self) -> float | None:
        """Seconds until every part had its quorum on every key (None: some part never did)."""
        if len(self.placed) < self.parts:
            return None
        return max(self.placed.values(), default=0.0)


def publish_card(world: World, node: SimNode, forest: Forest, *, pages: bool = True) -> Published:
    """Issue a new card version of ``node`` now and put and provide it (see the module docstring); with
    ``pages``, also put its sketch in the bucket pages of its cells (``[discovery] pages``)."""
    cards = world.cards
    assert cards is not None, "publishing needs a CardSet"
    now = world.loop.now
    card = cards.issue(node.index, world.now_ms())
    node.card, node.withdrawal = card, None
    out = Published(node.index, now)
    policy = node.policy
    policy.observe(len(node.table), now)
    levels = provided_levels(network_size(world, node))
    keys = tuple(c.key for c in forest.cells(cards.vectors[node.index], levels))
    out.keys = len(keys)
    if pages:
        sketch = cards.sketch(node.index, card, world.now_ms())
        page_keys = [
            page_key(c, forest.model_id, forest.dim).encode("utf-8")
            for c in forest.cells(sketch.vector(), levels)
        ]
        out.pages_s = None
        out.parts += 1

        def pages_done(run: PagePutRun) -> None:
            out.pages_s = run.elapsed
            _placed(out, "pages", run.placed_s)

        out.runs.append(PagePutRun(world, node, page_keys, encode_page([sketch.encoded]), pages_done).start())
    if policy.put_due(card.version, now):
        out.parts += 1

        def put_done(run: PutRun) -> None:
            out.put_s, out.put_ok = run.elapsed, run.ok
            _placed(out, "put", run.placed_s)
            if run.first_stored_at is not None:
                out.put_first_s = run.first_stored_at - run.started_at
            if run.ok:
                policy.put_done(card.version, world.loop.now)

        out.runs.append(PutRun(world, node, key_of(node.peer), card.encoded, put_done).start())
    if policy.provide_due(keys, now):
        policy.provide_started(keys, now)
        out.parts += 1

        def provided(run: ProvideRun) -> None:
            out.provide_s = run.elapsed
            _placed(out, "provide", run.placed_s)
            # judged as the node's loop judges it: against a quorum per key, not K (``round_target``)
            target = round_target(len(keys), len(node.table))
            policy.provide_finished(run.acknowledged, target, world.loop.now)

        out.provide = ProvideRun(world, node, list(keys), provided)
        out.runs.append(out.provide)
        out.provide.start()
    else:
        out.provide_s = 0.0
    return out


def _placed(out: Published, part: str, seconds: float | None) -> None:
    if seconds is not None:
        out.placed[part] = seconds


def publish_cards(
    world: World,
    forest: Forest,
    nodes: Sequence[SimNode],
    rng: random.Random,
    *,
    window: float = 60.0,
    settle: float = 90.0,
    pages: bool = True,
) -> list[Published]:
    """Every node of ``nodes`` publishes a card at a random moment of the next ``window`` seconds (if it
    is online then); the simulation runs until all finished or ``settle`` seconds after the window."""
    out: list[Published] = []

    def go(node: SimNode) -> None:
        if node.online:
            out.append(publish_card(world, node, forest, pages=pages))

    begin = world.loop.now
    for node in nodes:
        world.loop.at(begin + rng.random() * window, go, node)
    world.loop.run(begin + window)
    end = world.loop.now + settle
    waiting = [p for p in out if p.done_s is None or not p.over]  # answered, and every round ended
    while waiting and world.loop.now < end:  # (checking after every event would cost O(cards) each)
        world.loop.run(min(end, world.loop.now + 1.0))
        waiting = [p for p in waiting if p.done_s is None or not p.over]
    return out


def warm_publish(
    world: World, forest: Forest, nodes: Sequence[SimNode], *, pages: bool = True, providers: bool = True
) -> int:
    """A shortcut for large runs (as :meth:`World.warm_start` is for joining): each of ``nodes`` issues a
    card and its record, its sketch's pages (``pages``) and its provider records (``providers``) are
    placed at once at the ``K`` online nodes closest to each key (by the top 64 bits of the keyspace
    position) and at the node itself, through the storing node's own checks (:func:`serve_put_value`:
    validation, the page merge, the rate limits; :func:`serve_add_providers`), without the lookups and
    messages of publishing (so no publish time is measured). Returns the records placed."""
    cards = world.cards
    assert cards is not None, "publishing needs a CardSet"
    online = [n for n in world.nodes if n.online]
    top = np.array([n.position >> 192 for n in online], dtype=np.uint64)

    def closest(key: bytes) -> list[SimNode]:
        far = np.bitwise_xor(top, np.uint64(position(key) >> 192))
        count = min(K, len(online))
        return [online[int(i)] for i in np.argpartition(far, count - 1)[:count]]

    placed = 0
    for node in nodes:
        if not node.online:
            continue
        card = cards.issue(node.index, world.now_ms())
        node.card, node.withdrawal = card, None
        levels = provided_levels(network_size(world, node))
        key = key_of(node.peer)
        for target in [node, *closest(key)]:
            placed += serve_put_value(world, target, node, key, card.encoded)
        if pages:
            sketch = cards.sketch(node.index, card, world.now_ms())
            value = encode_page([sketch.encoded])
            for cell in forest.cells(sketch.vector(), levels):
                page = page_key(cell, forest.model_id, forest.dim).encode("utf-8")
                for target in [node, *closest(page)]:
                    placed += serve_put_value(world, target, node, page, value)
        if providers:
            for cell in forest.cells(cards.vectors[node.index], levels):
                node.add_provider(cell.key, node.peer)
                for target in closest(cell.key):
                    placed += serve_add_providers(world, target, node, [cell.key])
    return placed


def exact_top(world: World, vector: npt.NDArray[np.float32], k: int, *, exclude: int = -1) -> list[int]:
    """The ``k`` best cards of the whole network for ``vector`` (nodes holding a card, not withdrawn;
    without node ``exclude``, the searcher: it looks for others)."""
    cards = world.cards
    assert cards is not None
    holders = [
        n.index for n in world.nodes if n.card is not None and n.withdrawal is None and n.index != exclude
    ]
    if not holders:
        return []
    scores = cards.vectors[holders] @ vector
    order = np.argsort(-scores, kind="stable")[:k]
    return [holders[int(i)] for i in order]


def exact_ties(
    world: World, vector: npt.NDArray[np.float32], exact: Sequence[int], *, exclude: int = -1
) -> frozenset[int]:
    """The cards outside ``exact`` that score as high as its last card (:data:`TIE`): an exact search
    could return any of them in its place (the grown corpus gives some agents the same vector)."""
    cards = world.cards
    assert cards is not None
    if not exact:
        return frozenset()
    floor = float(cards.vectors[exact[-1]] @ vector) - TIE
    holders = [
        n.index for n in world.nodes if n.card is not None and n.withdrawal is None and n.index != exclude
    ]
    scores = cards.vectors[holders] @ vector
    return frozenset(holders[int(i)] for i in np.flatnonzero(scores >= floor)) - set(exact)


#: Scores this close count as equal (float32 dot products of the same vector are equal exactly).
TIE = 1e-6


@dataclass(frozen=True, slots=True)
class SearchSample:
    """One search: what it returned, the exact answer, the gold team (node indices) if any, and the cards
    tied with the exact answer's last (:func:`exact_ties`)."""

    result: SearchResult
    exact: tuple[int, ...]
    gold: tuple[int, ...]
    ties: frozenset[int] = frozenset()

    @property
    def recall_exact(self) -> float:
        """The share of the exact top ``k`` the search matched: a returned card counts when it is in the
        exact top ``k`` or ties its last (an exact search could have returned it)."""
        hits = len(set(self.result.ranked) & (set(self.exact) | self.ties))
        return min(hits, len(self.exact)) / max(1, len(self.exact))

    def recall_gold(self, ranked: Sequence[int] | None = None) -> float | None:
        if not self.gold:
            return None
        got = set(self.result.ranked if ranked is None else ranked)
        return len(got & set(self.gold)) / len(self.gold)


def search_run(settings: DiscoverySettings) -> type[SearchRun] | type[PageSearchRun]:
    """The search the node runs with these settings: over bucket pages, or over provider records."""
    return PageSearchRun if settings.pages else SearchRun


def run_searches(
    world: World,
    forest: Forest,
    settings: DiscoverySettings,
    queries: Sequence[tuple[npt.NDArray[np.float32], Sequence[int]]],
    rng: random.Random,
    *,
    k: int = 5,
    spacing: float = 0.5,
) -> list[SearchSample]:
    """One DHT-only search per query (its vector, its gold team's node indices) from a random online
    node outside the gold team, one every ``spacing`` seconds; runs until all answered (each is bounded
    by ``find_timeout`` plus its fetch)."""
    out: list[SearchSample] = []

    def go(vector: npt.NDArray[np.float32], gold: Sequence[int]) -> None:
        online = [n for n in world.nodes if n.online and n.index not in gold]
        node = online[rng.randrange(len(online))]
        exact = tuple(exact_top(world, vector, k, exclude=node.index))
        ties = exact_ties(world, vector, exact, exclude=node.index)
        search_run(settings)(
            world,
            node,
            vector,
            forest,
            settings,
            lambda result: out.append(SearchSample(result, exact, tuple(gold), ties)),
            k=k,
        ).start()

    begin = world.loop.now
    for i, (vector, gold) in enumerate(queries):
        world.loop.at(begin + i * spacing, go, vector, gold)
    bound = begin + len(queries) * spacing + 3 * settings.find_timeout + 60
    world.loop.run(bound, done=lambda: len(out) >= len(queries))
    return out


def card_spread(
    world: World,
    forest: Forest,
    settings: DiscoverySettings,
    owners: Sequence[SimNode],
    offsets: Sequence[float],
    searchers: int,
    rng: random.Random,
    *,
    k: int = 5,
) -> dict[float, float]:
    """Each of ``owners`` publishes a new card; ``offsets`` seconds after that, ``searchers`` random online
    nodes each search for it by its own vector. Returns, per offset, the share of searches whose top ``k``
    held the card."""
    cards = world.cards
    assert cards is not None
    hits: dict[float, list[bool]] = {t: [] for t in offsets}
    begin = world.loop.now

    def search(owner: SimNode, t: float) -> None:
        online = [n for n in world.nodes if n.online and n is not owner]
        for node in rng.sample(online, min(searchers, len(online))):
            search_run(settings)(
                world,
                node,
                cards.vectors[owner.index],
                forest,
                settings,
                lambda result: hits[t].append(owner.index in result.ranked),
                k=k,
            ).start()

    for owner in owners:
        publish_card(world, owner, forest, pages=settings.pages)
        for t in offsets:
            world.loop.at(begin + t, search, owner, t)
    expected = len(owners) * searchers * len(offsets)
    bound = begin + max(offsets, default=0.0) + 3 * settings.find_timeout + 60
    world.loop.run(bound, done=lambda: sum(len(v) for v in hits.values()) >= expected)
    return {t: sum(v) / len(v) if v else float("nan") for t, v in hits.items()}


__all__ = [
    "Published",
    "SearchSample",
    "card_spread",
    "exact_ties",
    "exact_top",
    "network_size",
    "publish_card",
    "warm_publish",
    "publish_cards",
    "run_searches",
]
