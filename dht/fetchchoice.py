"""Which candidates a page search fetches: the sketch-level spam defences (pure).

A page search (:mod:`~ioa_p2p.dht.expand`) ranks the signed *sketches* it lists and fetches only the
``page_fetch`` best cards; the node's ranker and team choice see nothing else. Spam therefore acts here
first: a sketch that scores high for many goals, or a thousand copies of a good card, take fetch slots,
and an honest card that is not fetched cannot be ranked. :func:`choose_fetch` spends the slots on
*distinct* content, by expected value, with what a sketch carries (its family vector and term hashes) and
what this node knows (its signed histories, the cards it already holds):

- **Reputation** (``priors``, from :mod:`~ioa_p2p.conversation.reputation`: evidence from this node's own
  signed histories, never a claim): a negative prior lowers a sketch's score by :data:`PRIOR_WEIGHT`
  score units per unit (one failed task, -1.6: about 0.1-0.25 of a cosine), so an identity that failed
  once falls below the honest candidates.
- **Copies share one slot** (:func:`copy_groups`): sketches whose vectors are within :data:`COPY_COSINE`
  and whose term sets overlap by :data:`SAME_TERMS` (Jaccard; when both list terms) say the same thing.
  Identical sketches cannot tell an original from its clones, so a group costs one slot of the ``count``
  and, for the :data:`FULL_GROUPS` best groups (what the node's top 5 come from), *all* its members are
  fetched (up to :data:`GROUP_FETCH`), the members this node holds or trusts first, so the original is
  fetched and the ranker's own copy rule and reputation sort them out. Other groups get their most
  trusted member. The extra fetches are bounded in total (``count * (1 +`` :data:`EXTRA` ``)``) and cost
  an honest network nothing (honest cards have no copies).
- **Supersets** (:func:`superset_copies`): a sketch whose terms hold :data:`CONTAINED` of another listed
  sketch's terms, with :data:`SUPERSET_GROWTH` times as many terms, while its vector is *less* than
  :data:`SUPERSET_COSINE` alike (it adds unrelated claims to a card it copied, to rank for that card's
  queries and more) loses :data:`SUPERSET_PENALTY`, i.e. ranks after every candidate that is not one.
  The card it holds is not touched, so writing a short card out of an honest card's words cannot push
  the honest card down (the honest card is like it: cosine above :data:`SUPERSET_COSINE`).
- **Breadth** (:func:`centrality`): a card that claims everything embeds near the centre of all cards
  (its vector is a mean of unrelated topics), so its cosine with the centre of all cards (``centre``:
  :meth:`~ioa_p2p.dht.expand.PageSearch.centre`, the whole network's sample of pages, or the listed
  candidates where they are the whole network), both without their component along the query (near
  the query every relevant card is alike), is high. What is high depends on the
  embedding model and on the network (:func:`central_free`): with :data:`MIN_REFERENCE` listed peers
  this node holds a card of and has nothing against (``known``, no negative prior), the line is their
  median plus :data:`CENTRAL_Z` spreads (median absolute deviations scaled to a standard deviation);
  with fewer, :data:`CENTRAL_FREE`, the wordllama family's line (the 160 honest agents of the hard dev
  set measure 0.25 at the median and 0.46 at the 99th percentile with the whole directory as the centre,
  keyword-stuffed cards 0.51-0.74; with the hashing embedder the same honest agents measure 0.44 at the
  median and up to 0.68, so a fixed line would cost half of them their breadth). Above the line a sketch
  loses :data:`CENTRAL_WEIGHT` score units per 0.1 of cosine. A flood of stuffed cards moves the centre
  towards itself, which makes it look more central, not less.
- **Floods of new identities** (``flood``, from :class:`~ioa_p2p.dht.arrival.ArrivalBook`: when each
  identity first reached this node by gossip, the node's own observation, never a claim): a sketch whose
  identity arrived in an hour that brought many times the node's usual number of new identities loses
  up to :data:`~ioa_p2p.dht.arrival.FLOOD_WEIGHT` score units (proven peers exempt), so on a node with no
  signed outcomes yet the honest cards that joined one by one win the fetch slots within that margin.

Scores are the :class:`~ioa_p2p.dht.sketchscore.SketchScorer` units (standardised cosines, 1 unit is
about 0.04-0.08 of a wordllama cosine). Measured: ``bench/bench_spam.py --pages --fetch-only``
(``docs/matching.md``, "Card spam with pages").
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ioa_p2p.card.sketch import SignedSketch, sketch_terms
from ioa_p2p.dht.fetchevidence import proven_first
from ioa_p2p.identity import PeerId

#: Score units per unit of a negative reputation prior.
PRIOR_WEIGHT = 2.0
#: Candidates (times the fetch count) the node hands :func:`choose_fetch`: the best by sketch score.
POOL = 8
#: Sketches at least this similar (cosine), with :data:`SAME_TERMS` of their terms shared, are copies.
COPY_COSINE = 0.98
SAME_TERMS = 0.7
#: Groups of copies whose every member is fetched (the node's top ``k`` comes from them), and at most
#: how many members each.
FULL_GROUPS = 5
GROUP_FETCH = 16
#: Extra fetches per slot at most, in total (copies fetched beyond one per group).
EXTRA = 2.0
#: Superset copies: share of another sketch's terms held, growth in terms, and the cosine below which the
#: added terms are unrelated claims; their penalty (score units: below any candidate that is not one).
CONTAINED = 0.7
SUPERSET_GROWTH = 1.5
SUPERSET_COSINE = 0.9
SUPERSET_PENALTY = 100.0
#: Breadth: cosine with the centre of the listed candidates that is free, and score units per 0.1 above.
CENTRAL_FREE = 0.45
CENTRAL_WEIGHT = 4.0
#: Held, unblemished listed peers needed before their centralities set the line, and the spreads above
#: their median it lies (the honest agents of the dev set reach 2.8 with wordllama, 2.1 with hashing).
MIN_REFERENCE = 12
CENTRAL_Z = 3.5
MAD_SCALE = 1.4826
#: Fewest distinct term hashes a sketch must list to be compared for containment (a card of two words
#: is held by many honest cards by accident).
MIN_TERMS = 4

Vector = npt.NDArray[np.float64]


def unit(sketch: SignedSketch) -> Vector:
    v = sketch.vector()
    return v / (float(np.linalg.norm(v)) or 1.0)


def centrality(sketch: SignedSketch, centre: Vector | None, query: Vector | None = None) -> float:
    """The cosine of ``sketch`` with ``centre`` (0 without a centre or of another shape), both with their
    component along ``query`` (a unit vector, when given) taken out: a search lists the cards around its
    query, so near the query every relevant card is central; what a card that claims everything shares
    with the centre lies in the other directions."""
    if centre is None:
        return 0.0
    u = unit(sketch)
    c = np.asarray(centre, dtype=np.float64)
    if u.shape != c.shape:
        return 0.0
    if query is not None and query.shape == u.shape:
        u = u - float(u @ query) * query
        c = c - float(c @ query) * query
    norms = float(np.linalg.norm(u)) * float(np.linalg.norm(c))
    return 0.0 if norms == 0.0 else float(u @ c) / norms


def breadth_penalty(central: float, free: float = CENTRAL_FREE) -> float:
    """Score units taken off a sketch whose cosine with the centre is ``central`` (``free``: the line)."""
    return CENTRAL_WEIGHT * max(0.0, central - free) / 0.1


def central_free(reference: Sequence[float]) -> float:
    """The centrality above which a sketch pays for its breadth: the ``reference`` centralities' median
    plus :data:`CENTRAL_Z` spreads when there are :data:`MIN_REFERENCE` of them, else :data:`CENTRAL_FREE`."""
    if len(reference) < MIN_REFERENCE:
        return CENTRAL_FREE
    values = np.asarray(reference, dtype=np.float64)
    median = float(np.median(values))
    return median + CENTRAL_Z * MAD_SCALE * float(np.median(np.abs(values - median)))


def copy_groups(sketches: Sequence[SignedSketch]) -> list[list[int]]:
    """Indices of ``sketches`` grouped into copies (see the module docstring), each group in input order,
    groups ordered by their first member."""
    n = len(sketches)
    if n == 0:
        return []
    units = np.stack([unit(s) for s in sketches]) if _same_shape(sketches) else None
    terms = [sketch_terms(s) for s in sketches]
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if units is not None:
        close = np.argwhere(np.triu(units @ units.T >= COPY_COSINE, k=1))
        for i, j in close:
            a, b = terms[i], terms[j]
            if a and b and len(a & b) < SAME_TERMS * len(a | b):
                continue
            ri, rj = root(int(i)), root(int(j))
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def superset_copies(sketches: Sequence[SignedSketch], among: Iterable[SignedSketch] = ()) -> set[PeerId]:
    """The peers of ``sketches`` whose terms hold :data:`CONTAINED` of the terms of another sketch (of
    ``sketches`` or ``among``) with :data:`SUPERSET_GROWTH` times fewer terms, while their vectors are less
    than :data:`SUPERSET_COSINE` alike."""
    others = {s.peer_id: s for s in (*sketches, *among)}
    by_term: dict[int, list[tuple[PeerId, frozenset[int]]]] = {}
    for peer, sketch in others.items():
        held = sketch_terms(sketch)
        if len(held) >= MIN_TERMS:
            for term in held:
                by_term.setdefault(term, []).append((peer, held))
    out: set[PeerId] = set()
    for sketch in sketches:
        mine = sketch_terms(sketch)
        if len(mine) < SUPERSET_GROWTH * MIN_TERMS:
            continue
        seen: set[PeerId] = set()
        for term in mine:
            for peer, theirs in by_term.get(term, ()):
                if peer in seen or peer == sketch.peer_id:
                    continue
                seen.add(peer)
                if (
                    len(mine) >= SUPERSET_GROWTH * len(theirs)
                    and len(mine & theirs) >= CONTAINED * len(theirs)
                    and _cosine(sketch, others[peer]) < SUPERSET_COSINE
                ):
                    out.add(sketch.peer_id)
                    break
            if sketch.peer_id in out:
                break
    return out


def choose_fetch(
    scored: Iterable[tuple[float, SignedSketch]],
    count: int,
    *,
    priors: Mapping[PeerId, float] | None = None,
    known: Collection[PeerId] = (),
    centre: Vector | None = None,
    query: Vector | None = None,
    defences: bool = True,
    proven: Collection[PeerId] = (),
    flood: Mapping[PeerId, float] | None = None,
) -> list[SignedSketch]:
    """The candidates whose cards a search fetches, from ``(sketch score, sketch)`` pairs: the best
    member of each of the ``count`` best distinct contents, best first, then the other members of the
    :data:`FULL_GROUPS` best (module docstring), ``count * (1 +`` :data:`EXTRA` ``)`` in all at most.

    ``priors``: reputation priors by peer; ``known``: peers whose current card this node holds (first
    among copies, fetched for free); ``centre``: the sum or mean of the listed candidates' unit vectors
    (:func:`centrality`), ``query`` the query's unit vector in the sketches' space; ``proven``: peers with
    a signed task done for this node (or trusted): first among copies after held ones, and up to
    :data:`~ioa_p2p.dht.fetchevidence.PROVEN_SHARE` of the slots go to proven contents that score near the
    last slot (:func:`~ioa_p2p.dht.fetchevidence.proven_first`); ``flood``: score units taken off peers that
    reached this node in a flood of new identities (:meth:`~ioa_p2p.dht.arrival.ArrivalBook.penalties`).
    With ``defences`` off only the reputation prior acts (what the node did before)."""
    trusted = priors or {}
    flooded = flood or {}
    items = list(scored)
    if not defences:
        ranked = sorted(items, key=lambda it: _order(it[0] + _prior(trusted, it[1]), it[1], trusted, known))
        return [sketch for _, sketch in ranked[:count]]
    sketches = [sketch for _, sketch in items]
    supersets = superset_copies(sketches)
    central = [centrality(sketch, centre, query) for sketch in sketches]
    free = central_free(
        [
            c
            for c, s in zip(central, sketches, strict=True)
            if s.peer_id in known and trusted.get(s.peer_id, 0) >= 0
        ]
    )
    adjusted = [
        score
        + _prior(trusted, sketch)
        - breadth_penalty(c, free)
        - (SUPERSET_PENALTY if sketch.peer_id in supersets else 0.0)
        - flooded.get(sketch.peer_id, 0.0)
        for (score, sketch), c in zip(items, central, strict=True)
    ]

    proven_set = frozenset(proven)

    def member(i: int) -> tuple[bool, bool, float, float, bytes]:
        held, score, standing, raw = _order(adjusted[i], sketches[i], trusted, known)
        return (held, sketches[i].peer_id not in proven_set, score, standing, raw)

    groups = [sorted(g, key=member) for g in copy_groups(sketches)]
    groups.sort(key=lambda g: (-max(adjusted[i] for i in g), sketches[g[0]].peer_id.raw))
    if proven_set:  # fetch slots for proven contents near the last slot (dht/fetchevidence.py)
        flags = [any(sketches[i].peer_id in proven_set for i in g) for g in groups]
        best = [max(adjusted[i] for i in g) for g in groups]
        groups = [groups[i] for i in proven_first(best, flags, count)]
    firsts = [sketches[g[0]] for g in groups[:count]]
    cap = int(count * (1 + EXTRA))
    extras = [sketches[i] for g in groups[:FULL_GROUPS] for i in g[1:GROUP_FETCH]]
    return firsts + extras[: max(0, cap - len(firsts))]


def evidence_units(
    peer: PeerId, priors: Mapping[PeerId, float] | None = None, flood: Mapping[PeerId, float] | None = None
) -> float:
    """Score units the evidence about ``peer`` itself takes off its sketch in :func:`choose_fetch`: its
    negative reputation prior (:data:`PRIOR_WEIGHT` units per unit) and its flood penalty (0 or less)."""
    prior = (priors or {}).get(peer, 0.0)
    return PRIOR_WEIGHT * min(0.0, prior) - (flood or {}).get(peer, 0.0)


def pool_of(
    scored: Iterable[tuple[float, SignedSketch]],
    size: int,
    *,
    priors: Mapping[PeerId, float] | None = None,
    flood: Mapping[PeerId, float] | None = None,
) -> list[tuple[float, SignedSketch]]:
    """The ``size`` candidates :func:`choose_fetch` chooses among, from every listed ``(sketch score,
    sketch)``: the best by score *after* the evidence about each peer (:func:`evidence_units`), scores
    returned as given (the evidence is applied once, in :func:`choose_fetch`). Cut by sketch score alone, a
    crowd of new identities that score above an honest candidate pushes it out of the pool, where no
    evidence can lift it: measured (``bench/spam_fetch_misses.py``, patient attacker's flood, cold node)
    every gold agent the fetch lost was outside the pool. Ties: by peer ID bytes."""
    ranked = sorted(
        scored, key=lambda it: (-(it[0] + evidence_units(it[1].peer_id, priors, flood)), it[1].peer_id.raw)
    )
    return ranked[:size]


def _order(
    score: float, sketch: SignedSketch, trusted: Mapping[PeerId, float], known: Collection[PeerId]
) -> tuple[bool, float, float, bytes]:
    """Sort key: held cards first, then by score, then by standing, then by peer ID bytes."""
    return (sketch.peer_id not in known, -score, -trusted.get(sketch.peer_id, 0.0), sketch.peer_id.raw)


def _prior(trusted: Mapping[PeerId, float], sketch: SignedSketch) -> float:
    return PRIOR_WEIGHT * min(0.0, trusted.get(sketch.peer_id, 0.0))


def _cosine(a: SignedSketch, b: SignedSketch) -> float:
    ua, ub = unit(a), unit(b)
    return float(ua @ ub) if ua.shape == ub.shape else 0.0


def _same_shape(sketches: Sequence[SignedSketch]) -> bool:
    return len({s.body.dim for s in sketches}) == 1


def centre_of(sketches: Iterable[SignedSketch]) -> Vector | None:
    """The mean unit vector of ``sketches`` of the first one's dimension (None: none)."""
    total: Vector | None = None
    for sketch in sketches:
        u = unit(sketch)
        if total is None:
            total = u.copy()
        elif u.shape == total.shape:
            total += u
    return total


__all__ = [
    "CENTRAL_FREE",
    "CENTRAL_WEIGHT",
    "CENTRAL_Z",
    "MIN_REFERENCE",
    "CONTAINED",
    "COPY_COSINE",
    "EXTRA",
    "FULL_GROUPS",
    "GROUP_FETCH",
    "POOL",
    "PRIOR_WEIGHT",
    "SUPERSET_COSINE",
    "SUPERSET_PENALTY",
    "breadth_penalty",
    "central_free",
    "centrality",
    "centre_of",
    "choose_fetch",
    "copy_groups",
    "evidence_units",
    "pool_of",
    "superset_copies",
]
