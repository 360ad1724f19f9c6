"""Thirty nodes joining one bootstrap node at the same moment, on 127.0.0.1 (issue 26, l-boot).

Real hosts in one trio run: a bootstrap node (``bootstrap_config``) and 30 light nodes (no discovery, no
goals) opened all at once, each bootstrapping from it. Every one must join without a warning that no
bootstrap peer is reachable, and learn peers besides the bootstrap node while the run's lookup slots are
all held by other lookups (as in a process whose other agents' lookups keep them). py-libp2p's own table
refresh at start also lets a joiner learn peers, so the previous build passes this too (in 10 s at load
~15); what only the first contact gives is pinned by ``tests/test_routing_lookup.py``. The figures (how
long, at 100 joiners) are in ``bench/bench_join.py``; here only that it happens, within a bound.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import trio

from ioa_p2p.bootstrap.bootnode import bootstrap_config
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.node import Node
from ioa_p2p.node.net.cpu_wait import RunnableClock
from ioa_p2p.node.net.routing import LOOKUP_SLOTS, lookup_slots

from .nodes import node_group

JOINERS = 30
LIGHT = {"discovery": {"enabled": False}, "goals": {"enabled": False}}
LISTEN = ("/ip4/127.0.0.1/tcp/0",)


@pytest.mark.slow
async def test_thirty_nodes_join_one_bootstrap_node_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, runnable_clock: RunnableClock
) -> None:
    """On the ``runnable_clock``, as a process of many agents runs (``ioa node start`` with ``[[agents]]``).
    On the system clock, with the run pinned to one core beside two busy loops (2026-11-28), all 30 joined
    but five kept a table of the bootstrap node alone for 170 s: a joiner learns peers from its first
    contact, bounded by ``FIRST_CONTACT_TIMEOUT`` (5 s), and the 31 nodes' one loop waited for a CPU most
    of that time (the lookup slots are held here, so nothing else teaches them)."""
    with trio.fail_after(180), caplog.at_level(logging.WARNING, logger="ioa_p2p.routing"):
        async with node_group() as group:
            boot = await group.start(
                "boot", bootstrap_config(NodeConfig(home=tmp_path / "boot", listen=LISTEN))
            )
            entry = (f"{boot.listen_addrs()[0]}/p2p/{boot.peer_id}",)
            joiners: list[Node] = []
            release = trio.Event()

            async def hold_a_slot() -> None:
                async with lookup_slots().slot(joining=False):
                    await release.wait()

            for _ in range(LOOKUP_SLOTS):
                group.nursery.start_soon(hold_a_slot)

            async def join(i: int) -> None:
                config = NodeConfig(home=tmp_path / f"j{i}", listen=LISTEN, bootstrap=entry, raw=LIGHT)
                joiners.append(await group.start(f"j{i}", config))

            def lacking() -> list[Node]:
                return [n for n in joiners if not n.bootstrap.joined or n.net.dht.routing_table.size() < 2]

            def state() -> str:  # what a timeout reports: which joins did not finish, and how far they got
                lack = [
                    f"{n.peer_id.short()}: joined {n.bootstrap.joined},"
                    f" table {n.net.dht.routing_table.size()},"
                    f" connected to boot {n.is_connected(boot.peer_id)}"
                    for n in lacking()
                ]
                return f"{len(joiners)} of {JOINERS} joiners started; lacking: {lack}"

            with trio.move_on_after(170) as bound:  # inside fail_after(180): the message says what lagged
                async with trio.open_nursery() as nursery:  # all at once
                    for i in range(JOINERS):
                        nursery.start_soon(join, i)
                while lacking():  # noqa: ASYNC110 - the routing table has no event to wait on
                    await trio.sleep(0.2)
            if bound.cancelled_caught:
                pytest.fail(f"the joins did not finish within 170 s: {state()}")
            assert all(n.is_connected(boot.peer_id) for n in joiners)
            assert lookup_slots().busy == LOOKUP_SLOTS  # held all along: no lookup of theirs ran
            release.set()
    assert "no bootstrap peer is reachable" not in caplog.text
