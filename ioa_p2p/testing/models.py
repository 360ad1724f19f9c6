"""Scripted :class:`~ioa_p2p.llm.model.Model` fakes for tests: one replays the replies it was given, one is a
weak model whose turns never advance a plan."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ioa_p2p.errors import ModelError
from ioa_p2p.llm.model import Message, ModelReply


class ScriptedModel:
    """A fake :class:`Model` replaying scripted replies (str = text reply, ModelReply, or an exception)."""

    def __init__(self, replies: Iterable[str | ModelReply | Exception] = (), name: str = "scripted") -> None:
        self.replies: deque[str | ModelReply | Exception] = deque(replies)
        self.calls: list[list[dict[str, Any]]] = []
        self.formats: list[dict[str, Any] | None] = []
        self.name = name

    @property
    def model_id(self) -> str:
        return f"scripted/{self.name}"

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        self.calls.append([dict(m) for m in messages])
        self.formats.append(None if response_format is None else dict(response_format))
        if not self.replies:
            raise ModelError("the scripted model has no replies left")
        reply = self.replies.popleft()
        if isinstance(reply, Exception):
            raise reply
        return reply if isinstance(reply, ModelReply) else ModelReply(text=reply)


class WeakModel:
    """A weak but well-formed model for the LLM brain's floor (issue 23): every answer is valid JSON of
    the turn format, and none advances the plan. In rotation it answers off-topic (a discussion about
    something else), echoes the prompt it was given (the task table and the format back as its message)
    and concludes early with a made-up answer."""

    def __init__(self, name: str = "weak") -> None:
        self.calls = 0
        self.name = name

    @property
    def model_id(self) -> str:
        return f"scripted/{self.name}"

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        self.calls += 1
        prompt = str(messages[-1].get("content", "")) if messages else ""
        turn = self.calls % 3
        if turn == 1:
            answer = {"message_type": "discussion", "content": "Lovely weather for sailing today."}
        elif turn == 2:
            answer = {"message_type": "discussion", "content": f"The task: {prompt[:300]}"}
        else:
            answer = {"message_type": "conclusion", "content": "The answer is 7."}
        return ModelReply(text=json.dumps(answer))


__all__ = [
    "ScriptedModel",
    "WeakModel",
]
