"""The agents of a local testnet: the ones a user names (``--agent``, an agents file) and sample agents.

``ioa testnet up N`` gives its first nodes the agents the user names, in order, and the remaining nodes the
sample agents (:data:`SAMPLE_AGENTS`, cycled). An agent is named on the command line as
``KIND[:KEY=VALUE,KEY=VALUE...]``::

    --agent calculator
    --agent "a2a:url=http://127.0.0.1:9999"
    --agent "retrieval:path=docs,description=Answers questions about our handbook,top_k=5"
    --agent "llm:model.base_url=http://127.0.0.1:8080/v1,model.model=qwen2.5,max_steps=6"

A value is read as a TOML value when it is one (``5``, ``true``, ``["a", "b"]``, ``"quoted, with a
comma"``), else taken as text; a dotted key reaches into a table (``model.base_url``). The card keys of
``[agent]`` (``name``, ``description``, ``skills``, ``task_types``, ``languages``, ``input_types``,
``output_types``, ``tools``) describe the node; every other key is an option of the adapter. Or in a file
(``--agents FILE``)::

    [[agent]]
    adapter = "calculator"
    count = 2                    # this many nodes of this agent (default 1)

    [[agent]]
    name = "handbook"
    adapter = "retrieval"
    description = "Answers questions about our handbook."
    [agent.options]
    path = "handbook"            # relative: to the file's folder

    [config.model]               # tables every node's config.toml gets
    base_url = "http://127.0.0.1:8080/v1"

Relative folders an adapter kind reads (its ``AdapterNeeds.home_paths``: retrieval's ``path``, llm's
``files``...) are taken relative to where the user named them (the working directory, or the file's folder),
not to the node's home. :func:`check_agents` builds every adapter once before any process starts, so a wrong
option is the typed error of its kind (exit 2), not a node that dies at start.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.adapters.registry import adapter_from_config, adapter_needs
from ioa_p2p.bootstrap.testnet import BOOTSTRAP_NAME, NodeSpec
from ioa_p2p.config.node_config import read_toml
from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.dht.settings import LIST_FIELDS
from ioa_p2p.errors import ConfigError, UsageError
from ioa_p2p.node.agents.config import unique_name
from ioa_p2p.node.goals.runtime import adapter_table

#: Sample agents, cycled: (name, description, skills, adapter kind or None).
SAMPLE_AGENTS: tuple[tuple[str, str, tuple[str, ...], str | None], ...] = (
    (
        "calculator",
        "Exact arithmetic from plain language: sums, products, powers, percentages and fractions.",
        ("math", "arithmetic", "percentages"),
        "calculator",
    ),
    (
        "coder",
        "Writes and runs short Python programs in a sandbox to compute, transform or check data.",
        ("python", "code", "data processing"),
        "python",
    ),
    (
        "researcher",
        "Finds and summarises passages from a local document collection, with citations.",
        ("search", "documents", "summaries"),
        None,
    ),
    (
        "planner",
        "Breaks a goal into steps, orders them by dependency and tracks their progress.",
        ("planning", "scheduling", "project management"),
        None,
    ),
    (
        "writer",
        "Drafts and edits short texts: emails, announcements, reports and summaries.",
        ("writing", "editing", "summaries"),
        None,
    ),
    (
        "translator",
        "Translates between English, French, German and Spanish, keeping the tone.",
        ("translation", "languages"),
        None,
    ),
    (
        "analyst",
        "Reads tables of numbers and explains trends, outliers and simple statistics.",
        ("statistics", "data analysis", "tables"),
        None,
    ),
    (
        "reviewer",
        "Reviews code and designs for bugs, security problems and unclear parts.",
        ("code review", "security", "testing"),
        None,
    ),
)
MAX_NODES = 64
#: The ``[agent]`` keys that describe the node (its card); the others of ``--agent`` are adapter options.
CARD_KEYS = frozenset({"name", "description", *LIST_FIELDS})
_PAIR_START = re.compile(r",(?=\s*[A-Za-z_][\w.-]*\s*=)")
_KIND = re.compile(r"[A-Za-z_][\w-]*")


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One ``[[agent]]`` of an agents file: the node's ``[agent]`` table, and how many such nodes."""

    count: int = setting(1, low=1, high=MAX_NODES)


@dataclass(frozen=True, slots=True)
class AgentsFile:
    """An agents file: its ``[[agent]]`` list (read entry by entry); ``[config]``: tables for every node."""

    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AgentPlan:
    """The agents a user named, in order (an ``[agent]`` table each), and tables every node gets."""

    agents: tuple[dict[str, Any], ...] = ()
    common: dict[str, Any] = field(default_factory=dict)


