"""The tables of a node's ``config.toml``: the commented template ``ioa init`` writes; ``ioa config check``.

:data:`CONFIG_TABLES` lists every table a user may set with the dataclass its owner reads it into (the same
classes the services parse at start); :func:`config_template` renders them with their defaults
(:func:`~ioa_p2p.config.template.render_template`), so the template cannot drift from the code.
:func:`check_config` reads a file the way a starting node does, table by table, with the owners' own
readers, and raises the first typed error (:class:`~ioa_p2p.errors.ConfigError` or a subclass naming the
table and the key); it also refuses a table nobody reads (a typo such as ``[discovry]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.config.gateway import A2ASettings
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import (
    BOOTSTRAP_ENV,
    CONFIG_FILE_NAME,
    AdapterTable,
    NodeConfig,
    load_config,
    resolve_bootstrap,
)
from ioa_p2p.config.template import TableDoc, render_template
from ioa_p2p.dht.index import IndexSettings, make_index
from ioa_p2p.dht.settings import AgentSettings, DiscoverySettings
from ioa_p2p.embedding import WordLlamaSettings, embedding_settings
from ioa_p2p.errors import ConfigError, InvalidAddress
from ioa_p2p.identity import Identity
from ioa_p2p.llm.settings import ModelSettings
from ioa_p2p.matching import make_matcher
from ioa_p2p.node.agents.config import agent_specs, plan_of_config
from ioa_p2p.node.chats.config import ChatsConfig
from ioa_p2p.node.goals.runtime import adapter_table
from ioa_p2p.node.goals.types import GoalsConfig
from ioa_p2p.node.net.host import parse_multiaddr, peer_info_from_addr
from ioa_p2p.node.relay.settings import RelaySettings
from ioa_p2p.telemetry.settings import TelemetrySettings

CONFIG_TABLES: tuple[TableDoc, ...] = (
    TableDoc(
        "node",
        NodeConfig,
        "The peer: where it listens, whom it bootstraps from, its control API port, how many peers it keeps.",
        skip=("home", "raw"),
    ),
    TableDoc(
        "agent",
        AgentSettings,
        "This node's agent: its signed capability card (what peers find it by) and its adapter (what does "
        "the work; `ioa adapters` lists the kinds, docs/adapters.md their options).",
        notes=(
            "[agent.options]: the adapter's options (a table; `ioa adapters` lists them per kind)",
            "[[agents]]: several agents in this process instead of one, each entry an [agent] table",
            "over this one, plus home, count, listen, announce, control_port (docs/deploy.md, section 6)",
        ),
    ),
    TableDoc(
        "adapter",
        AdapterTable,
        "The same adapter choice as [agent] adapter and [agent.options], written as `kind` and "
        "[adapter.options] (the form `ioa node start --adapter KIND` pairs with); set one of the two.",
    ),
    TableDoc(
        "model",
        ModelSettings,
        "The OpenAI-compatible language model of the goal brain and of adapters that use one (unset: "
        "OPENAI_API_KEY / OPENAI_BASE_URL / OPENAI_MODEL, else the offline brain).",
    ),
    TableDoc(
        "embedding",
        WordLlamaSettings,
        "The card vectors: backend = 'wordllama' (offline, default), 'matcher' (the matcher's 640-d "
        "scheme), 'hashing' (dim), or 'openai' (model, dim, base_url, api_key).",
    ),
    TableDoc(
        "discovery",
        DiscoverySettings,
        "Capability discovery: the card's lifetime, the DHT and gossip, finds, the offline matcher.",
        skip=("index",),
    ),
    TableDoc("discovery.index", IndexSettings, "The local vector index of cards (docs/matching.md)."),
    TableDoc("limits", Limits, "Resource limits against hostile or broken peers (docs/security.md)."),
    TableDoc("chats", ChatsConfig, "Group chats: sync, retries, invitations and who may invite this node."),
    TableDoc("goals", GoalsConfig, "Goals this node launches: time, turns, team size, the brain."),
    TableDoc(
        "relay", RelaySettings, "Circuit relay v2: relaying for others (hop) and being reached via one."
    ),
    TableDoc(
        "a2a",
        A2ASettings,
        "The A2A gateway (`ioa a2a serve`; enabled: started with `ioa node start`): where it listens, its "
        "token and TLS, its limits (docs/gateways.md).",
    ),
    TableDoc(
        "telemetry",
        TelemetrySettings,
        "OpenTelemetry traces of goals and tasks (extra ioa-p2p[telemetry]; unset: on when OTEL_* "
        "variables or an endpoint/file say so).",
    ),
)

#: Tables a node reads that the template does not show: ``[llm]``, the older name of ``[model]``;
#: ``[[agents]]``, a list of tables (the ``[agent]`` table's notes describe it).
OTHER_TABLES = ("llm", "agents")


def config_template(name: str) -> str:
    """The commented ``config.toml`` ``ioa init`` writes: every table at its defaults, ``[agent] name``
    set to ``name``."""
    docs = [
        TableDoc(d.name, d.cls, d.summary, d.skip, d.notes, {"name": name} if d.name == "agent" else {})
        for d in CONFIG_TABLES
    ]
    header = (
        "ioa-p2p node configuration (written by `ioa init`; check it with `ioa config check`).",
        "Every table and key is shown at its default, commented out: uncomment what you change.",
        "Listen on a non-loopback address to accept peers from the network.",
    )
    return render_template(docs, header)


def write_config_template(home: Path, name: str) -> Path:
    """Write :func:`config_template` as ``home/config.toml`` (replacing it)."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / CONFIG_FILE_NAME
    path.write_text(config_template(name), encoding="utf-8")
    return path


