"""Several agents in one process: the ``[[agents]]`` list read into one :class:`AgentSpec` per agent.

The list comes from ``config.toml`` or from an agents file (``ioa node start --agents FILE``, whose list
replaces the config's)::

    [[agents]]
    name = "calc"                 # the card's name; unique in the process (calc, calc-2, ... with count)
    adapter = "calculator"
    description = "Exact arithmetic from plain language."
    skills = ["math", "arithmetic"]

    [[agents]]
    name = "handbook"
    adapter = "retrieval"
    listen = "/ip4/0.0.0.0/tcp/4011"    # its own address (default: the [node] hosts, a port the OS picks)
    control_port = 7011                 # its own control API (default: any free port)
    [agents.options]
    path = "handbook"                   # relative: to the file's folder (config.toml: the node home)

An entry's own keys are those of :class:`AgentsEntry` (``home``, ``count``, ``listen``, ``announce``,
``control_port``); every other key is the agent's ``[agent]`` table (card keys, ``adapter``, ``options``),
laid over the config's ``[agent]`` table, which thus gives defaults every agent shares. Every other table
of the config (``[node]`` bootstrap peers, ``[limits]``, ``[discovery]``, ``[model]``...) is the same for
every agent.

Each agent is a whole node: its own home (default ``agents/<name>`` under the process's home; its key is
created there on first start and reused afterwards), its own card, adapter, libp2p host and control API
(``node.json`` and ``control.token`` in its home, so ``ioa --home <agent home> peers`` talks to it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ioa_p2p.adapters.registry import adapter_needs
from ioa_p2p.config.node_config import NodeConfig, read_toml
from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.errors import ConfigError

#: Most agents one process runs.
MAX_AGENTS = 512
#: The folder, under the process's home, of the agents' homes (unless an entry names its ``home``).
AGENTS_DIR = "agents"
#: The list of the process's agents (name, home, peer ID, state, control port) it writes in its home.
AGENTS_INDEX_NAME = "agents.json"
_MULTIADDRS = "a multiaddr string or a list of them"
_PORT = re.compile(r"/(tcp|udp)/\d+")


@dataclass(frozen=True, slots=True)
class AgentsEntry:
    """The keys of one ``[[agents]]`` entry that are not its ``[agent]`` table."""

    #: The agent's home (key, node.json, control token, chats, inbox); relative: to the process's home.
    #: Unset: agents/<name> under the process's home.
    home: str | None = None
    #: How many agents of this entry (named name, name-2, name-3...; each with its own home and key).
    count: int = setting(1, low=1, high=MAX_AGENTS)
    #: Where this agent listens (unset: the hosts of [node].listen, each at a port the OS picks).
    listen: tuple[str, ...] = setting((), one_or_list=True, what=_MULTIADDRS)
    #: Addresses this agent advertises besides the detected ones ([node].announce is not shared).
    announce: tuple[str, ...] = setting((), one_or_list=True, what=_MULTIADDRS)
    #: This agent's control API port (0: any free port).
    control_port: int = setting(0, low=0, high=65535, what="a TCP port 0..65535 (0: any free port)")


#: The keys of an entry that are not the agent's ``[agent]`` table.
ENTRY_KEYS = frozenset(f for f in AgentsEntry.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class AgentsFileTable:
    """The top level of an agents file besides its ``[[agents]]`` list."""

    #: The folder of the agents' homes (those without ``home``); relative: to the process's home.
    root: str = AGENTS_DIR


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """One agent of the process: its name and its whole node configuration."""

    name: str
    config: NodeConfig

    @property
    def home(self) -> Path:
        return self.config.home


@dataclass(frozen=True, slots=True)
class AgentsPlan:
    """The ``[[agents]]`` entries to run, where they were read (messages name it), the folder relative
    options are taken from, and the folder of the agents' homes."""

    entries: tuple[Mapping[str, Any], ...]
    where: str
    base: Path
    root: str = AGENTS_DIR


def plan_of_config(config: NodeConfig, source: str) -> AgentsPlan | None:
    """The config's own ``[[agents]]`` list (None when it has none)."""
    entries = config.raw.get("agents")
    if entries is None:
        return None
    return AgentsPlan(_entries(entries, source), source, config.home)


