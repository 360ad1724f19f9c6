"""A chat member process is killed with SIGKILL mid-conversation, restarted, and catches up."""

from __future__ import annotations

import base64
import json
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import IoAError
from ioa_p2p.history.audit import audit_history
from ioa_p2p.node.chats.store import ChatStore

from .conftest import NodeProcess, ioa_init_all, stop_all

pytestmark = pytest.mark.slow

FAST_CHATS = "\n[chats]\nsync_interval = 1.0\nretry_initial = 0.1\nretry_max = 1.0\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait(predicate, timeout: float = 40.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except IoAError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def spawn(home: Path, port: int, *bootstrap: str) -> NodeProcess:
    args = ["--listen", f"/ip4/127.0.0.1/tcp/{port}"]
    for addr in bootstrap:
        args += ["--bootstrap", addr]
    return NodeProcess(home, *args)


def count(home: Path, chat: str) -> int:
    listing = ControlClient(home, timeout=10).call("GET", "/chats")
    return next((c["messages"] for c in listing if c["chat_id"] == chat), 0)


def test_sigkilled_member_restarts_and_loses_nothing_it_acknowledged(tmp_path: Path) -> None:
    homes = {name: tmp_path / name for name in "abc"}
    ids = dict(zip(homes, ioa_init_all(list(homes.values())), strict=True))
    for home in homes.values():
        with (home / "config.toml").open("a") as config:
            config.write(FAST_CHATS)
    ports = {name: free_port() for name in "abc"}
    # A's address is known before it starts: the three start at once (B and C retry the bootstrap dial)
    boot = f"/ip4/127.0.0.1/tcp/{ports['a']}/p2p/{ids['a']}"
    a = spawn(homes["a"], ports["a"])
    b = spawn(homes["b"], ports["b"], boot)
    c = spawn(homes["c"], ports["c"], boot)
    procs = [a, b, c]
    try:
        for proc in procs:
            proc.wait_listening()
        assert boot in a.addrs, a.addrs
        api = {name: ControlClient(home, timeout=30) for name, home in homes.items()}
        for name in "bc":
            api["a"].call("POST", "/connect", {"addr": {"b": b, "c": c}[name].addrs[0]})
        api["b"].call("POST", "/connect", {"addr": c.addrs[0]})
        created = api["a"].call(
            "POST", "/chats/create", {"members": [ids["b"], ids["c"]], "topic": "crash test"}
        )
        chat = created["chat_id"]
        assert sorted(created["accepted"]) == sorted([ids["b"], ids["c"]])

        stop = threading.Event()
        posted = {"a": 0, "b": 0}

        def chatter(name: str) -> None:
            client = ControlClient(homes[name], timeout=30)
            while not stop.is_set():
                client.call("POST", "/chats/post", {"chat": chat, "text": f"{name} {posted[name]}"})
                posted[name] += 1
                time.sleep(0.01)

        talkers = [threading.Thread(target=chatter, args=(n,), daemon=True) for n in "ab"]
        for thread in talkers:
            thread.start()
        for i in range(10):
            api["c"].call("POST", "/chats/post", {"chat": chat, "text": f"c {i}"})
        wait(lambda: count(homes["c"], chat) >= 40, what="c to receive a good part of the chat")

        # what C holds right now was persisted before it was acknowledged; then kill -9
        before = api["c"].call("GET", f"/chats/history?chat={chat}")["messages"]
        c.proc.send_signal(signal.SIGKILL)
        c.proc.wait(10)
        c.log.close()
        time.sleep(1.0)  # the others keep talking while C is down
        store = ChatStore.open(homes["c"])
        kept = {row.hash.hex() for row in store.messages(bytes.fromhex(chat))}
        store.close()
        assert {m["hash"] for m in before} <= kept, "a message C had stored was lost"

        c = procs[2] = spawn(homes["c"], ports["c"], boot)
        c.wait_listening()
        time.sleep(0.5)
        stop.set()
        for thread in talkers:
            thread.join(30)
        total = posted["a"] + posted["b"] + 10
        for name in "abc":
            wait(lambda n=name: count(homes[n], chat) == total, 60, f"{name} to hold all {total}")
        exports = set()
        for name in "abc":
            result = api[name].call("GET", f"/chats/export?chat={chat}")
            exports.add(base64.b64decode(result["data"]))
        assert len(exports) == 1, "the three stores differ"
        report = audit_history(exports.pop())
        assert report.valid and report.summary()["messages"] == total
        out = c.ioa("audit", chat, "--json")
        assert out.returncode == 0 and json.loads(out.stdout)["valid"] is True
    finally:
        stop_all(procs)
