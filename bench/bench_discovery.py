"""Discovery quality per data file with the node's default settings: ranking and team formation.

    .venv/bin/python bench/bench_discovery.py [FILE.json ...] [--matcher hybrid|lite] [--llm] [--limit N]
    .venv/bin/python bench/bench_discovery.py --find-cards 10000     # local find latency at 10k cards
    .venv/bin/python bench/bench_discovery.py --first-find 10        # a node's first find after start

Without files: ``teaming-dev-hard.json`` and ``teaming-dev.json`` from the shared data folder
(``$IOA_SHARED`` or ``../shared``; see ``bench/shared_data.py``). Each agent of a file becomes a signed
card exactly as a node issues it (its profile embedded by the node's default matcher, published under the
matcher's model id), offered to a :class:`~ioa_p2p.dht.directory.Directory` with the node's
:class:`~ioa_p2p.dht.ranking.CardRanker`; each goal is then

- a ``find``: :meth:`Directory.rank`, what ``ioa find`` answers locally. Top@1, Top@5, Top@10 and MRR of
  the best-ranked gold agent;
- a team formation: the node's offline choice (:func:`~ioa_p2p.dht.ranking.CardRanker.choose_team`, the
  same call the goals service makes). hit = first member gold, recall = share of the gold team chosen,
  precision = share of the chosen that are gold, mean team size;
- with ``--llm``: the IoA team-up over the offline shortlist by the model named by the usual variables
  (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``; see docs/matching.md). Costs one or more
  model calls per goal; ``--limit`` caps the goals.

``--first-find N``: a testnet of N sample agent processes and a launcher node (``open_testnet``, real
processes on 127.0.0.1); once the launcher holds every card and ``--settle`` seconds passed, its first
``POST /find`` ranking the cards it holds (``dht: false``; the time the node reports, ``took_ms``), its
second, and one with the DHT lookup, with the
launcher's ``[discovery] warm = false`` (the models load inside the first find) and ``true`` (the default:
loaded in the background after start, arriving cards embedded there). The agents' own matchers stay cold
(``warm = false``): on one machine their model loads would land on the launcher's cores. Needs no data file.

Exits 0 with a message when a data file is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import trio
from shared_data import data_file

from ioa_p2p.card import issue_card
from ioa_p2p.control_client import ControlClient
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.ranking import CardRanker, card_profile
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.identity import Identity
from ioa_p2p.llm.openai_compat import model_from_settings
from ioa_p2p.matching import make_matcher
from ioa_p2p.node.goals.types import GoalsConfig
from ioa_p2p.teaming.candidates import Candidate
from ioa_p2p.teaming.llm_team import llm_team_from_shortlist

FILES = ("teaming-dev-hard.json", "teaming-dev.json")
NOW = 1_700_000_000_000
Goals = list[dict[str, Any]]


def build(data: dict[str, Any], matcher_kind: str) -> tuple[Directory, dict[str, str]]:
    """Every agent as a signed card issued and stored as a node does it; peer id -> agent name."""
    matcher = make_matcher({"matcher": matcher_kind})
    directory = Directory(matcher.model_id, matcher.dim, ranker=CardRanker(matcher))
    names = {}
    for i, agent in enumerate(data["agents"], start=1):
        identity = Identity(i.to_bytes(32, "big"))
        fields = {"name": agent["name"], "description": agent.get("description", "")}
        draft = issue_card(identity, model="draft", vector=[1.0], version=1, now_ms=NOW, **fields)
        vector = matcher.card_vectors([card_profile(draft.card)])[0]
        card = issue_card(identity, model=matcher.model_id, vector=vector, version=1, now_ms=NOW, **fields)
        directory.offer(card, NOW, "bench")
        names[str(identity.peer_id)] = agent["name"]
    return directory, names


def ranking(directory: Directory, names: dict[str, str], goals: Goals) -> dict[str, float]:
    ranks = []
    for goal in goals:
        ranked = [names[str(m.card.peer_id)] for m in directory.rank(goal["goal"], len(names), NOW)]
        ranks.append(min((ranked.index(g) + 1 for g in goal["team"] if g in ranked), default=len(names) + 1))
    r = np.array(ranks)
    return {"top1": float(np.mean(r == 1)), "top5": float(np.mean(r <= 5)),
            "top10": float(np.mean(r <= 10)), "mrr": float(np.mean(1.0 / r))}  # fmt: skip


def team_metrics(chosen_teams: list[list[str]], goals: Goals) -> dict[str, float]:
    hit, recall, precision, size = [], [], [], []
    for chosen, goal in zip(chosen_teams, goals, strict=True):
        gold = set(goal["team"])
        right = len(gold & set(chosen))
        hit.append(bool(chosen) and chosen[0] in gold)
        recall.append(right / len(gold))
        precision.append(right / len(chosen) if chosen else 0.0)
        size.append(len(chosen))
    return {"hit": float(np.mean(hit)), "recall": float(np.mean(recall)),
            "precision": float(np.mean(precision)), "size": float(np.mean(size))}  # fmt: skip


def offline_teams(
    directory: Directory, names: dict[str, str], goals: list[dict[str, Any]]
) -> list[list[str]]:
    ranker = directory.ranker
    assert ranker is not None
    cfg = GoalsConfig()
    picks = [ranker.shortlist(g["goal"], size=cfg.shortlist, max_team=cfg.max_team)[0] for g in goals]
    return [[names[k] for k in pick.keys] for pick in picks]


def llm_teams(directory: Directory, names: dict[str, str], goals: Goals) -> list[list[str]]:
    """The node's LLM path: the model picks from the offline shortlist (docs/matching.md)."""
    model = model_from_settings({})
    if model is None:
        raise SystemExit(
            "--llm needs OPENAI_BASE_URL and/or OPENAI_API_KEY (and OPENAI_MODEL) in the environment"
        )
    ranker = directory.ranker
    assert ranker is not None
    cfg = GoalsConfig()
    cards = {str(e.card.peer_id): e.card.card for e in directory}

    def candidates(keys: list[str] | tuple[str, ...]) -> list[Candidate]:
        return [Candidate(k, cards[k].name, cards[k].description) for k in keys]

    async def run() -> list[list[str]]:
        out = []
        for goal in goals:
            pick, keys = ranker.shortlist(goal["goal"], size=cfg.shortlist, max_team=cfg.max_team)

            async def search(query: str, keys: tuple[str, ...] = keys) -> list[Candidate]:
                return candidates([m.key for m in ranker.rank(query, len(keys), among=keys)])

            try:
                with trio.fail_after(120):
                    chosen = await llm_team_from_shortlist(
                        model, goal["goal"], candidates(keys), search, max_team=cfg.max_team
                    )
                out.append([c.name for c in chosen])
            except Exception as exc:  # a failed call keeps the offline team, as the node does
                print(f"  model failed on a goal ({type(exc).__name__}); offline team kept", file=sys.stderr)
                out.append([names[k] for k in pick.keys])
        return out

    return trio.run(run)


