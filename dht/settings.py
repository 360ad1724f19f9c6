"""Discovery configuration: the ``[agent]`` and ``[discovery]`` tables of the node's config (pure).

``[agent]`` (also settable on ``ioa node start``)::

    name = "plotter"                 # default: agent-<last 6 chars of the peer ID>
    description = "Draws charts..."  # what the agent does, in plain words (this is what gets embedded)
    skills = ["matplotlib"]          # tags
    task_types = ["plot"]            # accepted task types
    languages = ["de", "en"]         # structured capability fields (optional; card version 2):
    input_types = ["text/csv"]       #   natural languages, media types accepted and returned,
    output_types = ["image/png"]     #   tools or runtimes the agent drives
    tools = ["python", "matplotlib"]
    adapter = "python"               # adapter kind

``[discovery]`` (all optional)::

    enabled = true          # false: serve the DHT's /ioa/ records only (no card, no gossip, no find)
    ttl = 1800              # seconds a card lives
    republish = 600         # seconds between new card versions (default ttl / 3)
    gossip = true           # announce and learn cards by GossipSub
    dht = true              # store cards and LSH provider records in the DHT, look them up on find
    probes = 40             # near LSH buckets probed per query, on top of one bucket per table
    ask = 2                 # closest peers asked per key in DHT lookups
    find_timeout = 10.0     # seconds a find may spend on DHT lookups before answering from what it has
    card_refresh = 60       # re-fetch a candidate's card from the DHT when our copy is older than this
    max_fetch = 64          # cards fetched from the DHT per find, at most
    heartbeat = 1.0         # GossipSub heartbeat, seconds
    eclipse_protection = true
    max_cards = 200000      # local directory size
    matcher = "hybrid"      # offline ranking: "hybrid" (wordllama + MiniLM int8 + BM25) or "lite"
    [discovery.index]       # kind = "annoy" (default; exact below min_size) or "exact"
    min_size = 20000
    n_trees = 50
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.card import MAX_TTL_MS
from ioa_p2p.errors import ConfigError
from ioa_p2p.identity import PeerId

_NUMBERS: dict[str, tuple[type, float, float]] = {
    "ttl": (float, 2.0, MAX_TTL_MS / 1000),
    "republish": (float, 0.5, MAX_TTL_MS / 1000),
    "probes": (int, 0, 512),
    "ask": (int, 1, 20),
    "find_timeout": (float, 0.1, 600.0),
    "card_refresh": (float, 0.0, 86_400.0),
    "max_fetch": (int, 1, 10_000),
    "heartbeat": (float, 0.05, 120.0),
    "max_cards": (int, 1, 10_000_000),
}
_FLAGS = ("enabled", "gossip", "dht", "eclipse_protection")


DEFAULT_TTL = 1800.0
MATCHERS = ("hybrid", "lite")


@dataclass(frozen=True, slots=True)
class DiscoverySettings:
    enabled: bool = True
    ttl: float = DEFAULT_TTL
    republish: float = DEFAULT_TTL / 3
    gossip: bool = True
    dht: bool = True
    probes: int = 40
    ask: int = 2
    find_timeout: float = 10.0
    card_refresh: float = 60.0
    max_fetch: int = 64
    heartbeat: float = 1.0
    eclipse_protection: bool = True
    max_cards: int = 200_000
    matcher: str = "hybrid"
    index: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_section(cls, table: dict[str, Any]) -> DiscoverySettings:
        known = set(_NUMBERS) | set(_FLAGS) | {"index", "matcher"}
        unknown = sorted(set(table) - known)
        if unknown:
            raise ConfigError(f"unknown keys in [discovery]: {unknown} (known: {sorted(known)})")
        values: dict[str, Any] = {}
        for key, (kind, low, high) in _NUMBERS.items():
            if key in table:
                values[key] = _number(key, table[key], kind, low, high)
        for key in _FLAGS:
            if key in table:
                if not isinstance(table[key], bool):
                    raise ConfigError(f"[discovery].{key} must be true or false")
                values[key] = table[key]
        if "matcher" in table:
            if table["matcher"] not in MATCHERS:
                wanted = table["matcher"]
                raise ConfigError(f"[discovery].matcher must be one of {list(MATCHERS)}, not {wanted!r}")
            values["matcher"] = table["matcher"]
        if "index" in table:
            if not isinstance(table["index"], dict):
                raise ConfigError("[discovery].index must be a table")
            values["index"] = dict(table["index"])
        if "republish" not in values:
            values["republish"] = values.get("ttl", DEFAULT_TTL) / 3
        settings = cls(**values)
        if settings.republish >= settings.ttl:
            raise ConfigError(
                f"[discovery].republish ({settings.republish} s) must be shorter than "
                f"ttl ({settings.ttl} s), or cards would expire before their replacement is out"
            )
        return settings


#: The ``[agent]`` keys that hold lists of text (all optional).
LIST_FIELDS = ("skills", "task_types", "languages", "input_types", "output_types", "tools")


@dataclass(frozen=True, slots=True)
class AgentSettings:
    name: str
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ()
    adapter: str = ""
    languages: tuple[str, ...] = ()  # structured capability fields (card version 2, docs/protocol.md §9.1)
    input_types: tuple[str, ...] = ()
    output_types: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()

    @classmethod
    def from_section(cls, table: dict[str, Any], peer: PeerId) -> AgentSettings:
        # Other services (adapters, goals) keep their own keys in [agent]: unknown keys are theirs.
        values: dict[str, Any] = {}
        for key in ("name", "description", "adapter"):
            if key in table:
                if not isinstance(table[key], str):
                    raise ConfigError(f"[agent].{key} must be text")
                values[key] = table[key]
        for key in LIST_FIELDS:
            if key in table:
                value = table[key]
                if isinstance(value, str):
                    value = [value]
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(f"[agent].{key} must be a list of text")
                values[key] = tuple(value)
        if not values.get("name", "").strip():
            values["name"] = f"agent-{peer.short()}"
        return cls(**values)

    def with_changes(self, changes: dict[str, Any], peer: PeerId) -> AgentSettings:
        merged: dict[str, Any] = {"name": self.name, "description": self.description, "adapter": self.adapter}
        merged.update({key: list(getattr(self, key)) for key in LIST_FIELDS})
        merged.update(changes)
        return AgentSettings.from_section(merged, peer)


def _number(key: str, value: Any, kind: type, low: float, high: float) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"[discovery].{key} must be a number")
    if kind is int and not isinstance(value, int):
        raise ConfigError(f"[discovery].{key} must be an integer")
    if not low <= value <= high:
        raise ConfigError(f"[discovery].{key} must be between {low:g} and {high:g}, got {value}")
    return kind(value)


__all__ = ["AgentSettings", "DiscoverySettings"]
