"""The world of ``bench_spam.py``: spam card texts, cards, the sketches a page search lists, and the
fetch-only measurement (``--pages --fetch-only``). See ``bench_spam.py`` for what is measured."""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from spam_attacks import HELDOUT, heldout_texts

from ioa_p2p.card import card_text, issue_card
from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.conversation.reputation import Standing, reputation_prior
from ioa_p2p.dht.arrival import WINDOW_MS, ArrivalBook, beyond
from ioa_p2p.dht.expand import FETCH, SAMPLE_TABLE
from ioa_p2p.dht.fetchchoice import POOL, PRIOR_WEIGHT, centre_of, choose_fetch, pool_of
from ioa_p2p.dht.forest import LEVELS, forest_for
from ioa_p2p.dht.pages import PAGE_ENTRIES
from ioa_p2p.dht.ranking import card_profile
from ioa_p2p.dht.sketchscore import SketchScorer, card_terms, query_terms
from ioa_p2p.embedding import WordLlamaEmbedder, normalise
from ioa_p2p.identity import Identity
from ioa_p2p.matching import make_matcher, split_goal
from ioa_p2p.matching.breadth import breadth, breadth_discount, card_items
from ioa_p2p.matching.calibration import HYBRID, WORDLLAMA
from ioa_p2p.node.discovery.arrival_store import open_arrivals

NOW = 1_800_000_000_000
#: The fetch's breadth centre (``--centre``): ``all`` (every sketch, spam included: pages whose entries
#: turned over in proportion to the population), or the node's breadth sample (``PageSearch.centre``: the
#: first 64 sketches to reach each level-4 page of table 0) with the honest cards first (``honest-first``:
#: the attack came after the network formed) or the spam first (``spam-first``: it filled those pages).
CENTRE = ["all"]
#: Whether the fetch keeps slots for proven candidates (``--proven-fetch``; ``dht/fetchevidence.py``).
PROVEN_FETCH = [True]
#: When the node first saw each identity (``--arrival``; ``dht/arrival.py``): ``flood`` (the node ran for
#: two weeks: a quarter of the honest cards were there when it started, the rest joined one by one at
#: random times, and the spam came in one hour: three days before the goals for the ``patient``
#: attacker, half an hour before for the others), ``trickle`` (the spam spread over the same two weeks as
#: the honest cards: an attacker that knows the defence), ``restart`` (as ``flood``, then the node
#: restarted half an hour before the goals: its record kept in a real ``arrivals.sqlite3`` and resumed,
#: ``node/discovery/arrival_store.py``), ``forget`` (the node started half an hour before the goals:
#: everything arrived at once, no evidence: a restart before the record was kept) or ``none`` (no arrival
#: evidence: before).
ARRIVAL = ["flood"]
#: Near-duplicate evidence (``--dup WEIGHT``, measured for the trickle attacker, not a node default): an
#: unproven card with more than DUP_FREE unproven others within DUP_COSINE (wordllama sketch cosine;
#: ``--dup-free``, ``--dup-cosine``) loses up to WEIGHT score units before the fetch (all of it at 2 x
#: DUP_FREE more); 0: off.
#: Whether the fetch's pool is cut after each peer's own evidence (reputation, flood penalty:
#: ``fetchchoice.pool_of``, the node since 2026-11-29) or by sketch score alone (``--evidence-pool off``).
EVIDENCE_POOL = [True]
#: Whether a goal's fetch also runs for each of its clauses (``--need-finds``; the node's
#: ``TeamFormation.find_all`` does: the goal and its clauses, ``MAX_QUERIES`` at most) or for the whole goal
#: alone (off: the model before 2026-11-29).
NEED_FINDS = [True]
#: ``node/goals/teams.py`` ``MAX_QUERIES``: the goal's finds at most.
MAX_QUERIES = 6
DUP = [0.0]
DUP_COSINE = [0.5]
DUP_FREE = [4]
DAY_MS = 86_400_000
KEYWORDS = (
    "python", "sql", "translation", "legal advice", "medical questions", "finance", "image generation",
    "video editing", "weather", "cooking", "travel planning", "math", "charts", "email", "code review",
    "security audit", "marketing", "music", "copywriting", "research", "data cleaning", "forecasting",
    "summaries", "scheduling", "customer support", "tax returns", "web scraping", "devops", "kubernetes",
    "machine learning", "spreadsheets", "pdf extraction", "speech to text", "3d printing", "gardening",
)  # fmt: skip


