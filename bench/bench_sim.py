"""Discovery at scale, simulated: the node's own DHT rules at 100 to 10,000 nodes in one process.

    nice -n 10 .venv/bin/python bench/bench_sim.py [--nodes 100,1000,10000] [--churn 0,0.1,0.3]
        [--lookups 200] [--queries 60] [--spam 0.1] [--revalidate 720] [--split any] [--seed 1]
        [--search pages,providers] [--skip spread,revocation] [--warm-publish]
        [--parts lookups,publish,find,spread,gossip,revocation] [--loss 0.01] [--json rows.jsonl]
        [--request-rtts 1] [--dial-rtts 2] [--connected-tables] [--hedge reach|adaptive|by-connection|fixed]
        [--reach-own 8] [--no-stale-contacts]
        [--settle 120] [--traffic-window 60] [--revocation-horizon 900]

The simulator (:mod:`ioa_p2p.dht.sim`) drives the project's routing-table model, batched lookup state
machine, LSH forest and probing, card validation (signatures, stamps, rate limits) and publish/refresh
pacing over links of 50 ms one way (+ up to 10 ms jitter). A request costs 1 round trip, as the node sends
each stream's negotiation with its request (``--request-rtts 3``: py-libp2p's own negotiation), and a new
connection 2 more, as the node dials for a request (TCP, Noise's first exchange; the request rides with
Noise's last message: ``--dial-rtts 3`` waits for the muxer's answer as the node did before, ``5`` is
py-libp2p's own). Per network size N and churn
level (the share of nodes offline at any moment, sessions of 30 min on average), after the network
formed (every node joins, 50 per second, then 120 s; from ``--warm-from`` nodes (5,000) the network
starts formed instead, :meth:`World.warm_start`, and runs ``--settle`` s, 120 by default):

- **traffic**: messages sent per online node per minute over 60 s of steady state (requests + replies);
- **lookups**: ``--lookups`` FIND_NODE lookups of random keys from random nodes: success (the closest
  online node to the key is among the 20 returned), overlap with the 20 closest online nodes, latency
  p50/p95, hops (mean; log2 N beside it), messages per lookup;
- **publish**: every online node issues a signed card (8-bit stamps) at a random moment of 60 s and puts
  and provides it as the node does (record put, sketch pages, provider records, each storing early at
  the candidates surely among a key's closest: ``--early-rank``): p50/p95 of the time until every key
  of the three had its quorum of acknowledgements (``placed``: the card findable at its closest peers)
  and until every round was over (``publish``: quorum and grace, or every target heard from). From
  ``--preload-from`` nodes (5,000) only ``--publishers`` (300) do, after the cards of all others were
  placed as a publishing round that reached every target leaves them (record, provider records and
  complete bucket pages at each key's closest nodes: :func:`~ioa_p2p.dht.sim.preload.preload_cards`);
- **find**: ``--queries`` DHT-only capability searches from random nodes (no directory: what a node of a
  large network relies on): recall@5 against the exact top 5 over every card (same cosine ranking), and,
  when the shared data set is there, recall@5 of the gold team for the DHT search and for the exact one;
- **spread** (churn 0 only): 5 nodes publish a new card; t s later 10 random nodes search for it by its
  own description: the share that found it;
- **revocation**: 5 owners withdraw their cards and go offline at once (the worst case: only the DHT
  has the withdrawal); 40 holders of each old card revalidate at a random moment of ``--revalidate``
  seconds (the node's default 720): the time until 95 % of holders saw the withdrawal (``revoke_95_s``),
  until 95 % of the holders online at some moment of the horizon did (``revoke_95_reachable_s``: one
  offline throughout learns nothing and answers no one), and per minute the share of online nodes
  holding an old card and the share whose reads would return one (``returning_max``: the most of any
  minute); a node back from a gap holds its cards as suspects until confirmed (``--no-rejoin``: the rule
  before 2026-11-28);
- **spam** (``--spam s``): a share s of the nodes are fresh identities whose cards stuff 10 to 30 honest
  capability sentences together (what claims everything); their cards are published like any other and
  searches report the honest recall and the share of top-5 slots spam took. Ranking here is plain cosine:
  the node's ranker adds the breadth discount and reputation on top (``bench/bench_spam.py``).

Agents: the 160 agents of ``teaming-dev-hard.json`` (shared data) grown to N by recombining their
sentences (:func:`~ioa_p2p.dht.sim.corpus.recombined`), queries its goals with gold teams; when the file is
absent the benchmark says so and uses generated agents and queries (no gold recall). Embeddings: wordllama
(the node's card vectors). Virtual time only; the wall time and peak memory of each run are printed.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from dataclasses import replace
from typing import Any

import numpy as np
from shared_data import data_file
from sim_parts import find_part, gossip_part, publish_part, revocation_part
from sim_report import peak_mb, print_table, report, settle_gc, write_row

from ioa_p2p.dht import rtt
from ioa_p2p.dht.early import SURE_RANK
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.cardflow import card_spread
from ioa_p2p.dht.sim.cards import CardSet
from ioa_p2p.dht.sim.corpus import AgentText, generated_agents, generated_queries, recombined
from ioa_p2p.dht.sim.links import LinkModel
from ioa_p2p.dht.sim.measure import LookupSummary, Traffic, run_for, run_lookups
from ioa_p2p.dht.sim.preload import preload_cards
from ioa_p2p.dht.sim.world import SimConfig, World
from ioa_p2p.embedding import WordLlamaEmbedder, normalise

DATA = data_file("teaming-dev-hard.json")
SPREAD_AT = (0.5, 1.0, 2.0, 5.0)


def load_corpus(
    n: int, queries: int, rng: random.Random
) -> tuple[list[AgentText], list[tuple[str, list[int]]], str]:
    """Agents (N of them) and (query, gold team indices) pairs; the source's description."""
    if not DATA.exists():
        agents = generated_agents(n)
        return agents, [(q, []) for q in generated_queries(queries)], f"generated ({DATA} absent)"
    data = json.loads(DATA.read_text())
    base = [AgentText(a["name"], a["description"], tuple(a.get("skills", ()))) for a in data["agents"]]
    agents = recombined(base, n)
    index = {a.name: i for i, a in enumerate(agents[: len(base)])}
    goals = [
        (g["goal"], [index[m] for m in g["team"]])
        for g in data["goals"]
        if g.get("team") and all(m in index for m in g["team"])
    ]
    rng.shuffle(goals)
    return agents, goals[:queries], f"{DATA.name} ({len(base)} agents grown to {n}, {len(goals)} goals)"


