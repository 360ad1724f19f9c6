"""The local testnet launcher: separate node processes, kill -9 and restart, clean shutdown, no orphans."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.bootstrap.agents import AgentPlan, agent_specs
from ioa_p2p.bootstrap.bootnode import BOOTSTRAP_CPU_POOL, bootstrap_config
from ioa_p2p.bootstrap.testnet import NodeSpec, check_specs, node_config, open_testnet
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import NodeProcessError, UsageError
from ioa_p2p.identity import PeerId

pytestmark = pytest.mark.slow


def _processes_under(root: Path) -> list[int]:
    """PIDs of live processes whose IOA_HOME lies under ``root`` (read from /proc, no psutil)."""
    prefix = f"IOA_HOME={root.resolve()}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and any(v.startswith(prefix) for v in environ.split(b"\0")):
            found.append(int(entry.name))
    return found


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def _mesh(net: Any) -> None:
    with trio.move_on_after(45):
        await net.wait_mesh()
        return
    raise AssertionError(f"testnet not fully connected after 45 s; missing: {net.mesh_gaps}")


async def _reserved_peers(relay: Any, count: int) -> None:
    while True:
        # absent until the restarted relay's relay service serves HOP
        if (await relay.call("GET", "/relay")).get("reserved_peers") == count:
            return
        await trio.sleep(0.1)


async def _circuit_addrs(node: Any) -> list[str]:
    while True:
        addrs = (await node.call("GET", "/relay"))["circuit_addrs"]
        if addrs:
            return list(addrs)
        await trio.sleep(0.1)


# --------------------------------------------------------------------------- pure parts


def test_node_config_merges_tables() -> None:
    spec = NodeSpec("calc", {"agent": {"adapter": "calculator"}, "relay": {"client": False}, "x": 1})
    config = node_config(spec, ["/ip4/127.0.0.1/tcp/1/p2p/b"])
    assert config["agent"] == {"name": "calc", "adapter": "calculator"}
    assert config["node"]["bootstrap"] == ["/ip4/127.0.0.1/tcp/1/p2p/b"]
    assert config["node"]["listen"] == ["/ip4/127.0.0.1/tcp/0"]
    assert config["relay"] == {"client": False} and config["x"] == 1
    hidden = node_config(NodeSpec("h", {"node": {"listen": []}}), [])
    assert hidden["node"]["listen"] == [] and hidden["node"]["bootstrap"] == []
    assert "agent" not in node_config(NodeSpec("bootstrap"), [], is_bootstrap=True)


@pytest.mark.parametrize(
    ("names", "bootstrap"), [(["a", "a"], False), (["bootstrap"], True), (["a/b"], False), ([""], False)]
)
def test_check_specs_rejects_bad_names(names: list[str], bootstrap: bool) -> None:
    with pytest.raises(UsageError):
        check_specs([NodeSpec(n) for n in names], bootstrap=bootstrap)


def test_bootstrap_config_drops_the_agent_and_relays(tmp_path: Path) -> None:
    base = NodeConfig(
        home=tmp_path, raw={"agent": {"name": "x"}, "relay": {"max_reservations": 3}, "other": {"k": 1}}
    )
    config = bootstrap_config(base, listen=("/ip4/127.0.0.1/tcp/4001",), bootstrap=("/p2p/x",))
    assert config.section("agent") == {} and config.section("other") == {"k": 1}
    assert config.section("relay") == {"max_reservations": 3, "hop": True}
    assert config.listen == ("/ip4/127.0.0.1/tcp/4001",) and config.bootstrap == ("/p2p/x",)
    assert config.section("discovery") == {"enabled": False}  # no card of its own
    assert bootstrap_config(base, relay=False).section("relay")["hop"] is False
    explicit = NodeConfig(home=tmp_path, raw={"discovery": {"enabled": True}})
    assert bootstrap_config(explicit).section("discovery") == {"enabled": True}
    # every peer of a bootstrap node is a stranger: their pool is its whole loop, unless configured
    assert Limits.from_section(config.section("limits")).cpu_pool == BOOTSTRAP_CPU_POOL == 1.0
    limited = NodeConfig(home=tmp_path, raw={"limits": {"cpu_pool": 0.3, "streams_total": 99}})
    assert bootstrap_config(limited).section("limits") == {"cpu_pool": 0.3, "streams_total": 99}


def test_sample_specs_are_varied_and_unique() -> None:
    specs = agent_specs(10, AgentPlan(), {"calculator"})
    names = [s.name for s in specs]
    assert len(set(names)) == 10
    descriptions = {s.config["agent"]["description"] for s in specs}
    assert len(descriptions) == 8  # the samples cycle after 8
    adapters = [s.config["agent"].get("adapter") for s in specs]
    assert adapters.count("calculator") == 2 and "python" not in adapters  # only installed kinds


# --------------------------------------------------------------------------- live testnets


async def test_testnet_mesh_kill_restart_and_clean_exit(tmp_path: Path) -> None:
    specs = [
        NodeSpec("alpha", {"agent": {"description": "adds numbers"}}),
        NodeSpec("beta"),
        # Listens nowhere; holds a reservation on the bootstrap relay.
        NodeSpec("hidden", {"node": {"listen": []}, "relay": {"reserve_on_bootstrap": True}}),
    ]
    with trio.fail_after(240):  # a bound above the sum of the waits below (each bounded on its own)
        async with open_testnet(tmp_path, specs) as net:
            assert list(net.nodes) == ["bootstrap", "alpha", "beta", "hidden"]
            boot = net.bootstrap
            assert boot is not None and boot.is_bootstrap
            for node in net.nodes.values():
                assert node.running and isinstance(node.peer_id, PeerId)
                info = json.loads((node.home / "node.json").read_text())
                assert info["pid"] == node.pid and info["peer_id"] == str(node.peer_id)
            assert net["hidden"].addrs == [] and len(net["alpha"].addrs) == 1
            boot_services = json.loads((boot.home / "node.json").read_text())["services"]
            assert "relay" in boot_services and "discovery" not in boot_services  # no agent card
            config = (net["alpha"].home / "config.toml").read_text()
            assert boot.addrs[0] in config and "adds numbers" in config
            with pytest.raises(UsageError):
                net["nobody"]

            await _mesh(net)

            # The real CLI, through alpha's control API.
            out = await trio.run_process(
                [sys.executable, "-m", "ioa_p2p", "--home", str(net["alpha"].home), "peers", "--json"],
                capture_stdout=True,
            )
            seen = {p["peer_id"] for p in json.loads(out.stdout)}
            assert seen == {str(n.peer_id) for n in net.nodes.values() if n.name != "alpha"}

            # Relay: the bootstrap node relays, hidden holds a reservation and advertises a circuit address.
            status = await boot.call("GET", "/relay")
            assert status["hop"] is True
            with trio.fail_after(20):
                [circuit] = await _circuit_addrs(net["hidden"])
            assert circuit.startswith(boot.addrs[0] + "/p2p-circuit/p2p/")
            assert (await boot.call("GET", "/relay"))["reserved_peers"] == 1
            answer = await net["beta"].call("POST", "/relay/connect", {"addr": circuit})
            assert answer["peer_id"] == str(net["hidden"].peer_id)

            # kill -9 beta: the process is gone at once; restart it with the same identity and port.
            old_pid, old_peer, old_addrs = net["beta"].pid, net["beta"].peer_id, net["beta"].addrs
            assert old_pid is not None
            assert await net.kill("beta", signal.SIGKILL) == -signal.SIGKILL
            assert _gone(old_pid) and not net["beta"].running
            assert (net["beta"].home / "node.json").exists()  # stale, as after a real crash
            await net.restart("beta")
            assert net["beta"].pid != old_pid and net["beta"].running
            assert net["beta"].peer_id == old_peer and net["beta"].addrs == old_addrs
            # beta cannot dial hidden (no address): it goes through the bootstrap relay by peer ID.
            with trio.fail_after(30):
                answer = await net["beta"].call(
                    "POST", "/relay/connect", {"peer": str(net["hidden"].peer_id)}
                )
            assert answer["peer_id"] == str(net["hidden"].peer_id)
            await _mesh(net)

            # The bootstrap relay restarts on its old port: hidden takes a new reservation on its own.
            boot_addrs = boot.addrs
            await net.restart("bootstrap")
            assert boot.addrs == boot_addrs
            with trio.fail_after(30):
                await _reserved_peers(boot, 1)
            assert net["hidden"].peer_id in await boot.peers()
            pids = [n.pid for n in net.nodes.values()]
            assert sorted(_processes_under(tmp_path)) == sorted(pids)

    # Leaving the block stopped every node gracefully (exit 0, node.json removed) and left nothing behind.
    assert all(pid is not None and _gone(pid) for pid in pids)
    assert [n.process.returncode for n in net.nodes.values() if n.process] == [0, 0, 0, 0]
    assert not any((n.home / "node.json").exists() for n in net.nodes.values())
    assert _processes_under(tmp_path) == []
    assert "listening on" in net["beta"].log_text()


async def test_failed_start_raises_and_leaves_nothing(tmp_path: Path) -> None:
    specs = [NodeSpec("good"), NodeSpec("bad", {"node": {"listen": ["not-a-multiaddr"]}})]
    with trio.fail_after(60), pytest.raises(NodeProcessError, match="bad") as info:
        async with open_testnet(tmp_path, specs, bootstrap=False):
            raise AssertionError("unreachable: the bad node cannot start")
    assert "not-a-multiaddr" in str(info.value)  # the error shows the end of the node's log
    assert _processes_under(tmp_path) == []


async def test_cancelled_start_and_errors_in_the_block_leave_nothing(tmp_path: Path) -> None:
    with trio.move_on_after(0.3) as scope:  # cancelled while the node is still starting
        async with open_testnet(tmp_path / "a", [NodeSpec("one")], bootstrap=False):
            raise AssertionError("unreachable")
    assert scope.cancelled_caught
    assert _processes_under(tmp_path) == []

    with trio.fail_after(60), pytest.raises(KeyError, match="boom"):
        async with open_testnet(tmp_path / "b", [NodeSpec("one")], bootstrap=False) as net:
            pid = net["one"].pid
            raise KeyError("boom")
    assert pid is not None and _gone(pid)
    assert _processes_under(tmp_path) == []


def test_testnet_up_cli_runs_until_sigint(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    argv = [sys.executable, "-m", "ioa_p2p", "testnet", "up", "2", "--root", str(tmp_path), "--json"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        try:
            lines = []
            assert proc.stdout is not None and proc.stderr is not None
            for line in proc.stdout:  # the JSON list ends with a line "]"
                lines.append(line)
                if line.rstrip() == "]":
                    break
            rows = json.loads("".join(lines))
            assert [r["role"] for r in rows] == ["bootstrap", "agent", "agent"]
            assert [r["name"] for r in rows] == ["bootstrap", "calculator", "coder"]
            assert [r["adapter"] for r in rows] == [None, "calculator", "python"]
            assert all(r["addrs"][0].endswith("/p2p/" + r["peer_id"]) for r in rows)
            assert sorted(_processes_under(tmp_path)) == sorted(r["pid"] for r in rows)
            proc.send_signal(signal.SIGINT)
            assert proc.wait(60) == 0, proc.stderr.read()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert _processes_under(tmp_path) == []
    assert (tmp_path / "coder" / "node.key").exists()  # --root is kept


def test_testnet_up_rejects_a_bad_count() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "testnet", "up", "0"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and "COUNT" in out.stderr


async def test_bootstrap_without_relay_and_relay_cli(tmp_path: Path) -> None:
    boot_spec = NodeSpec("bootstrap", args=("--no-relay",))
    with trio.fail_after(60):
        async with open_testnet(tmp_path, [], bootstrap_spec=boot_spec) as net:
            boot = net["bootstrap"]
            assert "relay hop off" in boot.log_text()
            assert (await boot.call("GET", "/relay"))["hop"] is False
            assert "agent" not in (boot.home / "config.toml").read_text()

            async def ioa(*args: str) -> subprocess.CompletedProcess[bytes]:
                argv = [sys.executable, "-m", "ioa_p2p", "--home", str(boot.home), *args]
                return await trio.run_process(argv, capture_stdout=True, capture_stderr=True, check=False)

            status = await ioa("relay", "status")
            assert status.returncode == 0 and b"hop: off" in status.stdout
            bad = await ioa("relay", "connect", "/ip4/127.0.0.1/tcp/1")
            assert bad.returncode == 2 and b"p2p-circuit" in bad.stderr
            me = boot.peer_id  # relaying to itself through itself: a usage error, not a hang
            itself = await ioa("relay", "connect", f"/p2p/{me}/p2p-circuit/p2p/{me}")
            assert itself.returncode == 2 and b"this node" in itself.stderr


async def test_missing_interpreter_is_a_typed_error(tmp_path: Path) -> None:
    with trio.fail_after(20), pytest.raises(NodeProcessError, match="cannot start testnet node"):
        async with open_testnet(tmp_path, [NodeSpec("a")], bootstrap=False, python="/nonexistent/python"):
            raise AssertionError("unreachable")


def test_testnet_up_ctrl_c_during_start_up_stops_cleanly(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "ioa_p2p", "testnet", "up", "2", "--root", str(tmp_path)]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        try:
            deadline = time.monotonic() + 30
            while not _processes_under(tmp_path) and time.monotonic() < deadline:
                time.sleep(0.05)  # the bootstrap node process exists: start-up is under way
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=60)
            assert proc.returncode == 0, out
            assert "testnet stopped" in out
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert _processes_under(tmp_path) == []


def test_nodes_exit_when_the_launcher_is_killed(tmp_path: Path) -> None:
    # SIGKILL gives the launcher no chance to stop its nodes: they notice on their own (IOA_PARENT_PID).
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    argv = [sys.executable, "-m", "ioa_p2p", "testnet", "up", "1", "--root", str(tmp_path), "--json"]
    out, quiet = subprocess.PIPE, subprocess.DEVNULL
    with subprocess.Popen(argv, stdout=out, stderr=quiet, text=True, env=env) as proc:
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.rstrip() == "]":
                    break
            children = _processes_under(tmp_path)
            assert len(children) == 2  # the bootstrap node and one agent
            proc.kill()
            proc.wait(10)
            deadline = time.monotonic() + 30
            while _processes_under(tmp_path) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert _processes_under(tmp_path) == []
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            for pid in _processes_under(tmp_path):
                os.kill(pid, signal.SIGKILL)
