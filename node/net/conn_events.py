"""Why connections open and close: a counter per node, by direction and reason (``GET /net``'s
``connections``; issue 25).

A node that keeps re-making connections pays a Noise handshake, identify and GossipSub's subscription
exchange on both sides each time; at 50 node processes on 2 cores that was most of an idle network's CPU
(docs/performance.md, "Gossip + DHT at N = 50"). These counters say which side ended each connection and
why, from the muxer's own account:

- ``opened``: ``inbound`` / ``outbound`` (the swarm's ``add_conn``);
- ``refused``: a connection the swarm would not register (its connection limits), by exception;
- ``closed``: the first reason the connection's yamux session saw: ``remote closed`` (end of stream
  between frames: the peer or its kernel closed the socket), ``remote closed mid-frame`` (the peer's
  end of stream came inside a Noise message: it gave up a write half sent), ``short reads`` (no end of
  stream at all: py-libp2p's ``read_exactly`` gave up after 100 short reads of a message still
  arriving; the socket was open), ``remote GO_AWAY <code>``, ``read error <type>`` (a reset socket, a
  Noise frame that failed to decrypt), ``frame body timeout``, or ``local`` followed by who asked (the
  code path that called close: a node shutting down, the swarm's pruner, ``stuck write`` for a session
  :mod:`.atomic_writes` gave up, ``socket closed`` for a socket closed under the muxer by other code).
- ``recent``: the last :data:`RECENT` closes, each with the peer, the direction, the connection's age,
  the protocols of its open streams, both TCP addresses (the other node's record of the same
  connection has them swapped: which side ended it) and, for an end inside a message, its bytes.

Installed by :func:`watch_connections` (per host) over two process-wide wraps of py-libp2p's ``Yamux``
(:func:`_patch_yamux`, once): ``close`` and ``_cleanup_on_error`` note a reason on the session before
they run. Only sessions registered through a watched swarm are counted (``_ioa_conn_events``).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import logging
import socket as socket_module
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import trio

log = logging.getLogger("ioa_p2p.node.net.conn_events")

#: Frames of these files are the close machinery itself, not who asked for the close.
_MACHINERY = ("yamux.py", "swarm_connection.py", "conn_events.py")
#: yamux frame type of GO_AWAY and its error codes (the spec's names).
_GO_AWAY = 3
_GO_AWAY_CODES = {0: "normal", 1: "protocol error", 2: "internal error", 3: "garbage collected"}
#: Distinct reasons kept per counter (a hostile or buggy peer cannot grow the map without bound).
MAX_REASONS = 64
#: Closes kept with their details (``recent``).
RECENT = 32
#: Attributes leading from a py-libp2p connection down to its TCP stream (SwarmConn -> Yamux -> Noise
#: session -> its packet reader -> RawConnection -> TrioTCPStream -> trio.SocketStream), and our wrappers'.
TRANSPORT_ATTRS = (
    "muxed_conn",
    "secured_conn",
    "conn",
    "read_writer",
    "read_write_closer",
    "stream",
    "_inner",
)
#: Set on a secure session by code that closes it under its muxer (:mod:`.atomic_writes`): the reason.
ABANDONED = "_ioa_abandoned"


class ConnectionEvents:
    """Counters of one node's connections: opened by direction, closed and refused by reason."""

    def __init__(self) -> None:
        self.opened: collections.Counter[str] = collections.Counter()
        self.closed: collections.Counter[str] = collections.Counter()
        self.refused: collections.Counter[str] = collections.Counter()
        self.recent: collections.deque[dict[str, Any]] = collections.deque(maxlen=RECENT)
        #: told ``(session, reason)`` of every counted close, and the peer ID of every opened connection
        #: (:mod:`.stale_contacts`); a listener that raises is logged, never the close path's failure
        self.close_listeners: list[Callable[[Any, str], None]] = []
        self.open_listeners: list[Callable[[Any], None]] = []

    def note_open(self, direction: str) -> None:
        self.opened[direction if direction in ("inbound", "outbound") else "unknown"] += 1

    def note_close(self, reason: str, details: dict[str, Any] | None = None) -> None:
        _count(self.closed, reason)
        if details is not None:
            self.recent.append({"reason": reason, **details})

    def note_refused(self, reason: str) -> None:
        _count(self.refused, reason)

    def snapshot(self) -> dict[str, Any]:
        """``{"opened": {...}, "closed": {...}, "refused": {...}, "open": n}`` (most frequent first)."""
        opened, closed = sum(self.opened.values()), sum(self.closed.values())
        return {
            "open": max(0, opened - closed),
            "opened": dict(self.opened.most_common()),
            "closed": dict(self.closed.most_common()),
            "refused": dict(self.refused.most_common()),
            "recent": list(self.recent),
        }


