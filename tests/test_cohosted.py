"""The agents of one process do not budget each other as remote peers (:mod:`ioa_p2p.node.net.cohosted`):
trusted as the operator's, their work never charged, never paced, and no reason for a node's strangers to
yield; remote peers keep their budgets (issue 26: in a 25-agent process every agent kept the others waiting
for its bootstrap peer's work, 4 of 25 cards at the coordinator after 150 s)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from ioa_p2p.budget import TRUST_KNOWN, TRUST_PARTNER, TRUST_STRANGER
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.lifecycle import open_node
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.cpu_wait import RunnableClock
from ioa_p2p.node.net.gossip import CardGossip
from ioa_p2p.node.node import Node

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
            for _ in range(10):  # a ping may fail on a loaded box: what counts is the work it made
                await b.ping(a.peer_id)
                await remote.ping(a.peer_id)
            a.budgets.snapshot()  # books what the step timer noted
            # c's pings: a remote peer's work, charged (a stranger's; a known one's once a has c's card)
            assert a.budgets.cpu.loop_by_trust[TRUST_STRANGER] + a.budgets.cpu.loop_by_trust[TRUST_KNOWN] > 0
            assert a.budgets.cpu.loop_by_trust[TRUST_PARTNER] == 0  # b's: the process's own
            assert a.budgets.trust(b.peer_id) == TRUST_PARTNER
            assert remote.budgets.trust(a.peer_id) < TRUST_PARTNER  # a stranger, or known by its card
            # gossip: with the remote peer only; the agents' announcements reach each other in the process
            gossips = [n.services.discovery.gossip if n.services.discovery else None for n in (a, b)]
            assert all(isinstance(g, CardGossip) for g in gossips)
            while not all(remote.peer_id in _pubsub_peers(g) for g in gossips):  # noqa: ASYNC110
                await trio.sleep(0.05)
            assert b.peer_id not in _pubsub_peers(gossips[0]) and a.peer_id not in _pubsub_peers(gossips[1])
            assert a.is_connected(b.peer_id)
    assert len(cohosted) == 0  # each left the process's list when it closed


def _pubsub_peers(gossip: object) -> set[PeerId]:
    assert isinstance(gossip, CardGossip)
    return {PeerId.from_bytes(p.to_bytes()) for p in gossip.pubsub.peers}


def test_the_agents_of_a_process_read_each_others_announcements_through_their_own_validators() -> None:
    a, b, c, late = (Identity.generate().peer_id for _ in range(4))
    cohosted, faults = CoHosted(), Faults()
    got: dict[str, list[tuple[PeerId, bytes]]] = {"b": [], "c": [], "late": []}

    def reader(name: str, accept: bool = True):  # type: ignore[no-untyped-def]
        def validate(publisher: PeerId, data: bytes) -> bool:
            return accept and data != b"bad"

        def deliver(publisher: PeerId, data: bytes) -> None:
            if name == "c" and data == b"boom":
                raise ValueError("c cannot take it")
            got[name].append((publisher, data))

        return validate, deliver

    with (
        cohosted.hosting(a),
        cohosted.hosting(b),
        cohosted.hosting(c),
        cohosted.card_topic(a, *reader("a"), faults) as announce_a,
        cohosted.card_topic(b, *reader("b"), faults),
        cohosted.card_topic(c, *reader("c"), faults),
    ):
        announce_a(b"card-1")
        assert got["b"] == got["c"] == [(a, b"card-1")]  # not to itself
        announce_a(b"bad")  # refused by the readers' validators: not delivered
        announce_a(b"boom")  # c's delivery fails: recorded, b still gets it
        assert got["b"] == [(a, b"card-1"), (a, b"boom")] and got["c"] == [(a, b"card-1")]
        assert faults.snapshot() and cohosted.shared == 3
        announce_a(b"card-2")
        with cohosted.hosting(late), cohosted.card_topic(late, *reader("late"), faults) as announce_late:
            assert got["late"] == []  # until its own card is out (its discovery live)
            announce_late(b"late-card")
            assert got["late"] == [(a, b"card-2")]  # then the last announcement of each other agent
            assert (late, b"late-card") in got["b"]
            announce_late(b"late-card-2")
            assert got["late"] == [(a, b"card-2")]  # handed once
    with cohosted.hosting(late), cohosted.card_topic(late, *reader("late"), faults) as announce_late:
        announce_late(b"late-card-3")
        assert got["late"] == [(a, b"card-2")]  # a left the process: its announcement is gone with it


@pytest.mark.slow
async def test_agents_of_a_process_hold_each_others_cards_without_a_connection(tmp_path: Path) -> None:
    cohosted = CoHosted()

    def config(name: str) -> NodeConfig:
        return NodeConfig(home=tmp_path / name, raw={"chats": FAST})

    def cards(node: Node) -> set[PeerId]:
        discovery = node.services.discovery
        assert discovery is not None
        return {card.peer_id for card in discovery.directory.cards()}

    with trio.fail_after(90):
        async with (
            open_node(config("a"), identity=Identity.generate(), write_info=False, cohosted=cohosted) as a,
            open_node(config("b"), identity=Identity.generate(), write_info=False, cohosted=cohosted) as b,
            open_node(config("c"), identity=Identity.generate(), write_info=False) as outsider,
        ):
            while not (b.peer_id in cards(a) and a.peer_id in cards(b)):  # noqa: ASYNC110
                await trio.sleep(0.05)
            assert not a.is_connected(b.peer_id)  # no bootstrap, no dial: handed over in the process
            assert not {a.peer_id, b.peer_id} & cards(outsider)  # not hosted with them: it learns nothing
            assert outsider.peer_id not in cards(a) | cards(b)


def test_a_remote_record_one_agent_accepted_is_handed_to_the_others_once_per_version() -> None:
    a, b, c, late = (Identity.generate().peer_id for _ in range(4))
    remote, other_remote = Identity.generate().peer_id, Identity.generate().peer_id
    cohosted, faults = CoHosted(), Faults()
    got: dict[str, list[tuple[PeerId, bytes]]] = {"a": [], "b": [], "c": [], "late": []}

    def reader(name: str):  # type: ignore[no-untyped-def]
        def validate(publisher: PeerId, data: bytes) -> bool:
            return data != b"forged"  # each agent's own validator decides

        def deliver(publisher: PeerId, data: bytes) -> None:
            got[name].append((publisher, data))

        return validate, deliver

    with (
        cohosted.hosting(a),
        cohosted.hosting(b),
        cohosted.hosting(c),
        cohosted.card_topic(a, *reader("a"), faults),
        cohosted.card_topic(b, *reader("b"), faults),
        cohosted.card_topic(c, *reader("c"), faults),
    ):
        cohosted.pass_on(a, remote, 3, b"remote-v3")  # a took it from gossip or the DHT
        assert got["b"] == got["c"] == [(remote, b"remote-v3")] and got["a"] == []  # not back to a
        cohosted.pass_on(b, remote, 3, b"remote-v3")  # it changed b's directory too: not handed again
        cohosted.pass_on(c, remote, 2, b"remote-v2")  # an older version: not handed on
        assert got["b"] == got["c"] == [(remote, b"remote-v3")] and cohosted.passed == 2
        cohosted.pass_on(c, remote, 4, b"forged")  # the others' own validators refuse it
        assert got["a"] == [] and got["b"] == [(remote, b"remote-v3")] and cohosted.passed == 2
        cohosted.pass_on(a, b, 9, b"mate")  # an agent of the process: its records go by its announcements
        assert got["c"] == [(remote, b"remote-v3")]
        cohosted.pass_on(b, other_remote, 1, b"other-v1")
        with cohosted.hosting(late), cohosted.card_topic(late, *reader("late"), faults) as announce_late:
            assert got["late"] == []
            announce_late(b"late-card")  # its first announcement: the process's view of the network with it
            assert got["late"] == [(other_remote, b"other-v1")]  # (the forged v4 refused by late too)


@pytest.mark.slow
async def test_the_agents_of_a_process_share_one_census_and_one_view_of_the_remote_cards(
    tmp_path: Path, runnable_clock: RunnableClock
) -> None:
    """A remote node whose card is in the DHT only (its gossip off): one agent of the process counts the
    publishers and fetches the card, the others adopt that census and are handed the card (each through
    its own validator), instead of each taking its own census of the DHT."""
    cohosted = CoHosted()
    remote_agent = {"name": "chef", "description": "plans dinner menus and cooking recipes"}

    def config(name: str, raw: dict[str, object], boot: Node | None) -> NodeConfig:
        bootstrap = (boot.listen_addrs()[0],) if boot is not None else ()
        return NodeConfig(home=tmp_path / name, bootstrap=bootstrap, bootstrap_backoff=0.2, raw=raw)

    def discovery(node: Node) -> Discovery:
        service = node.services.discovery
        assert service is not None
        return service

    with trio.fail_after(150):
        remote_raw = {"agent": remote_agent, "discovery": {"gossip": False}}
        async with (
            open_node(
                config("remote", remote_raw, None), identity=Identity.generate(), write_info=False
            ) as remote,
            AsyncExitStack() as stack,
        ):
            agents = []
            for i in range(3):
                raw = {"agent": {"name": f"agent-{i}", "description": f"Agent {i} does tasks of kind {i}."}}
                agents.append(
                    await stack.enter_async_context(
                        open_node(
                            config(f"a{i}", raw, remote),
                            identity=Identity.generate(),
                            write_info=False,
                            cohosted=cohosted,
                        )
                    )
                )
            services = [discovery(a) for a in agents]
            while not all(  # noqa: ASYNC110
                s.census.last is not None and remote.peer_id in s.directory for s in services
            ):
                await trio.sleep(0.1)
            taken = sum(s.census.taken for s in services)
            adopted = sum(s.census.adopted for s in services)
            assert taken >= 1 and adopted >= 2, [s.census.status(trio.current_time()) for s in services]
            assert taken < len(services)  # not one census per agent
            assert cohosted.passed >= 2  # the remote card, fetched by the census taker, handed to the others