def local_find(data: dict[str, Any], count: int, matcher_kind: str) -> None:
    """``find`` without the DHT over ``count`` cards: :meth:`Directory.rank` as the node runs it.

    Cards recombine the file's sentences and publish vectors in the matcher's scheme (mixtures of two
    agents' vectors), as peers of the same release do, so indexing embeds nothing (cards of another model
    would be re-embedded once, when they arrive). Warm: the shortlisted cards' token states are cached
    (a node's steady state); the query's own embedding is timed apart."""
    rng = np.random.default_rng(7)
    agents = data["agents"]
    sentences = [s.strip() for a in agents for s in a["description"].split(". ") if s.strip()]
    matcher = make_matcher({"matcher": matcher_kind})
    base = matcher.card_vectors([card_profile(build_draft(a).card) for a in agents])
    directory = Directory(matcher.model_id, matcher.dim, ranker=CardRanker(matcher))
    for i in range(count):
        a, b = rng.integers(len(agents), size=2)
        text = f"{sentences[rng.integers(len(sentences))]}. {sentences[rng.integers(len(sentences))]}."
        mix = base[a] + base[b]
        identity = Identity((10_000 + i).to_bytes(32, "big"))
        card = issue_card(identity, name=f"{agents[a]['name']}-{i}", description=text, model=matcher.model_id,
                          vector=mix / np.linalg.norm(mix), version=1, now_ms=NOW)  # fmt: skip
        directory.offer(card, NOW, "bench")
    started = time.perf_counter()
    assert directory.ranker is not None
    directory.ranker.refresh()
    print(f"local find over {count} cards ({matcher_kind}): indexing {time.perf_counter() - started:.1f} s")
    goals = [g["goal"] for g in data["goals"]][:40]
    for goal in goals:  # warm: query codes and the shortlisted cards' token states cached
        directory.rank(goal, 5, NOW)
    times = []
    for goal in goals:
        started = time.perf_counter()
        directory.rank(goal, 5, NOW)
        times.append(1000 * (time.perf_counter() - started))
    cold = []  # queries this node has not seen: the query is embedded inside the find
    for goal in [g["goal"] for g in data["goals"]][40:80]:
        started = time.perf_counter()
        directory.rank(goal, 5, NOW)
        cold.append(1000 * (time.perf_counter() - started))
    fresh = make_matcher({"matcher": matcher_kind})
    embed = []
    for goal in goals[:20]:
        started = time.perf_counter()
        fresh.embed([goal])
        embed.append(1000 * (time.perf_counter() - started))
    print(f"  rank p50 {np.percentile(times, 50):.1f} ms, p95 {np.percentile(times, 95):.1f} ms; "
          f"query embedding p50 {np.percentile(embed, 50):.1f} ms (once per new query)")  # fmt: skip
    print(f"  find with a query not seen before (embedding included): p50 {np.percentile(cold, 50):.1f} ms, "
          f"p95 {np.percentile(cold, 95):.1f} ms")  # fmt: skip


