"""Node configuration: ``$IOA_HOME`` (default ``~/.ioa``) and its ``config.toml``.

Files under ``$IOA_HOME``:

- ``node.key``       Ed25519 private key, PKCS#8 PEM, mode 0600 (:mod:`ioa_p2p.identity`)
- ``config.toml``    this configuration (``ioa init`` writes a commented template:
                     :func:`ioa_p2p.node.config_check.config_template`)
- ``node.json``      written by a running node: pid, peer ID, listen multiaddrs, control API port
- ``control.token``  random bearer token of the running node's control API, mode 0600

The ``[node]`` table is parsed here (by :func:`~ioa_p2p.config.sections.parse_section`, like every
table); every other table is handed to the service that owns it through
:meth:`NodeConfig.section` (``[agent]``, ``[discovery]``, ``[embedding]``, ``[llm]``, ...).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.errors import ConfigError

CONFIG_FILE_NAME = "config.toml"
NODE_INFO_FILE_NAME = "node.json"
TOKEN_FILE_NAME = "control.token"
DEFAULT_LISTEN = ("/ip4/127.0.0.1/tcp/0",)
_MULTIADDRS = "a multiaddr string or a list of them"
#: Environment variable naming more bootstrap peers (multiaddrs separated by commas or white space).
BOOTSTRAP_ENV = "IOA_BOOTSTRAP"


def ioa_home(explicit: str | Path | None = None) -> Path:
    """The node's home folder: ``explicit``, else ``$IOA_HOME``, else ``~/.ioa``."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("IOA_HOME")
    return Path(env).expanduser() if env else Path.home() / ".ioa"


@dataclass(frozen=True, slots=True)
class NodeConfig:
    home: Path
    listen: tuple[str, ...] = setting(DEFAULT_LISTEN, one_or_list=True, what=_MULTIADDRS)
    bootstrap: tuple[str, ...] = setting((), one_or_list=True, what=_MULTIADDRS)
    control_port: int = setting(0, low=0, high=65535, what="a TCP port 0..65535 (0: any free port)")
    #: Seconds between bootstrap dial retries start at this and double up to ``bootstrap_backoff_max``.
    bootstrap_backoff: float = setting(0.5, low=0, unit="seconds")
    bootstrap_backoff_max: float = setting(30.0, low=0, unit="seconds")
    #: Connections the node keeps to peers it learns from the DHT (see ``ioa_p2p.node.net.routing``).
    target_peers: int = setting(16, low=0)
    #: Longest gap between peer lookups once nothing changes (the full per-bucket refresh runs at this pace;
    #: a lost connection or a bootstrap reconnection starts a lookup at once).
    refresh_max: float = setting(600.0, low=1.0, high=86_400.0, unit="seconds")
    #: A file of bootstrap multiaddrs, one a line (``#`` comments); relative to the node's home.
    bootstrap_file: str | None = None
    #: Addresses to advertise besides the detected ones (a public address, a forwarded port, a DNS name).
    announce: tuple[str, ...] = setting((), one_or_list=True, what=_MULTIADDRS)
    #: "auto": find out with AutoNAT; "public" / "private": say so (docs/protocol.md, "Reachability").
    reachability: Literal["auto", "public", "private"] = "auto"
    #: Distinct peers that must agree (AutoNAT verdicts, observers of an address) before the node believes it.
    confirmations: int = setting(3, low=1, high=16)
    #: Find peers on the local network by multicast DNS (off by default).
    mdns: bool = False
    raw: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        """The raw TOML table ``[name]`` (an empty dict when absent)."""
        value = self.raw.get(name, {})
        if not isinstance(value, dict):
            raise ConfigError(f"[{name}] in {self.home / CONFIG_FILE_NAME} must be a table")
        return value

    def with_overrides(
        self,
        *,
        listen: tuple[str, ...] | None = None,
        bootstrap: tuple[str, ...] | None = None,
        sections: dict[str, dict[str, Any]] | None = None,
        bootstrap_file: str | None = None,
        announce: tuple[str, ...] | None = None,
    ) -> NodeConfig:
        raw = dict(self.raw)
        for name, values in (sections or {}).items():
            raw[name] = {**self.section(name), **values}
        return replace(
            self,
            listen=listen if listen else self.listen,
            bootstrap=self.bootstrap + tuple(bootstrap or ()),
            bootstrap_file=bootstrap_file or self.bootstrap_file,
            announce=self.announce + tuple(announce or ()),
            raw=raw,
        )

    @property
    def key_path(self) -> Path:
        return self.home / "node.key"

    @property
    def token_path(self) -> Path:
        return self.home / TOKEN_FILE_NAME