def _count(counter: collections.Counter[str], reason: str) -> None:
    if reason not in counter and len(counter) >= MAX_REASONS:
        reason = "other"
    counter[reason] += 1


def watch_connections(
    host: Any, events: ConnectionEvents, on_open: Callable[[Any], None] | None = None
) -> None:
    """Count ``host``'s connections in ``events`` (call before the host listens or dials); ``on_open``
    is told the (py-libp2p) peer ID of every connection the swarm registered."""
    _patch_yamux()
    network = host.get_network()
    upstream = network.add_conn

    async def add_conn(muxed_conn: Any, direction: str = "unknown", *args: Any, **kwargs: Any) -> Any:
        muxed_conn._ioa_conn_events = events
        muxed_conn._ioa_opened = (str(direction), trio.current_time())
        try:
            swarm_conn = await upstream(muxed_conn, direction, *args, **kwargs)
        except Exception as exc:
            events.note_refused(f"{type(exc).__name__}: {str(exc)[:60]}")
            raise
        muxed_conn._ioa_swarm_conn = swarm_conn
        muxed_conn._ioa_addrs = _addresses(muxed_conn)  # the socket may be gone by the close
        events.note_open(direction)
        if on_open is not None:
            on_open(muxed_conn.peer_id)
        _tell(events.open_listeners, muxed_conn.peer_id)
        return swarm_conn

    add_conn.metered = getattr(upstream, "metered", False)  # type: ignore[attr-defined]
    network.add_conn = add_conn


def _patch_yamux() -> None:
    """Wrap ``Yamux.close`` and ``Yamux._cleanup_on_error`` (process-wide, once) to note the first
    reason a session ends on the session and count it in its node's :class:`ConnectionEvents`."""
    from libp2p.stream_muxer.yamux.yamux import Yamux

    if getattr(Yamux.close, "ioa_watched", False):
        return
    close, cleanup = Yamux.close, Yamux._cleanup_on_error

    @functools.wraps(close)
    async def watched_close(self: Any, *args: Any, **kwargs: Any) -> None:
        caller = sys._getframe(1)
        _note(self, lambda: f"local: {_asker(caller)}")
        await close(self, *args, **kwargs)

    @functools.wraps(cleanup)
    async def watched_cleanup(self: Any) -> None:
        caller, exc = sys._getframe(1), sys.exc_info()[1]
        _note(self, lambda: _failure(caller, exc, self), exc)
        await cleanup(self)

    watched_close.ioa_watched = True  # type: ignore[attr-defined]
    Yamux.close = watched_close  # type: ignore[method-assign]
    Yamux._cleanup_on_error = watched_cleanup  # type: ignore[method-assign]


def _note(session: Any, reason: Any, exc: BaseException | None = None) -> None:
    """Count the session's first end (later calls on a session already ending add nothing)."""
    if getattr(session, "_ioa_close_reason", None) is not None or session.event_closed.is_set():
        return
    session._ioa_close_reason = text = reason()
    events = getattr(session, "_ioa_conn_events", None)
    if events is not None:
        events.note_close(text, _details(session, exc))
        _tell(events.close_listeners, session, text)


def _tell(listeners: list[Callable[..., None]], *args: Any) -> None:
    for listener in listeners:
        try:
            listener(*args)
        except Exception as exc:  # a listener's bug is not the connection's
            log.warning("connection listener %r failed: %r", listener, exc)


