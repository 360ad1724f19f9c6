"""Joining and reaching, driven through the `ioa` command (issue 19): a bootstrap list file and
``$IOA_BOOTSTRAP``, a wildcard listen address, ``ioa node status``, ``ioa peers`` connection kinds,
``ioa relay status``, and the error a user sees for a peer that cannot be reached."""

from __future__ import annotations

import json
import os

import pytest

from ioa_p2p.identity import Identity

from .conftest import NodeProcess, ioa_init_all, stop_all
from .test_chats_process import free_port
from .test_processes import _peers, _wait

pytestmark = pytest.mark.slow


def test_joining_from_a_file_and_the_environment_and_what_the_cli_shows(tmp_path) -> None:
    ids = dict(zip(("boot", "b", "c"), ioa_init_all([tmp_path / n for n in ("boot", "b", "c")]), strict=True))
    boot_addr = f"/ip4/127.0.0.1/tcp/{free_port()}/p2p/{ids['boot']}"
    (tmp_path / "boot.txt").write_text(f"# the network's bootstrap nodes\n{boot_addr}\n", encoding="utf-8")
    env = dict(os.environ, IOA_BOOTSTRAP=boot_addr)
    boot = NodeProcess(tmp_path / "boot", "--listen", boot_addr.split("/p2p/")[0])
    nodes = [boot]
    try:
        b = NodeProcess(
            tmp_path / "b", "--listen", "/ip4/0.0.0.0/tcp/0", "--bootstrap-file", str(tmp_path / "boot.txt")
        )
        c = NodeProcess(tmp_path / "c", env=env)
        nodes += [b, c]
        boot.wait_listening()
        listening = b.wait_listening()
        c.wait_listening()
        assert any(a.startswith("/ip4/127.0.0.1/") for a in listening)
        assert not [a for a in listening if "/0.0.0.0/" in a], listening  # the wildcard, expanded
        _wait(lambda: ids["boot"] in _peers(b), what="b joins from its bootstrap file")
        _wait(lambda: ids["boot"] in _peers(c), what="c joins from $IOA_BOOTSTRAP")

        status = b.ioa("node", "status")
        assert status.returncode == 0, status.stderr
        assert f"bootstrap {boot_addr}: connected" in status.stdout, status.stdout
        assert "reachability: unknown" in status.stdout  # a machine-local network: nothing to find out
        assert "/0.0.0.0/" not in status.stdout
        net = json.loads(b.ioa("node", "status", "--json").stdout)
        assert net["bootstrap"][0]["connected"] and net["advertised"]

        peers = b.ioa("peers")
        assert f"{ids['boot']}  direct" in peers.stdout, peers.stdout
        entry = next(p for p in json.loads(b.ioa("peers", "--json").stdout) if p["peer_id"] == ids["boot"])
        assert [c["kind"] for c in entry["connections"]] == ["direct"]

        relay = boot.ioa("relay", "status")
        assert relay.returncode == 0 and "reachability: unknown" in relay.stdout, relay.stdout
        assert "hop: off" in relay.stdout

        ghost = str(Identity.generate().peer_id)
        failed = b.ioa("send", ghost, "anyone?")
        assert failed.returncode == 1
        assert "PeerUnreachable" in failed.stderr and f"cannot reach {ghost}" in failed.stderr, failed.stderr
        assert "did not acknowledge" not in failed.stderr
    finally:
        codes = stop_all(nodes)
    assert codes == [0, 0, 0], [n.output() for n in nodes]