def resolve_bootstrap(config: NodeConfig, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every bootstrap multiaddr the node dials: ``[node].bootstrap`` (and ``--bootstrap``), then the
    lines of ``bootstrap_file``, then ``$IOA_BOOTSTRAP``; in that order, without duplicates."""
    environ = os.environ if environ is None else environ
    found = list(config.bootstrap)
    if config.bootstrap_file:
        found += read_bootstrap_file(config.home / Path(config.bootstrap_file).expanduser())
    found += environ.get(BOOTSTRAP_ENV, "").replace(",", " ").split()
    return tuple(dict.fromkeys(found))


def read_bootstrap_file(path: Path) -> list[str]:
    """Bootstrap multiaddrs of a list file: one a line; blank lines and ``#`` comments ignored."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"[node].bootstrap_file (or --bootstrap-file): cannot read {path}: {exc.strerror or exc}"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"[node].bootstrap_file: {path} is not UTF-8 text") from None
    out = []
    for line in text.splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            out.extend(entry.split())
    return out


def load_config(home: Path, *, path: Path | None = None) -> NodeConfig:
    """Read ``config.toml`` (or ``path``); a missing default file gives the defaults."""
    path = path or home / CONFIG_FILE_NAME
    if not path.exists():
        if path != home / CONFIG_FILE_NAME:
            raise ConfigError(f"config file {path} does not exist")
        return NodeConfig(home=home)
    return parse_config(home, read_toml(path, "config file"), source=str(path))


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """The parsed TOML file ``path``; ConfigError naming it as ``what`` ("config file", "agents file")
    when it cannot be read or is not valid TOML."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what} {path} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def parse_config(home: Path, raw: dict[str, Any], *, source: str = "config") -> NodeConfig:
    """The node's configuration from the parsed TOML ``raw``: the ``[node]`` table read into
    :class:`NodeConfig` by the section parser, every table kept in ``raw`` for its service."""
    raw = fold_adapter_table(raw, source)
    where = f"[node] of {source}"
    return parse_section(NodeConfig, raw.get("node"), where, given={"home": home, "raw": raw})


@dataclass(frozen=True, slots=True)
class AdapterTable:
    """The ``[adapter]`` table (``kind = ...``, ``[adapter.options]``), folded into ``[agent]``."""

    kind: str | None = None
    options: dict[str, Any] | None = None


def fold_adapter_table(raw: dict[str, Any], source: str = "config") -> dict[str, Any]:
    """``raw`` with an ``[adapter]`` table (``kind``, ``[adapter.options]``: the form ``ioa node start
    --adapter KIND`` pairs with) folded into ``[agent]`` (``adapter``, ``[agent.options]``), the one place
    the node reads. Saying the same thing twice differently is a ConfigError."""
    if raw.get("adapter") is None:
        return raw
    table = parse_section(AdapterTable, raw["adapter"], f"[adapter] of {source}")
    agent = raw.get("agent", {})
    if not isinstance(agent, dict):
        raise ConfigError(f"[agent] in {source} must be a table")
    agent = dict(agent)
    if table.kind is not None:
        if agent.get("adapter", table.kind) != table.kind:
            raise ConfigError(f"{source} names two adapters: [agent].adapter and [adapter].kind; keep one")
        agent["adapter"] = table.kind
    if table.options is not None:
        if "options" in agent:
            raise ConfigError(f"{source} has both [agent.options] and [adapter.options]; keep one")
        agent["options"] = table.options
    folded = {k: v for k, v in raw.items() if k != "adapter"}
    folded["agent"] = agent
    return folded


__all__ = [
    "BOOTSTRAP_ENV",
    "NodeConfig",
    "ioa_home",
    "load_config",
    "parse_config",
    "read_bootstrap_file",
    "resolve_bootstrap",
]
