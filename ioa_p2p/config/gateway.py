"""The gateways' settings (pure): listen addresses, the rule of exposure, and the ``[a2a]`` table.

A gateway (``ioa a2a serve``, ``ioa mcp --http``; docs/gateways.md) listens on ``127.0.0.1`` unless the
user chooses otherwise. Every request needs the gateway's bearer token whatever the address; a token sent
over plain HTTP to a non-loopback address can be read on the way, so a non-loopback listen address needs
TLS (a certificate and key) or an ``https://`` public URL (TLS ended by a proxy in front):
:func:`check_exposure` refuses it otherwise. Binding the socket is the gateways' own
(:mod:`ioa_p2p.gateways.listen`).

The ``[a2a]`` table of ``config.toml``: the A2A gateway (``ioa a2a serve``, or started with the node)::

    [a2a]
    enabled = true                 # start the gateway with `ioa node start` (default: false)
    listen = "127.0.0.1:8470"      # HOST:PORT (default; 0 as the port: any free port)
    url = "https://agents.example.org/"  # the public URL in the agent card (default: http://<listen>/)
    token_file = "/path/a2a.token" # default: $IOA_HOME/a2a.token (made on first use, mode 0600)
    tls_cert = "/path/cert.pem"    # serve HTTPS (both or neither)
    tls_key = "/path/key.pem"
    max_tasks = 512                # tasks kept (finished ones are forgotten oldest first)
    max_running = 16               # tasks running at once
    max_streams = 64               # open streams and waiting calls at once
    max_bytes = 67108864           # bytes of task histories kept, in total

The command's options (``--listen``, ``--url``, ``--token-file``, ``--tls-cert``, ``--tls-key``) override
the table. docs/gateways.md explains the limits and the security rules.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.errors import ConfigError, UsageError


@dataclass(frozen=True, slots=True)
class Listen:
    """A TCP address to listen on: ``host`` (an IP address or ``localhost``) and ``port`` (0: any free)."""

    host: str
    port: int

    @classmethod
    def parse(cls, text: str, what: str = "--listen") -> Listen:
        """``HOST:PORT`` (``[::1]:PORT`` for IPv6); UsageError naming ``what`` otherwise."""
        host, sep, port = text.strip().rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
        if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise UsageError(f"{what} must be HOST:PORT (port 0..65535, 0: any free port), not {text!r}")
        if host != "localhost":
            try:
                ipaddress.ip_address(host)
            except ValueError:
                raise UsageError(f"{what}: {host!r} is not an IP address (or localhost)") from None
        return cls(host, int(port))

    @property
    def loopback(self) -> bool:
        return self.host == "localhost" or ipaddress.ip_address(self.host).is_loopback

    def url(self, port: int | None = None, *, tls: bool = False) -> str:
        """``http(s)://host:port/`` (for a wildcard address, the loopback one: a local client's view)."""
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        host = f"[{host}]" if ":" in host else host
        return f"{'https' if tls else 'http'}://{host}:{self.port if port is None else port}/"

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def check_listen(text: str) -> str | None:
    """The config check of a ``listen`` key: None when ``text`` is HOST:PORT, else the problem."""
    try:
        Listen.parse(text)
    except UsageError as exc:
        return str(exc).removeprefix("--listen ")
    return None


def exposed(listen: Listen, *, tls: bool, public_url: str | None) -> bool:
    """Whether serving on ``listen`` would send the token over plain HTTP across a network."""
    return not (listen.loopback or tls or (public_url or "").startswith("https://"))


def check_exposure(listen: Listen, *, tls: bool, public_url: str | None, url_option: bool = True) -> None:
    """Refuse plain HTTP on a non-loopback address (UsageError naming the command's options);
    ``url_option``: the command has ``--url`` (the URL of a TLS proxy in front)."""
    if not exposed(listen, tls=tls, public_url=public_url):
        return
    proxy = ", or the https:// URL of the TLS proxy in front (--url)" if url_option else ""
    raise UsageError(
        f"listening on {listen} would send the bearer token over plain HTTP across the network: give a "
        f"TLS certificate and key (--tls-cert/--tls-key){proxy}, or listen on 127.0.0.1"
    )


DEFAULT_A2A_LISTEN = "127.0.0.1:8470"
A2A_TOKEN_FILE = "a2a.token"
MCP_TOKEN_FILE = "mcp.token"


def _check_url(value: str) -> str | None:
    if value.startswith(("http://", "https://")) and len(value) > len("https://"):
        return None
    return f"must be an http:// or https:// URL, not {value!r}"


@dataclass(frozen=True, slots=True)
class A2ASettings:
    """The A2A gateway's settings (see the module docstring)."""

    enabled: bool = False
    listen: str = setting(DEFAULT_A2A_LISTEN, check=check_listen, what="HOST:PORT")
    url: str | None = setting(None, check=_check_url)
    token_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    max_tasks: int = setting(512, low=1, high=100_000)
    max_running: int = setting(16, low=1, high=10_000)
    max_streams: int = setting(64, low=1, high=100_000)
    max_bytes: int = setting(64 << 20, low=1 << 20, high=1 << 34)

    @classmethod
    def from_section(cls, table: Any, where: str = "[a2a]") -> A2ASettings:
        settings = parse_section(cls, table, where)
        if (settings.tls_cert is None) != (settings.tls_key is None):
            raise ConfigError(f"{where}: give both tls_cert and tls_key, or neither")
        if settings.max_running > settings.max_tasks:
            raise ConfigError(f"{where}.max_running ({settings.max_running}) exceeds max_tasks")
        return settings

    def with_options(self, **options: Any) -> A2ASettings:
        """These settings with the command's options that were given (None: keep the table's)."""
        given = {k: v for k, v in options.items() if v is not None}
        merged = replace(self, **given)
        return A2ASettings.from_section(
            {k: getattr(merged, k) for k in merged.__dataclass_fields__ if getattr(merged, k) is not None},
            "the a2a options",
        )

    @property
    def listen_at(self) -> Listen:
        return Listen.parse(self.listen, "[a2a].listen")

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None

    def check_exposure(self, where: str = "[a2a]") -> None:
        """ConfigError when these settings would serve plain HTTP off the loopback (the table's keys
        named); :func:`check_exposure` says it in the command's options."""
        if exposed(self.listen_at, tls=self.tls, public_url=self.url):
            raise ConfigError(
                f"{where}.listen = {self.listen!r} would send the bearer token over plain HTTP across the "
                "network: set tls_cert and tls_key, or url = the https:// URL of the TLS proxy in front, "
                "or listen on 127.0.0.1"
            )

    def token_path(self, home: Path) -> Path:
        return Path(self.token_file).expanduser() if self.token_file else home / A2A_TOKEN_FILE


__all__ = [
    "A2A_TOKEN_FILE",
    "DEFAULT_A2A_LISTEN",
    "MCP_TOKEN_FILE",
    "A2ASettings",
    "Listen",
    "check_exposure",
    "check_listen",
    "exposed",
]
