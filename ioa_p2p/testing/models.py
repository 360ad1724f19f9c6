"""A scripted :class:`~ioa_p2p.llm.model.Model` for tests: it replays the replies it was given."""

from __future__ import annotations

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
    ) -> ModelReply:
        self.calls.append([dict(m) for m in messages])
        if not self.replies:
            raise ModelError("the scripted model has no replies left")
        reply = self.replies.popleft()
        if isinstance(reply, Exception):
            raise reply
        return reply if isinstance(reply, ModelReply) else ModelReply(text=reply)


__all__ = [
    "ScriptedModel",
]
