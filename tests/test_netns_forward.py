"""A node behind a home router with a forwarded port (issue 19), across network namespaces.

A small world of its own: a public bootstrap/relay, one public peer, and a home (MASQUERADE) whose router
forwards TCP 4001 to the one machine in it. The node there is started with the README's join command and
nothing NAT-specific: AutoNAT servers dial it back at its router's public address, the forward lets them
in, and it must find itself public, advertise that address in its signed card, take no relay reservation,
and be dialed directly there. Needs root (skipped with the reason otherwise); everything is removed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ioa_p2p.testing.netns import Internet, Lab, NsNode, poll, start_all, stop_all, sweep_leftovers
from ioa_p2p.testing.netns.nodes import PORT

from .netns_world import LISTEN, connection_kinds, peer_entry, send, skip_unless_netns

pytestmark = [pytest.mark.slow, pytest.mark.netns]


def test_a_forwarded_port_makes_a_natted_node_public_and_dialed_directly(tmp_path: Path) -> None:
    skip_unless_netns()
    sweep_leftovers()
    with Lab("fwd") as lab:
        internet = Internet(lab)
        boot = NsNode(lab, internet.add_host("boot"), tmp_path / "boot", command="bootstrap", args=LISTEN)
        joined = (*LISTEN, "--bootstrap", boot.addr())
        public = NsNode(lab, internet.add_host("pub"), tmp_path / "pub", args=joined)
        home = internet.add_home("home1")
        nas_host = home.add_host("nas")
        home.forward(PORT, nas_host)
        nas = NsNode(lab, nas_host, tmp_path / "nas", args=joined)
        wan = f"/ip4/{home.wan_ip}/tcp/{PORT}"
        nodes = [boot, public, nas]
        try:
            start_all([boot])
            start_all([public, nas])

            def found_public() -> dict[str, Any] | None:
                net: dict[str, Any] = nas.call("GET", "/net")
                return net if net["reachability"]["status"] == "public" else None

            try:
                net = poll(found_public, 90, "AutoNAT finds the node with a forwarded port public")
            finally:
                print(f"\nnas: {nas.call('GET', '/net')}")
            # a dial-back reached it there (its verdicts are dropped when that address is advertised:
            # an address change; the status stays)
            assert wan in net["reachability"]["verified_addrs"], net["reachability"]
            assert any(a.startswith(f"{wan}/p2p/") for a in net["advertised"]), net["advertised"]
            assert not [a for a in net["advertised"] if "/p2p-circuit" in a], net["advertised"]
            card = poll(
                lambda: (c := nas.call("GET", "/card")) and any(a.startswith(wan) for a in c["addrs"]) and c,
                30,
                "the card re-signed with the forwarded address",
            )
            assert card["addrs"][0].startswith(wan), card["addrs"]  # dialers try it first

            assert not nas.call("GET", "/relay")["reservations"]  # no relay needed

            # a peer that never met it finds its card and dials it directly, at the forwarded address
            late = NsNode(lab, internet.add_host("late"), tmp_path / "late", args=joined)
            nodes.append(late)
            start_all([late])
            poll(lambda: _delivered(late, nas), 60, "a newcomer reaches the node with a forwarded port")
            entry = peer_entry(late, nas)
            assert connection_kinds(entry) == {"direct"}, entry
            assert entry is not None and any(c["addr"].startswith(wan) for c in entry["connections"]), entry
        finally:
            stop_all(nodes)


def _delivered(sender: NsNode, target: NsNode) -> bool:
    try:
        send(sender, target, f"hello from {sender.name}", timeout=10)
    except Exception:  # not found yet (its card is on its way): the node's typed error, retried
        return False
    return True
