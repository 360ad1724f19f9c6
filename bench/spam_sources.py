"""Where the spam comes from (``bench_spam.py --sources``): a flood of new identities crossing a gossip mesh
of honest nodes, each with its real rate limits (:class:`~ioa_p2p.dht.admission.CardAdmission`, default
``[discovery]`` settings: 120 new identities a minute in total, a quarter per source network), and what
reaches a node that is not the attacker's neighbour.

The mesh: ``nodes`` honest nodes, each on a network of its own, each linked to ``degree`` others at random
(a GossipSub mesh). The attacker's identities sit behind ``sources`` networks (one relay, one /24, or a
botnet of many), each connected to ``links`` honest nodes (its first hops); it announces every identity to
each first hop once a minute, spread over the minute (at most 200 messages a second on one connection,
``GossipSettings.max_rate``), for ``minutes``; each is a new message, and a re-announcement of a card a
node holds is accepted and forwarded without charge, as the node's validator does. Honest newcomers
(``newcomers`` honest nodes publishing a new card at random times during the flood) are the honest cost.
Time runs in one-second rounds; a message crosses every hop of the mesh within its round.

Two rules, the only difference between them (``first_hop``):

- before (d-source): the validator accepts every valid announcement, so every node forwards everything
  once; delivery stores within the limits, the source being the neighbour it came from;
- after (d-source2): the validator holds back a new identity over its first-hop source's share (the
  neighbour it came from): not forwarded, not stored; another neighbour's copy may pass later.

What is measured at the *far* node (an honest node none of whose neighbours the attacker is connected to:
it hears the flood only through honest forwarders, two hops or more away): spam identities stored there
after each minute, and the honest newcomers stored there (and their delay). Pure: no network, no clock;
deterministic for a seed.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.dht.admission import CardAdmission

#: Messages one connection may bring per second (``GossipSettings.max_rate``).
PER_CONNECTION = 200


@dataclass
class Mesh:
    """Honest nodes ``0..n-1`` and their links; the attacker's sources and the honest nodes they reach."""

    n: int
    links: dict[int, list[int]]
    attackers: dict[str, list[int]]  # source network -> the honest nodes it is connected to
    far: int


def make_mesh(nodes: int, degree: int, sources: int, links: int, rng: random.Random) -> Mesh:
    """A random mesh of at least ``degree`` links a node; ``sources`` attacker networks with ``links``
    first hops each, none of them the far node (node 0) or one of its neighbours: the far node is two
    hops or more from every attacker."""
    neighbours: dict[int, set[int]] = {i: set() for i in range(nodes)}
    for i in range(nodes):
        while len(neighbours[i]) < degree:
            j = rng.randrange(nodes)
            if j != i:
                neighbours[i].add(j)
                neighbours[j].add(i)
    far = 0
    reachable = [i for i in range(nodes) if i != far and i not in neighbours[far]]
    attackers = {f"attacker-{k}": rng.sample(reachable, links) for k in range(sources)}
    return Mesh(nodes, {i: sorted(v) for i, v in neighbours.items()}, attackers, far)


@dataclass
class Outcome:
    """What the far node held after each minute, and the honest newcomers' fate there."""

    spam_by_minute: list[int] = field(default_factory=list)
    spam_total: int = 0
    honest_stored: int = 0
    honest_total: int = 0
    honest_delay_s: list[float] = field(default_factory=list)
    held_back: int = 0
    forwarded: int = 0


def propagate(
    *,
    sources: int,
    identities: int,
    minutes: int,
    first_hop: bool,
    nodes: int = 60,
    degree: int = 6,
    links: int = 3,
    newcomers: int = 20,
    seed: int = 25,
) -> Outcome:
    """Run the flood (see the module docstring)."""
    rng = random.Random(seed)
    mesh = make_mesh(nodes, degree, sources, links, rng)
    limits = [CardAdmission() for _ in range(nodes)]
    held: list[set[str]] = [set() for _ in range(nodes)]  # identities each node stores
    seen: list[set[tuple[str, int]]] = [set() for _ in range(nodes)]  # (identity, attempt) each forwarded
    per_source = defaultdict(list)  # the attacker's identities, dealt to its sources
    for i in range(identities):
        per_source[f"attacker-{i % sources}"].append(f"spam-{i}")
    honest_at = sorted((rng.uniform(0, minutes * 60), rng.randrange(nodes)) for _ in range(newcomers))
    published: dict[str, float] = {}
    stored_far: dict[str, float] = {}
    out = Outcome(honest_total=newcomers)
    attempt = 0
    for second in range(minutes * 60):
        now = float(second)
        queue: deque[tuple[int, str, str, int]] = deque()  # (node, identity, source it came from, attempt)
        if second % 60 == 0:  # this minute's offers: every identity, once (re-announced when held)
            offers = {
                (source, hop): list(per_source[source])
                for source, hops in mesh.attackers.items()
                for hop in hops
            }
        for (source, hop), pending in offers.items():
            step = min(PER_CONNECTION, -(-len(pending) // (60 - second % 60)))
            attempt += 1
            queue.extend((hop, x, source, attempt) for x in pending[:step])
            del pending[:step]
        while honest_at and honest_at[0][0] <= now:
            at, node = honest_at.pop(0)
            name = f"honest-{len(published)}"
            published[name] = at
            held[node].add(name)
            attempt += 1
            queue.extend((m, name, f"node-{node}", attempt) for m in mesh.links[node])
        while queue:
            node, name, source, tag = queue.popleft()
            if (name, tag) in seen[node]:
                continue
            if name in held[node]:  # a re-announcement of the version held: accepted and forwarded, free
                seen[node].add((name, tag))
                queue.extend(
                    (m, name, f"node-{node}", tag) for m in mesh.links[node] if f"node-{m}" != source
                )
                continue
            if first_hop and not limits[node].admit_first_hop(source, now):
                out.held_back += 1
                continue  # held back: not forwarded, not remembered
            seen[node].add((name, tag))
            if limits[node].admit_card(name, known=False, now=now, source=source, source_paid=first_hop):
                held[node].add(name)
                if node == mesh.far:
                    stored_far[name] = now
            out.forwarded += 1
            queue.extend((m, name, f"node-{node}", tag) for m in mesh.links[node] if f"node-{m}" != source)
        if (second + 1) % 60 == 0:
            out.spam_by_minute.append(sum(1 for x in stored_far if x.startswith("spam-")))
    out.spam_total = sum(1 for x in stored_far if x.startswith("spam-"))
    honest = {x: t for x, t in stored_far.items() if x.startswith("honest-")}
    out.honest_stored = len(honest)
    out.honest_delay_s = sorted(t - published[x] for x, t in honest.items())
    return out


def describe(sources: int, first_hop: bool, out: Outcome, identities: int) -> dict[str, Any]:
    """One row of figures for a flood from ``sources`` networks under the rule before or after."""
    delays = out.honest_delay_s
    return {
        "rule": "first hop (after)" if first_hop else "at delivery (before)",
        "sources": sources,
        "spam_at_far": out.spam_total,
        "spam_share_at_far": round(out.spam_total / identities, 3),
        "spam_at_far_by_minute": out.spam_by_minute,
        "honest_newcomers_at_far": f"{out.honest_stored}/{out.honest_total}",
        "honest_delay_s_p50": round(statistics.median(delays), 1) if delays else None,
        "honest_delay_s_max": round(max(delays), 1) if delays else None,
        "messages_forwarded": out.forwarded,
        "held_back": out.held_back,
    }


__all__ = ["Outcome", "describe", "make_mesh", "propagate"]
