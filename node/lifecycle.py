"""``async with open_node(config) as node:``: a node's life, what it opens in order and closes.

``open_node`` loads the identity, opens the node's libp2p network
(:class:`~ioa_p2p.node.net.network.Libp2pNetwork`: the Noise-only host on the configured multiaddrs, its DHT,
the one dial path, reachability, relaying, hole punching), bootstrap dialing with backoff and peer discovery
(:mod:`ioa_p2p.node.net.routing`), then the services, composed explicitly by
:func:`ioa_p2p.node.services.open_services` into the typed ``node.services``, and the local control API. All
background work lives in the node's nursery (``node.nursery``); leaving the ``async with`` block cancels it
and closes the host.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager, nullcontext, suppress
from pathlib import Path

import trio

from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig, resolve_bootstrap
from ioa_p2p.faults import Faults, single_error
from ioa_p2p.identity import Identity, PeerId, load_key_file
from ioa_p2p.memory import PROCESS_MEMORY, AgentMemory, ProcessMemory
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.host import parse_multiaddr, peer_info_from_addr, peer_of_addr
from ioa_p2p.node.net.nat import NatOptions
from ioa_p2p.node.net.network import InboundCap, NetOptions, open_network
from ioa_p2p.node.net.routing import start_routing
from ioa_p2p.node.node import Node
from ioa_p2p.node.relay.settings import RelaySettings
from ioa_p2p.node.services import open_services
from ioa_p2p.node.status import add_status_routes
from ioa_p2p.node.telemetry import open_tracer
from ioa_p2p.telemetry.tracer import Tracer

log = logging.getLogger("ioa_p2p.node")


@asynccontextmanager
async def open_node(
    config: NodeConfig,
    *,
    identity: Identity | None = None,
    control_api: bool = True,
    write_info: bool = True,
    services: bool = True,
    memory: ProcessMemory = PROCESS_MEMORY,
    cohosted: CoHosted | None = None,
) -> AsyncIterator[Node]:
    """Run a node until the block exits. ``identity`` defaults to the key file under ``config.home``;
    ``memory``: the ledger of the agents of this process (one per process; tests may pass their own);
    ``cohosted``: the agents of this process (``open_agents``), which this node joins while it runs and
    whose connections it treats as the process's own work (:mod:`ioa_p2p.node.net.cohosted`)."""
    identity = identity or load_key_file(config.key_path)
    for addr in (*config.listen, *config.announce):
        parse_multiaddr(addr)  # fail early on a bad address
    bootstrap = resolve_bootstrap(config)
    for addr in bootstrap:
        peer_info_from_addr(addr)  # fail early on a bad bootstrap address
    relay = RelaySettings.from_section(config.section("relay"), str(config.home / "config.toml"))
    options = NetOptions(
        listen=config.listen,
        announce=config.announce,
        nat=NatOptions(mode=config.reachability, confirmations=config.confirmations),
        relay_client=relay.client,
        hole_punching=relay.client and relay.hole_punching,
        mdns=config.mdns,
    )
    tracer = open_tracer(config.section("telemetry"), config.home, str(identity.peer_id))
    faults = Faults()  # before the host: inbound streams are served inside its boundary from the start
    budgets = NodeBudgets(Limits.from_section(config.section("limits")), cohosted)
    budgets.trust_peers(peer_of_addr(a) for a in bootstrap)  # the operator named them
    inbound = InboundCap(
        budgets.limits.streams_per_peer, budgets.count_refused_early, budgets.admits, budgets=budgets
    )
    agent_memory = memory.open_agent()
    hosting = cohosted.hosting(identity.peer_id) if cohosted is not None else nullcontext()
    with single_error(), _closing(agent_memory), hosting:
        async with (
            open_network(identity, options, faults.record, inbound) as net,
            trio.open_nursery() as nursery,
        ):
            node = Node(
                config,
                identity,
                net,
                nursery,
                faults=faults,
                budgets=budgets,
                tracer=tracer,
                memory=agent_memory,
            )
            try:
                # Services exit (in reverse order) before the background tasks are cancelled, so an
                # exception raised in the block is never replaced by a Cancelled from our own scope.
                async with AsyncExitStack() as stack:
                    start_routing(net, node.bootstrap, config, nursery, faults)
                    if services:
                        await open_services(
                            node,
                            stack,
                            node.services,
                            card_net=net.card_net(faults, cohosted),
                            relay_net=net.relay_net(),
                        )
                        _hint_card_addrs(node)
                    if cohosted is not None:  # the others open their streams to it in memory from now on
                        stack.enter_context(cohosted.serving(node.peer_id, node.accept_local))
                        me = node.peer_id  # its DHT requests to them too; a joining self-lookup asks them
                        net.open_local_streams_with(node.local_stream, lambda: cohosted.serving_peers(me))
                    add_status_routes(node)
                    node.services_ready.set()
                    if control_api:
                        await nursery.start(
                            lambda task_status: node.control.serve(
                                port=config.control_port, task_status=task_status
                            )
                        )
                        if write_info:
                            config.home.mkdir(parents=True, exist_ok=True)
                            node.control.write_files(config.home, node.info())
                    agent_memory.started()
                    try:
                        yield node
                    finally:
                        if write_info and control_api:
                            _remove_info(config.home)
            finally:
                nursery.cancel_scope.cancel()
                with trio.CancelScope(shield=True):
                    await node.wait_threads(10.0)
                    with trio.move_on_after(5):
                        await _flush_traces(tracer)


async def _flush_traces(tracer: Tracer) -> None:
    """Export the spans still buffered (an OpenTelemetry tracer's exporters run in threads)."""
    shutdown = getattr(tracer, "shutdown", None)
    if shutdown is not None:
        await trio.to_thread.run_sync(shutdown, abandon_on_cancel=True)  # type: ignore[call-arg]


def _hint_card_addrs(node: Node) -> None:
    """The dial path also tries the addresses of a peer's latest signed card (discovery's directory)."""

    def card_addrs(peer: PeerId) -> list[str]:
        discovery = node.services.discovery
        if discovery is None:
            return []
        card = discovery.directory.get(peer, int(node.now() * 1000))
        return list(card.card.addrs) if card is not None else []

    node.net.add_hints(card_addrs)


@contextmanager
def _closing(agent: AgentMemory) -> Iterator[None]:
    try:
        yield
    finally:
        agent.close()


def _remove_info(home: Path) -> None:
    for name in ("node.json", "control.token"):
        with suppress(OSError):
            (home / name).unlink()


__all__ = ["open_node"]
