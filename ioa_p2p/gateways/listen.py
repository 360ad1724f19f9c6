"""Where a gateway listens (pure parsing, then one bound socket): ``HOST:PORT`` and the rules of exposure.

A gateway listens on ``127.0.0.1`` unless the user chooses otherwise. Every request needs the gateway's
bearer token whatever the address; a token sent over plain HTTP to a non-loopback address can be read on
the way, so a non-loopback listen address needs TLS (a certificate and key) or an ``https://`` public URL
(TLS ended by a proxy in front): :func:`check_exposure` refuses it otherwise.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

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

    @property
    def family(self) -> socket.AddressFamily:
        return socket.AF_INET6 if ":" in self.host else socket.AF_INET

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


def check_exposure(listen: Listen, *, tls: bool, public_url: str | None, url_option: bool = True) -> None:
    """Refuse plain HTTP on a non-loopback address (the bearer token would cross the network in clear);
    ``url_option``: the command has ``--url`` (the URL of a TLS proxy in front)."""
    if listen.loopback or tls or (public_url or "").startswith("https://"):
        return
    proxy = ", or the https:// URL of the TLS proxy in front (--url)" if url_option else ""
    raise UsageError(
        f"listening on {listen} would send the bearer token over plain HTTP across the network: give a "
        f"TLS certificate and key (--tls-cert/--tls-key){proxy}, or listen on 127.0.0.1"
    )


def bind_socket(listen: Listen, what: str = "--listen") -> socket.socket:
    """A listening TCP socket on ``listen``; ConfigError (exit code 2) naming ``what`` when impossible."""
    host = "127.0.0.1" if listen.host == "localhost" else listen.host
    sock = socket.socket(listen.family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, listen.port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"{what} {listen}: cannot listen there: {exc.strerror or exc} (is another gateway running on "
            "this port?); choose another port, or 0 for any free one"
        ) from None
    return sock


__all__ = ["Listen", "bind_socket", "check_exposure", "check_listen"]