def stuffed(agents: list[AgentText], rng: random.Random, count: int) -> list[AgentText]:
    """Spam agents: each joins 10 to 30 honest capability sentences (claims everything)."""
    out = []
    for i in range(count):
        picks = rng.sample(agents, min(len(agents), rng.randint(10, 30)))
        text = " ".join(a.description.split(". ")[0].rstrip(".") + "." for a in picks)
        out.append(AgentText(f"spam-{i}", text, tuple(s for a in picks for s in a.skills)[:32]))
    return out


def form(n: int, churn: float, cards: CardSet | None, args: argparse.Namespace) -> World:
    config = SimConfig(
        nodes=n,
        seed=args.seed,
        churn=churn,
        split=args.split,
        min_stamp_bits=8,
        refresh_lookups=args.refresh_lookups or None,
        hedge=args.hedge,
        self_lookup=args.self_lookup,
        early_rank=args.early_rank,
        stale_contacts=args.stale_contacts,
        links=LinkModel(loss=args.loss, request_rtts=args.request_rtts, dial_rtts=args.dial_rtts),
    )
    world = World(config, cards)
    settle_gc()
    if n >= args.warm_from:
        world.warm_start(connected_tables=args.connected_tables)
        world.loop.run(until=args.settle)
    else:
        world.join_all()
        world.loop.run(until=n * config.join_spacing + 120)
    world.start_churn()
    settle_gc()
    return world


