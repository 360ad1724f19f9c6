"""An agent hosted with others (``[[agents]]``) joins the network through them: its DHT lookups start
from its process-mates, which answer in memory with the network's peers they know, and it connects to
peers outside its process, never to its process-mates (issue 26: in 4 processes of 25 agents the last
agents to start in each process kept a routing table of 1-5 peers and no connection outside it, so their
cards never reached the other processes; docs/performance.md, "Ninth round"). Real libp2p hosts on
127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig, parse_config
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.node import Node, open_node

from .test_chats_net import FAST

pytestmark = pytest.mark.slow


def _config(tmp_path: Path, name: str, bootstrap: list[str]) -> NodeConfig:
    node = {"listen": ["/ip4/127.0.0.1/tcp/0"], "bootstrap": bootstrap, "bootstrap_backoff": 0.2}
    return parse_config(tmp_path / name, {"chats": FAST, "node": node})


def _in_table(node: Node, other: Node) -> bool:
    return to_libp2p_id(other.peer_id) in node.net.dht.routing_table.get_peer_ids()


async def test_an_agent_whose_bootstrap_is_unreachable_joins_through_its_process_mates(
    tmp_path: Path,
) -> None:
    cohosted = CoHosted()
    nobody = f"/ip4/127.0.0.1/tcp/9/p2p/{Identity.generate().peer_id}"  # nothing listens there
    with trio.fail_after(60):
        async with open_node(_config(tmp_path, "r", []), identity=Identity.generate(), write_info=False) as r:
            (r_addr,) = r.listen_addrs()[:1]
            first = _config(tmp_path, "a1", [r_addr])
            late = _config(tmp_path, "a2", [nobody])
            async with (
                open_node(first, identity=Identity.generate(), write_info=False, cohosted=cohosted) as a1,
                open_node(late, identity=Identity.generate(), write_info=False, cohosted=cohosted) as a2,
            ):
                while not _in_table(a1, r):  # noqa: ASYNC110 - polls py-libp2p's routing table
                    await trio.sleep(0.1)
                # a2 knows nobody but a1, which answers its lookups in memory and names r
                while not (_in_table(a2, r) and a2.is_connected(r.peer_id)):  # noqa: ASYNC110
                    await trio.sleep(0.1)
                assert not a2.is_connected(a1.peer_id)  # its process-mate is reached in memory
                assert not a1.is_connected(a2.peer_id)
