"""Node configuration: ``$IOA_HOME`` (default ``~/.ioa``) and its ``config.toml``.

Files under ``$IOA_HOME``:

- ``node.key``       Ed25519 private key, PKCS#8 PEM, mode 0600 (:mod:`ioa_p2p.identity`)
- ``config.toml``    this configuration (created by ``ioa init``)
- ``node.json``      written by a running node: pid, peer ID, listen multiaddrs, control API port
- ``control.token``  random bearer token of the running node's control API, mode 0600

The ``[node]`` table is parsed here; every other table is handed to the service that owns it through
:meth:`NodeConfig.section` (``[agent]``, ``[discovery]``, ``[embedding]``, ``[llm]``, ...).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import tomli_w

from ioa_p2p.errors import AlreadyExists, ConfigError

CONFIG_FILE_NAME = "config.toml"
NODE_INFO_FILE_NAME = "node.json"
TOKEN_FILE_NAME = "control.token"
DEFAULT_LISTEN = ("/ip4/127.0.0.1/tcp/0",)


def ioa_home(explicit: str | Path | None = None) -> Path:
    """The node's home folder: ``explicit``, else ``$IOA_HOME``, else ``~/.ioa``."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("IOA_HOME")
    return Path(env).expanduser() if env else Path.home() / ".ioa"


@dataclass(frozen=True, slots=True)
class NodeConfig:
    home: Path
    listen: tuple[str, ...] = DEFAULT_LISTEN
    bootstrap: tuple[str, ...] = ()
    control_port: int = 0
    #: Seconds between bootstrap dial retries start at this and double up to ``bootstrap_backoff_max``.
    bootstrap_backoff: float = 0.5
    bootstrap_backoff_max: float = 30.0
    #: Connections the node keeps to peers it learns from the DHT (see ``ioa_p2p.node.net.routing``).
    target_peers: int = 16
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
    ) -> NodeConfig:
        raw = dict(self.raw)
        for name, values in (sections or {}).items():
            raw[name] = {**self.section(name), **values}
        return replace(
            self,
            listen=listen if listen else self.listen,
            bootstrap=self.bootstrap + tuple(bootstrap or ()),
            raw=raw,
        )

    @property
    def key_path(self) -> Path:
        return self.home / "node.key"

    @property
    def node_info_path(self) -> Path:
        return self.home / NODE_INFO_FILE_NAME

    @property
    def token_path(self) -> Path:
        return self.home / TOKEN_FILE_NAME


def load_config(home: Path, *, path: Path | None = None) -> NodeConfig:
    """Read ``config.toml`` (or ``path``); a missing default file gives the defaults."""
    path = path or home / CONFIG_FILE_NAME
    if not path.exists():
        if path != home / CONFIG_FILE_NAME:
            raise ConfigError(f"config file {path} does not exist")
        return NodeConfig(home=home)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    return parse_config(home, raw, source=str(path))


def parse_config(home: Path, raw: dict[str, Any], *, source: str = "config") -> NodeConfig:
    node = raw.get("node", {})
    if not isinstance(node, dict):
        raise ConfigError(f"[node] in {source} must be a table")
    known = {
        "listen",
        "bootstrap",
        "control_port",
        "bootstrap_backoff",
        "bootstrap_backoff_max",
        "target_peers",
    }
    unknown = sorted(set(node) - known)
    if unknown:
        raise ConfigError(f"unknown keys in [node] of {source}: {unknown} (known: {sorted(known)})")
    return NodeConfig(
        home=home,
        listen=_str_list(node, "listen", DEFAULT_LISTEN, source),
        bootstrap=_str_list(node, "bootstrap", (), source),
        control_port=_port(node, "control_port", source),
        bootstrap_backoff=_number(node, "bootstrap_backoff", 0.5, source, float),
        bootstrap_backoff_max=_number(node, "bootstrap_backoff_max", 30.0, source, float),
        target_peers=_number(node, "target_peers", 16, source, int),
        raw=raw,
    )


def _str_list(table: dict[str, Any], key: str, default: tuple[str, ...], source: str) -> tuple[str, ...]:
    value = table.get(key, list(default))
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[node].{key} in {source} must be a list of multiaddr strings")
    return tuple(value)


def _number(table: dict[str, Any], key: str, default: Any, source: str, kind: type) -> Any:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"[node].{key} in {source} must be a non-negative number")
    if kind is int and not isinstance(value, int):
        raise ConfigError(f"[node].{key} in {source} must be an integer")
    return kind(value)


def _port(table: dict[str, Any], key: str, source: str) -> int:
    value = _number(table, key, 0, source, int)
    if value > 65535:
        raise ConfigError(
            f"[node].{key} in {source} must be a TCP port 0..65535 (0: any free port), not {value}"
        )
    return int(value)


def default_config_dict(name: str) -> dict[str, Any]:
    return {
        "node": {"listen": list(DEFAULT_LISTEN), "bootstrap": [], "control_port": 0},
        "agent": {"name": name, "description": "", "skills": []},
        "embedding": {"backend": "wordllama"},
    }


def write_default_config(home: Path, *, name: str, force: bool = False) -> Path:
    path = home / CONFIG_FILE_NAME
    if path.exists() and not force:
        raise AlreadyExists(f"config file {path} exists; pass --force to replace it")
    home.mkdir(parents=True, exist_ok=True)
    text = (
        "# ioa-p2p node configuration. Listen on a non-loopback address to accept peers from the network.\n"
        + tomli_w.dumps(default_config_dict(name))
    )
    path.write_text(text, encoding="utf-8")
    return path


__all__ = ["NodeConfig", "ioa_home", "load_config", "parse_config", "write_default_config"]
