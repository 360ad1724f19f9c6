"""The nodes of a local testnet as specs, and the ``config.toml`` each becomes (pure).

- :class:`NodeSpec`: a node's name (its home folder), its config tables, its ``ioa node start`` arguments;
- :func:`node_config`: the ``config.toml`` of one node (local defaults, then the spec's tables);
- :func:`shared_config`: the ``config.toml`` of one process that runs several agents (``per_process``);
- :func:`check_specs`: names that are folder names, and unique.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ioa_p2p.errors import UsageError

BOOTSTRAP_NAME = "bootstrap"
LOCAL_LISTEN = "/ip4/127.0.0.1/tcp/0"


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One testnet node: its ``name`` (also its home folder), ``config`` tables merged into its
    ``config.toml`` (``{"agent": {...}, "relay": {...}, ...}``), and extra ``ioa node start`` arguments."""

    name: str
    config: Mapping[str, Any] = field(default_factory=dict)
    args: tuple[str, ...] = ()


def node_config(spec: NodeSpec, bootstrap: Sequence[str], *, is_bootstrap: bool = False) -> dict[str, Any]:
    """The ``config.toml`` content of a testnet node (pure): local defaults, then ``spec.config``
    merged table by table."""
    base: dict[str, Any] = {
        "node": {
            "listen": [LOCAL_LISTEN],
            "bootstrap": list(bootstrap),
            "bootstrap_backoff": 0.2,
            "bootstrap_backoff_max": 5.0,
        }
    }
    if not is_bootstrap:
        base["agent"] = {"name": spec.name}
    for table, values in spec.config.items():
        if isinstance(values, Mapping) and isinstance(base.get(table), dict):
            base[table] = {**base[table], **values}
        else:
            base[table] = values
    return base


def check_specs(specs: Sequence[NodeSpec], *, bootstrap: bool) -> None:
    names = [s.name for s in specs] + ([BOOTSTRAP_NAME] if bootstrap else [])
    for name in names:
        if not name or name in (".", "..") or "/" in name or name != name.strip():
            raise UsageError(f"testnet node name {name!r} cannot be a folder name")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise UsageError(f"testnet node names must be unique; repeated: {duplicates}")


def shared_config(
    specs: Sequence[NodeSpec], homes: Sequence[Path], bootstrap: Sequence[str]
) -> dict[str, Any]:
    """The ``config.toml`` of a process that runs the agents of ``specs`` (pure): the tables they share and
    an ``[[agents]]`` entry each (its ``[agent]`` table, its home). UsageError when they differ in another
    table or in their ``ioa node start`` arguments."""
    configs = [node_config(spec, bootstrap) for spec in specs]
    common = {table: value for table, value in configs[0].items() if table != "agent"}
    for spec, config in zip(specs, configs, strict=True):
        if {t: v for t, v in config.items() if t != "agent"} != common or spec.args != specs[0].args:
            raise UsageError(
                f"testnet nodes {specs[0].name!r} and {spec.name!r} share a process (per_process) but differ "
                "in a table other than [agent] or in their arguments"
            )
    agents = [{**config["agent"], "home": str(home)} for config, home in zip(configs, homes, strict=True)]
    return {**common, "agents": agents}


__all__ = ["BOOTSTRAP_NAME", "LOCAL_LISTEN", "NodeSpec", "check_specs", "node_config", "shared_config"]
