"""A second, held-out spam generator for ``bench_spam.py`` (written before the sketch-level defences were
measured against it, and never used to choose their constants).

``bench_spam.py``'s own attacks are stuffed, superset, clone and reworded cards. The attacker here writes
cards that look like one plausible agent each, so that no single trait (many claims, a verbatim copy, an
honest text with more added) gives it away:

- ``paraphrase``: an honest card's description rewritten: its clauses reordered, common words replaced by
  synonyms, a few left out, inside a framing sentence ("I help with ...");
- ``mixture``: the first clauses of two honest cards joined into one two-skill agent, paraphrased;
- ``focused``: three to six capability phrases of honest cards (below the breadth threshold of eight
  unrelated claims), paraphrased, with no skills listed;
- ``heldout``: every identity picks one of the three at random (what the benchmark reports).

Every card has a new identity, as in ``bench_spam.py``.

``patient`` (a third attacker, written before the trust defences of ``teaming/trust.py`` were built, and
never used to choose their constants): the ``heldout`` texts, but the attacker minted its identities and
kept their cards live for longer than ``trust_age`` before the goals are run (they are as old as the
honest cards, so age gives them away no more), and one identity in :data:`SLEEPER_SHARE` is a *sleeper*
that does the tasks it gets (its signed results earn it the same evidence an honest agent earns) while
still counting as spam in every team it joins.
"""

from __future__ import annotations

import random
import re

#: Common words of capability descriptions and a plain-English replacement (general, not from the data).
SYNONYMS = {
    "writes": "produces", "write": "produce", "builds": "creates", "build": "create", "creates": "makes",
    "analyzes": "examines", "analyses": "examines", "analyze": "examine", "checks": "verifies",
    "check": "verify", "finds": "locates", "find": "locate", "data": "information", "files": "documents",
    "file": "document", "reports": "summaries", "report": "summary", "quickly": "fast", "helps": "assists",
    "help": "assist", "users": "people", "user": "person", "using": "with", "uses": "employs",
    "converts": "turns", "convert": "turn", "generates": "produces", "generate": "produce",
    "answers": "responds to", "questions": "queries", "tracks": "monitors", "track": "monitor",
    "plans": "organises", "plan": "organise", "fixes": "repairs", "fix": "repair", "large": "big",
    "small": "little", "fast": "quick", "detailed": "thorough", "accurate": "precise", "code": "software",
    "images": "pictures", "image": "picture", "text": "wording", "documents": "papers", "tests": "trials",
    "runs": "executes", "run": "execute", "reviews": "assesses", "review": "assess", "shows": "displays",
    "explains": "clarifies", "explain": "clarify", "designs": "drafts", "design": "draft",
    "suggests": "proposes", "suggest": "propose", "extracts": "pulls out", "extract": "pull out",
    "compares": "contrasts", "compare": "contrast", "manages": "handles", "manage": "handle",
    "customers": "clients", "customer": "client", "team": "group", "teams": "groups",
}  # fmt: skip
FRAMES = (
    "I help with this: {}.",
    "Reliable service. {}.",
    "{} - fast, careful and cheap.",
    "Hire me for it: {}.",
    "Professional assistant. {}.",
    "{}. Available around the clock.",
)
_CLAUSE = re.compile(r"(?<=[.;])\s+|,\s+(?=\w)")


def paraphrase(text: str, rng: random.Random) -> str:
    """``text`` in other words: clauses shuffled, synonyms, one word in ten left out, a framing sentence."""
    clauses = [c.strip(" .;") for c in _CLAUSE.split(text) if c.strip(" .;")]
    rng.shuffle(clauses)
    out = []
    for clause in clauses:
        words = []
        for word in clause.split():
            if rng.random() < 0.1 and len(clause.split()) > 4:
                continue
            bare = word.strip(",.;:()").lower()
            swap = SYNONYMS.get(bare)
            words.append(word.replace(word.strip(",.;:()"), swap) if swap and rng.random() < 0.8 else word)
        out.append(" ".join(words))
    return rng.choice(FRAMES).format("; ".join(out))


def first_clause(text: str) -> str:
    return re.split(r"[.;]|,\s", text)[0].strip()


def heldout_texts(
    kind: str,
    honest: list[tuple[str, str]],
    count: int,
    rng: random.Random,
    picked: list[str] | None = None,
) -> list[tuple[str, tuple[str, ...]]]:
    """``count`` spam card texts (description, skills) of the held-out ``kind`` (see the module docstring);
    ``picked``: each text's own kind is appended to it (for diagnostics; the texts are the same)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    kinds = ("paraphrase", "mixture", "focused")
    for i in range(count):
        pick = kind if kind not in ("heldout", "patient") else rng.choice(kinds)
        if picked is not None:
            picked.append(pick)
        target = honest[i % len(honest)][1]
        if pick == "paraphrase":
            text = paraphrase(target, rng)
        elif pick == "mixture":
            other = rng.choice(honest)[1]
            text = paraphrase(f"{first_clause(target)}, and {first_clause(other)}", rng)
        elif pick == "focused":
            others = rng.sample(honest, rng.randint(2, 5))
            phrases = [first_clause(target)] + [first_clause(d) for _, d in others]
            text = paraphrase("; ".join(phrases), rng)
        else:
            raise ValueError(f"unknown held-out attack {kind!r}")
        out.append((text, ()))
    return out


#: The ``patient`` attacker's sleepers: one identity in five does its tasks.
SLEEPER_SHARE = 5
HELDOUT = ("paraphrase", "mixture", "focused", "heldout", "patient")


#: Attacks whose identities are as old as the honest ones, one in :data:`SLEEPER_SHARE` a sleeper: the
#: held-out ``patient`` and the development ``drip`` (``spam_world.spam_texts``: this benchmark's own texts).
PATIENT = ("patient", "drip")


def spam_behaviour(kind: str, index: int) -> tuple[bool, bool]:
    """``(aged, delivers)`` of the ``index``-th spam identity of attack ``kind``: aged identities are as
    old as the honest cards; a delivering one does its tasks (the ``patient`` and ``drip`` attackers'
    sleepers)."""
    if kind not in PATIENT:
        return False, False
    return True, index % SLEEPER_SHARE == 0


__all__ = ["HELDOUT", "PATIENT", "SLEEPER_SHARE", "heldout_texts", "paraphrase", "spam_behaviour"]
