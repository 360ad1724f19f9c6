"""What the goal chats this node takes part in ended with (``GET /goals``, ``GET /goals/result``).

Read from the chat drivers' rounds, as this node saw them: any member can tell a round's result (the
team's match scores are known to the launcher only: 0 here, 1 for the round's initiator).
"""

from __future__ import annotations

from ioa_p2p.api.goals import GoalResult, GoalSummary, Teammate, goal_result
from ioa_p2p.errors import UsageError
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.goals.drivers import Drivers
from ioa_p2p.node.goals.members import Members


class GoalResults:
    """The rounds this node has seen, and the result of each ended one."""

    def __init__(self, chats: Chats, drivers: Drivers, members: Members, *, brain_label: str) -> None:
        self.chats = chats
        self.drivers = drivers
        self.members = members
        self.brain_label = brain_label

    def round_result(self, chat_ref: str, round_id: str | None = None) -> GoalResult:
        """The result of an ended round of a goal chat (``round_id``; None: the latest)."""
        chat_id = self.chats.resolve(chat_ref)
        driver = self.drivers.get(chat_id)
        r = driver.rounds.get(round_id) if driver and round_id else driver.latest_round() if driver else None
        if r is None:
            raise UsageError(f"chat {chat_id.hex()[:16]}... has no round {round_id or ''} on this node")
        out = r.outcome
        if out is None:
            raise UsageError(f"round {r.round_id[:16]} is still running; follow it with GET /goal_events")
        start = r.start
        name_of = self.members.name_of
        team = tuple(Teammate(m, name_of(m), float(m == start.initiator)) for m in start.members)
        return goal_result(
            goal=start.goal,
            chat_id=chat_id.hex(),
            round_id=r.round_id,
            status=out.status,
            conclusion=out.conclusion,
            forced=out.forced,
            team=team,
            declined=(),
            unanswered=(),
            tasks=out.tasks,
            turns=out.turns,
            messages=out.messages,
            size=out.bytes,
            brain=self.brain_label,
            depth=start.depth,
            parent_chat=start.parent_chat,
            parent_task=start.parent_task,
            timings={},
            origins=out.origins,
            fallbacks=out.fallbacks,
            team_fallback="",
            plan=out.plan,
        )

    def list_goals(self) -> tuple[GoalSummary, ...]:
        """Every round this node has seen, by chat, oldest first."""
        out = []
        for chat_id, driver in sorted(self.drivers.items()):
            for r in sorted(driver.rounds.values(), key=lambda r: r.started_ms):
                out.append(
                    GoalSummary(
                        chat_id=chat_id.hex(),
                        round_id=r.round_id,
                        goal=r.start.goal,
                        initiator=r.start.initiator,
                        members=tuple(r.start.members),
                        status=r.outcome.status if r.outcome else "running",
                        started_ms=r.started_ms,
                        depth=r.start.depth,
                        parent_chat=r.start.parent_chat,
                        conclusion=r.outcome.conclusion if r.outcome is not None else None,
                    )
                )
        return tuple(out)


__all__ = ["GoalResults"]
