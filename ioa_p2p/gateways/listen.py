"""Binding a gateway's listening socket (the addresses and the rule of exposure are pure:
:mod:`ioa_p2p.config.gateway`)."""

from __future__ import annotations

import socket

from ioa_p2p.config.gateway import Listen
from ioa_p2p.errors import ConfigError


def bind_socket(listen: Listen, what: str = "--listen") -> socket.socket:
    """A listening TCP socket on ``listen``; ConfigError (exit code 2) naming ``what`` when impossible."""
    host = "127.0.0.1" if listen.host == "localhost" else listen.host
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
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


__all__ = ["bind_socket"]