def run_one(
    n: int, churn: float, cards: CardSet | None, queries: Any, spam: set[int], args: argparse.Namespace
) -> dict[str, Any]:
    started = time.perf_counter()
    cpu = time.process_time()
    parts = set(args.parts.split(",")) - set(args.skip.split(","))
    rng = random.Random(args.seed * 1000 + n + int(churn * 100))
    world = form(n, churn, cards, args)
    traffic = Traffic(world)
    run_for(world, args.traffic_window, traffic)
    row: dict[str, Any] = {"N": n, "churn": churn, "loss": args.loss}
    row.update(request_rtts=args.request_rtts, dial_rtts=args.dial_rtts, connected=args.connected_tables)
    row["hedge"] = args.hedge
    row["reach_own"] = args.reach_own
    row["self_lookup"] = args.self_lookup
    row["early_rank"] = args.early_rank
    row["stale_contacts"] = args.stale_contacts
    row["formed_s"] = round(time.perf_counter() - started, 1)
    row["msgs/node/min"] = round(traffic.per_node_minute()["total"], 1)
    row["table"] = round(statistics.mean(world.table_sizes()), 1)
    row["conns_dropped"] = world.net.dropped  # closed past LinkModel.max_connections
    report("traffic", row)

    if "lookups" in parts:
        lookups = LookupSummary.of(run_lookups(world, args.lookups, rng))
        row.update(
            lookups=lookups.count,
            success=round(lookups.success, 3),
            overlap=round(lookups.overlap, 3),
            lookup_p50=round(lookups.p50, 3),
            lookup_p95=round(lookups.p95, 3),
            hops=round(lookups.hops_mean, 2),
            hops_p95=lookups.hops_p95,
            log2N=round(math.log2(n), 1),
            msgs_lookup=round(lookups.messages_mean, 1),
            stale_evicted=world.counters["stale evicted"],
        )
        report("lookups", row)

    if cards is None:  # lookups only: made-up identities, no cards (main)
        return finish(world, row, started, cpu)
    forest = forest_for(cards.model_id, cards.dim)
    settings = replace(DiscoverySettings(), min_stamp_bits=8, revalidate=args.revalidate)
    honest = [node for node in world.nodes if node.index not in spam]
    if parts & {"publish", "find", "spread", "revocation"}:
        publishers = world.nodes
        if n >= args.preload_from:
            publishers = rng.sample(world.nodes, min(n, args.publishers))
            row["preloaded"] = n - len(publishers)
            chosen = {x.index for x in publishers}
            preload_cards(world, forest, [x for x in world.nodes if x.index not in chosen], rng)
        publish_part(world, forest, publishers, rng, row, args.warm_publish)
    if "find" in parts:
        find_part(world, forest, settings, queries, spam, rng, row, args.search)
    if "spread" in parts:
        online = [node for node in honest if node.online]
        spread = card_spread(world, forest, settings, rng.sample(online, 10), SPREAD_AT, 10, rng)
        row.update({f"spread@{t:g}s": round(v, 2) for t, v in spread.items()})
        report("spread", row)
    if "gossip" in parts:
        gossip_part(world, args, rng, row)
    if "revocation" in parts:
        revocation_part(world, settings, honest, rng, row, args)
    return finish(world, row, started, cpu)


