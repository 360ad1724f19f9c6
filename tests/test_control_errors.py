"""Bad control API requests and bad ports are typed errors: 401/400, and exit code 2 naming the field."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.config.node_config import load_config
from ioa_p2p.errors import ConfigError
from ioa_p2p.node.chats.store import ChatStore
from ioa_p2p.node.control.server import MAX_JSON_DEPTH, ControlAPI, ControlRequest, bind_control_socket

from .conftest import ioa_init


def request(
    port: int, method: str, path: str, body: bytes | None, headers: dict[str, Any]
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path)
        for name, value in headers.items():
            conn.putheader(name, value)  # bytes values go out as they are
        conn.putheader("Content-Length", str(len(body or b"")))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


async def test_bad_tokens_and_bad_bodies_are_401_and_400_never_500() -> None:
    api = ControlAPI()

    async def echo(req: ControlRequest) -> Any:
        return {"body": req.body, "query": req.query}

    api.add_raw_route("POST", "/echo", echo)
    auth = {"Authorization": f"Bearer {api.token}"}
    deep = b"[" * 100_000 + b"]" * 100_000  # past the interpreter's recursion limit
    over = b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1)
    fine = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    cases: list[tuple[str, bytes | None, dict[str, Any], int]] = [
        ("/echo", b"{}", {"Authorization": "Bearer \u00e9\u00e9".encode()}, 401),  # non-ASCII token
        ("/echo", b"{}", {"Authorization": b"Bearer \xff\xfe"}, 401),
        ("/echo", b"{}", {}, 401),
        ("/echo", deep, auth, 400),
        ("/echo", over, auth, 400),
        ("/echo", b'{"a": ', auth, 400),
        ("/echo", b'"\xff"', auth, 400),  # not UTF-8
        ("/echo?x=%ff", b"{}", auth, 200),  # percent-decoding keeps bad bytes replaced, not failing
        ("/echo", fine, auth, 200),
        ("/echo", b'{"a": [1, {"b": 2}]}', auth, 200),
    ]
    async with trio.open_nursery() as nursery:
        port = await nursery.start(lambda task_status: api.serve(port=0, task_status=task_status))
        for path, body, headers, expected in cases:
            status, answer = await trio.to_thread.run_sync(request, port, "POST", path, body, headers)
            assert status == expected, (path, body[:20] if body else body, headers, answer)
            if status != 200:
                assert answer["error"]["type"] in ("Unauthorized", "UsageError")
        status, _ = await trio.to_thread.run_sync(
            lambda: raw_request(port, b"POST /echo?x=\xff HTTP/1.1\r\n", api.token)
        )
        assert status == 400  # a raw non-UTF-8 query string
        nursery.cancel_scope.cancel()


async def test_a_full_disk_is_507(tmp_path: Path) -> None:
    """A write the disk cannot take (SQLite's own "database or disk is full", from a page cap) is
    507 insufficient storage, not 409."""
    store = ChatStore.open(tmp_path)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    api = ControlAPI()

    async def save(req: ControlRequest) -> Any:
        for i in range(1000):
            store.add_chat(bytes([i % 256]) * 31 + bytes([i // 256]), b"g" * 4000, "member", i)
        return {}

    api.add_raw_route("POST", "/save", save)
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(lambda task_status: api.serve(port=0, task_status=task_status))
            auth = {"Authorization": f"Bearer {api.token}"}
            status, answer = await trio.to_thread.run_sync(request, port, "POST", "/save", b"{}", auth)
            assert status == 507 and answer["error"]["type"] == "StorageFull", answer
            assert "disk is full" in answer["error"]["message"]
            nursery.cancel_scope.cancel()
    finally:
        store.close()


def raw_request(port: int, first_line: bytes, token: str) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            first_line
            + b"Host: x\r\nAuthorization: Bearer "
            + token.encode()
            + b"\r\nContent-Length: 0\r\n\r\n"
        )
        data = sock.recv(65536)
    return int(data.split(b" ", 2)[1]), data


@contextmanager
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def test_control_port_out_of_range_or_in_use_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[node]\ncontrol_port = 70000\n")
    with pytest.raises(ConfigError, match="control_port"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match="control_port"):
        bind_control_socket(70000)
    with busy_port() as port, pytest.raises(ConfigError, match=f"control_port {port}.*in use"):
        bind_control_socket(port)


def run_ioa_together(runs: dict[str, tuple[Path, list[str]]]) -> dict[str, subprocess.CompletedProcess[str]]:
    """Run several real ``ioa`` commands at once (each in its own home): their results by name."""
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "ioa_p2p", "--home", str(home), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (home, args) in runs.items()
    }
    done = {}
    for name, proc in procs.items():
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            for other in procs.values():
                other.kill()
            raise
        done[name] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    return done


@pytest.mark.slow
def test_every_start_command_exits_2_naming_the_field(tmp_path: Path) -> None:
    ioa_init(tmp_path / "n")
    names = ["range", "control in use", "listen in use", "bootstrap control", "bootstrap listen"]
    homes = {name: tmp_path / f"n{i}" for i, name in enumerate(names)}
    for home in homes.values():  # one identity, a home per run: the five start at once
        shutil.copytree(tmp_path / "n", home)
    (tmp_path / "range.toml").write_text("[node]\ncontrol_port = 70000\n")
    with busy_port() as port:
        (tmp_path / "busy.toml").write_text(f"[node]\ncontrol_port = {port}\n")
        listen = f"/ip4/127.0.0.1/tcp/{port}"
        commands = {
            "range": ["node", "start", "--config", str(tmp_path / "range.toml")],
            "control in use": ["node", "start", "--config", str(tmp_path / "busy.toml")],
            "listen in use": ["node", "start", "--listen", listen],
            "bootstrap control": ["bootstrap", "start", "--config", str(tmp_path / "busy.toml")],
            "bootstrap listen": ["bootstrap", "start", "--listen", listen],
        }
        runs = run_ioa_together({name: (homes[name], commands[name]) for name in names})
    for name, out in runs.items():
        assert out.returncode == 2, (name, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr, (name, out.stderr)
        field = "listen" if "listen" in name else "control_port"
        assert f"[node].{field}" in out.stderr, (name, out.stderr)
    assert "70000" in runs["range"].stderr and str(port) in runs["control in use"].stderr
    for name, home in homes.items():
        assert not (home / "node.json").exists(), name
