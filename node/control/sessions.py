"""Dashboard sessions: one-time login codes, cookie sessions and their CSRF tokens (no I/O).

A browser cannot send the control token as a header on every request (an ``EventSource`` sends none), and
a token must never sit in a URL, a log or the browser history. So the token (or a one-time code that a
holder of the token asked for: ``POST /ui/code``, what ``ioa ui`` prints) is exchanged once for a session:
a random cookie value (HttpOnly, SameSite=Strict, named after the control port, since cookies do not
tell ports apart) and a CSRF token that the page sends as the ``X-IoA-CSRF`` header with every request that
changes state. Everything here is bounded: at most :data:`MAX_CODES` live codes and :data:`MAX_SESSIONS`
sessions (the least recently used goes first), codes die after :data:`CODE_TTL` seconds or one use,
sessions after :data:`SESSION_IDLE` seconds unused, and failed exchanges are throttled in total
(:data:`MAX_FAILURES` per :data:`FAILURE_WINDOW` seconds), not per client.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

COOKIE_PREFIX = "ioa_session_"
CSRF_HEADER = "x-ioa-csrf"
CODE_TTL = 120.0
SESSION_IDLE = 12 * 3600.0
MAX_CODES = 16
MAX_SESSIONS = 32
MAX_FAILURES = 20
FAILURE_WINDOW = 60.0


def _digest(secret: str) -> bytes:
    """Sessions and codes are looked up by a hash of the secret, never by the secret itself."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()


@dataclass(slots=True)
class Session:
    csrf: str
    last_used: float


@dataclass(slots=True)
class Sessions:
    """The live login codes and sessions of one control server (see the module docstring)."""

    clock: Callable[[], float] = time.monotonic
    _codes: OrderedDict[bytes, float] = field(default_factory=OrderedDict)
    _sessions: OrderedDict[bytes, Session] = field(default_factory=OrderedDict)
    _failures: deque[float] = field(default_factory=deque)

    def issue_code(self) -> str:
        """A fresh one-time code (the oldest live code is dropped beyond :data:`MAX_CODES`)."""
        self._expire()
        code = secrets.token_urlsafe(24)
        self._codes[_digest(code)] = self.clock() + CODE_TTL
        while len(self._codes) > MAX_CODES:
            self._codes.popitem(last=False)
        return code

    def redeem(self, code: str) -> bool:
        """Whether ``code`` is a live code; it is spent either way."""
        self._expire()
        return self._codes.pop(_digest(code), None) is not None

    def open(self) -> tuple[str, Session]:
        """A new session: its cookie value and the session (with its CSRF token)."""
        self._expire()
        value = secrets.token_urlsafe(32)
        session = Session(secrets.token_urlsafe(24), self.clock())
        self._sessions[_digest(value)] = session
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return value, session

    def find(self, value: str) -> Session | None:
        """The live session of a cookie value (and mark it used), or None."""
        key = _digest(value)
        session = self._sessions.get(key)
        if session is None:
            return None
        now = self.clock()
        if now - session.last_used > SESSION_IDLE:
            del self._sessions[key]
            return None
        session.last_used = now
        self._sessions.move_to_end(key)
        return session

    def close(self, value: str) -> None:
        self._sessions.pop(_digest(value), None)

    def throttled(self) -> bool:
        """Whether too many exchanges failed lately (for everyone: identities are free)."""
        horizon = self.clock() - FAILURE_WINDOW
        while self._failures and self._failures[0] < horizon:
            self._failures.popleft()
        return len(self._failures) >= MAX_FAILURES

    def failed(self) -> None:
        self._failures.append(self.clock())

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, deadline in self._codes.items() if deadline < now]:
            del self._codes[key]
        for key in [k for k, s in self._sessions.items() if now - s.last_used > SESSION_IDLE]:
            del self._sessions[key]

    def __len__(self) -> int:
        return len(self._sessions)


def cookie_name(port: int) -> str:
    return f"{COOKIE_PREFIX}{port}"


def read_cookie(header: str, name: str) -> str | None:
    """The value of cookie ``name`` in a ``Cookie`` header (the last one when repeated)."""
    found = None
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            found = value.strip()
    return found


def csrf_ok(session: Session, headers: Mapping[str, str]) -> bool:
    """Whether a state-changing request carries the session's CSRF token."""
    supplied = headers.get(CSRF_HEADER, "")
    return hmac.compare_digest(supplied.encode("utf-8", "surrogatepass"), session.csrf.encode())


def same_origin(headers: Mapping[str, str], port: int) -> bool:
    """Whether a browser request comes from the dashboard's own origin: the ``Host`` is this server's
    (no DNS-rebinding name), and ``Origin`` / ``Sec-Fetch-Site``, when the browser sends them, agree."""
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
    host = headers.get("host", "")
    if host not in hosts:
        return False
    origin = headers.get("origin")
    if origin is not None and origin != f"http://{host}":
        return False
    return headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


def set_cookie(name: str, value: str, max_age: int) -> str:
    return f"{name}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}"


__all__ = [
    "CODE_TTL",
    "COOKIE_PREFIX",
    "CSRF_HEADER",
    "MAX_CODES",
    "MAX_FAILURES",
    "MAX_SESSIONS",
    "SESSION_IDLE",
    "Session",
    "Sessions",
    "cookie_name",
    "csrf_ok",
    "read_cookie",
    "same_origin",
    "set_cookie",
]
