"""Sockets of real nodes are closed when a connection ends, not left to the garbage collector (issue 26).

A long-running node whose ended connections kept their sockets would run out of file descriptors. Two
real nodes on 127.0.0.1: when one leaves, the other's sockets to it are closed while it keeps running; when
both leave, collecting garbage finds no socket of theirs still open (Python warns "unclosed <socket...>"
for each). py-libp2p's own ``host.run``, cancelled, does leave them (tests running raw hosts use
``tests/raw_hosts.py``).
"""

from __future__ import annotations

import gc
import socket
import warnings
from pathlib import Path

import trio

from .conftest import open_test_nodes

INET = (socket.AF_INET, socket.AF_INET6)


def _port(addr: str) -> int:
    return int(addr.split("/tcp/")[1].split("/")[0])


def open_sockets(ports: set[int]) -> list[socket.socket]:
    """This process's open TCP sockets with one end at one of ``ports``."""
    found = []
    for obj in gc.get_objects():
        if isinstance(obj, socket.socket) and obj.fileno() != -1 and obj.family in INET:
            try:
                ends = {obj.getsockname()[1], obj.getpeername()[1]}
            except OSError:  # a listener (no peer) or a socket mid-close
                continue
            if ends & ports:
                found.append(obj)
    return found


async def test_a_peer_that_leaves_takes_its_sockets_with_it_and_so_do_both(tmp_path: Path) -> None:
    ports: set[int] = set()
    with trio.fail_after(120):
        async with open_test_nodes(tmp_path, 1) as (a,):
            ports.add(_port(a.listen_addrs()[0]))
            async with open_test_nodes(tmp_path / "b", 1) as (b,):
                ports.add(_port(b.listen_addrs()[0]))
                print("START", trio.current_time())
                await b.connect(a.listen_addrs()[0])
                assert await b.ping(a.peer_id) is not None  # a stream over the connection
                assert open_sockets(ports)  # the connection's two ends
            print("LEFT", trio.current_time())
            while open_sockets(ports):  # noqa: ASYNC110 - b left: a closes its end as it sees the connection end
                await trio.sleep(0.2)
            print("CLOSED", trio.current_time())
            assert b.peer_id not in a.connected_peers()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        gc.collect()
    leaked = [str(w.message) for w in caught if "unclosed <socket" in str(w.message)]
    assert not [m for m in leaked if any(f", {port})" in m for port in ports)], leaked