def make_card(identity: Identity, name: str, description: str, skills: tuple[str, ...] = ()) -> Any:
    return issue_card(
        identity, name=name, description=description, skills=skills, model="spam-bench/0", vector=[1.0],
        version=1, now_ms=NOW,
    )  # fmt: skip


#: This benchmark's own card texts (``drip`` picks one of them per identity).
DEV_TEXTS = ("stuffed", "superset", "clone", "reworded")
#: ``--attacks dev``: every attack of this benchmark's own generator (tune against these only).
DEV_ATTACKS = (*DEV_TEXTS, "drip")


def spam_texts(
    kind: str, honest: list[tuple[str, str]], count: int, rng: random.Random
) -> list[tuple[str, tuple[str, ...]]]:
    phrases = [d.split(",")[0].split(".")[0] for _, d in honest]
    out: list[tuple[str, tuple[str, ...]]] = []
    for i in range(count):
        if kind == "drip":  # the development trickle attacker: one of the four texts per identity
            out.extend(spam_texts(rng.choice(DEV_TEXTS), [honest[i % len(honest)], *honest], 1, rng))
            continue
        if kind == "stuffed":
            picked = rng.sample(phrases, rng.randint(5, 15)) + rng.sample(KEYWORDS, rng.randint(5, 15))
            rng.shuffle(picked)
            skills = tuple(rng.sample(KEYWORDS, min(32, len(KEYWORDS))))
            out.append(("Expert agent: " + "; ".join(picked) + ".", skills))
        elif kind in ("superset", "reworded"):
            texts = [honest[i % len(honest)][1]] + [d for _, d in rng.sample(honest, rng.randint(2, 4))]
            if kind == "reworded":
                texts = [" ".join(w for w in t.split() if rng.random() >= 1 / 8) for t in texts]
            out.append((" ".join(texts), ()))
        else:  # clone
            out.append((honest[i % len(honest)][1], ()))
    return out


