"""The agents of one process do not budget each other as remote peers (:mod:`ioa_p2p.node.net.cohosted`):
trusted as the operator's, their work never charged, never paced, and no reason for a node's strangers to
yield; remote peers keep their budgets (issue 26: in a 25-agent process every agent kept the others waiting
for its bootstrap peer's work, 4 of 25 cards at the coordinator after 150 s)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from ioa_p2p.budget import TRUST_KNOWN, TRUST_PARTNER, TRUST_STRANGER
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.node import open_node

from .test_chats_net import FAST, connect_all


@dataclass
class Loop:
    busy: float = 1.0


async def test_another_agent_of_the_process_is_trusted_never_charged_never_paced() -> None:
    mate, stranger, boot = (Identity.generate().peer_id for _ in range(3))
    cohosted = CoHosted()
    budgets = NodeBudgets(Limits(), cohosted)
    budgets.watch_loop(Loop(busy=1.0))  # the process's loop congested throughout, as with 25 agents
    budgets.trust_peers([boot])
    with cohosted.hosting(mate):
        assert budgets.is_cohosted(mate) and not budgets.is_cohosted(stranger)
        assert budgets.trust(mate) == TRUST_PARTNER and budgets.trust(stranger) == TRUST_STRANGER
        budgets.charge_cpu(mate, 50.0, 500.0)  # far past any bucket or pool
        assert budgets.cpu_delay(mate) == 0 and not budgets.owes(mate)
        assert budgets.cpu.charged == 0 and budgets.cpu.loop_by_trust[TRUST_PARTNER] == 0
        assert budgets.cpu_delay(stranger) == 0  # the mate's work gives strangers no reason to yield
        assert budgets.admits(str(mate)) and not budgets.start_negotiation(budgets.trust(mate))
        assert budgets.snapshot()["cpu"]["cohosted_agents"] == 1
        budgets.charge_cpu(boot, 0.001, 0.001)  # the operator's bootstrap peer: still served first
        assert budgets.cpu_delay(stranger) > 0
        assert budgets.yielded == 1
        budgets.charge_cpu(stranger, 5.0, 5.0)  # a remote peer keeps its own budget
        assert budgets.cpu_delay(stranger, may_yield=False) > 0
    budgets._trust_cache.clear()
    assert not budgets.is_cohosted(mate) and budgets.trust(mate) == TRUST_STRANGER  # it left the process


async def test_a_node_alone_trusts_nobody_for_sharing_its_trio_run() -> None:
    """Nodes merely sharing a trio run (a test's attacker beside its victim) are not co-hosted."""
    other = Identity.generate().peer_id
    budgets = NodeBudgets(Limits())
    budgets.add_voucher(lambda peer: TRUST_KNOWN if peer == other else TRUST_STRANGER)
    assert not budgets.is_cohosted(other) and budgets.trust(other) == TRUST_KNOWN
    budgets.charge_cpu(other, 5.0, 5.0)
    assert budgets.cpu_delay(other) > 0
    assert budgets.snapshot()["cpu"]["cohosted_agents"] == 1


@pytest.mark.slow
async def test_connections_between_agents_of_a_process_are_its_own_work_and_a_remote_peers_are_charged(
    tmp_path: Path,
) -> None:
    cohosted = CoHosted()

    def config(name: str) -> NodeConfig:
        return NodeConfig(home=tmp_path / name, raw={"chats": FAST})

    with trio.fail_after(60):
        async with (
            open_node(config("a"), identity=Identity.generate(), write_info=False, cohosted=cohosted) as a,
            open_node(config("b"), identity=Identity.generate(), write_info=False, cohosted=cohosted) as b,
            open_node(config("c"), identity=Identity.generate(), write_info=False) as remote,
        ):
            assert (
                len(cohosted) == 2 and a.budgets.is_cohosted(b.peer_id) and b.budgets.is_cohosted(a.peer_id)
            )
            assert not remote.budgets.is_cohosted(a.peer_id)  # c runs beside them, not as one of them
            await connect_all([a, b, remote])
            for _ in range(10):
                assert await b.ping(a.peer_id) is not None
                assert await remote.ping(a.peer_id) is not None
            a.budgets.snapshot()  # books what the step timer noted
            assert a.budgets.cpu.loop_by_trust[TRUST_STRANGER] > 0  # c's pings: a remote stranger's work
            assert a.budgets.cpu.loop_by_trust[TRUST_PARTNER] == 0  # b's: the process's own
            assert a.budgets.trust(b.peer_id) == TRUST_PARTNER
            assert remote.budgets.trust(a.peer_id) == TRUST_STRANGER
    assert len(cohosted) == 0  # each left the process's list when it closed