def parse_agent_option(text: str, base: Path) -> dict[str, Any]:
    """``KIND[:KEY=VALUE,...]`` -> an ``[agent]`` table (see the module docstring); relative folders of the
    kind are taken relative to ``base``. UsageError for text that is not of that form."""
    kind, _, rest = text.partition(":")
    kind = kind.strip()
    if not _KIND.fullmatch(kind):
        raise UsageError(
            f"--agent {text!r}: start with an adapter kind, as in calculator or a2a:url=http://..."
        )
    agent: dict[str, Any] = {"adapter": kind}
    options: dict[str, Any] = {}
    for pair in _PAIR_START.split(rest) if rest.strip() else []:
        key, equals, value = pair.partition("=")
        key = key.strip()
        if not equals or not re.fullmatch(r"[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*", key):
            raise UsageError(f"--agent {text!r}: {pair.strip()!r} is not KEY=VALUE")
        _put(agent if key in CARD_KEYS else options, key, _value(value.strip()))
    if options:
        agent["options"] = adapter_needs(kind).resolve_paths(options, base)
    return agent


def read_agents_file(path: Path) -> AgentPlan:
    """The agents and common tables of an agents file (see the module docstring); ConfigError naming the
    file, the entry and the key when something is wrong."""
    return agents_plan(read_toml(path, "agents file"), path)


def agents_plan(raw: Mapping[str, Any], path: Path) -> AgentPlan:
    """The plan of an agents file's parsed TOML ``raw`` (``path`` names it; relative folders are taken
    relative to its folder)."""
    raw = dict(raw)
    entries = raw.pop("agent", [])
    common = parse_section(AgentsFile, raw, f"the agents file {path}").config
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"agent in {path} must be a list of tables, written [[agent]]")
    agents: list[dict[str, Any]] = []
    for number, entry in enumerate(entries, 1):
        where = f"[agent] #{number} of {path}"
        count = parse_section(AgentEntry, entry, where, ignore_unknown=True).count
        agent = {key: value for key, value in entry.items() if key != "count"}
        kind, options = agent.get("adapter"), agent.get("options")
        if isinstance(kind, str) and isinstance(options, dict):
            agent["options"] = adapter_needs(kind).resolve_paths(options, path.parent.resolve())
        agents += [dict(agent) for _ in range(count)]
    return AgentPlan(tuple(agents), common)


def agent_specs(count: int, plan: AgentPlan, installed: set[str]) -> list[NodeSpec]:
    """``count`` node specs: the plan's agents first, then sample agents (an adapter only where it is
    installed); names unique (``calculator``, ``calculator-2``...)."""
    if not 1 <= count <= MAX_NODES:
        raise UsageError(f"COUNT must be between 1 and {MAX_NODES}, not {count}")
    if len(plan.agents) > count:
        raise UsageError(f"COUNT is {count} but {len(plan.agents)} agents were named; raise COUNT")
    tables = [dict(agent) for agent in plan.agents]
    for i in range(count - len(tables)):
        name, description, skills, adapter = SAMPLE_AGENTS[i % len(SAMPLE_AGENTS)]
        sample: dict[str, Any] = {"name": name, "description": description, "skills": list(skills)}
        if adapter is not None and adapter in installed:
            sample["adapter"] = adapter
        tables.append(sample)
    taken = {BOOTSTRAP_NAME}
    specs = []
    for agent in tables:
        agent["name"] = unique_name(str(agent.get("name") or agent.get("adapter") or "agent"), taken)
        specs.append(NodeSpec(agent["name"], {**plan.common, "agent": agent}))
    return specs


def check_agents(specs: Sequence[NodeSpec], root: Path) -> None:
    """Build (and close) every spec's adapter as its node would, so a wrong kind or option is its typed
    error now rather than a node that dies at start."""
    for spec in specs:
        agent = spec.config.get("agent", {})
        model = spec.config.get("model")
        table = adapter_table(agent, root / spec.name, model=model if isinstance(model, Mapping) else None)
        adapter = adapter_from_config(table)
        if adapter is not None:
            trio.run(adapter.aclose)


def _value(text: str) -> Any:
    """A TOML value when ``text`` is one, else the text itself."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _put(table: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        inner = table.setdefault(part, {})
        if not isinstance(inner, dict):
            raise UsageError(f"--agent: {dotted} sets a key inside {part}, which already has a value")
        table = inner
    table[last] = value


__all__ = [
    "CARD_KEYS",
    "MAX_NODES",
    "SAMPLE_AGENTS",
    "AgentEntry",
    "AgentPlan",
    "AgentsFile",
    "check_agents",
    "parse_agent_option",
    "read_agents_file",
    "agent_specs",
]
