"""Card spam: does a stranger with many fresh identities take over ``find`` and team formation?

    .venv/bin/python bench/bench_spam.py [--ratio 10] [--passes 2] [--attacks stuffed,superset,clone]

Honest cards: the 160 agents of ``teaming-dev-hard.json`` (shared data; the benchmark says so and stops
when it is absent; ``--data teaming-dev.json``: the 12 agents and 48 goals of the easy set); queries and
gold teams: its 120 goals. For each attack, ``ratio`` spam identities per
honest card (1,600 by default) join the directory of one node, and every goal is run ``passes`` times in
order, through the node's own ranker (:class:`~ioa_p2p.dht.ranking.CardRanker` over the hybrid matcher) and
team choice (``choose_team``), in each of ``--modes``: ``off`` (no breadth discount, duplicates not merged,
no reputation), ``on`` (those defences), ``age`` (those and trust by age, ``ioa_p2p/teaming/trust.py``
with no cap on unproven members: the honest cards were held for longer than ``trust_age`` before the
attack, a fresh spam identity is young until a task done is on record) and ``trust`` (those and the cap
on *unproven* members, whatever their age: a team takes at most ``max_unproven`` members with no signed
task done unless nothing proven covers a need), ``lead`` (``trust`` and the lead under the caps: an
unproven best card leads only when no proven card comes within ``LEAD_MARGIN``), ``kin`` (``lead`` and
near-duplicate cards counted as one in ``find`` and teams, ``ioa_p2p/teaming/kin.py``) and ``exposure``
(``kin`` and exposure bounded per time, ``ioa_p2p/teaming/exposure.py``: an identity joins at most one
team per hour-long window until its first accepted task here is a window old, one more per window after
that; the benchmark's clock puts a goal every 10 s, so the attack's goals share one window, and with
``--warm`` the spam-free pass ended 1.5 windows before the attack; a spent identity joins only when
nothing else can) and ``hard`` (``exposure`` with ``strict``: a spent identity never joins as a
member) and ``total`` (``exposure`` and the total bound: all teams together give unproven identities
``--unproven-per-window`` member slots per window, then a team takes an unproven member only where no
proven one can join; ``[goals] unproven_per_window``, off by default, 1 here). The honest
newcomers' wait: from the first goal that needs an honest agent with no accepted work on record (in its
gold team) to its first team, on the benchmark's clock (``--goal-seconds`` between goals). A spam member
of a team does no work: with the defences
on, the node records it as a failed task (this is what its signed history would say) and its reputation
drops. With ``age`` or ``trust``, the spam-free baseline is run again in that mode, and with one honest
card in ``--newcomers`` young (the honest cost). ``--warm``: the node worked before the attack (a
spam-free pass over every other goal: that pass's signed outcomes are its evidence; then every goal is
measured with spam, recall also over the other half alone); without it the node starts with no
evidence at all.

Attacks (a spam card's text; every spam card has a new identity):

- ``stuffed``: 10 to 30 capability phrases taken from honest cards and a keyword list, and 32 skills
  (the card claims everything);
- ``superset``: an honest card's description plus two to four others' (it targets that card's queries);
- ``clone``: an honest card's description, verbatim (issued after the honest one);
- ``reworded``: like ``superset``, with one word in eight of every copied description left out, so no
  claim is copied verbatim (what copy detection cannot see; the breadth discount and reputation remain);
- ``drip``: the development *trickle* attacker: each identity one of the four texts above, at random,
  minted long before the goals (as old as the honest cards), one in five a sleeper that does its tasks
  (``spam_attacks.PATIENT``); with ``--arrival trickle`` its identities came over two weeks at the
  network's usual rate (no flood to see). ``--attacks dev`` is these five: the attacks defences may be
  tuned on; the held-out generator's (below) are scored once, at the end.

Figures per attack and mode: honest recall@5 (share of the gold agents in the top 5 of ``find``; the
baseline without spam first), the share of teams with a spam member, the largest share of teams one spam
identity joined (and the largest share of a spam identity that does no work: a *sleeper* that does its
tasks earns the evidence an honest agent earns, and the share of teams with a sleeper), and the top-5
slots spam took. Costs for an honest node: minting a card (stamp of the
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

``--evidence-pool on|off`` (with ``--pages``): the fetch's pool (the ``POOL * page_fetch`` best candidates
it chooses among) is cut after each peer's own evidence, its negative reputation and flood penalty
(``fetchchoice.pool_of``; on, the node's default since 2026-11-29), or by sketch score alone (before).
``--proven-fetch on|off`` (with ``--pages``): the fetch gives up to a quarter of its slots to proven peers
near its last slot (``dht/fetchevidence.py``; on, the node's default) or not (before it); with
``--fetch-only --warm`` the honest members of the gold teams of every other goal are proven and held.
``--arrival flood|trickle|restart|forget|none`` (with ``--pages``): when the node first saw each identity,
the evidence ``dht/arrival.py`` takes to the fetch (``spam_world.ARRIVAL``; ``restart``: the node restarted
after the flood, its record kept in a real SQLite file; ``forget``: restarted with no record kept);
``none``: before it.
``--need-finds on|off`` (with ``--pages``): a goal's page search also runs for each of its clauses (the
node's ``TeamFormation.find_all``: the goal and its clauses, 6 queries at most; on, since 2026-11-29) or
for the whole goal alone (off: the model before). ``--ceiling on|off`` (exposure modes): a spent identity
that joined its budget plus ``over_budget`` teams of the window is barred as a member
(``teaming/exposure.py`` ``ceiling_keys``; on, the node's default) or not (before).
``--data``: another shared data set of the same shape (``teaming-dev.json``).

``--sources 1,4,100`` (``spam_sources.py``): where the spam comes from. A flood of the attack's identities
from that many source networks (each connected to 3 honest first hops) crosses a 40-node gossip mesh with
every node's real rate limits for ``--flood-minutes``, under the rule before (per-source limits at
delivery, everything forwarded) and after (held back at the first hop over the source's share); the
figures at a node two hops from the attacker (spam identities it stores, honest newcomers it stores, mesh
messages), then each attack and mode is run with only the spam identities that node stores.

``--attacks`` also takes the held-out generator's attacks (``spam_attacks.py``: ``paraphrase``,
``mixture``, ``focused`` and ``heldout``, a mix of the three), written as a second attacker the
sketch-level defences were not tuned on, and ``patient`` (the held-out texts from identities as old as
the honest ones, one in five a sleeper that does its tasks), written before the trust defences.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from shared_data import data_file, require
from spam_costs import arrival_costs, costs, entry_costs, stamp_costs
from spam_modes import BAR_FLOODED, CEILING, EXPOSURE, GOAL_SECONDS, KIN, MATCHER, POLICIES, build, run
from spam_sources import describe as describe_sources
from spam_sources import propagate
from spam_world import (
    ARRIVAL,
    CENTRE,
    DUP,
    DUP_COSINE,
    DUP_FREE,
    EVIDENCE_POOL,
    NEED_FINDS,
    PROVEN_FETCH,
    Sketches,
    attacks_of,
    fetch_only,
    spam_for,
)

from ioa_p2p.teaming.exposure import ExposurePolicy

DATA = data_file("teaming-dev-hard.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratio", type=int, default=10, help="spam identities per honest card")
    parser.add_argument("--passes", type=int, default=2, help="times every goal is run")
    parser.add_argument("--attacks", default="stuffed,superset,clone,reworded")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--data", default=DATA.name,
        help="the shared data set (honest agents and goals with gold teams) in the shared data folder",
    )  # fmt: skip
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
        "--modes", default="off,on,age,trust",
        help="off: no defences; on: card and sketch defences, reputation; age: those and young cards "
        "penalised and capped (teaming/trust.py); trust: those and the cap on unproven members; strict: "
        "max_unproven = 0; lead: trust and the lead under the caps; kin: lead and near-duplicates "
        "counted as one (teaming/kin.py); exposure: kin and each identity's teams bounded per window "
        "(teaming/exposure.py); hard: exposure, strict; total: exposure and the total bound on unproven "
        "members per window",
    )  # fmt: skip
    parser.add_argument(
        "--warm", action="store_true",
        help="the node worked before the attack: a spam-free pass over every other goal (its evidence), "
        "then every goal measured with spam",
    )  # fmt: skip
    parser.add_argument(
        "--centre", default="all", choices=("all", "honest-first", "spam-first"),
        help="with --pages: the fetch's breadth centre: every sketch, or the node's breadth sample (the "
        "first 64 sketches of each level-4 page of table 0) with the honest or the spam cards first",
    )  # fmt: skip
    parser.add_argument(
        "--proven-fetch", default="on", choices=("on", "off"),
        help="with --pages: the fetch keeps slots for proven candidates (dht/fetchevidence.py); off: before",
    )  # fmt: skip
    parser.add_argument(
        "--arrival", default="flood", choices=("flood", "trickle", "restart", "forget", "none"),
        help="with --pages: when the node first saw each card (dht/arrival.py): the spam in one hour of a "
        "node up for two weeks, spread over them, that node restarted just before (its record kept), a "
        "node started just before (nothing kept), or no arrival evidence",
    )  # fmt: skip
    parser.add_argument(
        "--need-finds", default="on", choices=("on", "off"),
        help="with --pages: a goal's page search runs for the goal and each of its clauses, as the node's "
        "find_all (on), or for the whole goal alone (off: the model before 2026-11-29)",
    )  # fmt: skip
    parser.add_argument(
        "--evidence-pool", default="on", choices=("on", "off"),
        help="with --pages: the fetch's pool is cut after each peer's own evidence (reputation, flood "
        "penalty: fetchchoice.pool_of, the node since 2026-11-29) or by sketch score alone (off: before)",
    )  # fmt: skip
    parser.add_argument(
        "--bar-flooded", default="on", choices=("on", "off"),
        help="with --pages and an exposure mode: a spent identity still under a flood's penalty never "
        "joins as a member (TeamCaps.barred); off: it joins where nothing else can (before)",
    )  # fmt: skip
    parser.add_argument(
        "--ceiling", default="on", choices=("on", "off"),
        help="with an exposure mode: a spent identity that joined its budget plus over_budget (1) teams of "
        "the window never joins as a member (teaming/exposure.py ceiling_keys); off: before",
    )  # fmt: skip
    parser.add_argument(
        "--dup", type=float, default=0.0,
        help="with --pages: score units off unproven cards with many unproven near-duplicates "
        "(spam_world.DUP: evidence measured against the trickle attacker; 0: off, the node's default)",
    )  # fmt: skip
    parser.add_argument("--dup-free", type=int, default=4, help="with --dup: near-duplicates let off")
    parser.add_argument("--dup-cosine", type=float, default=0.5, help="with --dup: near means this cosine")
    parser.add_argument("--stamps", action="store_true", help="only the stamp's mint and verify costs")
    parser.add_argument(
        "--arrival-costs", action="store_true",
        help="only the kept arrival record's costs when full (open at start, saves, file size)",
    )  # fmt: skip
    parser.add_argument(
        "--newcomers", type=int, default=4,
        help="with trust: the spam-free baseline again with one honest card in N young (the honest cost)",
    )  # fmt: skip
    parser.add_argument(
        "--unproven-per-window", type=int, default=None,
        help="with total: member slots per window all teams give to unproven identities (default 1)",
    )  # fmt: skip
    parser.add_argument(
        "--goal-seconds", type=float, default=GOAL_SECONDS[0], help="the benchmark's clock between two goals"
    )
    parser.add_argument(
        "--sources", default="",
        help="comma-separated numbers of source networks the attacker's identities sit behind: the flood "
        "crosses a gossip mesh before (limits at delivery) and after (held back at the first hop), and the "
        "teams are run with what a node two hops away stores (spam_sources.py)",
    )  # fmt: skip
    parser.add_argument("--flood-minutes", type=int, default=10, help="with --sources: the flood's length")
    parser.add_argument("--sources-only", action="store_true", help="with --sources: the mesh figures only")
    parser.add_argument("--mesh-seed", type=int, default=25, help="with --sources: the mesh and the timing")
    args = parser.parse_args()
    GOAL_SECONDS[0] = args.goal_seconds
    if args.unproven_per_window is not None:
        EXPOSURE["total"] = ExposurePolicy(unproven_per_window=args.unproven_per_window)
    MATCHER[0] = args.matcher
    CENTRE[0] = args.centre
    PROVEN_FETCH[0] = args.proven_fetch == "on"
    EVIDENCE_POOL[0] = args.evidence_pool == "on"
    NEED_FINDS[0] = args.need_finds == "on"
    ARRIVAL[0] = args.arrival
    DUP[0], DUP_FREE[0], DUP_COSINE[0] = args.dup, args.dup_free, args.dup_cosine
    BAR_FLOODED[0] = args.bar_flooded == "on"
    CEILING[0] = args.ceiling == "on"
    data = json.loads(require(data_file(args.data)).read_text(encoding="utf-8"))
    honest = [(a["name"], a["description"]) for a in data["agents"]]
    goals = [g for g in data["goals"] if g.get("team")]
    rows: list[dict[str, Any]] = []
    if args.arrival_costs:
        row = arrival_costs()
        print(
            json.dumps(row)
            if args.json
            else "arrival record: " + ", ".join(f"{k} {v}" for k, v in row.items())
        )
        return None
    if args.stamps:
        for row in stamp_costs(args.ratio * len(honest)):
            print(json.dumps(row) if args.json else "stamp: " + ", ".join(f"{k} {v}" for k, v in row.items()))
        entry = entry_costs()
        text = "page entry: " + ", ".join(f"{k} {v}" for k, v in entry.items())
        print(json.dumps(entry) if args.json else text)
        return None
    if args.pages and args.fetch_only:
        return fetch_only(
            honest, goals, args.ratio, attacks_of(args.attacks), args.json, args.passes, args.warm
        )
    placements = sources_placements(args, args.ratio * len(honest))
    if args.sources_only:
        return None
    modes = args.modes.split(",")
    print(
        f"# {len(honest)} honest cards, {len(goals)} goals x {args.passes} passes, spam ratio {args.ratio}:1",
        flush=True,
    )
    sketches = Sketches() if args.pages else None
    base = run(build(honest, [], True, sketches), goals, 1, "off", sketches)
    print(
        f"baseline (no spam): recall@5 {base['recall@5']:.3f}, gold in team {base['team_recall']:.3f} "
        f"(rank p50 {base['rank_ms_p50']} ms)",
        flush=True,
    )
    new_base = 0.0
    if args.warm:  # the other half's goals alone
        new_base = run(build(honest, [], True, sketches), goals[1::2], 1, "off", sketches)["recall@5"]
        print(f"baseline (no spam) over the goals the node had not met: recall@5 {new_base:.3f}", flush=True)
    for mode in (m for m in modes if m in POLICIES):  # the honest cost of trust, without spam
        for newcomers in (0, args.newcomers) if args.newcomers else (0,):
            sketches = Sketches() if args.pages else None
            world = build(honest, [], True, sketches, newcomers=newcomers, kin=mode in KIN)
            fresh = run(world, goals, 1, mode, sketches, warm=args.warm)
            print(
                f"baseline (no spam) with {mode}, one honest card in {newcomers or 'none'} a newcomer: "
                f"recall@5 {fresh['recall@5']:.3f} ({fresh['recall@5'] / base['recall@5']:.3f} of baseline; "
                f"gold in team {fresh['team_recall']:.3f}; rank p50 {fresh['rank_ms_p50']} ms"
                + (f"; new goals {fresh['recall@5_new_goals']:.3f}" if "recall@5_new_goals" in fresh else "")
                + ")"
                + newcomer_text(fresh),
                flush=True,
            )
    rng = random.Random(25)
    for attack in attacks_of(args.attacks):
        spam_all = spam_for(attack, honest, args.ratio * len(honest), rng)
        for placement, mode in ((p, m) for p in placements for m in modes):
            spam = spam_all if placement is None else spam_all[: placement["spam_at_far"]]
            started = time.perf_counter()
            sketches = Sketches() if args.pages else None
            world = build(honest, spam, mode != "off", sketches, attack=attack, kin=mode in KIN)
            world.ranker.refresh()
            index_s = time.perf_counter() - started
            row = {"attack": attack, "mode": mode, "pages": args.pages, "index_s": round(index_s, 1)}
            if placement is not None:
                row["placement"] = {k: placement[k] for k in ("rule", "sources", "spam_at_far")}
            row["warm"] = args.warm
            row.update(run(world, goals, args.passes, mode, sketches, warm=args.warm))
            row["recall_ratio"] = round(row["recall@5"] / base["recall@5"], 3)
            if new_base:
                row["new_goals_ratio"] = round(row["recall@5_new_goals"] / new_base, 3)
            rows.append(row)
            print(json.dumps(row) if args.json else describe(row), flush=True)
    for row in stamp_costs(args.ratio * len(honest)):
        print("stamp: " + ", ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    cost = costs(honest, args.ratio * len(honest))
    print(
        json.dumps(cost) if args.json else "costs: " + ", ".join(f"{k} {v}" for k, v in cost.items()),
        flush=True,
    )


def sources_placements(args: argparse.Namespace, identities: int) -> list[dict[str, Any] | None]:
    """The flood's figures for each ``--sources`` count, before and after (printed), or ``[None]``."""
    if not args.sources:
        return [None]
    out: list[dict[str, Any] | None] = []
    for sources in (int(x) for x in args.sources.split(",")):
        for first_hop in (False, True):
            flood = propagate(
                sources=sources,
                identities=identities,
                minutes=args.flood_minutes,
                first_hop=first_hop,
                nodes=40,
                seed=args.mesh_seed,
            )
            row = describe_sources(sources, first_hop, flood, identities)
            print(json.dumps(row) if args.json else "flood: " + ", ".join(f"{k} {v}" for k, v in row.items()))
            last = out[-1] if out and first_hop else None
            if last is not None and abs(last["spam_at_far"] - row["spam_at_far"]) <= SAME_SPAM:
                last["rule"] = "before and after (the same spam held)"  # the teams would be the same: once
                continue
            out.append(row)
    return out