def read_agents_file(path: Path) -> AgentsPlan:
    """An agents file's ``[[agents]]`` list; ConfigError naming the file when it cannot be read."""
    return agents_file_plan(read_toml(path, "agents file"), path)


def agents_file_plan(raw: Mapping[str, Any], path: Path) -> AgentsPlan:
    """The plan of an agents file's parsed TOML (``path`` names it; relative options: from its folder)."""
    rest = dict(raw)
    entries = rest.pop("agents", None)
    if entries is None:
        hint = " (the testnet's [[agent]] form is for `ioa testnet up --agents`)" if "agent" in rest else ""
        raise ConfigError(f"agents file {path} has no [[agents]] list{hint}")
    table = parse_section(AgentsFileTable, rest, f"the agents file {path}")
    return AgentsPlan(_entries(entries, str(path)), str(path), path.parent.resolve(), table.root)


def agent_specs(config: NodeConfig, plan: AgentsPlan) -> list[AgentSpec]:
    """One spec per agent of ``plan`` (``count`` expanded), each a copy of ``config`` with the agent's home,
    ``[agent]`` table, addresses and control port. ConfigError naming the entry for a wrong key, two agents
    sharing a home, or more than :data:`MAX_AGENTS` agents."""
    defaults = config.section("agent")
    raw = {key: value for key, value in config.raw.items() if key != "agents"}
    taken: set[str] = set()
    homes: dict[Path, str] = {}
    specs: list[AgentSpec] = []
    for number, entry in enumerate(plan.entries, 1):
        where = f"[[agents]] #{number} of {plan.where}"
        own = parse_section(AgentsEntry, dict(entry), where, ignore_unknown=True)
        if own.home is not None and own.count > 1:
            raise ConfigError(f"{where}: home names one agent's folder; unset it with count = {own.count}")
        table = {**defaults, **{key: value for key, value in entry.items() if key not in ENTRY_KEYS}}
        kind, options = table.get("adapter"), table.get("options")
        if isinstance(kind, str) and isinstance(options, Mapping):
            table["options"] = adapter_needs(kind).resolve_paths(options, plan.base)
        for _ in range(own.count):
            name = unique_name(str(table.get("name") or kind or "agent"), taken)
            home = _home(config.home, own.home or f"{plan.root}/{name}")
            if home in homes:
                raise ConfigError(f"{where}: agent {name!r} would share its home {home} with {homes[home]!r}")
            homes[home] = name
            specs.append(AgentSpec(name, _agent_config(config, raw, own, {**table, "name": name}, home)))
    if len(specs) > MAX_AGENTS:
        raise ConfigError(f"{plan.where} names {len(specs)} agents; one process runs at most {MAX_AGENTS}")
    if not specs:
        raise ConfigError(f"{plan.where} names no agent: add [[agents]] entries")
    return specs


def any_port(addr: str) -> str:
    """``addr`` with its TCP/UDP port replaced by 0 (the OS picks one): every agent needs its own."""
    return _PORT.sub(lambda m: f"/{m.group(1)}/0", addr)


def _agent_config(
    config: NodeConfig, raw: dict[str, Any], own: AgentsEntry, agent: dict[str, Any], home: Path
) -> NodeConfig:
    return replace(
        config,
        home=home,
        listen=own.listen or tuple(dict.fromkeys(any_port(a) for a in config.listen)),
        announce=own.announce,
        control_port=own.control_port,
        raw={**raw, "agent": agent},
    )


def _entries(value: object, where: str) -> tuple[Mapping[str, Any], ...]:
    if not isinstance(value, list) or not all(isinstance(e, Mapping) for e in value):
        raise ConfigError(f"agents in {where} must be a list of tables, written [[agents]]")
    return tuple(value)


def _home(process_home: Path, folder: str) -> Path:
    path = Path(folder).expanduser()
    return (path if path.is_absolute() else process_home / path).resolve()


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... the first not in ``taken`` (which it joins)."""
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    taken.add(candidate)
    return candidate


__all__ = [
    "AGENTS_DIR",
    "AGENTS_INDEX_NAME",
    "ENTRY_KEYS",
    "MAX_AGENTS",
    "AgentSpec",
    "AgentsEntry",
    "AgentsFileTable",
    "AgentsPlan",
    "agent_specs",
    "agents_file_plan",
    "any_port",
    "plan_of_config",
    "read_agents_file",
    "unique_name",
]
