"""TCP dials from the listen port (hole punching) that close their socket however they fail.

py-libp2p 0.8.1's ``libp2p.transport.tcp.tcp._open_tcp_stream_from`` (behind
``TCP.dial_with_source``, which DCUtR uses so that the SYN leaves from the listen port) closes its
socket only when ``bind`` or ``connect`` raise ``OSError``. A dial cancelled there (a hole punch's
losing or timed-out attempt; trio's ``bind`` checks for cancellation before binding) left the socket
to the garbage collector: ``ResourceWarning: unclosed <socket ... laddr=('0.0.0.0', 0)>``, raised in
whatever frame the collector happened to run (ours too, where warnings are errors).
:func:`close_source_dials_on_failure` puts :func:`open_tcp_stream_from` in its place: the same dial,
the socket closed on every failure, cancellation included. ``tests/test_libp2p_patches_nat.py`` checks
that upstream's function still exists and still leaks a cancelled dial's socket.
"""

from __future__ import annotations

import socket
from typing import Any

import trio
from libp2p.transport.exceptions import OpenConnectionError

#: py-libp2p's own ``_open_tcp_stream_from``, once replaced (for the patch's test)
_upstream: Any = None


def close_source_dials_on_failure() -> None:
    """Install :func:`open_tcp_stream_from` in py-libp2p's TCP transport (idempotent, process-wide)."""
    global _upstream
    import libp2p.transport.tcp.tcp as tcp

    current = getattr(tcp, "_open_tcp_stream_from", None)
    if current is None or not hasattr(tcp, "_set_reuse_flags"):
        raise RuntimeError(
            "py-libp2p's TCP transport has no _open_tcp_stream_from any more: "
            "revisit ioa_p2p.node.net.source_dial"
        )
    if current is not open_tcp_stream_from:
        _upstream = current
        tcp._open_tcp_stream_from = open_tcp_stream_from


def upstream_open_tcp_stream_from() -> Any:
    """py-libp2p's own dial from a source port, replaced or not."""
    import libp2p.transport.tcp.tcp as tcp

    return _upstream or tcp._open_tcp_stream_from


async def open_tcp_stream_from(host: str, port: int, source: tuple[str, int]) -> trio.SocketStream:
    """A TCP stream to ``host:port`` from ``source`` (ip, port): upstream's dial from the listen port
    (an ephemeral port where the platform cannot share it), its socket closed on any failure."""
    from libp2p.transport.tcp.tcp import _set_reuse_flags

    src_ip, src_port = source
    if (":" in src_ip) != (":" in host):
        raise OpenConnectionError(f"Source/destination IP family mismatch: {src_ip} vs {host}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = trio.socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:
        raise OpenConnectionError(f"Failed to create TCP socket: {exc}") from exc
    try:
        _set_reuse_flags(sock)
        try:
            await sock.bind((src_ip, src_port))
        except OSError:  # the listen port cannot be shared here: direct dials work, punching does not
            sock.close()
            return await trio.open_tcp_stream(host, port)
        await sock.connect((host, port))
    except OSError as exc:
        sock.close()
        raise OpenConnectionError(f"Failed to connect {host}:{port} from {src_ip}:{src_port}: {exc}") from exc
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


__all__ = ["close_source_dials_on_failure", "open_tcp_stream_from", "upstream_open_tcp_stream_from"]
