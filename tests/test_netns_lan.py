"""Two nodes behind one NAT that met only through a relay move to a direct LAN connection (issue 19).

A small world of its own: a public bootstrap/relay and one home (MASQUERADE) with two machines. Both nodes
are private (stated: no AutoNAT round to wait for) and hold a reservation, so their cards and peer records
carry their /p2p-circuit addresses and no LAN address; neither dials peers on its own (``target_peers =
0``) or runs discovery. One reaches the other through the relay by its circuit address; the hole-punch
exchange (DCUtR), which carries LAN addresses between those two peers only (node/net/punch.py), must then
give them a direct connection on the LAN (with the offer turned off they stay relayed: checked by hand).
Needs root (skipped with the reason otherwise); all is removed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ioa_p2p.testing.netns import Internet, Lab, NsNode, poll, start_all, stop_all, sweep_leftovers

from .netns_world import LISTEN, peer_entry, send, skip_unless_netns

pytestmark = [pytest.mark.slow, pytest.mark.netns]

QUIET = {"node": {"reachability": "private", "target_peers": 0}, "discovery": {"enabled": False}}


def test_two_nodes_behind_one_nat_upgrade_a_relayed_connection_to_a_lan_one(tmp_path: Path) -> None:
    skip_unless_netns()
    sweep_leftovers()
    with Lab("lan") as lab:
        internet = Internet(lab)
        boot = NsNode(lab, internet.add_host("boot"), tmp_path / "boot", command="bootstrap", args=LISTEN)
        home = internet.add_home("home1")
        joined = (*LISTEN, "--bootstrap", boot.addr())
        x, y = (NsNode(lab, home.add_host(name), tmp_path / name, args=joined, config=QUIET) for name in "xy")
        nodes = [boot, x, y]
        try:
            start_all([boot])
            for node in (x, y):  # one after the other: y's first lookup finds x's circuit, not its LAN
                start_all([node])
                advertised = poll(
                    lambda n=node: (
                        (a := n.call("GET", "/net")["advertised"])
                        and all("/p2p-circuit" in addr for addr in a)
                        and a
                    ),
                    60,
                    f"{node.name} advertises its circuit address only",
                )
                assert not [a for a in advertised if "/192.168." in a], advertised
            # they have not met directly (y may have dialed x through the relay at its start): nothing
            # told either the other's LAN address
            early = (peer_entry(x, y) or {}).get("connections", [])
            assert not [c for c in early if c["kind"] != "relayed"], early
            circuit = f"{boot.addr()}/p2p-circuit/p2p/{y.peer_id}"
            x.call("POST", "/relay/connect", {"addr": circuit})
            send(x, y, "through the relay first")

            def lan_connection() -> dict[str, Any] | None:
                for a, b in ((x, y), (y, x)):
                    for conn in (peer_entry(a, b) or {}).get("connections", []):
                        if conn["kind"] != "relayed" and conn["addr"].startswith("/ip4/192.168.1."):
                            return dict(conn)
                return None

            try:
                conn = poll(lan_connection, 40, "a direct LAN connection between x and y")
            finally:
                print(f"\nx -> y: {(peer_entry(x, y) or {}).get('connections')}")
                print(f"y -> x: {(peer_entry(y, x) or {}).get('connections')}")
            # learned in the hole-punch exchange only (nothing else carries it; without the offer they stay
            # relayed): "punched" when the punch's own dial won, "direct" when the other side's dial to
            # the address it was told (DCUtR's unilateral first step, an ephemeral source port) did
            assert conn["kind"] in ("punched", "direct"), conn
            send(x, y, "over the LAN")
        finally:
            stop_all(nodes)