@dataclass(frozen=True, slots=True)
class ConfigReport:
    """What :func:`check_config` read: the file, the tables it sets, the adapter kind (if any)."""

    path: Path
    tables: tuple[str, ...]
    adapter: str | None

    def to_json(self) -> dict[str, Any]:
        return {"file": str(self.path), "ok": True, "tables": list(self.tables), "adapter": self.adapter}


def check_config(home: Path, path: Path | None = None) -> ConfigReport:
    """Read ``path`` (default: ``home/config.toml``) as a starting node would; raise the first typed
    error (see the module docstring). Builds the adapter (checking its options) and closes it again."""
    path = path or home / CONFIG_FILE_NAME
    config = load_config(home, path=path)
    known = {d.name.split(".")[0] for d in CONFIG_TABLES} | set(OTHER_TABLES)
    unknown = sorted(set(config.raw) - known)
    if unknown:
        raise ConfigError(
            f"unknown table [{unknown[0]}] in {path}: no part of the node reads it; "
            f"the tables are {sorted(known)}"
        )
    _check_services(config, path)
    plan = plan_of_config(config, str(path))
    agents = [spec.config for spec in agent_specs(config, plan)] if plan is not None else [config]
    kinds = [_check_agent(agent) for agent in agents]
    kind = kinds[0] if len(set(kinds)) == 1 else None
    return ConfigReport(path, tuple(sorted(config.raw)), kind)


def _check_agent(config: NodeConfig) -> str | None:
    """Check an agent's ``[agent]`` table and build (and close) its adapter; its adapter kind."""
    agent = config.section("agent")
    AgentSettings.from_section(agent, Identity.generate().peer_id)  # any peer: only its default name
    model = config.section("model") or config.section("llm")
    ModelSettings.from_section(model)
    adapter = adapter_from_config(adapter_table(agent, config.home, model=model))
    if adapter is not None:
        trio.run(adapter.aclose)
    kind = agent.get("adapter")
    return kind if isinstance(kind, str) and kind else None


def _check_addresses(config: NodeConfig) -> None:
    """The ``[node]`` addresses, checked as ``open_node`` checks them at start (the bootstrap file read)."""
    keys = [("listen", a) for a in config.listen] + [("announce", a) for a in config.announce]
    for key, addr in keys:
        try:
            parse_multiaddr(addr)
        except InvalidAddress as exc:
            raise ConfigError(f"[node].{key}: {exc}") from None
    for addr in resolve_bootstrap(config):  # [node] bootstrap, the bootstrap_file's lines, $IOA_BOOTSTRAP
        try:
            peer_info_from_addr(addr)
        except InvalidAddress as exc:
            raise ConfigError(f"[node].bootstrap (or bootstrap_file, ${BOOTSTRAP_ENV}): {exc}") from None


def _check_services(config: NodeConfig, path: Path) -> None:
    _check_addresses(config)
    Limits.from_section(config.section("limits"))
    a2a = A2ASettings.from_section(config.section("a2a"))
    if a2a.enabled:
        a2a.check_exposure()
    TelemetrySettings.from_section(config.section("telemetry"))
    ChatsConfig.from_section(config.section("chats"))
    GoalsConfig.from_section(config.section("goals"))
    RelaySettings.from_section(config.section("relay"), str(path))
    discovery = DiscoverySettings.from_section(config.section("discovery"))
    make_index(discovery.index, 8)
    embedding = config.section("embedding")
    if embedding.get("backend") == "matcher":
        make_matcher({k: v for k, v in embedding.items() if k != "backend"}, "[embedding]")
    else:
        embedding_settings(embedding)


__all__ = [
    "CONFIG_TABLES",
    "OTHER_TABLES",
    "ConfigReport",
    "check_config",
    "config_template",
    "write_config_template",
]