FIRST_QUERY = "Convert a recipe's quantities from imperial to metric and scale it for 12 people"


def first_find(count: int, settle: float) -> None:
    """A launcher node's first and second find, its matcher cold and warm (see the module docstring)."""
    print(f"first find on a launcher among {count} agent processes (settle {settle:.0f} s); ms as the node")
    print("reports them (took_ms): local = ranking the cards held (dht false), dht = with the DHT lookup")
    head = f"{'launcher':<14} {'cards':>5} {'first local':>12} {'second local':>13} {'first dht':>10}"
    print(f"{head} {'load ms':>8}")
    for warm in (False, True):
        row = trio.run(_first_find, count, settle, warm)
        load = "-" if row["load_ms"] is None else str(row["load_ms"])
        print(f"{'warm = ' + str(warm).lower():<14} {row['cards']:>5} {row['first']:>12.0f} "
              f"{row['second']:>13.0f} {row['dht']:>10.0f} {load:>8}")  # fmt: skip


async def _first_find(count: int, settle: float, warm: bool) -> dict[str, Any]:
    from ioa_p2p.adapters import list_adapters
    from ioa_p2p.bootstrap.agents import AgentPlan, agent_specs
    from ioa_p2p.bootstrap.testnet import NodeSpec, open_testnet

    launcher = NodeSpec("launcher", {"agent": {"name": "launcher"}, "discovery": {"warm": warm}})
    agents = [  # their models stay cold: on one machine their loads would be the launcher's load too
        NodeSpec(spec.name, {**spec.config, "discovery": {"warm": False}})
        for spec in agent_specs(count, AgentPlan(), set(list_adapters()))
    ]
    with tempfile.TemporaryDirectory(prefix=f"ioa-bench-first-find-{os.getpid()}-") as root:
        async with open_testnet(Path(root), [launcher, *agents]) as net:
            node = net["launcher"]
            client = ControlClient(node.home, timeout=300)

            def find(text: str, dht: bool = False) -> Any:
                return client.call("POST", "/find", {"text": text, "k": 5, "dht": dht})

            with trio.fail_after(300):
                while len((await node.call("GET", "/cards"))["cards"]) < count + 1:  # noqa: ASYNC110
                    await trio.sleep(0.5)  # another process: nothing to wait on but its answers
                await trio.sleep(settle)
                while warm and (await node.call("GET", "/card"))["status"]["matcher"]["pending"]:  # noqa: ASYNC110
                    await trio.sleep(0.5)
                status = (await node.call("GET", "/card"))["status"]
                first = await trio.to_thread.run_sync(find, FIRST_QUERY)
                second = await trio.to_thread.run_sync(find, FIRST_QUERY + " tonight")
                dht = await trio.to_thread.run_sync(find, "Summarise a long report in three sentences", True)
    return {"cards": status["cards"], "first": first["took_ms"], "second": second["took_ms"],
            "dht": dht["took_ms"], "load_ms": status["matcher"]["load_ms"]}  # fmt: skip