class Sketches:
    """The signed version 2 sketch of every card (family vector and term hashes: what bucket pages list,
    as a node of the default wordllama scheme publishes it) and the wordllama query embedder; sketches are
    scored as the node scores them (:class:`~ioa_p2p.dht.sketchscore.SketchScorer`)."""

    def __init__(self) -> None:
        self.embedder = WordLlamaEmbedder()
        self.by_key: dict[str, Any] = {}
        self.card_bytes: dict[str, int] = {}  # key -> encoded card size (what a fetch moves)
        self.choose_s = 0.0  # CPU spent choosing what to fetch (the defences' cost)
        self.choices = 0
        self._centre: Any = None
        self._matrix: Any = None
        self.honest: set[str] = set()  # keys of the honest cards (``spam-first`` puts them last)
        self.arrivals: ArrivalBook | None = None  # when the node first saw each identity (:meth:`schedule`)
        self._dense: dict[str, int] | None = None  # unproven near-duplicates of each key (:data:`DUP`)
        self._dense_for: frozenset[Any] = frozenset()

    def add(self, identity: Identity, card: Any) -> None:
        c = card.card
        vector = normalise(self.embedder.embed([card_text(c.name, c.description, c.skills)]))[0]
        self.by_key[str(card.peer_id)] = issue_sketch(
            identity, version=1, model=self.embedder.model_id, vector=vector, now_ms=NOW,
            expires_at=NOW + 1_800_000, scheme=self.embedder.model_id, terms=card_terms(c),
        )  # fmt: skip
        self.card_bytes[str(card.peer_id)] = len(card.encoded)
        self._matrix = None
        self._centre = None
        self._dense = None

    def fetched(self, goal: str, *args: Any, **kwargs: Any) -> list[str]:
        """:meth:`fetched_one` for the goal and, with :data:`NEED_FINDS`, for each of its clauses too (as
        ``node/goals/teams.py`` ``find_all``: ``MAX_QUERIES`` at most): their union, in order."""
        queries = [goal]
        if NEED_FINDS[0]:
            queries = list(dict.fromkeys([goal, *(n.text for n in split_goal(goal))]))[:MAX_QUERIES]
        out: dict[str, None] = {}
        for query in queries:
            out.update(dict.fromkeys(self.fetched_one(query, *args, **kwargs)))
        return list(out)

    def fetched_one(
        self,
        goal: str,
        standing: dict[str, float],
        defences: bool,
        *,
        held: Collection[str] = (),
        proven: Collection[str] = (),
        proof: Mapping[str, int] | None = None,
        young: Mapping[str, float] | None = None,
    ) -> list[str]:
        """The keys of the cards a page search that listed every sketch would fetch for ``goal``
        (``held``: the keys whose cards the node holds: first among copies, and the breadth line;
        ``proven``: the keys with a task done for the node, unless :data:`PROVEN_FETCH` is off; ``proof``:
        how long ago (ms) each proven key's first accepted task was, absent: just now; ``young``: the young
        keys and the prior their youth costs them, which a flood penalty is net of, as the node's
        ``CardSearch.fetch_flood``)."""
        q = normalise(self.embedder.embed([goal]))[0]
        scorer = SketchScorer(q, scheme=self.embedder.model_id, terms=query_terms(goal))
        sketches = list(self.by_key.values())
        for sketch in sketches:
            scorer.listed(sketch)
        if self._matrix is None or len(self._matrix) != len(sketches):
            rows = np.stack([s.vector() for s in sketches])
            self._matrix = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        # SketchScorer.dense for a query without a rest (the default wordllama scheme), vectorised
        mean, std = HYBRID.standard[WORDLLAMA]
        dense = ((self._matrix @ scorer.view) - mean) / std
        lexical = scorer.lexical(s.peer_id.raw for s in sketches)
        listed = [
            (float(d) + lexical.get(s.peer_id.raw, 0.0), s) for d, s in zip(dense, sketches, strict=True)
        ]
        if self._centre is None:
            self._centre = self.centre(sketches)
        priors = {self.by_key[k].peer_id: v for k, v in standing.items()}
        started = time.process_time()
        known = {self.by_key[k].peer_id for k in held if k in self.by_key}
        good = {self.by_key[k].peer_id for k in proven if k in self.by_key} if PROVEN_FETCH[0] else set()
        since = {self.by_key[k].peer_id: NOW - (proof or {}).get(k, 0) for k in proven if k in self.by_key}
        flood = (
            self.arrivals.penalties((s.peer_id for _, s in listed), NOW, proven_since=since)
            if defences and self.arrivals is not None
            else None
        )
        if flood and young:
            paid = {self.by_key[k].peer_id: PRIOR_WEIGHT * v for k, v in young.items() if k in self.by_key}
            flood = beyond(flood, paid)
        if defences and DUP[0] > 0:
            flood = dict(flood or {})
            for peer, units in self.dup_penalties(sketches, good | known).items():
                flood[peer] = max(units, flood.get(peer, 0.0))
        if EVIDENCE_POOL[0] and defences:  # the node's pool: the best after each peer's own evidence
            scored = pool_of(listed, POOL * FETCH, priors=priors, flood=flood)
        else:  # the pool before 2026-11-29: the best by sketch score alone
            scored = sorted(listed, key=lambda item: -item[0])[: POOL * FETCH]
        chosen = choose_fetch(
            scored, FETCH, priors=priors, known=known, centre=self._centre, query=scorer.view,
            defences=defences, proven=good, flood=flood,
        )  # fmt: skip
        self.choose_s += time.process_time() - started
        self.choices += 1
        return [str(s.peer_id) for s in chosen]

    def dup_penalties(self, sketches: list[Any], proven: Collection[Any]) -> dict[Any, float]:
        """:data:`DUP`'s score units off each unproven sketch with many unproven near-duplicates (counted
        over every sketch listed: a perfect listing; the proven and held are neither counted nor
        penalised)."""
        if self._dense is None or self._dense_for != frozenset(proven):
            self._dense_for = frozenset(proven)
            rows = self._matrix
            unproven = np.array([s.peer_id not in proven for s in sketches])
            near = (rows @ rows.T) >= DUP_COSINE[0]
            np.fill_diagonal(near, False)
            counts = (near & unproven[None, :]).sum(axis=1)
            self._dense = {
                str(s.peer_id): int(c) for s, c, u in zip(sketches, counts, unproven, strict=True) if u
            }
        out = {}
        for key, n in self._dense.items():
            if n > DUP_FREE[0]:
                out[self.by_key[key].peer_id] = DUP[0] * min(1.0, (n - DUP_FREE[0]) / (2 * DUP_FREE[0]))
        return out

    def schedule(self, attack: str, rng: random.Random, recent: Collection[str] = ()) -> None:
        """When the node first saw each card (:data:`ARRIVAL`; ``recent``: honest newcomers, seen in the
        last hour)."""
        if ARRIVAL[0] == "none":
            self.arrivals = None
            return
        start = NOW - (DAY_MS // 2 // 24 if ARRIVAL[0] == "forget" else 14 * DAY_MS)
        book = ArrivalBook(start)
        spam = [k for k in self.by_key if k not in self.honest]
        honest = [k for k in self.by_key if k in self.honest and k not in recent]
        times: list[tuple[int, str]] = [(NOW - rng.randrange(WINDOW_MS), k) for k in recent]
        if ARRIVAL[0] == "forget":
            times += [(start + rng.randrange(WINDOW_MS // 6), k) for k in [*honest, *spam]]
        else:
            settled = len(honest) // 4
            times += [(start + rng.randrange(WINDOW_MS // 6), k) for k in honest[:settled]]
            times += [
                (start + rng.randrange(WINDOW_MS, NOW - start - 2 * WINDOW_MS), k) for k in honest[settled:]
            ]
            if ARRIVAL[0] == "trickle":
                times += [(start + rng.randrange(WINDOW_MS, NOW - start - 2 * WINDOW_MS), k) for k in spam]
            else:
                at = NOW - (3 * DAY_MS if attack == "patient" else WINDOW_MS // 2)
                times += [(at + rng.randrange(WINDOW_MS // 2), k) for k in spam]
        restart = NOW - WINDOW_MS // 2
        if ARRIVAL[0] == "restart":  # up to the restart, then the record saved, the node started again
            times, after = [x for x in times if x[0] < restart], [x for x in times if x[0] >= restart]
        for t, key in sorted(times):
            book.note(self.by_key[key].peer_id, t)
        if ARRIVAL[0] == "restart":
            book = restarted(book, restart)
            for t, key in sorted(after):
                book.note(self.by_key[key].peer_id, t)
        self.arrivals = book

    def centre(self, sketches: list[Any]) -> Any:
        """The breadth centre :data:`CENTRE` names (``sketches``: honest ones first, as added)."""
        if CENTRE[0] == "all":
            return centre_of(sketches)
        if CENTRE[0] == "spam-first":
            honest = [s for s in sketches if str(s.peer_id) in self.honest]
            sketches = [s for s in sketches if str(s.peer_id) not in self.honest] + honest
        forest = forest_for(self.embedder.model_id, len(sketches[0].vector()))
        pages: dict[int, int] = {}
        sample = []
        for sketch in sketches:
            cell = forest.cells(sketch.vector(), (LEVELS[0],))[SAMPLE_TABLE]
            if pages.get(cell.prefix, 0) < PAGE_ENTRIES:
                pages[cell.prefix] = pages.get(cell.prefix, 0) + 1
                sample.append(sketch)
        return centre_of(sample)


def restarted(book: ArrivalBook, at_ms: int) -> ArrivalBook:
    """``book`` saved in a real ``arrivals.sqlite3`` (the node's store) and resumed there at ``at_ms``."""
    with tempfile.TemporaryDirectory(prefix="ioa-bench-arrivals-") as home:
        _, store = open_arrivals(Path(home), book.started_ms)
        assert store is not None
        store.save(book.drain(at_ms - 1))
        store.close()
        again, store = open_arrivals(Path(home), at_ms)
        assert store is not None
        store.close()
    return again


class Standings:
    """What a node learns of the cards it fetches and carries back to their sketches, as
    :meth:`~ioa_p2p.dht.ranking.CardRanker.priors` computes it (the breadth discount; not the copy
    penalty) without a matcher index (the ranker's per-find index refresh would cost this benchmark hours
    on a loaded machine)."""

    def __init__(self, embed_items: Any) -> None:
        self.embed_items = embed_items
        self.discount: dict[str, float] = {}

    def learn(self, fetched: list[tuple[str, Any]]) -> dict[str, float]:
        for key, card in fetched:
            if key not in self.discount:
                items = card_items(card_profile(card.card))
                self.discount[key] = -breadth_discount(breadth(items, self.embed_items))
        return {k: v for k, v in self.discount.items() if v}


def attacks_of(text: str) -> list[str]:
    """The attacks ``--attacks`` names (comma-separated; ``dev``: :data:`DEV_ATTACKS`)."""
    out: list[str] = []
    for name in (n.strip() for n in text.split(",") if n.strip()):
        out.extend(DEV_ATTACKS if name == "dev" else (name,))
    return list(dict.fromkeys(out))


def spam_for(attack: str, honest: list[tuple[str, str]], count: int, rng: random.Random) -> list[Any]:
    """Spam card texts of ``attack``: this benchmark's own or the held-out generator's (``spam_attacks``)."""
    if attack in HELDOUT:
        return heldout_texts(attack, honest, count, rng)
    return spam_texts(attack, honest, count, rng)


def fetch_only(
    honest: list[tuple[str, str]],
    goals: list[dict[str, Any]],
    ratio: int,
    attacks: list[str],
    as_json: bool,
    passes: int,
    warm: bool = False,
) -> None:
    """The page search's fetch alone: the share of each goal's gold agents among the cards fetched, the
    share of fetch slots spam takes and the cards fetched per find (the cost), with the sketch-level
    defences (:mod:`~ioa_p2p.dht.fetchchoice`) off and on. Reputation is not exercised here (no team is
    formed); with the defences the node learns the standing of every card it fetches (:class:`Standings`,
    in the order they are fetched, as a node that knows no card beforehand would) and carries it back to
    the sketches of the next finds. Every goal runs ``passes`` times.

    ``warm``: the node worked before the attack: the honest members of the gold teams of every other goal
    did a task for it (proven, with the reputation prior of one task done, their cards held); the figures
    are also given over the goals of the other half alone (``gold_fetched_new``)."""
    base = Sketches()
    embed_items = make_matcher({"matcher": "lite"}).embed_items
    names: dict[str, str] = {}
    cards: dict[str, Any] = {}
    for name, description in honest:
        identity = Identity.generate()
        card = make_card(identity, name, description)
        base.add(identity, card)
        base.honest.add(str(card.peer_id))
        names[name] = str(card.peer_id)
        cards[str(card.peer_id)] = card
    rng = random.Random(25)
    base.schedule("", random.Random("arrival-"))

    proven = {names[n] for g in goals[0::2] for n in g["team"] if n in names} if warm else set()
    new_goals = {id(g) for g in goals[1::2]} if warm else set()
    done = reputation_prior(Standing(done=1))

    def measure(sketches: Sketches, spam: set[str], defences: bool) -> dict[str, float]:
        gold_share, spam_slots, fetched_count, fetched_bytes, new_share = [], [], [], [], []
        proven_slots: list[float] = []
        sketches.choose_s, sketches.choices = 0.0, 0
        learner = Standings(embed_items) if defences else None
        priors: dict[str, float] = dict.fromkeys(proven, done) if defences else {}
        held = set(proven) if defences else set()
        for goal in [g for _ in range(passes) for g in goals]:
            fetched = set(sketches.fetched(goal["goal"], priors, defences, held=held, proven=held & proven))
            fetched_bytes.append(sum(sketches.card_bytes[k] for k in fetched))
            if learner is not None:
                learned = learner.learn([(k, cards[k]) for k in sorted(fetched)])
                priors = {
                    k: learned.get(k, 0.0) + (done if k in proven else 0.0) for k in learned.keys() | proven
                }
            gold = {names[n] for n in goal["team"] if n in names}
            gold_share.append(len(gold & fetched) / len(gold) if gold else 0.0)
            if id(goal) in new_goals:
                new_share.append(gold_share[-1])
            spam_slots.append(len(fetched & spam) / max(1, len(fetched)))
            proven_slots.append(len(fetched & proven) / max(1, len(fetched)))
            fetched_count.append(len(fetched))
        return {
            **({"proven_fetch_slots": round(statistics.mean(proven_slots), 4)} if proven else {}),
            **({"gold_fetched_new": round(statistics.mean(new_share), 4)} if new_share else {}),
            "gold_fetched": round(statistics.mean(gold_share), 4),
            "spam_fetch_slots": round(statistics.mean(spam_slots), 4),
            "cards_fetched": round(statistics.mean(fetched_count), 1),
            "card_kb_fetched": round(statistics.mean(fetched_bytes) / 1024, 1),
            "choose_ms": round(1000 * sketches.choose_s / max(1, sketches.choices), 2),
        }

    print(
        f"# fetch only: {len(honest)} honest cards, {len(goals)} goals x {passes} passes, {FETCH} slots, "
        f"ratio {ratio}:1" + (f", warm ({len(proven)} honest agents proven)" if warm else "")
    )
    clean = {d: measure(base, set(), d) for d in (False, True)}
    for d, row in clean.items():
        print(
            f"baseline (no spam), sketch defences {'on ' if d else 'off'}: gold agents among the fetched "
            f"{row['gold_fetched']:.3f}{extra_text(row)}, cards fetched per find {row['cards_fetched']} "
            f"({row['card_kb_fetched']} KB), fetch choice {row['choose_ms']} ms CPU",
            flush=True,
        )
    for attack in attacks:
        world = Sketches()
        world.embedder, world.by_key = base.embedder, dict(base.by_key)
        world.card_bytes, world.honest = dict(base.card_bytes), set(base.honest)
        spam: set[str] = set()
        for i, (description, skills) in enumerate(spam_for(attack, honest, ratio * len(honest), rng)):
            identity = Identity.generate()
            card = make_card(identity, f"agent-{i}", description, skills)
            world.add(identity, card)
            spam.add(str(card.peer_id))
            cards[str(card.peer_id)] = card
        world.schedule(attack, random.Random(f"arrival-{attack}"))
        for defences in (False, True):
            row: dict[str, Any] = {"attack": attack, "sketch_defences": defences}
            row.update(measure(world, spam, defences))
            row["gold_ratio"] = round(row["gold_fetched"] / clean[defences]["gold_fetched"], 3)
            print(
                json.dumps(row)
                if as_json
                else f"{attack:<10} sketch defences {'on ' if defences else 'off'}  gold among fetched "
                f"{row['gold_fetched']:.3f} ({row['gold_ratio']:.2f} of baseline){extra_text(row)}  "
                f"spam in fetch slots "
                f"{100 * row['spam_fetch_slots']:5.1f} %  cards fetched per find {row['cards_fetched']} "
                f"({row['card_kb_fetched']} KB; choice {row['choose_ms']} ms CPU)",
                flush=True,
            )


def extra_text(row: dict[str, Any]) -> str:
    """The warm node's figures of a fetch-only row: gold among the fetched over the goals it had not met,
    and the share of the fetch that went to proven peers."""
    out = f", new goals {row['gold_fetched_new']:.3f}" if "gold_fetched_new" in row else ""
    return out + (
        f", proven in fetch {100 * row['proven_fetch_slots']:.1f} %" if "proven_fetch_slots" in row else ""
    )
