"""Card spam: does a stranger with many fresh identities take over ``find`` and team formation?

    .venv/bin/python bench/bench_spam.py [--ratio 10] [--passes 2] [--attacks stuffed,superset,clone]

Honest cards: the 160 agents of ``teaming-dev-hard.json`` (shared data; the benchmark says so and stops
when it is absent); queries and gold teams: its 120 goals. For each attack, ``ratio`` spam identities per
honest card (1,600 by default) join the directory of one node, and every goal is run ``passes`` times in
order, through the node's own ranker (:class:`~ioa_p2p.dht.ranking.CardRanker` over the hybrid matcher) and
team choice (``choose_team``), in each of ``--modes``: ``off`` (no breadth discount, duplicates not merged,
no reputation), ``on`` (those defences) and ``trust`` (those and age- and evidence-weighted trust,
``ioa_p2p/teaming/trust.py`` at its defaults: the honest cards were held for longer than ``trust_age``
before the attack, a fresh spam identity is young until a task done is on record). A spam member of a
team does no work: with the defences on, the node records it as a failed task (this is what its signed
history would say) and its reputation drops. With ``trust``, the spam-free baseline is run again with one
honest card in ``--newcomers`` young (the honest cost: a newcomer ranks lower until it is proven).

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
sketch-level defences were not tuned on, and ``patient`` (the held-out texts from identities as old as
the honest ones, one in five a sleeper that does its tasks), written before the trust defences.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import time
from collections import Counter
from typing import Any

from shared_data import data_file, require
from spam_attacks import spam_behaviour
from spam_world import NOW, Sketches, fetch_only, make_card, spam_for

from ioa_p2p.card import issue_card, parse_card
from ioa_p2p.card.stamp import MAX_BITS, mint, stamp_bits
from ioa_p2p.conversation.reputation import Standing, reputation_prior
from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.ranking import CardRanker, card_profile
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.errors import InvalidCard
from ioa_p2p.identity import Identity
from ioa_p2p.matching import make_matcher
from ioa_p2p.matching.breadth import breadth, card_items
from ioa_p2p.teaming.offline import choose_team
from ioa_p2p.teaming.trust import TrustPolicy, trust_priors

DATA = data_file("teaming-dev-hard.json")
MATCHER = ["hybrid"]  # the node's ranker (--matcher)
#: The modes a run compares: no defences, the card and sketch defences, and those with trust.
MODES = ("off", "on", "trust")


class World:
    """One directory: the ranker over every card, the honest cards' names, and what each spam identity is
    (``aged``: as old as the honest cards; ``delivers``: it does its tasks) and which honest ones are
    newcomers (``young_honest``: held for less than ``trust_age``, no task done yet)."""

    def __init__(self, ranker: CardRanker, names: dict[str, str]) -> None:
        self.ranker, self.names = ranker, names
        self.spam: set[str] = set()
        self.aged: set[str] = set()
        self.delivers: set[str] = set()
        self.young_honest: set[str] = set()


def build(
    honest: list[tuple[str, str]],
    spam: list[tuple[str, tuple[str, ...]]],
    defences: bool,
    sketches: Sketches | None = None,
    *,
    attack: str = "",
    newcomers: int = 0,
) -> World:
    """Every card indexed, the honest ones first; every ``newcomers``-th honest card (0: none) is young."""
    world = World(CardRanker(make_matcher({"matcher": MATCHER[0]}), defences=defences), {})
    for i, (name, description) in enumerate(honest):
        identity = Identity.generate()
        card = make_card(identity, name, description)
        world.ranker.add(card)
        world.names[str(card.peer_id)] = name
        if newcomers and i % newcomers == 0:
            world.young_honest.add(str(card.peer_id))
        if sketches is not None:
            sketches.add(identity, card)
    world.ranker.refresh()  # the honest cards were there first
    for i, (description, skills) in enumerate(spam):
        identity = Identity.generate()
        card = make_card(identity, f"agent-{i}", description, skills)
        world.ranker.add(card)
        key = str(card.peer_id)
        world.spam.add(key)
        aged, delivers = spam_behaviour(attack, i)
        if aged:
            world.aged.add(key)
        if delivers:
            world.delivers.add(key)
        if sketches is not None:
            sketches.add(identity, card)
    return world


def run(
    world: World,
    goals: list[dict[str, Any]],
    passes: int,
    mode: str,
    sketches: Sketches | None = None,
) -> dict[str, Any]:
    """Every goal ``passes`` times in ``mode`` (:data:`MODES`): recall@5 of ``find``, the teams chosen,
    and what each team's signed history tells the node afterwards (with the defences on)."""
    ranker, spam = world.ranker, world.spam
    defences = mode != "off"
    policy = TrustPolicy() if mode == "trust" else None
    by_name = {v: k for k, v in world.names.items()}
    recalls, slots, teams_with_spam, teams = [], 0, 0, 0
    spam_leads = only_spam = 0  # where the spam in teams sits: as the lead; the whole team
    joined: Counter[str] = Counter()
    standings: dict[str, Standing] = {}
    rank_ms: list[float] = []
    honest_fetched: list[float] = []
    fetched_n: list[int] = []
    seen: set[str] = set()  # cards fetched so far: the node knows their standing (breadth, copies)
    young = young_now(world, standings) if policy else set()
    if policy is not None:
        ranker.set_reputation(trust_priors(young, policy))
    for _ in range(passes):
        for goal in goals:
            gold = {by_name[n] for n in goal["team"] if n in by_name}
            started = time.perf_counter()
            known = {k: v for k, v in ranker.priors().items() if k in seen} if defences else {}
            if policy is not None:  # a peer whose card the node never held is young by definition
                known.update((k, -policy.young_penalty) for k in young if k not in seen)
            among = None if sketches is None else sketches.fetched(goal["goal"], known, defences)
            if among is not None:
                honest_fetched.append(sum(k not in spam for k in among) / max(1, len(among)))
                fetched_n.append(len(among))
                seen.update(among)
            top = [m.key for m in ranker.rank(goal["goal"], 5, among=among)]
            rank_ms.append((time.perf_counter() - started) * 1000)
            recalls.append(len(gold & set(top)) / len(gold) if gold else 0.0)
            slots += sum(k in spam for k in top)
            cap = policy.max_young if policy else None
            pick = choose_team(
                goal["goal"], ranker.matcher, among=among, max_team=4, young=young, max_young=cap
            )
            teams += 1
            bad = [k for k in pick.keys if k in spam]
            teams_with_spam += bool(bad)
            spam_leads += bool(pick.keys) and pick.keys[0] in spam
            only_spam += bool(bad) and len(bad) == len(pick.keys)
            joined.update(bad)
            if defences:  # what the team's signed history tells this node afterwards
                for key in pick.keys:
                    standing = standings.setdefault(key, Standing())
                    if key in spam and key not in world.delivers:
                        standing.unanswered += 1
                    else:
                        standing.done += 1
                priors = {k: reputation_prior(s) for k, s in standings.items()}
                if policy is not None:
                    young = young_now(world, standings)
                    for key, value in trust_priors(young, policy).items():
                        priors[key] = priors.get(key, 0.0) + value
                ranker.set_reputation(priors)
    out = {
        "recall@5": round(statistics.mean(recalls), 4),
        "teams": teams,
        "teams_with_spam": round(teams_with_spam / teams, 4),
        "max_share_one_spam_identity": round(max(joined.values(), default=0) / teams, 4),
        "teams_led_by_spam": round(spam_leads / teams, 4),
        "teams_of_spam_only": round(only_spam / teams, 4),
        "spam_top5_slots": round(slots / (5 * teams), 4),
        "rank_ms_p50": round(statistics.median(rank_ms), 2),
    }
    if honest_fetched:
        out["honest_share_of_fetched"] = round(statistics.mean(honest_fetched), 3)
        out["cards_fetched"] = round(statistics.mean(fetched_n), 1)
    return out


