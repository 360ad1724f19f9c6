"""Agent cards and queries for the simulator, generated from templates or grown from a real set.

- :func:`generated_agents` / :func:`generated_queries`: deterministic agents (an action on a subject with a
  tool, a format and sometimes a language) and the tasks users would ask of them, phrased differently
  (used by the tests: no data set needed);
- :func:`recombined`: grows a real set of agents (the teaming data sets the benchmark reads) to any size by
  joining the leading sentence of one agent's description with the skill sentence of another, so every
  generated agent combines two real capabilities.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AgentText:
    """What goes on a card: a name, a description and skills."""

    name: str
    description: str
    skills: tuple[str, ...] = ()


ACTIONS = (
    ("summarises", "summarise"),
    ("translates", "translate"),
    ("plots charts of", "plot"),
    ("extracts tables from", "extract the tables from"),
    ("classifies", "sort out"),
    ("forecasts trends in", "forecast"),
    ("cleans and deduplicates", "clean up"),
    ("audits", "check"),
    ("answers questions about", "explain"),
    ("anonymises", "remove personal data from"),
    ("indexes and searches", "search through"),
    ("writes reports on", "write a report on"),
    ("detects anomalies in", "find anything odd in"),
    ("converts", "convert"),
    ("validates", "validate"),
    ("monitors", "keep an eye on"),
)
SUBJECTS = (
    "invoices",
    "weather records",
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
    "lab notebooks",
    "server metrics",
    "shipping manifests",
    "job applications",
    "bank statements",
    "crop yields",
    "traffic counts",
    "energy bills",
    "chess games",
    "patent filings",
    "customer chats",
    "survey answers",
    "building plans",
)
TOOLS = (
    "python",
    "SQL",
    "spreadsheets",
    "a GPU",
    "R",
    "a browser",
    "OCR",
    "a vector database",
    "Rust",
    "shell scripts",
    "a speech model",
    "a vision model",
)
FORMATS = ("PDF", "CSV", "JSON", "scanned paper", "HTML", "audio", "XML", "Excel workbooks")
LANGUAGES = ("", "", "", "German", "Japanese", "Spanish", "French", "Portuguese", "Korean")
ASKS = (
    "I need someone to {ask} my {subject} ({format}){lang}.",
    "Can an agent {ask} these {subject}? They are {format}{lang}.",
    "Please {ask} the {subject} we keep as {format}{lang}.",
    "Looking for help: {ask} a batch of {subject} in {format}{lang}.",
)


def generated_agents(count: int, seed: int = 1) -> list[AgentText]:
    """``count`` distinct agents (an action on a subject, with a tool, formats and maybe a language)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[AgentText] = []
    while len(out) < count:
        action, _ = rng.choice(ACTIONS)
        subject, tool, fmt, lang = (rng.choice(x) for x in (SUBJECTS, TOOLS, FORMATS, LANGUAGES))
        second = rng.choice(FORMATS)
        text = f"{action.capitalize()} {subject} delivered as {fmt} or {second}, using {tool}"
        text += f", in {lang}." if lang else "."
        if text in seen:
            continue
        seen.add(text)
        skills = tuple(dict.fromkeys([subject, tool, fmt] + ([lang] if lang else [])))
        out.append(AgentText(f"agent-{len(out)}", text, skills))
    return out


def generated_queries(count: int, seed: int = 2) -> list[str]:
    """``count`` tasks in a user's words (each may match several generated agents)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        _, ask = rng.choice(ACTIONS)
        lang = rng.choice(LANGUAGES)
        out.append(
            rng.choice(ASKS).format(
                ask=ask,
                subject=rng.choice(SUBJECTS),
                format=rng.choice(FORMATS),
                lang=f", written in {lang}" if lang else "",
            )
        )
    return out


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def recombined(agents: Sequence[AgentText], count: int, seed: int = 3) -> list[AgentText]:
    """The ``agents`` themselves, then (up to ``count``) agents each joining the first sentence of one
    agent's description to a later sentence (or the skills) of another."""
    if not agents:
        raise ValueError("recombined() needs at least one agent to grow from")
    rng = random.Random(seed)
    out = list(agents[:count])
    seen = {a.description for a in out}
    tries = 0
    while len(out) < count and tries < 50 * count:
        tries += 1
        a, b = rng.sample(list(agents), 2) if len(agents) > 1 else (agents[0], agents[0])
        first = _sentences(a.description)[:1] or [a.name]
        rest = _sentences(b.description)[1:] or [_sentences(b.description)[0] if b.description else b.name]
        text = " ".join(first + [rng.choice(rest)])
        if text in seen:
            continue
        seen.add(text)
        skills = tuple(dict.fromkeys(a.skills + b.skills))[:16]
        out.append(AgentText(f"{a.name}+{b.name}-{len(out)}", text, skills))
    if len(out) < count:
        raise ValueError(f"could only grow {len(agents)} agents to {len(out)} distinct ones, not {count}")
    return out


__all__ = ["AgentText", "generated_agents", "generated_queries", "recombined"]
