"""Driving the dashboard from a page, for tests/test_dashboard_browser.py: a node's home and control port,
the one-time login link ``ioa ui --json`` prints and a page logged in with it, raw HTTP requests to the
control port (and a session opened with a code), screenshots, the cursors a live stream delivered.

Imported only once the browser tests know Chromium and Playwright are there (``browser_missing``).
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from ioa_p2p.control_client import ControlClient

from .dashboard_net import NetworkThread, artifacts_dir


def home_of(net: NetworkThread, name: str) -> Path:
    assert net.net is not None
    return net.net[name].home


def port_of(home: Path) -> int:
    return int(ControlClient(home).node_info()["control"]["port"])  # type: ignore[index, call-overload]


def login_url(home: Path) -> str:
    """What ``ioa ui --json`` prints (the real command)."""
    out = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "--home", str(home), "ui", "--json"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    url = json.loads(out.stdout)["url"]
    assert url.startswith("http://127.0.0.1:") and "/ui/#code=" in url
    return str(url)


def logged_in(context: BrowserContext, home: Path, view: str = "network") -> Page:
    page = context.new_page()
    page.on(
        "console", lambda m: print(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda e: print(f"page error: {e}"))
    page.goto(login_url(home))
    expect(page.locator("#nav")).to_be_visible()
    assert "code=" not in page.url  # taken out of the address bar (and the history entry) at once
    page.goto(page.url.split("#")[0] + f"#/{view}")
    return page


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(artifacts_dir() / f"{name}.png"), full_page=True)


def raw(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: Any = None
) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers={"Host": f"127.0.0.1:{port}", **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _session(port: int, code: str) -> tuple[str, str]:
    """The cookie value and CSRF token of a session opened with ``code``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "POST", "/ui/session", body=json.dumps({"code": code}), headers={"Host": f"127.0.0.1:{port}"}
    )
    response = conn.getresponse()
    header = response.getheader("Set-Cookie") or ""
    csrf = json.loads(response.read())["csrf"]
    conn.close()
    assert response.status == 200 and "HttpOnly" in header and "SameSite=Strict" in header
    return header.split(";", 1)[0].split("=", 1)[1], csrf


def stream_cursors(page: Page, path: str) -> list[tuple[str, int]]:
    """The cursors the page's live stream of ``path`` delivered, in order."""
    ids = page.evaluate(
        "(path) => [...window.ioaLive].filter(s => s.path === path).flatMap(s => s.delivered)", path
    )
    return [(i.rsplit(".", 1)[0], int(i.rsplit(".", 1)[1])) for i in ids]
