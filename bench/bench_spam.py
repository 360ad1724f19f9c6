"""Card spam: does a stranger with many fresh identities take over ``find`` and team formation?

    .venv/bin/python bench/bench_spam.py [--ratio 10] [--passes 2] [--attacks stuffed,superset,clone]

Honest cards: the 160 agents of ``teaming-dev-hard.json`` (shared data; the benchmark says so and stops
when it is absent); queries and gold teams: its 120 goals. For each attack, ``ratio`` spam identities per
honest card (1,600 by default) join the directory of one node, and every goal is run ``passes`` times in
order, through the node's own ranker (:class:`~ioa_p2p.dht.ranking.CardRanker` over the hybrid matcher) and
team choice (``choose_team``), twice: **without** the defences (no breadth discount, duplicates not
merged, no reputation) and **with** them. A spam member of a team does no work: with the defences on, the
node records it as a failed task (this is what its signed history would say) and its reputation drops.

Attacks (a spam card's text; every spam card has a new identity):

- ``stuffed``: 10 to 30 capability phrases taken from honest cards and a keyword list, and 32 skills
  (the card claims everything);
- ``superset``: an honest card's description plus two to four others' (it targets that card's queries);
- ``clone``: an honest card's description, verbatim (issued after the honest one);
- ``reworded``: like ``superset``, with one word in eight of every copied description left out, so no
  claim is copied verbatim (what copy detection cannot see; the breadth discount and reputation remain).

Figures per attack and mode: honest recall@5 (share of the gold agents in the top 5 of ``find``; the
baseline without spam first), the share of teams with a spam member, the largest share of teams one spam
identity joined, and the top-5 slots spam took. Costs for an honest node: minting a card (stamp of the
default bits), verifying one (signature + stamp), its breadth, and indexing and ranking time with spam.
Cards are signed for real; spam is minted without stamps (the stamp does not change ranking; its cost is
measured separately and multiplied out). Nothing here touches the network.

``--pages``: what a node that finds over DHT bucket pages sees (``docs/matching.md``, "Card spam with
pages"). A page search ranks the signed version 2 *sketches* of the cards (their quantised wordllama
vectors and term hashes, scored like the node scores them) and fetches only the ``page_fetch`` (24) best
distinct contents; the node then ranks and picks its team among the fetched cards only. Modelled as a
perfect page search (every sketch listed: the design's recall is 0.98-0.99 of exact) whose fetch choice
is :func:`~ioa_p2p.dht.fetchchoice.choose_fetch`, with the sketch-level defences (reputation, copies
sharing a slot, supersets, breadth) on or off with the others. The ranker's priors are those of a node
that indexed every card, honest ones first. ``--fetch-only`` measures the fetch choice alone (wordllama
only, minutes instead of hours on a loaded machine).

``--attacks`` also takes the held-out generator's attacks (``spam_attacks.py``: ``paraphrase``,
``mixture``, ``focused`` and ``heldout``, a mix of the three), written as a second attacker the
sketch-level defences were not tuned on.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from typing import Any

import numpy as np
from shared_data import data_file, require
from spam_attacks import HELDOUT, heldout_texts

from ioa_p2p.card import card_text, issue_card, parse_card
from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.conversation.reputation import Standing, reputation_prior
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.expand import FETCH
from ioa_p2p.dht.fetchchoice import POOL, centre_of, choose_fetch
from ioa_p2p.dht.ranking import CardRanker, card_profile
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sketchscore import SketchScorer, card_terms, query_terms
from ioa_p2p.embedding import WordLlamaEmbedder, normalise
from ioa_p2p.identity import Identity
from ioa_p2p.matching import make_matcher
from ioa_p2p.matching.breadth import breadth, breadth_discount, card_items
from ioa_p2p.matching.calibration import HYBRID, WORDLLAMA
from ioa_p2p.teaming.offline import choose_team

DATA = data_file("teaming-dev-hard.json")
MATCHER = ["hybrid"]  # the node's ranker (--matcher)
NOW = 1_800_000_000_000
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


def spam_texts(
    kind: str, honest: list[tuple[str, str]], count: int, rng: random.Random
) -> list[tuple[str, tuple[str, ...]]]:
    phrases = [d.split(",")[0].split(".")[0] for _, d in honest]
    out: list[tuple[str, tuple[str, ...]]] = []
    for i in range(count):
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

    def fetched(self, goal: str, standing: dict[str, float], defences: bool) -> list[str]:
        """The keys of the cards a page search that listed every sketch would fetch for ``goal``."""
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
        scored = sorted(
            ((float(d) + lexical.get(s.peer_id.raw, 0.0), s) for d, s in zip(dense, sketches, strict=True)),
            key=lambda item: -item[0],
        )[: POOL * FETCH]  # the node's pool: the best candidates by sketch score
        if self._centre is None:
            self._centre = centre_of(sketches)
        priors = {self.by_key[k].peer_id: v for k, v in standing.items()}
        started = time.process_time()
        chosen = choose_fetch(
            scored, FETCH, priors=priors, centre=self._centre, query=scorer.view, defences=defences
        )
        self.choose_s += time.process_time() - started
        self.choices += 1
        return [str(s.peer_id) for s in chosen]


def build(
    honest: list[tuple[str, str]],
    spam: list[tuple[str, tuple[str, ...]]],
    defences: bool,
    sketches: Sketches | None = None,
) -> tuple[CardRanker, dict[str, str], set[str]]:
    ranker = CardRanker(make_matcher({"matcher": MATCHER[0]}), defences=defences)
    names: dict[str, str] = {}
    spam_keys: set[str] = set()
    for name, description in honest:
        identity = Identity.generate()
        card = make_card(identity, name, description)
        ranker.add(card)
        names[str(card.peer_id)] = name
        if sketches is not None:
            sketches.add(identity, card)
    ranker.refresh()  # the honest cards were there first
    for i, (description, skills) in enumerate(spam):
        identity = Identity.generate()
        card = make_card(identity, f"agent-{i}", description, skills)
        ranker.add(card)
        spam_keys.add(str(card.peer_id))
        if sketches is not None:
            sketches.add(identity, card)
    return ranker, names, spam_keys


def run(
    ranker: CardRanker,
    names: dict[str, str],
    spam: set[str],
    goals: list[dict[str, Any]],
    passes: int,
    defences: bool,
    sketches: Sketches | None = None,
) -> dict[str, Any]:
    by_name = {v: k for k, v in names.items()}
    recalls, slots, teams_with_spam, teams = [], 0, 0, 0
    joined: Counter[str] = Counter()
    standings: dict[str, Standing] = {}
    rank_ms: list[float] = []
    honest_fetched: list[float] = []
    fetched_n: list[int] = []
    seen: set[str] = set()  # cards fetched so far: the node knows their standing (breadth, copies)
    for _ in range(passes):
        for goal in goals:
            gold = {by_name[n] for n in goal["team"] if n in by_name}
            started = time.perf_counter()
            known = {k: v for k, v in ranker.priors().items() if k in seen} if defences else {}
            among = None if sketches is None else sketches.fetched(goal["goal"], known, defences)
            if among is not None:
                honest_fetched.append(sum(k not in spam for k in among) / max(1, len(among)))
                fetched_n.append(len(among))
                seen.update(among)
            top = [m.key for m in ranker.rank(goal["goal"], 5, among=among)]
            rank_ms.append((time.perf_counter() - started) * 1000)
            recalls.append(len(gold & set(top)) / len(gold) if gold else 0.0)
            slots += sum(k in spam for k in top)
            pick = choose_team(goal["goal"], ranker.matcher, among=among, max_team=4)
            teams += 1
            bad = [k for k in pick.keys if k in spam]
            teams_with_spam += bool(bad)
            joined.update(bad)
            if defences:  # what the team's signed history tells this node afterwards
                for key in pick.keys:
                    standing = standings.setdefault(key, Standing())
                    if key in spam:
                        standing.unanswered += 1
                    else:
                        standing.done += 1
                ranker.set_reputation({k: reputation_prior(s) for k, s in standings.items()})
    out = {
        "recall@5": round(statistics.mean(recalls), 4),
        "teams": teams,
        "teams_with_spam": round(teams_with_spam / teams, 4),
        "max_share_one_spam_identity": round(max(joined.values(), default=0) / teams, 4),
        "spam_top5_slots": round(slots / (5 * teams), 4),
        "rank_ms_p50": round(statistics.median(rank_ms), 2),
    }
    if honest_fetched:
        out["honest_share_of_fetched"] = round(statistics.mean(honest_fetched), 3)
        out["cards_fetched"] = round(statistics.mean(fetched_n), 1)
    return out


def costs(honest: list[tuple[str, str]], spam_count: int) -> dict[str, Any]:
    settings = DiscoverySettings()
    identity = Identity.generate()
    started = time.process_time()
    bits = settings.stamp_bits
    minted = [
        issue_card(identity, name="m", description=f"mint {i}", model="m", vector=[1.0], version=1,
                   now_ms=NOW, stamp_bits=bits)
        for i in range(8)
    ]  # fmt: skip
    mint_s = (time.process_time() - started) / len(minted)
    started = time.process_time()
    for _ in range(20):
        for card in minted:
            parse_card(card.encoded, now_ms=NOW + 1)
            assert card.stamp_bits >= settings.min_stamp_bits
    verify_ms = (time.process_time() - started) / (20 * len(minted)) * 1000
    matcher = make_matcher({"matcher": "hybrid"})
    profiles = [card_profile(make_card(identity, n, d).card) for n, d in honest[:50]]
    started = time.process_time()
    for profile in profiles:
        breadth(card_items(profile), matcher.embed_items)
    breadth_ms = (time.process_time() - started) / len(profiles) * 1000
    admission = CardAdmission(new_cards=settings.new_cards, updates=settings.updates)
    admitted = sum(admission.admit_card(f"s{i}", known=False, now=0.0) for i in range(spam_count))
    return {
        "stamp_bits": settings.stamp_bits,
        "mint_cpu_s_per_card": round(mint_s, 3),
        "spam_mint_cpu_s": round(mint_s * spam_count, 1),
        "verify_ms_per_card": round(verify_ms, 3),
        "breadth_ms_per_card": round(breadth_ms, 3),
        "spam_admitted_first_minute": admitted,
        "minutes_to_admit_all_spam": round(spam_count / settings.new_cards, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratio", type=int, default=10, help="spam identities per honest card")
    parser.add_argument("--passes", type=int, default=2, help="times every goal is run")
    parser.add_argument("--attacks", default="stuffed,superset,clone,reworded")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--matcher", default="hybrid", choices=("hybrid", "lite"),
        help="the ranker's matcher (lite: wordllama + BM25, the node's fallback; hours less CPU)",
    )  # fmt: skip
    parser.add_argument("--pages", action="store_true", help="rank only what a page search fetches")
    parser.add_argument(
        "--fetch-only",
        action="store_true",
        help="with --pages: measure only the fetch choice (gold agents among the cards fetched; no ranker)",
    )
    args = parser.parse_args()
    MATCHER[0] = args.matcher
    data = json.loads(require(DATA).read_text(encoding="utf-8"))
    honest = [(a["name"], a["description"]) for a in data["agents"]]
    goals = [g for g in data["goals"] if g.get("team")]
    rows: list[dict[str, Any]] = []
    if args.pages and args.fetch_only:
        return fetch_only(honest, goals, args.ratio, args.attacks.split(","), args.json, args.passes)
    sketches = Sketches() if args.pages else None
    ranker, names, _ = build(honest, [], defences=True, sketches=sketches)
    base = run(ranker, names, set(), goals, 1, defences=False, sketches=sketches)
    print(
        f"# {len(honest)} honest cards, {len(goals)} goals x {args.passes} passes, spam ratio {args.ratio}:1",
        flush=True,
    )
    print(f"baseline (no spam): recall@5 {base['recall@5']:.3f}", flush=True)
    rng = random.Random(25)
    for attack in args.attacks.split(","):
        spam = spam_for(attack, honest, args.ratio * len(honest), rng)
        for defences in (False, True):
            started = time.perf_counter()
            sketches = Sketches() if args.pages else None
            ranker, names, spam_keys = build(honest, spam, defences, sketches)
            ranker.refresh()
            index_s = time.perf_counter() - started
            row = {"attack": attack, "defences": defences, "pages": args.pages, "index_s": round(index_s, 1)}
            row.update(run(ranker, names, spam_keys, goals, args.passes, defences, sketches))
            row["recall_ratio"] = round(row["recall@5"] / base["recall@5"], 3)
            rows.append(row)
            print(json.dumps(row) if args.json else describe(row), flush=True)
    cost = costs(honest, args.ratio * len(honest))
    print(
        json.dumps(cost) if args.json else "costs: " + ", ".join(f"{k} {v}" for k, v in cost.items()),
        flush=True,
    )


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
) -> None:
    """The page search's fetch alone: the share of each goal's gold agents among the cards fetched, the
    share of fetch slots spam takes and the cards fetched per find (the cost), with the sketch-level
    defences (:mod:`~ioa_p2p.dht.fetchchoice`) off and on. Reputation is not exercised here (no team is
    formed); with the defences the node learns the standing of every card it fetches (:class:`Standings`,
    in the order they are fetched, as a node that knows no card beforehand would) and carries it back to
    the sketches of the next finds. Every goal runs ``passes`` times."""
    base = Sketches()
    embed_items = make_matcher({"matcher": "lite"}).embed_items
    names: dict[str, str] = {}
    cards: dict[str, Any] = {}
    for name, description in honest:
        identity = Identity.generate()
        card = make_card(identity, name, description)
        base.add(identity, card)
        names[name] = str(card.peer_id)
        cards[str(card.peer_id)] = card
    rng = random.Random(25)

    def measure(sketches: Sketches, spam: set[str], defences: bool) -> dict[str, float]:
        gold_share, spam_slots, fetched_count, fetched_bytes = [], [], [], []
        sketches.choose_s, sketches.choices = 0.0, 0
        learner = Standings(embed_items) if defences else None
        priors: dict[str, float] = {}
        for goal in [g for _ in range(passes) for g in goals]:
            fetched = set(sketches.fetched(goal["goal"], priors, defences))
            fetched_bytes.append(sum(sketches.card_bytes[k] for k in fetched))
            if learner is not None:
                priors = learner.learn([(k, cards[k]) for k in sorted(fetched)])
            gold = {names[n] for n in goal["team"] if n in names}
            gold_share.append(len(gold & fetched) / len(gold) if gold else 0.0)
            spam_slots.append(len(fetched & spam) / max(1, len(fetched)))
            fetched_count.append(len(fetched))
        return {
            "gold_fetched": round(statistics.mean(gold_share), 4),
            "spam_fetch_slots": round(statistics.mean(spam_slots), 4),
            "cards_fetched": round(statistics.mean(fetched_count), 1),
            "card_kb_fetched": round(statistics.mean(fetched_bytes) / 1024, 1),
            "choose_ms": round(1000 * sketches.choose_s / max(1, sketches.choices), 2),
        }

    print(
        f"# fetch only: {len(honest)} honest cards, {len(goals)} goals x {passes} passes, {FETCH} slots, "
        f"ratio {ratio}:1"
    )
    clean = {d: measure(base, set(), d) for d in (False, True)}
    for d, row in clean.items():
        print(
            f"baseline (no spam), sketch defences {'on ' if d else 'off'}: gold agents among the fetched "
            f"{row['gold_fetched']:.3f}, cards fetched per find {row['cards_fetched']} "
            f"({row['card_kb_fetched']} KB), fetch choice {row['choose_ms']} ms CPU",
            flush=True,
        )
    for attack in attacks:
        world = Sketches()
        world.embedder, world.by_key = base.embedder, dict(base.by_key)
        world.card_bytes = dict(base.card_bytes)
        spam: set[str] = set()
        for i, (description, skills) in enumerate(spam_for(attack, honest, ratio * len(honest), rng)):
            identity = Identity.generate()
            card = make_card(identity, f"agent-{i}", description, skills)
            world.add(identity, card)
            spam.add(str(card.peer_id))
            cards[str(card.peer_id)] = card
        for defences in (False, True):
            row: dict[str, Any] = {"attack": attack, "sketch_defences": defences}
            row.update(measure(world, spam, defences))
            row["gold_ratio"] = round(row["gold_fetched"] / clean[defences]["gold_fetched"], 3)
            print(
                json.dumps(row)
                if as_json
                else f"{attack:<10} sketch defences {'on ' if defences else 'off'}  gold among fetched "
                f"{row['gold_fetched']:.3f} ({row['gold_ratio']:.2f} of baseline)  spam in fetch slots "
                f"{100 * row['spam_fetch_slots']:5.1f} %  cards fetched per find {row['cards_fetched']} "
                f"({row['card_kb_fetched']} KB; choice {row['choose_ms']} ms CPU)",
                flush=True,
            )


def describe(row: dict[str, Any]) -> str:
    mode = "with defences   " if row["defences"] else "without defences"
    return (
        f"{row['attack']:<9} {mode}  recall@5 {row['recall@5']:.3f} ({row['recall_ratio']:.2f} of baseline)  "
        f"teams with spam {100 * row['teams_with_spam']:5.1f} %  one spam identity at most in "
        f"{100 * row['max_share_one_spam_identity']:4.1f} % of teams  spam in top 5: "
        f"{100 * row['spam_top5_slots']:4.1f} % of slots  "
        f"(rank p50 {row['rank_ms_p50']} ms, index {row['index_s']} s)"
        + (f"  cards fetched per find {row['cards_fetched']}" if "cards_fetched" in row else "")
    )


if __name__ == "__main__":
    sys.exit(main())
