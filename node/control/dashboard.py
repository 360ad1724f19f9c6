"""The dashboard's own HTTP surface on the control server: its static files and the session exchange.

- ``GET /ui/`` and ``GET /ui/<file>``: the page (plain ES modules and CSS shipped as package data in
  ``web/``; no build step). They hold no data of the node, so they are served without a session; every
  datum comes from the control API, which needs one.
- ``POST /ui/session`` ``{"code": ...}`` or ``{"token": ...}``: exchanges a one-time code (``ioa ui``) or
  the control token for a session cookie (HttpOnly, SameSite=Strict) and answers ``{"csrf",
  "expires_in"}``; ``GET /ui/session`` gives the CSRF token again to a page that holds the cookie
  (a reload); ``POST /ui/logout`` ends the session.

Every answer carries ``Cache-Control: no-store``, ``X-Content-Type-Options: nosniff``,
``Referrer-Policy: no-referrer``, ``X-Frame-Options: DENY``; the page a strict Content-Security-Policy
(scripts, styles and connections only from the node itself, no inline script). Requests must come from
the page's own origin (:func:`~ioa_p2p.node.control.sessions.same_origin`). See docs/dashboard.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources

from ioa_p2p.node.control.sessions import (
    SESSION_IDLE,
    Sessions,
    cookie_name,
    csrf_ok,
    read_cookie,
    same_origin,
    set_cookie,
)

UI_PREFIX = "/ui"
_ASSET = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\.(html|js|css|svg|png)")
_TYPES = {
    "html": "text/html; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
    "png": "image/png",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
#: Largest body of a session exchange.
MAX_EXCHANGE_BODY = 4096

Headers = list[tuple[bytes, bytes]]


@dataclass(slots=True)
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: Headers = field(default_factory=list)

    def all_headers(self) -> Headers:
        return [(b"content-type", self.content_type.encode()), *SECURITY_HEADERS, *self.headers]


def json_response(status: int, value: object, headers: Headers | None = None) -> Response:
    return Response(status, json.dumps(value).encode(), headers=headers or [])


def error_response(status: int, kind: str, message: str) -> Response:
    return json_response(status, {"error": {"type": kind, "message": message}})


def load_assets() -> dict[str, bytes]:
    """The page's files, read once from the package data (``web/``)."""
    web = resources.files("ioa_p2p.node.control").joinpath("web")
    out = {}
    for item in web.iterdir():
        if item.is_file() and _ASSET.fullmatch(item.name):
            out[item.name] = item.read_bytes()
    return out


@dataclass(slots=True)
class Dashboard:
    """Serves the page and the session exchange for a control server (``token_ok`` checks a token,
    ``port`` gives the server's port once it listens)."""

    sessions: Sessions
    token_ok: Callable[[str], bool]
    port: Callable[[], int]
    assets: dict[str, bytes] = field(default_factory=load_assets)

    def owns(self, method: str, path: str) -> bool:
        return path == UI_PREFIX or (path.startswith(UI_PREFIX + "/") and path != "/ui/code")

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Response:
        port = self.port()
        if not same_origin(headers, port):
            return error_response(403, "Forbidden", "the dashboard answers only its own page on 127.0.0.1")
        if path == UI_PREFIX:
            return Response(308, b"", headers=[(b"location", b"/ui/")])
        name = path[len(UI_PREFIX) + 1 :] or "index.html"
        if name == "session":
            if method == "POST":
                return self._exchange(body, port)
            if method == "GET":
                return self._current(headers, port)
        elif name == "logout" and method == "POST":
            return self._logout(headers, port)
        elif method == "GET" and name in self.assets:
            kind = name.rsplit(".", 1)[1]
            extra = [(b"content-security-policy", CSP.encode())] if kind == "html" else []
            return Response(200, self.assets[name], _TYPES[kind], extra)
        return error_response(404, "NotFound", f"no dashboard file {method} {path}")

    def _exchange(self, body: bytes, port: int) -> Response:
        if self.sessions.throttled():
            return error_response(429, "TooManyRequests", "too many failed logins lately; wait a minute")
        given = _read_login(body)
        ok = False
        if given is not None:
            kind, secret = given
            ok = self.sessions.redeem(secret) if kind == "code" else self.token_ok(secret)
        if not ok:
            self.sessions.failed()
            return error_response(
                401, "Unauthorized", "this login code is spent, expired or wrong: run `ioa ui` for a new one"
            )
        value, session = self.sessions.open()
        cookie = set_cookie(cookie_name(port), value, int(SESSION_IDLE))
        reply = {"csrf": session.csrf, "expires_in": int(SESSION_IDLE)}
        return json_response(200, reply, [(b"set-cookie", cookie.encode())])

    def _current(self, headers: Mapping[str, str], port: int) -> Response:
        value = read_cookie(headers.get("cookie", ""), cookie_name(port))
        session = self.sessions.find(value) if value else None
        if session is None:
            return error_response(401, "Unauthorized", "no dashboard session: log in")
        return json_response(200, {"csrf": session.csrf, "expires_in": int(SESSION_IDLE)})

    def _logout(self, headers: Mapping[str, str], port: int) -> Response:
        value = read_cookie(headers.get("cookie", ""), cookie_name(port))
        session = self.sessions.find(value) if value else None
        if value is None or session is None or not csrf_ok(session, headers):
            return error_response(403, "Forbidden", "no session, or the CSRF token is missing")
        self.sessions.close(value)
        cookie = set_cookie(cookie_name(port), "", 0)
        return json_response(200, {"ok": True}, [(b"set-cookie", cookie.encode())])


def _read_login(body: bytes) -> tuple[str, str] | None:
    if len(body) > MAX_EXCHANGE_BODY:
        return None
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return None
    if not isinstance(data, dict) or len(data) != 1:
        return None
    ((kind, secret),) = data.items()
    if kind not in ("code", "token") or not isinstance(secret, str) or not secret:
        return None
    return kind, secret


__all__ = [
    "CSP",
    "SECURITY_HEADERS",
    "UI_PREFIX",
    "Dashboard",
    "Response",
    "error_response",
    "load_assets",
]
