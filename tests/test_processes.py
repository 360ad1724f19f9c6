"""Three nodes in three OS processes, driven only through the `ioa` command."""

from __future__ import annotations

import json
import time

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import open_node
from ioa_p2p.node.messaging.service import PROTOCOL_ID
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.text import Text

from .conftest import NodeProcess, ioa_init, ioa_init_all, stop_all
from .test_chats_process import free_port

pytestmark = pytest.mark.slow


def _peers(node: NodeProcess) -> set[str]:
    out = node.ioa("peers", "--json")
    assert out.returncode == 0, out.stderr
    return {p["peer_id"] for p in json.loads(out.stdout)}


def _wait(predicate, timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_three_processes_bootstrap_see_each_other_and_exchange_signed_messages(tmp_path) -> None:
    ids = dict(zip("abc", ioa_init_all([tmp_path / name for name in "abc"]), strict=True))
    # A's address is known before it starts: the three start at once (B and C retry their bootstrap dial)
    boot = f"/ip4/127.0.0.1/tcp/{free_port()}/p2p/{ids['a']}"
    a = NodeProcess(tmp_path / "a", "--listen", boot.split("/p2p/")[0])
    nodes = [a]
    try:
        b = NodeProcess(tmp_path / "b", "--bootstrap", boot)
        c = NodeProcess(tmp_path / "c", "--bootstrap", boot)
        nodes += [b, c]
        assert a.wait_listening() == [boot]
        b.wait_listening()
        c.wait_listening()
        info = json.loads((tmp_path / "b" / "node.json").read_text())
        assert info["peer_id"] == ids["b"] and info["addrs"] == b.addrs

        _wait(lambda: _peers(a) >= {ids["b"], ids["c"]}, what="A to see B and C")
        _wait(lambda: _peers(b) >= {ids["a"], ids["c"]}, what="B to see A and C")
        _wait(lambda: _peers(c) >= {ids["a"], ids["b"]}, what="C to see A and B")

        # B -> C: a signed envelope over a direct stream; C verifies it and lists it in its inbox.
        sent = b.ioa("send", ids["c"], "hello from B", "--json")
        assert sent.returncode == 0, sent.stderr
        digest = json.loads(sent.stdout)["hash"]
        inbox = json.loads(c.ioa("inbox", "--json").stdout)
        assert [(m["from"], m["text"], m["hash"]) for m in inbox] == [(ids["b"], "hello from B", digest)]

        # A frame with a flipped byte is rejected, and the same stream still carries a good message.
        trio.run(_tamper_then_send, tmp_path, c.addrs[0])
        inbox = json.loads(c.ioa("inbox", "--json").stdout)
        assert [m["text"] for m in inbox] == ["hello from B", "after tamper"]
    finally:
        codes = stop_all(nodes)
    assert codes == [0, 0, 0], [n.output() for n in nodes]
    assert not (tmp_path / "a" / "node.json").exists()


async def _tamper_then_send(tmp_path, target_addr: str) -> None:
    config = NodeConfig(home=tmp_path / "probe")
    async with open_node(config, identity=Identity.generate(), write_info=False, control_api=False) as probe:
        with trio.fail_after(20):
            target = await probe.connect(target_addr)
            assert isinstance(target, PeerId)
            stream = await probe.open_stream(target, PROTOCOL_ID)
            bad = bytearray(Envelope.create(probe.identity, Text(text="tampered"), seq=1).to_cbor())
            bad[-10] ^= 0xFF  # inside the signature
            await stream.send(bytes(bad))
            reply = await stream.receive_value()
            assert reply["ok"] is False and "SignatureError" in reply["error"]
            good = Envelope.create(probe.identity, Text(text="after tamper"), seq=2)
            await stream.send_envelope(good)
            assert (await stream.receive_value()) == {"ok": True, "hash": good.hash}
            await stream.close()


def test_node_start_refuses_without_identity(tmp_path) -> None:
    node = NodeProcess(tmp_path / "none")
    try:
        assert node.proc.wait(60) == 1
    finally:
        node.stop()
    assert "ioa init" in node.output()


def test_control_api_needs_the_token(tmp_path) -> None:
    import http.client

    ioa_init(tmp_path / "a")
    a = NodeProcess(tmp_path / "a")
    try:
        a.wait_listening()
        info = json.loads((tmp_path / "a" / "node.json").read_text())
        token_file = tmp_path / "a" / "control.token"
        assert token_file.stat().st_mode & 0o777 == 0o600
        conn = http.client.HTTPConnection("127.0.0.1", info["control"]["port"], timeout=10)
        conn.request("GET", "/peers")
        assert conn.getresponse().status == 401
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", info["control"]["port"], timeout=10)
        conn.request("GET", "/peers", headers={"Authorization": "Bearer wrong"})
        assert conn.getresponse().status == 401
        conn.close()
        ok = a.ioa("peers", "--json")
        assert ok.returncode == 0 and json.loads(ok.stdout) == []
        bad = a.ioa("send", "not-a-peer", "x")
        assert bad.returncode == 2 and "error:" in bad.stderr
    finally:
        assert a.stop() == 0


def test_a_running_node_dumps_its_threads_and_tasks_on_request(tmp_path) -> None:
    ioa_init(tmp_path / "a")
    a = NodeProcess(tmp_path / "a")
    try:
        a.wait_listening()
        report = a.stuck_report()
        assert "most recent call first" in report  # SIGUSR1: faulthandler's thread stacks
        assert "--- trio tasks ---" in report and "_run_node" in report  # SIGUSR2: the task tree
        assert a.ioa("peers", "--json").returncode == 0  # the node goes on
    finally:
        assert a.stop() == 0


def test_stack_dumps_are_skipped_where_stderr_is_no_file(monkeypatch) -> None:
    """``ioa node start`` run by click's test runner (stderr without a file descriptor) still starts."""
    import io

    from ioa_p2p.cli.stacks import install_stack_dumps

    monkeypatch.setattr("sys.stderr", io.StringIO())
    install_stack_dumps()  # no exception: nothing to register on