def build_draft(agent: dict[str, Any]) -> Any:
    return issue_card(Identity(b"\x01" * 32), name=agent["name"], description=agent.get("description", ""),
                      model="draft", vector=[1.0], version=1, now_ms=NOW)  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--matcher", default=DiscoverySettings().matcher, choices=("hybrid", "lite"))
    parser.add_argument("--llm", action="store_true")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--find-cards", type=int, default=0, help="also time a local find over N cards")
    parser.add_argument("--first-find", type=int, default=0, help="a launcher's first find among N agents")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds after the cards, --first-find")
    args = parser.parse_args(argv[1:])
    if args.first_find:
        first_find(args.first_find, args.settle)
        return 0
    paths = args.files or [data_file(name) for name in FILES]
    if args.find_cards:
        if not paths[0].exists():
            print(f"{paths[0]}: not found; nothing to measure")
            return 0
        local_find(json.loads(paths[0].read_text(encoding="utf-8")), args.find_cards, args.matcher)
        return 0
    print(f"{'file':<22} {'matcher':<8} {'goals':>5} {'Top@1':>6} {'Top@5':>6} {'Top@10':>6} {'MRR':>6} | "
          f"{'team':<7} {'hit':>5} {'recall':>6} {'prec':>5} {'size':>4} {'ms/goal':>7}")  # fmt: skip
    for path in paths:
        if not path.exists():
            print(
                f"{path}: not found; nothing to measure (put the shared data in ../shared/data or pass paths)"
            )
            continue

        data = json.loads(path.read_text(encoding="utf-8"))
        goals = data["goals"][: args.limit] if args.limit else data["goals"]
        directory, names = build(data, args.matcher)
        started = time.perf_counter()
        r = ranking(directory, names, goals)
        rows = [("offline", offline_teams(directory, names, goals))]
        took = 1000 * (time.perf_counter() - started) / len(goals)
        if args.llm:
            rows.append(("llm", llm_teams(directory, names, goals)))
        for label, chosen in rows:
            t = team_metrics(chosen, goals)
            print(f"{path.name:<22} {args.matcher:<8} {len(goals):>5} {r['top1']:>6.3f} {r['top5']:>6.3f} "
                  f"{r['top10']:>6.3f} {r['mrr']:>6.3f} | {label:<7} {t['hit']:>5.3f} {t['recall']:>6.3f} "
                  f"{t['precision']:>5.3f} {t['size']:>4.2f} {took:>7.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