def finish(world: World, row: dict[str, Any], started: float, cpu: float) -> dict[str, Any]:
    row.update(
        wall_s=round(time.perf_counter() - started, 1),
        cpu_s=round(time.process_time() - cpu, 1),
        virtual_s=round(world.loop.now, 1),
        events=world.loop.events,
        verified=world.records.verified,
        peak_mb=peak_mb(),
    )
    report("done", row)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", default="100,1000,10000")
    parser.add_argument("--churn", default="0,0.1,0.3")
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--spam", type=float, default=0.0, help="share of nodes that are spam identities")
    parser.add_argument("--revalidate", type=float, default=720.0)
    parser.add_argument("--split", choices=("any", "own"), default="any")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--warm-from", type=int, default=5000, help="networks this large start formed (World.warm_start)"
    )
    parser.add_argument(
        "--search",
        default="pages,providers",
        help="searches to measure, from the same published network: pages (sketch pages, the default of "
        "[discovery] pages) and/or providers (provider records, pages = false)",
    )
    parser.add_argument(
        "--warm-publish",
        action="store_true",
        help="place every card, page and provider record at its closest nodes at once (no publish figures)",
    )
    parser.add_argument("--skip", default="", help="parts to skip (comma-separated)")
    parser.add_argument("--parts", default="lookups,publish,find,spread,gossip,revocation")
    parser.add_argument("--loss", type=float, default=0.0, help="share of link crossings retransmitted")
    parser.add_argument(
        "--request-rtts",
        type=int,
        default=LinkModel().request_rtts,
        help="round trips per request on an open connection (1: the node's lazy negotiation; 3: py-libp2p's)",
    )
    parser.add_argument(
        "--dial-rtts", type=int, default=LinkModel().dial_rtts, help="round trips to open a new connection"
    )
    parser.add_argument(
        "--connected-tables",
        action="store_true",
        help="a warm start also connects every node to its table's peers (World.warm_start)",
    )
    parser.add_argument(
        "--hedge",
        choices=("reach", "adaptive", "by-connection", "fixed"),
        default="reach",
        help="lookups hedge as the node does (reach: a dialled request once its handshake is late, peers "
        "recently not reached not waited for), after srtt + 4 rttvar of all the node's answers (adaptive: "
        "the node before 2026-11-28), of those over "
        "open connections and over new ones apart (by-connection) or after a fixed 0.4 s",
    )
    parser.add_argument(
        "--reach-own", type=int, default=rtt.REACH_OWN,
        help="with --hedge reach: handshakes a node must have timed before its reach wait is its own "
        "alone; with fewer it is at most 2 open-connection round trips (dht/rtt.py; 0: its handshakes "
        "alone, the node before 2026-11-29)",
    )  # fmt: skip
    parser.add_argument(
        "--self-lookup",
        choices=("node", "py-libp2p"),
        default="node",
        help="peer discovery's lookup of a node's own key: the node's (keeps the 60 closest and the peers "
        "that answered) or py-libp2p's (every peer named; the figures measured before 2026-11-27 18:00 UTC)",
    )
    parser.add_argument(
        "--early-rank",
        type=float,
        default=SURE_RANK,
        help="a put, page put or provide round stores during its lookup at candidates nearer than this "
        "many N-ths of the keyspace (dht/early.py; 0: only once the lookup is done, the node before "
        "2026-11-28)",
    )
    parser.add_argument(
        "--no-stale-contacts",
        dest="stale_contacts",
        action="store_false",
        help="nodes do not tell a connection the remote ended from their own, so gone peers stay in "
        "routing tables and answers (dht/contacts.py; the node before 2026-11-29)",
    )
    parser.add_argument(
        "--settle", type=float, default=120.0, help="seconds a warm-started network runs before measuring"
    )
    parser.add_argument(
        "--traffic-window", type=float, default=60.0, help="seconds of steady state counted for traffic"
    )
    parser.add_argument("--gossip-sample", type=int, default=20, help="announcements followed")
    parser.add_argument(
        "--relay-all",
        type=int,
        default=DiscoverySettings().relay_all,
        help="[discovery] relay_all on every node: past this many nodes gossip carries only new and changed "
        "cards and withdrawals (dht/relaycap.py; the node's default follows keep_all, 20,000)",
    )
    parser.add_argument(
        "--changed",
        type=float,
        default=0.0,
        help="gossip, past relay_all: share of card versions whose content changed (announced, flooded)",
    )
    parser.add_argument("--rate-window", type=float, default=600.0, help="seconds of announce pacing")
    parser.add_argument("--no-repair", dest="repair", action="store_false", help="no DHT read repair")
    parser.add_argument(
        "--no-rejoin",
        dest="rejoin",
        action="store_false",
        help="revocation: a node back from a gap keeps returning the cards it held until their age says "
        "revalidate (the node before 2026-11-28), instead of holding them as suspects until confirmed",
    )
    parser.add_argument(
        "--revocation-horizon",
        type=float,
        default=900.0,
        help="seconds the revocation part follows the old cards (15 min: the issue's bound; shorter runs "
        "cannot show the offline holders that come back)",
    )
    parser.add_argument(
        "--preload-from",
        type=int,
        default=5000,
        help="preload all but --publishers cards from N",
    )
    parser.add_argument(
        "--publishers", type=int, default=300, help="cards published for real when preloading"
    )
    parser.add_argument("--json", default="", help="append each row as a JSON line to this file")
    parser.add_argument(
        "--refresh-lookups", type=int, default=0, help="bucket-refresh lookups per full refresh (0: all)"
    )
    args = parser.parse_args()
    rtt.REACH_OWN = args.reach_own
    sizes = [int(x) for x in args.nodes.split(",")]
    churns = [float(x) for x in args.churn.split(",")]
    rows: list[dict[str, Any]] = []
    if not set(args.parts.split(",")) - set(args.skip.split(",")) - {"lookups"}:
        for n in sizes:  # no cards needed: made-up identities, as bench_sim_hedge.py
            print(f"N={n}: lookups only (no cards)", flush=True)
            for churn in churns:
                rows.append(run_one(n, churn, None, [], set(), args))
                write_row(args, rows[-1])
        print_table(rows)
        return
    embedder = WordLlamaEmbedder()
    for n in sizes:
        rng = random.Random(args.seed + n)
        spam_count = int(round(args.spam * n))
        agents, goals, source = load_corpus(n - spam_count, args.queries, rng)
        spam = set(range(n - spam_count, n))
        agents = agents + stuffed(agents, rng, spam_count)
        print(f"N={n}: agents from {source}; {len(goals)} queries; {spam_count} spam identities", flush=True)
        began = time.perf_counter()
        cards = CardSet.build(agents, embedder, seed=args.seed, stamp_bits=8)
        vectors = normalise(embedder.embed([q for q, _ in goals]))
        queries = [(np.asarray(vectors[i], dtype=np.float32), gold) for i, (_, gold) in enumerate(goals)]
        print(f"  cards and vectors in {time.perf_counter() - began:.1f} s", flush=True)
        for churn in churns:
            rows.append(run_one(n, churn, cards, queries, spam, args))
            write_row(args, rows[-1])
    print_table(rows)


if __name__ == "__main__":
    main()