def _details(session: Any, exc: BaseException | None) -> dict[str, Any]:
    """What ``recent`` keeps of a close: who, which way, how old, doing what, where, and how far into a
    message it ended (best effort: a connection that cannot tell leaves a key out)."""
    direction, opened = getattr(session, "_ioa_opened", ("unknown", None))
    out: dict[str, Any] = {"peer": str(getattr(session, "peer_id", ""))[-8:], "direction": direction}
    if opened is not None:
        out["age_s"] = round(trio.current_time() - opened, 2)
    swarm_conn = getattr(session, "_ioa_swarm_conn", None)
    with _quiet():
        protocols = sorted(str(s.get_protocol()) for s in list(getattr(swarm_conn, "streams", ())))
        out["streams"] = protocols[:16]
    out.update(getattr(session, "_ioa_addrs", None) or _addresses(session))
    if exc is not None and type(exc).__name__ == "IncompleteReadError":
        out["bytes"] = [int(getattr(exc, "received_bytes", 0)), int(getattr(exc, "expected_bytes", 0))]
    return out


def _quiet() -> contextlib.suppress:
    """Suppress what a half-torn-down connection raises while its details are read."""
    return contextlib.suppress(Exception)


def _addresses(session: Any) -> dict[str, str]:
    """``local`` and ``remote`` ``ip:port`` of the TCP socket under a session (what it can tell)."""
    out: dict[str, str] = {}
    sock = socket_of(session)
    if sock is not None and sock.fileno() != -1:
        with _quiet():
            out["local"] = "{}:{}".format(*sock.getsockname()[:2])
        with _quiet():  # a reset socket no longer has a peer name
            out["remote"] = "{}:{}".format(*sock.getpeername()[:2])
    return out


def socket_of(conn: Any) -> Any:
    """The TCP socket under a py-libp2p connection or any layer of it (a yamux session...); None: not found,
    e.g. a relayed connection."""
    obj, seen = conn, 0
    while obj is not None and seen < 12:
        if isinstance(obj, trio.SocketStream):
            return obj.socket
        obj = next((getattr(obj, a) for a in TRANSPORT_ATTRS if getattr(obj, a, None) is not None), None)
        seen += 1
    return None


def _socket_state(session: Any) -> str:
    """Whether the peer ended the TCP stream: ``eof``, ``open`` (no end of stream: nothing or more data
    waiting), ``closed`` (closed here, under the muxer) or ``unknown``."""
    sock = socket_of(session)
    if sock is None:
        return "unknown"
    if sock.fileno() == -1:
        return "closed"
    try:  # a duplicate of the descriptor: trio's socket reads only asynchronously
        with socket_module.fromfd(sock.fileno(), sock.family, sock.type) as dup:
            peeked = dup.recv(1, socket_module.MSG_PEEK | socket_module.MSG_DONTWAIT)
    except BlockingIOError:
        return "open"
    except OSError:
        return "eof"  # reset by the peer: ended too
    return "eof" if peeked == b"" else "open"


def _asker(frame: FrameType | None) -> str:
    """The first two callers outside the close machinery: ``module.function < module.function``."""
    names: list[str] = []
    while frame is not None and len(names) < 2:
        file = Path(frame.f_code.co_filename).name
        if file not in _MACHINERY:
            names.append(f"{Path(file).stem}.{frame.f_code.co_name}")
        frame = frame.f_back
    return " < ".join(names) or "unknown"


def _failure(frame: FrameType | None, exc: BaseException | None, session: Any = None) -> str:
    """Why yamux's read loop gave up: the exception it handles, or the frame it just read."""
    abandoned = getattr(getattr(session, "secured_conn", None), ABANDONED, None)
    if abandoned:
        return f"local: {abandoned}"
    if exc is not None:
        name = type(exc).__name__
        if name == "IncompleteReadError":
            state = _socket_state(session)
            if state == "closed":
                return "local: socket closed"
            if state == "open":
                return "short reads"
            return "remote closed" if getattr(exc, "is_clean_close", False) else "remote closed mid-frame"
        if name == "TooSlowError":
            return "frame body timeout"
        return f"read error {name}"
    local = frame.f_locals if frame is not None else {}
    if local.get("typ") == _GO_AWAY:
        code = local.get("error_code")
        return f"remote GO_AWAY {_GO_AWAY_CODES.get(code, code) if isinstance(code, int) else '?'}"
    if "header" in local and len(local.get("header") or b"") != 12:
        return "short header"
    return "oversized frame" if local.get("typ") == 0 else "muxer error"


__all__ = [
    "ABANDONED",
    "MAX_REASONS",
    "RECENT",
    "TRANSPORT_ATTRS",
    "ConnectionEvents",
    "socket_of",
    "watch_connections",
]