def young_now(world: World, standings: dict[str, Standing]) -> set[str]:
    """The young keys (:func:`~ioa_p2p.teaming.trust.young_keys`): spam that is not aged and honest
    newcomers, unless a task done is on record (every other card was held for longer than ``trust_age``)."""
    proven = {k for k, s in standings.items() if s.done}
    return {k for k in (world.spam - world.aged) | world.young_honest if k not in proven}


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


def stamp_costs(spam_count: int) -> list[dict[str, Any]]:
    """Minting against verifying a card stamp at 16..28 bits, from this machine's measured SHA-256 rate in
    :func:`~ioa_p2p.card.stamp.mint` (one core; expected ``2**bits`` hashes per card): the seconds an honest
    node spends once per card content, and what ``spam_count`` cards (``ratio`` x the honest ones, one per
    identity) cost an attacker with one core, against the node's cost to verify them all."""
    digest = bytes(32)
    started = time.process_time()
    tries = 200_000
    with contextlib.suppress(InvalidCard):
        mint(digest, MAX_BITS, tries=tries)
    rate = tries / (time.process_time() - started)
    started = time.process_time()
    for i in range(2000):
        stamp_bits(digest, i.to_bytes(8, "big"))
    verify_s = (time.process_time() - started) / 2000
    out = []
    for bits in (16, 18, 20, 22, 24, 26, 28):
        per_card = 2**bits / rate
        out.append({
            "bits": bits, "hashes_per_s": round(rate), "mint_s_per_card": round(per_card, 3),
            "attacker_core_hours": round(per_card * spam_count / 3600, 2),
            "stamp_check_us": round(verify_s * 1e6, 2),
            "node_stamp_checks_s": round(verify_s * spam_count, 3),
        })  # fmt: skip
    return out


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
    parser.add_argument(
        "--modes", default="off,on,trust",
        help="off: no defences; on: card and sketch defences, reputation; trust: those and teaming/trust.py",
    )  # fmt: skip
    parser.add_argument("--stamps", action="store_true", help="only the stamp's mint and verify costs")
    parser.add_argument(
        "--newcomers", type=int, default=4,
        help="with trust: the spam-free baseline again with one honest card in N young (the honest cost)",
    )  # fmt: skip
    args = parser.parse_args()
    MATCHER[0] = args.matcher
    data = json.loads(require(DATA).read_text(encoding="utf-8"))
    honest = [(a["name"], a["description"]) for a in data["agents"]]
    goals = [g for g in data["goals"] if g.get("team")]
    rows: list[dict[str, Any]] = []
    if args.stamps:
        for row in stamp_costs(args.ratio * len(honest)):
            print(json.dumps(row) if args.json else "stamp: " + ", ".join(f"{k} {v}" for k, v in row.items()))
        return None
    if args.pages and args.fetch_only:
        return fetch_only(honest, goals, args.ratio, args.attacks.split(","), args.json, args.passes)
    modes = args.modes.split(",")
    print(
        f"# {len(honest)} honest cards, {len(goals)} goals x {args.passes} passes, spam ratio {args.ratio}:1",
        flush=True,
    )
    sketches = Sketches() if args.pages else None
    base = run(build(honest, [], True, sketches), goals, 1, "off", sketches)
    print(
        f"baseline (no spam): recall@5 {base['recall@5']:.3f} (rank p50 {base['rank_ms_p50']} ms)", flush=True
    )
    if "trust" in modes and args.newcomers:  # the honest cost of trust: newcomers rank lower until proven
        sketches = Sketches() if args.pages else None
        world = build(honest, [], True, sketches, newcomers=args.newcomers)
        fresh = run(world, goals, 1, "trust", sketches)
        print(
            f"baseline (no spam) with trust, one honest card in {args.newcomers} a newcomer: recall@5 "
            f"{fresh['recall@5']:.3f} ({fresh['recall@5'] / base['recall@5']:.3f} of baseline; rank p50 "
            f"{fresh['rank_ms_p50']} ms)",
            flush=True,
        )
    rng = random.Random(25)
    for attack in args.attacks.split(","):
        spam = spam_for(attack, honest, args.ratio * len(honest), rng)
        for mode in modes:
            started = time.perf_counter()
            sketches = Sketches() if args.pages else None
            world = build(honest, spam, mode != "off", sketches, attack=attack)
            world.ranker.refresh()
            index_s = time.perf_counter() - started
            row = {"attack": attack, "mode": mode, "pages": args.pages, "index_s": round(index_s, 1)}
            row.update(run(world, goals, args.passes, mode, sketches))
            row["recall_ratio"] = round(row["recall@5"] / base["recall@5"], 3)
            rows.append(row)
            print(json.dumps(row) if args.json else describe(row), flush=True)
    for row in stamp_costs(args.ratio * len(honest)):
        print("stamp: " + ", ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    cost = costs(honest, args.ratio * len(honest))
    print(
        json.dumps(cost) if args.json else "costs: " + ", ".join(f"{k} {v}" for k, v in cost.items()),
        flush=True,
    )


def describe(row: dict[str, Any]) -> str:
    mode = {"off": "without defences", "on": "with defences   ", "trust": "defences + trust"}[row["mode"]]
    return (
        f"{row['attack']:<9} {mode}  recall@5 {row['recall@5']:.3f} ({row['recall_ratio']:.2f} of baseline)  "
        f"teams with spam {100 * row['teams_with_spam']:5.1f} %  one spam identity at most in "
        f"{100 * row['max_share_one_spam_identity']:4.1f} % of teams  (led by spam "
        f"{100 * row['teams_led_by_spam']:4.1f} %, spam only {100 * row['teams_of_spam_only']:4.1f} %)  "
        "spam in top 5: "
        f"{100 * row['spam_top5_slots']:4.1f} % of slots  "
        f"(rank p50 {row['rank_ms_p50']} ms, index {row['index_s']} s)"
        + (f"  cards fetched per find {row['cards_fetched']}" if "cards_fetched" in row else "")
    )


if __name__ == "__main__":
    sys.exit(main())
