"""Dashboard sessions without a browser: one-time codes, cookies, CSRF, origins, bounds, the page's files."""

from __future__ import annotations

import json

from ioa_p2p.api.status import REDACTED, redacted_config
from ioa_p2p.node.control.dashboard import Dashboard
from ioa_p2p.node.control.sessions import (
    CODE_TTL,
    MAX_CODES,
    MAX_FAILURES,
    MAX_SESSIONS,
    SESSION_IDLE,
    Sessions,
    cookie_name,
    csrf_ok,
    read_cookie,
    same_origin,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_code_opens_one_session_and_expires() -> None:
    clock = Clock()
    sessions = Sessions(clock)
    code = sessions.issue_code()
    assert sessions.redeem(code) and not sessions.redeem(code)  # spent by its first use
    late = sessions.issue_code()
    clock.now += CODE_TTL + 1
    assert not sessions.redeem(late)
    codes = [sessions.issue_code() for _ in range(MAX_CODES + 3)]
    assert not sessions.redeem(codes[0]) and sessions.redeem(codes[-1])  # the oldest live codes go first


def test_sessions_are_bounded_and_die_unused() -> None:
    clock = Clock()
    sessions = Sessions(clock)
    first, _ = sessions.open()
    values = [sessions.open()[0] for _ in range(MAX_SESSIONS)]
    assert sessions.find(first) is None and sessions.find(values[-1]) is not None
    assert len(sessions) == MAX_SESSIONS
    clock.now += SESSION_IDLE + 1
    assert sessions.find(values[-1]) is None
    assert sessions.find("forged") is None


def test_failed_exchanges_are_throttled_in_total() -> None:
    clock = Clock()
    sessions = Sessions(clock)
    for _ in range(MAX_FAILURES):
        sessions.failed()
    assert sessions.throttled()
    clock.now += 61
    assert not sessions.throttled()


def test_cookies_csrf_and_origins() -> None:
    assert read_cookie("a=1; ioa_session_80=xyz; b=2", "ioa_session_80") == "xyz"
    assert read_cookie("ioa_session_81=xyz", "ioa_session_80") is None
    _, session = Sessions(Clock()).open()
    assert csrf_ok(session, {"x-ioa-csrf": session.csrf})
    assert not csrf_ok(session, {}) and not csrf_ok(session, {"x-ioa-csrf": "\udcff"})
    assert same_origin({"host": "127.0.0.1:80"}, 80)
    assert same_origin(
        {"host": "localhost:80", "origin": "http://localhost:80", "sec-fetch-site": "same-origin"}, 80
    )
    assert not same_origin({"host": "evil.example:80"}, 80)  # DNS rebinding
    assert not same_origin({"host": "127.0.0.1:80", "origin": "http://evil.example"}, 80)
    assert not same_origin({"host": "127.0.0.1:80", "sec-fetch-site": "cross-site"}, 80)
    assert not same_origin({"host": "127.0.0.1:81"}, 80)


def test_the_dashboard_serves_its_files_and_exchanges_codes_for_cookies() -> None:
    sessions = Sessions(Clock())
    page = Dashboard(sessions, lambda token: token == "the-token", lambda: 8080)
    host = {"host": "127.0.0.1:8080"}
    index = page.handle("GET", "/ui/", host, b"")
    assert index.status == 200 and b"app.js" in index.body
    headers = dict(index.all_headers())
    assert (
        b"script-src 'self'" in headers[b"content-security-policy"]
        and headers[b"cache-control"] == b"no-store"
    )
    assert page.handle("GET", "/ui/app.js", host, b"").content_type.startswith("text/javascript")
    assert page.handle("GET", "/ui/../server.py", host, b"").status == 404
    assert page.handle("GET", "/ui/", {"host": "evil.example:8080"}, b"").status == 403
    assert page.handle("POST", "/ui/session", host, b'{"code": "nope"}').status == 401
    assert page.handle("POST", "/ui/session", host, b'{"token": "nope"}').status == 401
    assert page.handle("POST", "/ui/session", host, b"[1]").status == 401
    reply = page.handle("POST", "/ui/session", host, json.dumps({"code": sessions.issue_code()}).encode())
    assert reply.status == 200
    cookie = dict(reply.headers)[b"set-cookie"].decode()
    assert cookie.startswith(cookie_name(8080) + "=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    value = cookie.split(";", 1)[0].split("=", 1)[1]
    csrf = json.loads(reply.body)["csrf"]
    again = page.handle("GET", "/ui/session", {**host, "cookie": f"{cookie_name(8080)}={value}"}, b"")
    assert json.loads(again.body)["csrf"] == csrf
    by_token = page.handle("POST", "/ui/session", host, b'{"token": "the-token"}')
    assert by_token.status == 200
    with_cookie = {**host, "cookie": f"{cookie_name(8080)}={value}"}
    assert page.handle("POST", "/ui/logout", with_cookie, b"").status == 403  # no CSRF token
    assert page.handle("POST", "/ui/logout", {**with_cookie, "x-ioa-csrf": csrf}, b"").status == 200
    assert sessions.find(value) is None


def test_the_config_summary_never_shows_a_secret() -> None:
    raw = {
        "model": {"api_key": "sk-123", "base_url": "https://user:pw@example.invalid/v1", "model": "m"},
        "agent": {"options": {"headers": {"Authorization": "Bearer x"}, "token_file": ""}},
    }
    shown = redacted_config(raw)
    text = json.dumps(shown)
    assert "sk-123" not in text and "pw" not in text and "Bearer x" not in text
    assert shown["model"]["api_key"] == REDACTED  # type: ignore[index, call-overload]
    assert shown["model"]["base_url"] == "https://example.invalid/v1"  # type: ignore[index, call-overload]
