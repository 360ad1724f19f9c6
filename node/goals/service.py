"""The goals service of one node (``node.services.goals``): its parts, and what the node, the control
routes and clients call.

``open_goals(node, chats, discovery)`` (:mod:`~ioa_p2p.node.goals.run`) builds the parts, each given what
it works with (docs/goals.md):

- :class:`~ioa_p2p.node.goals.members.Members`: names and cards of agents;
- :class:`~ioa_p2p.node.goals.drivers.Drivers`: one chat driver per goal chat, the invitation policy;
- :class:`~ioa_p2p.node.goals.teams.TeamFormation`: discover, choose, invite, open the chat;
- :class:`~ioa_p2p.node.goals.launcher.Launcher`: launch a goal, follow its round, cancel it;
- :class:`~ioa_p2p.node.goals.tasks.TaskRunner`: a task assigned to this node, on its adapter or through
  a sub-team (launched by the launcher);
- :class:`~ioa_p2p.node.goals.results.GoalResults`: the rounds this node saw and their results.

:class:`Goals` holds them and forwards the service's calls to the part that does the work; no part calls
back into it.

Config ``[goals]`` (:class:`~ioa_p2p.node.goals.types.GoalsConfig`): ``max_concurrent`` (4), ``timeout``
(300 s per goal), ``max_turns`` (20), ``speaker_timeout`` (30 s), ``task_timeout`` (default: half the
goal's time), ``invite_timeout`` (10 s), ``max_team`` (4), ``threshold`` (0.2), ``shortlist`` (10),
``depth`` (1), ``brain`` ("auto" | "offline" | "llm").
"""

from __future__ import annotations

from dataclasses import dataclass

from ioa_p2p.api.events import EventSink
from ioa_p2p.api.goals import CancelGoalReply, GoalResult, GoalSummary
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.conversation.brains.base import Brain
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.goals.drivers import Drivers
from ioa_p2p.node.goals.launcher import Launcher
from ioa_p2p.node.goals.launches import LaunchLog, LaunchLogs
from ioa_p2p.node.goals.members import Members
from ioa_p2p.node.goals.results import GoalResults
from ioa_p2p.node.goals.runtime import AgentRuntime
from ioa_p2p.node.goals.tasks import TaskRunner
from ioa_p2p.node.goals.teams import TeamFormation
from ioa_p2p.node.goals.types import GoalsConfig


@dataclass(frozen=True, slots=True, eq=False)
class Goals:
    """The goals service of one node (see the module docstring)."""

    config: GoalsConfig
    chats: Chats
    runtime: AgentRuntime
    brain: Brain
    members: Members
    drivers: Drivers
    teams: TeamFormation
    launcher: Launcher
    tasks: TaskRunner
    results: GoalResults

    @property
    def launch_logs(self) -> LaunchLogs:
        return self.launcher.logs

    async def launch_goal(
        self, request: LaunchRequest, *, on_event: EventSink | None = None, launch_id: str | None = None
    ) -> GoalResult:
        """Form a team for ``request`` and work it out (:meth:`Launcher.launch_goal
        <ioa_p2p.node.goals.launcher.Launcher.launch_goal>`)."""
        return await self.launcher.launch_goal(request, on_event=on_event, launch_id=launch_id)

    def start_launch(self, request: LaunchRequest) -> tuple[str, LaunchLog]:
        """Launch ``request`` in the background; its launch ID and event log."""
        return self.launcher.start_launch(request)

    async def cancel_goal(self, ref: str) -> CancelGoalReply:
        """Cancel a goal this node launched (a launch ID or a chat)."""
        return await self.launcher.cancel_goal(ref)

    def round_result(self, chat_ref: str, round_id: str | None = None) -> GoalResult:
        return self.results.round_result(chat_ref, round_id)

    def list_goals(self) -> tuple[GoalSummary, ...]:
        return self.results.list_goals()


__all__ = ["Goals"]
