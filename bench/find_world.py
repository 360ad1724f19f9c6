"""The agents and goals of ``bench/bench_find.py``, and the exact answers a find is scored against.

Agents get distinct descriptions: the agents of ``teaming-dev-hard.json`` (160) from the shared data, then
generated ones; queries are that set's goals (generated tasks when the file is absent: said on stderr).
:class:`Truth`: the exact top 5 over all N cards, by the node's own ranking (the offline matcher) and by
cosine of the card vectors.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
from shared_data import data_file

from ioa_p2p.card import card_text
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.matching import CardProfile, make_matcher
from ioa_p2p.node import open_node

DATA = data_file("teaming-dev-hard.json")
SUBJECTS = [
    "invoices",
    "weather",
    "recipes",
    "contracts",
    "genomes",
    "stock prices",
    "satellite images",
    "podcasts",
    "spreadsheets",
    "emails",
    "source code",
    "legal cases",
    "poems",
    "sensor logs",
    "flight schedules",
    "medical scans",
    "tax forms",
    "news articles",
    "product reviews",
    "maps",
]
VERBS = [
    "summarizes",
    "translates",
    "classifies",
    "plots charts of",
    "extracts tables from",
    "answers questions about",
    "writes reports on",
    "detects anomalies in",
    "cleans",
    "forecasts",
]


def agents_and_goals(n: int) -> tuple[list[tuple[str, str]], list[str]]:
    agents: list[tuple[str, str]] = []
    goals: list[str] = []
    if not DATA.exists():
        print(
            f"note: {DATA} is absent (set IOA_SHARED); using generated agents and goals only", file=sys.stderr
        )
    else:
        data = json.loads(DATA.read_text(encoding="utf-8"))
        agents = [(a["name"], a["description"]) for a in data["agents"]]
        goals = [g["goal"] for g in data["goals"]]
    rng = random.Random(7)
    combos = [(v, s) for v in VERBS for s in SUBJECTS]
    rng.shuffle(combos)
    for verb, subject in combos:
        if len(agents) >= n:
            break
        agents.append((f"{verb.split()[0]}-{subject.replace(' ', '-')}", f"{verb} {subject}"))
    if not goals:
        goals = [f"please {verb.split()[0]} my {subject}" for verb, subject in combos[:48]]
    return agents[:n], goals


class Truth:
    """The exact answers over all N cards: by the offline matcher, and by cosine of the card vectors."""

    def __init__(self, summaries: list[dict[str, Any]], service: Any) -> None:
        self.keys = [s["peer_id"] for s in summaries]
        self.matcher = make_matcher({"matcher": service.settings.matcher})
        profiles = {
            s["peer_id"]: CardProfile.make(
                s["name"], s["description"], skills=s["skills"], task_types=s["task_types"]
            )
            for s in summaries
        }
        self.matcher.index(profiles)
        self.embedder = service.embedder
        texts = [card_text(s["name"], s["description"], s["skills"], s["task_types"]) for s in summaries]
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float64)
        self.matrix = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def ranked(self, goal: str) -> set[str]:
        return {m.key for m in self.matcher.rank(goal, 5)}

    def cosine(self, goal: str) -> set[str]:
        query = np.asarray(self.embedder.embed([goal])[0], dtype=np.float64)
        return {self.keys[i] for i in np.argsort(-(self.matrix @ query))[:5]}


def agent_config(name: str, description: str, discovery: dict[str, Any]) -> dict[str, Any]:
    return {"agent": {"name": name, "description": description}, "discovery": discovery}


@asynccontextmanager
async def open_inprocess_peers(
    n: int, discovery: dict[str, Any], root: Path
) -> AsyncIterator[list[tuple[Any, Any]]]:
    """``n`` agent nodes in this process, all bootstrapping from the first; yields (node, discovery
    service) pairs once every node has issued its card (bench_gossip uses these too)."""
    agents, _ = agents_and_goals(n)
    peers: list[tuple[Any, Any]] = []
    async with AsyncExitStack() as stack:
        for i, (name, description) in enumerate(agents):
            bootstrap = (peers[0][0].listen_addrs()[0],) if peers else ()
            config = NodeConfig(
                home=root / f"n{i}",
                bootstrap=bootstrap,
                bootstrap_backoff=0.2,
                raw=agent_config(name, description, discovery),
            )
            node = await stack.enter_async_context(
                open_node(config, identity=Identity.generate(), write_info=False, control_api=False)
            )
            peers.append((node, node.services.discovery))
        for _, service in peers:
            await service.card_ready.wait()
        yield peers


__all__ = ["DATA", "Truth", "agent_config", "agents_and_goals", "open_inprocess_peers"]