#: Placements whose far node holds within this many spam identities of each other are run once.
SAME_SPAM = 5


def describe(row: dict[str, Any]) -> str:
    mode = {
        "off": "without defences", "on": "with defences   ",
        "age": "defences + age  ", "trust": "defences + trust", "strict": "trust, strict   ",
        "lead": "trust + lead    ", "kin": "trust+lead+kin  ", "exposure": "kin + exposure  ",
        "hard": "kin + exp. strict", "total": "kin + exp. + total",
    }[row["mode"]]  # fmt: skip
    where = row.get("placement")
    prefix = (
        f"[{where['sources']} sources, {where['rule']}, {where['spam_at_far']} spam held] " if where else ""
    )
    return prefix + (
        f"{row['attack']:<9} {mode}  recall@5 {row['recall@5']:.3f} ({row['recall_ratio']:.2f} of baseline)  "
        f"gold in team {row['team_recall']:.3f}  "
        f"teams with spam {100 * row['teams_with_spam']:5.1f} %  one spam identity at most in "
        f"{100 * row['max_share_one_spam_identity']:4.1f} % of teams (non-sleeper "
        f"{100 * row['max_share_one_non_sleeper']:4.1f} %, teams with a sleeper "
        f"{100 * row['teams_with_sleeper']:4.1f} %)  (led by spam "
        f"{100 * row['teams_led_by_spam']:4.1f} %, spam only {100 * row['teams_of_spam_only']:4.1f} %)  "
        "spam in top 5: "
        f"{100 * row['spam_top5_slots']:4.1f} % of slots  "
        f"(rank p50 {row['rank_ms_p50']} ms, team CPU p50 {row['team_cpu_ms_p50']} ms, "
        f"index {row['index_s']} s)"
        + (
            f"  cards fetched per find {row['cards_fetched']} (gold among them {row['gold_fetched']:.3f})"
            if "cards_fetched" in row
            else ""
        )
        + (f"  top spam identity {row['top_spam_identity']}" if "top_spam_identity" in row else "")
        + (
            f"  new goals: recall@5 {row['recall@5_new_goals']:.3f} ({row['new_goals_ratio']:.2f})"
            if "new_goals_ratio" in row
            else ""
        )
        + newcomer_text(row)
    )


def newcomer_text(row: dict[str, Any]) -> str:
    """How long honest newcomers waited for their first team (the benchmark's clock)."""
    if "newcomers_needed" not in row:
        return ""
    return (
        f"  honest newcomers: {row['newcomers_needed']} needed, "
        f"{100 * row['newcomers_joined']:.0f} % joined, "
        f"wait p50 {row['newcomer_wait_s_p50']} s p90 {row['newcomer_wait_s_p90']} s max "
        f"{row['newcomer_wait_s_max']} s"
    )


if __name__ == "__main__":
    sys.exit(main())
