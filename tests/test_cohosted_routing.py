"""A joining agent hosted with others (``[[agents]]``) finds the network through them: while its routing
table is small its self-lookups also ask a few of its process-mates, which answer in memory with the
peers they know (issue 26: the last agents to start in a process knew only the bootstrap node, whose
answers missed the lookup's per-peer timeout on the busy process loop, and kept a table of 1, no remote
connection and no card-topic peer for minutes; docs/performance.md). Real libp2p hosts on 127.0.0.1."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig, parse_config
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.net.routing import JOINING_SEEDS, joining_seeds
from ioa_p2p.node.node import Node

from .test_chats_net import FAST


def _config(tmp_path: Path, name: str, bootstrap: list[str]) -> NodeConfig:
    node = {"listen": ["/ip4/127.0.0.1/tcp/0"], "bootstrap": bootstrap, "bootstrap_backoff": 0.2}
    return parse_config(tmp_path / name, {"chats": FAST, "node": node})


def _in_table(node: Node, other: Node) -> bool:
    return to_libp2p_id(other.peer_id) in node.net.dht.routing_table.get_peer_ids()


def test_joining_seeds_are_a_few_process_mates_never_itself() -> None:
    me = to_libp2p_id(Identity.generate().peer_id)
    mates = [to_libp2p_id(Identity.generate().peer_id) for _ in range(20)]
    alone = SimpleNamespace(host=SimpleNamespace(), local_peer_id=me)
    assert joining_seeds(alone) == []  # type: ignore[arg-type]  # a node alone in its process
    hosted = SimpleNamespace(host=SimpleNamespace(ioa_local_peers=lambda: [me, *mates]), local_peer_id=me)
    seeds = joining_seeds(hosted, random.Random(1))  # type: ignore[arg-type]
    assert len(seeds) == JOINING_SEEDS == len(set(seeds))
    assert me.to_bytes() not in seeds and set(seeds) <= {m.to_bytes() for m in mates}


@pytest.mark.slow
async def test_an_agent_whose_bootstrap_is_unreachable_joins_through_its_process_mates(
    tmp_path: Path,
) -> None:
    cohosted = CoHosted()
    nobody = f"/ip4/127.0.0.1/tcp/9/p2p/{Identity.generate().peer_id}"  # nothing listens there
    with trio.fail_after(120):
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
                # a2 knows nobody but its process-mate a1, which answers its lookups in memory and names r
                while not (_in_table(a2, r) and a2.is_connected(r.peer_id)):  # noqa: ASYNC110
                    await trio.sleep(0.1)
