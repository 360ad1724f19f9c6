"""The dashboard end to end in headless Chromium (Debian's package) on a local network of 4 agent processes.

From the page: log in with the one-time link of ``ioa ui`` (``--open`` opens the link it prints), search the
directory (also in a view opened while the login waits for ``GET /id``: drawn once, keeping its input), a
lookup goal's next speaker and citations, launch a goal and follow it live (messages arrive without a
reload, a task's progress, the shared plan, the conclusion, the audit badge turning valid), continue it,
find it in the chats list, cancel a goal, a chat of 500 messages, a dropped connection resumed without
losing or duplicating a message; every view at phone width and in dark mode; the network, node and chats
views live. Without the session, nothing: a wrong or missing token, a spent code, another origin, a request
without its CSRF token get no data. Screenshots go to ``$IOA_TEST_ARTIFACTS`` (default: a temporary folder).
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ioa_p2p.api.status import NetworkEvent
from ioa_p2p.control_client import ControlClient

from .dashboard_net import CHROMIUM, CHROMIUM_FLAGS, DRONES, NetworkThread, browser_missing, spec

pytestmark = [pytest.mark.slow]
MISSING = browser_missing()
if MISSING:
    pytest.skip(f"dashboard browser tests skipped: {MISSING}", allow_module_level=True)

from playwright.sync_api import Browser, BrowserContext, Route, expect, sync_playwright  # noqa: E402

from .dashboard_pages import (  # noqa: E402
    _session,
    home_of,
    logged_in,
    login_url,
    port_of,
    raw,
    shot,
    stream_cursors,
)

WAIT = 60_000  # ms: one step of a test (a goal on a loaded 2-core machine)
expect.set_options(timeout=WAIT)


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NetworkThread]:
    docs = tmp_path_factory.mktemp("dash-docs")
    (docs / "drones.md").write_text(DRONES, encoding="utf-8")
    specs = [
        spec("coordinator", {"description": "Coordinates agents: launches goals and plans them."}),
        spec(
            "calculator",
            {
                "adapter": "calculator",
                "description": "Exact arithmetic from plain language: sums, products, powers, percentages.",
            },
        ),
        spec(
            "slowpoke",
            {
                "adapter": "echo",
                "description": "Echoes a text back, slowly, reporting its progress.",
                "options": {"delay": 40.0, "steps": 8},
            },
        ),
        spec(
            "librarian",
            {
                "adapter": "retrieval",
                "description": "Answers questions from the drone documents with cited passages.",
                "skills": ["documents", "search"],
                "options": {"path": str(docs)},
            },
        ),
    ]
    running = NetworkThread(tmp_path_factory.mktemp("dash") / "net", specs)
    try:
        running.wait_cards()
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        # launch() gives every run a fresh, temporary user-data-dir; --headless is Playwright's own
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(WAIT)
    try:
        yield ctx
    finally:
        ctx.close()


# --------------------------------------------------------------------------- no session, no data


def test_without_a_session_there_is_no_data_and_no_page_that_leaks_any(
    net: NetworkThread, context: BrowserContext
) -> None:
    home = home_of(net, "coordinator")
    port = port_of(home)
    peer = str(ControlClient(home).node_id().peer_id)
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Cookie": f"ioa_session_{port}=forged"}):
        status, body = raw(port, "GET", "/chats", headers)
        assert status == 401 and peer not in body.decode() and b"chat_id" not in body
    status, page_html = raw(port, "GET", "/ui/")
    assert status == 200 and peer.encode() not in page_html  # the page itself holds no data
    assert raw(port, "POST", "/ui/session", body={"code": "not-a-code"})[0] == 401
    assert raw(port, "POST", "/ui/session", body={"token": "wrong"})[0] == 401
    # another origin, or a DNS-rebinding host name, gets nothing even with a valid session
    good = ControlClient(home).ui_code().code
    value, csrf = _session(port, good)
    assert raw(port, "POST", "/ui/session", body={"code": good})[0] == 401  # a code opens one session only
    cookie = f"ioa_session_{port}={value}"
    assert raw(port, "GET", "/chats", {"Cookie": cookie})[0] == 200
    assert raw(port, "GET", "/chats", {"Cookie": cookie, "Host": f"evil.example:{port}"})[0] == 403
    assert raw(port, "GET", "/chats", {"Cookie": cookie, "Sec-Fetch-Site": "cross-site"})[0] == 403
    no_csrf = raw(port, "POST", "/chats/sync", {"Cookie": cookie}, {})
    assert no_csrf[0] == 403 and b"CSRF" in no_csrf[1]
    other_origin = {"Cookie": cookie, "X-IoA-CSRF": csrf, "Origin": "http://evil.example"}
    assert raw(port, "POST", "/chats/sync", other_origin, {})[0] == 403
    assert raw(port, "POST", "/ui/code", {"Cookie": cookie, "X-IoA-CSRF": csrf}, {})[0] == 400  # no minting

    # in the browser: a wrong code shows the login form, no data, and leaves no code in the URL
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{port}/ui/#code=wrongcodewrongcodewrongcode")
    expect(page.locator("#login")).to_be_visible()
    expect(page.locator("#login-error")).to_contain_text("spent, expired or wrong")
    assert "code=" not in page.url and page.locator("#nav").is_hidden()
    assert peer not in page.content()
    # a token pasted into the form works; a wrong one does not
    page.fill("#login-secret", "wrong-token-" + "x" * 40)
    page.click("#login-form button")
    expect(page.locator("#login-error")).to_contain_text("wrong")
    page.fill("#login-secret", (home / "control.token").read_text())
    page.click("#login-form button")
    expect(page.locator("#nav")).to_be_visible()
    cookies = {c["name"]: c for c in context.cookies()}
    session = cookies[f"ioa_session_{port}"]
    assert session["httpOnly"] and session["sameSite"] == "Strict"
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
    page.click("#logout")
    expect(page.locator("#login")).to_be_visible()
    assert raw(port, "GET", "/chats", {"Cookie": f"ioa_session_{port}={session['value']}"})[0] == 401


def test_ioa_ui_open_opens_the_login_link_it_prints(
    net: NetworkThread, context: BrowserContext, tmp_path: Path
) -> None:
    home = home_of(net, "coordinator")
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"  # the default browser, as Python's webbrowser finds it ($BROWSER)
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n')
    browser.chmod(0o755)
    out = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "--home", str(home), "ui", "--open"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "BROWSER": f"{browser} %s"},
    )
    url = out.stdout.strip()
    assert url.startswith("http://127.0.0.1:") and "/ui/#code=" in url and "one-time" in out.stderr
    assert opened.read_text() == url  # the link it printed is the one it opened
    token = (home / "control.token").read_text()
    assert token not in url and token not in out.stdout + out.stderr
    page = context.new_page()
    page.goto(url)
    expect(page.locator("#nav")).to_be_visible()  # the opened link logs in
    assert "code=" not in page.url
    page.go_back()  # the entry that held the code was replaced: back leads to the page before
    assert page.url == "about:blank"


# --------------------------------------------------------------------------- a goal from the page


def test_a_view_opened_while_logging_in_is_rendered_once(net: NetworkThread, context: BrowserContext) -> None:
    """A navigation while the login is still asking the node who it is (``GET /id`` held back here, as a
    loaded node answers late) opens the view once: it is not drawn again under the user's hands when
    the answer comes, which used to drop what was typed into the search box and show the unranked list."""
    home = home_of(net, "coordinator")
    page = context.new_page()
    page.add_init_script(
        """window.__dirRenders = 0;
        new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
          if (n.nodeType === 1 && (n.id === "dir-search" || n.querySelector("#dir-search")))
            window.__dirRenders++; }).observe(document, { childList: true, subtree: true });"""
    )
    held: list[Route] = []

    def is_id(url: str) -> bool:
        return urlsplit(url).path == "/id"

    def hold(route: Route) -> None:
        held.append(route)

    page.route(is_id, hold)
    page.goto(login_url(home))
    deadline = time.monotonic() + WAIT / 1000
    while not held:  # the page logged in and asks GET /id (route handlers run while Playwright waits)
        assert time.monotonic() < deadline, "the page never asked GET /id"
        page.wait_for_timeout(50)
    page.evaluate(
        """() => new Promise((done) => {
          addEventListener("hashchange", () => done(), { once: true });
          location.hash = "#/directory";
        })"""
    )
    for route in held:
        route.continue_()
    page.unroute(is_id)
    expect(page.locator("#whoami")).to_contain_text("node ")
    page.fill("#dir-search", "exact arithmetic on numbers")
    first = page.locator("#dir-results li.card").first
    expect(first.locator("h2")).to_contain_text("calculator")
    assert float(first.locator("meter").get_attribute("value") or 0) > 0
    assert page.input_value("#dir-search") == "exact arithmetic on numbers"
    assert page.evaluate("window.__dirRenders") == 1


def test_a_lookup_goal_shows_the_next_speaker_and_its_citations(
    net: NetworkThread, context: BrowserContext
) -> None:
    """A goal of two independent lookups in the librarian's documents: the coordinator hands both out
    at once (an asynchronous task turn naming itself the next speaker, shown in the chat by
    name), and the conclusion lists each value's citation (file and passage), as ``GET /goals/result``
    gives them."""
    home = home_of(net, "coordinator")
    page = logged_in(context, home, "goal")
    page.fill(
        "#goal-text", "Look up the take-off weight of the K2 drone. Look up the flight time of the K1 drone."
    )
    page.fill("#goal-team", "librarian,calculator")
    page.fill("#goal-timeout", "90")
    page.click("#goal-launch")
    page.wait_for_url("**/#/chats/*")
    handover = page.locator("#chat-log li.msg[data-kind='conv.task.async'] .next")
    expect(handover.first).to_have_text("next: coordinator")
    expect(page.locator("#conclusion ol.steps")).to_contain_text("3.4 kg")
    expect(page.locator("#audit-badge")).to_have_attribute("data-valid", "true")
    chat = page.url.rsplit("/", 1)[1]
    result = ControlClient(home).call("GET", f"/goals/result?chat={chat}")
    cited = result["citations"]  # type: ignore[index, call-overload]
    assert len(cited) >= 2 and {c["path"] for c in cited} == {"drones.md"}, cited
    shown = page.locator("#conclusion ul.citations li")
    expect(shown).to_have_count(len(cited))
    for i, c in enumerate(cited):
        expect(shown.nth(i)).to_contain_text(f"{c['path']}:{c['line']}" if c.get("line") else c["path"])
        expect(shown.nth(i)).to_contain_text(" ".join(c["text"].split())[:40])
    expect(page.locator("#conclusion ol.steps li").first).to_contain_text("librarian")
    shot(page, "citations")


def test_a_goal_launched_from_the_page_is_followed_live_to_a_valid_audit(
    net: NetworkThread, context: BrowserContext
) -> None:
    home = home_of(net, "coordinator")
    page = logged_in(context, home, "directory")
    page.fill("#dir-search", "exact arithmetic on numbers")
    first = page.locator("#dir-results li.card").first
    expect(first.locator("h2")).to_contain_text("calculator")
    expect(first).to_contain_text("signed ✓")
    assert float(first.locator("meter").get_attribute("value") or 0) > 0
    shot(page, "directory")

    page.evaluate("window.__notReloaded = true")
    page.click("#nav a[data-view=goal]")
    page.fill("#goal-text", "Calculate 17 * 23 and then the result times 2")
    page.fill("#goal-team", "calculator")
    page.fill("#goal-turns", "12")
    page.fill("#goal-timeout", "90")
    page.click("#goal-launch")
    page.wait_for_url("**/#/chats/*")
    log = page.locator("#chat-log li.msg")
    expect(log.first).to_be_visible()
    expect(page.locator("#task-cards li.task").first).to_be_visible()  # a task card appears live
    expect(
        page.locator("#task-cards li.task[data-state=completed] progress[value='100']").first
    ).to_be_visible()
    expect(page.locator("#conclusion")).to_contain_text("782")
    expect(page.locator("#chat-log li.msg[data-kind='conv.task.progress']").first).to_be_visible()
    expect(page.locator("#audit-badge")).to_have_attribute("data-valid", "true")
    expect(page.locator("#audit-badge")).to_contain_text("valid")
    assert page.evaluate("window.__notReloaded") is True  # everything arrived without a reload
    indexes = [int(x) for x in log.evaluate_all("els => els.map(e => e.dataset.index)")]
    assert indexes == list(range(1, len(indexes) + 1))  # causal order, each message once
    assert page.locator("#chat-log .sig .bad").count() == 0 and page.locator(
        "#chat-log .sig .ok"
    ).count() == len(indexes)
    expect(page.locator("#conclusion table")).to_contain_text("calculator")  # the cost table
    expect(page.locator("#shared-plan li")).to_have_count(2)  # the shared plan, both steps
    expect(page.locator("#shared-plan")).to_contain_text("done")
    shot(page, "chat")

    # continue the chat: a new request for the same team is a new round, followed live in the same page
    expect(page.locator("#chat-send")).to_have_text("Continue")
    page.fill("#chat-input", "Calculate 1000 + 234")
    page.click("#chat-send")
    expect(page.locator("#chat-log li.msg[data-kind='conv.start']")).to_have_count(2)
    expect(page.locator("#conclusion")).to_contain_text("1234")
    assert page.evaluate("window.__notReloaded") is True

    chat_id = page.url.rsplit("/", 1)[1]
    with page.expect_download() as download:
        page.click("#chat-export")
    exported = Path(download.value.path()).read_bytes()
    copy = ControlClient(home).call("GET", f"/chats/export?chat={chat_id}")
    assert exported == base64.b64decode(copy["data"])  # type: ignore[index, call-overload]

    # the chats list holds it, with its latest round's state; a click opens it again
    page.click("#nav a[data-view=chats]")
    link = page.locator(f"a.chat-link[data-chat='{chat_id}']")
    expect(link).to_contain_text("Calculate 17 * 23")
    expect(link.locator("xpath=ancestor::tr")).to_contain_text("concluded")
    link.click()
    expect(page.locator("#chat-log li.msg[data-kind='conv.start']")).to_have_count(2)


def test_a_goal_is_cancelled_from_the_page(net: NetworkThread, context: BrowserContext) -> None:
    home = home_of(net, "coordinator")
    page = logged_in(context, home, "goal")
    page.fill("#goal-text", "Echo this text back slowly: the quick brown fox")
    page.fill("#goal-team", "slowpoke")
    page.fill("#goal-timeout", "120")
    page.click("#goal-launch")
    page.wait_for_url("**/#/chats/*")
    running = page.locator("#task-cards li.task[data-state=running]")
    expect(running.first).to_be_visible()  # the echo agent reports progress
    expect(running.first.locator("progress")).to_have_attribute("value", re.compile(r"^[1-9][0-9]?$"))
    expect(page.locator("#chat-cancel")).to_be_visible()
    page.click("#chat-cancel")
    expect(page.locator(".goal-panel h2")).to_contain_text("aborted")
    expect(page.locator("#chat-log li.msg[data-kind='conv.cancel']")).to_have_count(1)
    expect(page.locator("#chat-cancel")).to_be_hidden()
    shot(page, "cancelled")


# --------------------------------------------------------------------------- 500 messages, drops, layouts


def test_a_chat_of_500_messages_renders_and_a_dropped_stream_resumes_exactly(
    net: NetworkThread, context: BrowserContext
) -> None:
    home = home_of(net, "coordinator")
    assert net.net is not None
    client = ControlClient(home, timeout=60)
    calculator = str(net.net["calculator"].peer_id)
    made = client.call("POST", "/chats/create", {"members": [calculator], "topic": "500 messages"})
    chat = str(made["chat_id"])  # type: ignore[index, call-overload]
    texts = [f"message {i} <img src=x onerror=alert(1)>" for i in range(500)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda t: client.call("POST", "/chats/post", {"chat": chat, "text": t}), texts))

    page = logged_in(context, home, f"chats/{chat}")
    started = time.monotonic()
    log = page.locator("#chat-log li.msg")
    expect(log).to_have_count(500, timeout=WAIT * 2)
    print(f"500 messages rendered in {time.monotonic() - started:.2f} s")  # the figure; never asserted
    page.fill("#chat-input", "still responsive")  # the page takes input while holding them
    assert page.locator("img").count() == 0  # remote text stays text
    expect(page.locator("#audit-badge")).to_have_attribute("data-valid", "true")

    # the stream drops; messages posted meanwhile arrive once it resumes, none lost, none twice
    page.evaluate("for (const s of window.ioaLive) s.drop()")
    for i in range(5):
        client.call("POST", "/chats/post", {"chat": chat, "text": f"after the drop {i}"})
    expect(log).to_have_count(505)
    page.evaluate("for (const s of window.ioaLive) s.drop()")
    client.call("POST", "/chats/post", {"chat": chat, "text": "after the second drop"})
    expect(log).to_have_count(506)
    indexes = [int(x) for x in log.evaluate_all("els => els.map(e => e.dataset.index)")]
    assert indexes == list(range(1, 507))
    expect(log.last).to_contain_text("after the second drop")

    # keyboard: the views are reachable with Tab and Enter
    page.focus("#nav a[data-view=directory]")
    page.keyboard.press("Enter")
    expect(page.locator("#dir-search")).to_be_focused()

    # phone width, dark: nothing wider than the screen
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="dark")
    page.goto(page.url.split("#")[0] + f"#/chats/{chat}")
    expect(log).to_have_count(506, timeout=WAIT * 2)
    wide = page.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert wide <= 1, f"the page is {wide} px wider than a phone screen"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(246, 247, 249)"  # the dark palette, not the light one
    shot(page, "chat-phone-dark")
    # every other view fits a phone screen too, once its data is shown
    for view, ready in (
        ("network", "#net-peers"),
        ("directory", "#dir-results li.card"),
        ("goal", "#goal-launch"),
        ("chats", "a.chat-link"),
        ("node", "#node-peer"),
    ):
        page.click(f"#nav a[data-view={view}]")
        expect(page.locator(ready).first).to_be_visible()
        wide = page.evaluate("document.documentElement.scrollWidth - innerWidth")
        assert wide <= 1, f"the {view} view is {wide} px wider than a phone screen"
    shot(page, "node-phone-dark")


# ---------------------------------------------- live network, node and chats views (last: they change a card)


def test_the_network_and_node_views_are_live_and_resume_after_a_drop(
    net: NetworkThread, context: BrowserContext
) -> None:
    home = home_of(net, "coordinator")
    client = ControlClient(home)
    page = logged_in(context, home, "network")
    page.evaluate("window.__notReloaded = true")
    expect(page.locator("#net-live")).to_have_text("live")
    peers = len(client.call("GET", "/peers"))  # type: ignore[arg-type]
    expect(page.locator("#net-peers")).to_have_text(str(peers))
    expect(page.locator("#net-body table")).to_contain_text("calculator")
    expect(page.locator("#net-body table .num").first).to_contain_text(" ms")  # a measured round trip
    gossip = page.locator("#net-body dd").nth(2)
    before = gossip.inner_text()
    # the network changes (this node publishes a new card): the view shows it without a reload or a click
    client.call("POST", "/card", {"skills": ["planning", "coordination"]})
    expect(gossip).not_to_have_text(before)
    shot(page, "network")
    # the stream drops; it resumes from its cursor: later views arrive, none of them twice
    page.evaluate("for (const s of window.ioaLive) s.drop()")
    expect(page.locator("#net-live")).to_have_text("live")
    after_drop = gossip.inner_text()
    client.call("POST", "/card", {"skills": ["planning", "coordination", "scheduling"]})
    expect(gossip).not_to_have_text(after_drop)
    seqs = [seq for _, seq in stream_cursors(page, "/network/events")]
    assert len(seqs) >= 3 and seqs == sorted(set(seqs)), seqs

    with closing(client.network_events()) as views:  # the blocking client reads the same stream, typed
        first = next(views)
    assert isinstance(first.event, NetworkEvent) and len(first.event.view.peers) == peers

    page.click("#nav a[data-view=node]")
    expect(page.locator("#node-live")).to_have_text("live")
    expect(page.locator("#node-peer")).to_have_text(str(client.node_id().peer_id))
    uptime = page.locator("#node-uptime").inner_text()
    expect(page.locator("#node-uptime")).not_to_have_text(uptime)  # ticks in the page
    page.evaluate("for (const s of window.ioaLive) s.drop()")
    expect(page.locator("#node-live")).to_have_text("live")
    seqs = [seq for _, seq in stream_cursors(page, "/node/events")]
    assert seqs and seqs == sorted(set(seqs)), seqs

    # the chats list is live too: a chat made elsewhere appears without a reload
    page.click("#nav a[data-view=chats]")
    expect(page.locator("#chats-live")).to_have_text("live")
    calculator = str(net.net["calculator"].peer_id)  # type: ignore[index]
    made = client.call("POST", "/chats/create", {"members": [calculator], "topic": "made elsewhere"})
    chat = str(made["chat_id"])  # type: ignore[index, call-overload]
    link = page.locator(f"a.chat-link[data-chat='{chat}']")
    expect(link).to_have_text("made elsewhere")
    # a message arrives while the keyboard is on the link: the row updates, the focus stays
    link.focus()
    client.call("POST", "/chats/post", {"chat": chat, "text": "hello"})
    held = len(client.call("GET", f"/chats/history?chat={chat}")["messages"])  # type: ignore[index, call-overload, arg-type]
    expect(link.locator("xpath=ancestor::tr").locator("td").nth(3)).to_have_text(str(held))
    expect(link).to_be_focused()
    assert page.evaluate("window.__notReloaded") is True
