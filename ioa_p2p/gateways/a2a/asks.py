"""What an A2A client asks for (pure): the text, the skill and the options of a ``SendMessage``.

The text is the message's text parts, joined by newlines; other parts (files, raw bytes, data) are refused
with ``ContentTypeNotSupportedError``. Options come from the message's ``metadata`` (or the request's; the
message's win): ``skill`` (``team_goal``, the default, or ``run_task``), ``team`` (peer IDs or agent names:
a list, or one text separated by commas; only with ``team_goal``), ``max_turns``, ``timeout`` (seconds).
Every wrong value is ``InvalidParamsError`` naming the option, checked by the control API's own
:class:`~ioa_p2p.api.launch.LaunchRequest`. Other metadata keys are the client's own and are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2a.types.a2a_pb2 import SendMessageRequest
from a2a.utils.errors import ContentTypeNotSupportedError, InvalidParamsError
from google.protobuf.json_format import MessageToDict

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.errors import InvalidField
from ioa_p2p.gateways.a2a.card import RUN_TASK, SKILLS, TEAM_GOAL


@dataclass(frozen=True, slots=True)
class Ask:
    """A client's task: its text, the skill, the launch options it gave."""

    text: str
    skill: str = TEAM_GOAL
    team: tuple[str, ...] | None = None
    max_turns: int | None = None
    timeout: float | None = None

    def launch(self, *, me: str, chat: str | None = None) -> LaunchRequest:
        """The control API's launch: on this node alone (``run_task``), with a team, or continuing
        ``chat``."""
        team = (me,) if self.skill == RUN_TASK else self.team
        return _launch(self.text, None if chat else team, self.max_turns, self.timeout, chat)


def read_ask(params: SendMessageRequest) -> Ask:
    """The :class:`Ask` of a request (A2A errors for what is wrong in it)."""
    texts = []
    for part in params.message.parts:
        kind = part.WhichOneof("content")
        if kind != "text":
            raise ContentTypeNotSupportedError(
                message=f"this agent takes text parts only (the task or the goal in words), not a {kind} part"
            )
        texts.append(part.text)
    text = "\n".join(t for t in texts if t.strip()).strip()
    if not text:
        raise InvalidParamsError(message="message.parts: the message needs a text part: the task or the goal")
    options: dict[str, Any] = {**MessageToDict(params.metadata), **MessageToDict(params.message.metadata)}
    skill = options.get("skill", TEAM_GOAL)
    if skill not in SKILLS:
        raise InvalidParamsError(message=f"metadata.skill must be one of {list(SKILLS)}, not {skill!r}")
    team = options.get("team")
    if isinstance(team, str):
        team = [t for t in team.split(",") if t.strip()]
    if team is not None and skill == RUN_TASK:
        raise InvalidParamsError(
            message="metadata.team: the run_task skill runs on this agent alone; no team"
        )
    if team is not None and not (isinstance(team, list) and all(isinstance(t, str) for t in team)):
        raise InvalidParamsError(message="metadata.team must be a list of peer IDs or agent names")
    names = tuple(t.strip() for t in team if t.strip()) if team else ()
    ask = Ask(
        text,
        skill,
        names or None,
        _integer(options.get("max_turns"), "max_turns"),
        _number(options.get("timeout"), "timeout"),
    )
    _launch(ask.text, ask.team, ask.max_turns, ask.timeout, None)  # every value checked now
    return ask


def _launch(
    text: str, team: tuple[str, ...] | None, max_turns: int | None, timeout: float | None, chat: str | None
) -> LaunchRequest:
    try:
        return LaunchRequest(text, team=team, max_turns=max_turns, timeout=timeout, chat=chat)
    except InvalidField as exc:
        where = "message.parts" if exc.path == "goal" else f"metadata.{exc.path}"
        raise InvalidParamsError(message=f"{where}: {exc.reason}") from None


def _integer(value: object, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():  # JSON numbers in a Struct are doubles
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidParamsError(message=f"metadata.{name} must be an integer, not {value!r}")


def _number(value: object, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise InvalidParamsError(message=f"metadata.{name} must be a number of seconds, not {value!r}")


__all__ = ["Ask", "read_ask"]
