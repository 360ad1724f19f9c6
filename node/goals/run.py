"""``async with open_goals(node, chats, discovery) as goals:``: the goals service, its routes and the
adapter's description merged into the node's card, until the block exits.

:func:`open_goals` is the goal wing's composition root: it builds each part of
:class:`~ioa_p2p.node.goals.service.Goals` once, in order, and gives it what it works with (members, team
formation, the chat drivers, the launcher, the task runner: the task runner launches sub-teams through the
launcher, whose rounds the drivers run, so the drivers get their collaborators last,
:meth:`~ioa_p2p.node.goals.drivers.Drivers.open`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from ioa_p2p.conversation.brains.base import CONTEXT_TOKENS, Brain
from ioa_p2p.embedding import Embedder, make_embedder
from ioa_p2p.errors import IoAError
from ioa_p2p.llm.model import Model
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.goals.brain import make_brain_for
from ioa_p2p.node.goals.driver import DriverDeps
from ioa_p2p.node.goals.drivers import Drivers
from ioa_p2p.node.goals.launcher import Launcher
from ioa_p2p.node.goals.members import Members
from ioa_p2p.node.goals.reputation import ReputationBook, reputation_loop
from ioa_p2p.node.goals.results import GoalResults
from ioa_p2p.node.goals.routes import add_goal_routes
from ioa_p2p.node.goals.runtime import AgentRuntime, load_runtime
from ioa_p2p.node.goals.service import Goals
from ioa_p2p.node.goals.tasks import TaskRunner
from ioa_p2p.node.goals.teams import TeamFormation
from ioa_p2p.node.goals.trace_peers import TracePeers
from ioa_p2p.node.goals.types import GoalsConfig
from ioa_p2p.node.ports import NodePort

log = logging.getLogger("ioa_p2p.goals")


@asynccontextmanager
async def open_goals(node: NodePort, chats: Chats, discovery: Discovery | None) -> AsyncIterator[Goals]:
    """The goals service (see :mod:`ioa_p2p.node.goals.service`); uses discovery when it runs."""
    config = GoalsConfig.from_section(node.config.section("goals"))
    settings = node.config.section("model") or node.config.section("llm")
    runtime = load_runtime(node.config.section("agent"), node.home, settings, node.now, node.run_sync)
    embedder = (
        discovery.embedder if discovery is not None else make_embedder(node.config.section("embedding"))
    )
    brain, model = make_brain_for(config, dict(settings), embedder, tracer=node.tracer)
    try:
        async with trio.open_nursery() as nursery:
            await runtime.start(nursery)  # a served adapter's card is final before it is published
            goals = compose_goals(node, chats, discovery, config, runtime, embedder, brain, model, nursery)
            chats.set_invite_policy(goals.drivers.invite_policy)
            add_goal_routes(node, goals)
            if discovery is not None and runtime.card is not None:
                await _merge_adapter_card(discovery, runtime)
            if discovery is not None:
                book = ReputationBook(
                    chats, discovery, config.trust(), config.trusted, exposure=config.exposure()
                )
                nursery.start_soon(reputation_loop, book)
            goals.drivers.resume()
            try:
                yield goals
            finally:
                nursery.cancel_scope.cancel()
    finally:
        await runtime.aclose()
        close = getattr(model, "aclose", None)
        if close is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await close()


def compose_goals(
    node: NodePort,
    chats: Chats,
    discovery: Discovery | None,
    config: GoalsConfig,
    runtime: AgentRuntime,
    embedder: Embedder,
    brain: Brain,
    model: Model | None,
    nursery: trio.Nursery,
) -> Goals:
    """The parts of the goals service, each given what it works with."""
    members = Members(node, discovery, runtime.card)
    context_tokens: int = getattr(brain, "context_tokens", CONTEXT_TOKENS)  # an LLM brain's model's
    teams = TeamFormation(node, chats, discovery, config, members, model, context_tokens=context_tokens)
    drivers = Drivers(config, nursery)
    trace_peers = TracePeers(node)
    trace_peers.serve()
    launcher = Launcher(
        node,
        chats,
        config,
        teams,
        drivers,
        members,
        brain_label=brain.label,
        nursery=nursery,
        trace_peers=trace_peers,
    )
    tasks = TaskRunner(node, runtime, members, launcher)
    drivers.open(DriverDeps(node, chats, brain, members, tasks, trace_peers))
    results = GoalResults(chats, drivers, members, brain_label=brain.label)
    return Goals(config, chats, runtime, brain, members, drivers, teams, launcher, tasks, results)


async def _merge_adapter_card(discovery: Discovery, runtime: AgentRuntime) -> None:
    """Fill the card fields the operator left empty from the adapter's own description, and republish."""
    card = runtime.card
    assert card is not None
    agent = discovery.agent
    changes: dict[str, str | list[str]] = {}
    if not agent.description.strip():
        changes["description"] = card.description
    extra = [s for s in card.skills if s not in agent.skills]
    if extra:
        changes["skills"] = [*agent.skills, *extra]
    if not agent.task_types and card.task_types:
        changes["task_types"] = list(card.task_types)
    if not agent.adapter:
        changes["adapter"] = card.kind
    for key in ("languages", "input_types", "output_types", "tools"):  # structured fields: the operator's win
        if not getattr(agent, key) and getattr(card, key):
            changes[key] = list(getattr(card, key))
    if changes:
        try:
            discovery.adopt_agent(agent.with_changes(changes, discovery.node.peer_id))
        except IoAError as exc:
            log.warning("could not add the adapter's description to the card: %s", exc)


__all__ = ["compose_goals", "open_goals"]
