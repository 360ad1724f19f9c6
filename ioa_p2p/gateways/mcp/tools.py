"""The MCP server of a node: its tools, each a call of the node's control API (``mcp``'s ``MCPServer``).

=============================  ====================================================================
tool                           control API
=============================  ====================================================================
``find_agents(text, k)``       ``POST /find``
``launch_goal(goal, ...)``     ``POST /launch_goal`` (streamed: one progress notification per event;
                               then ``GET /chats/audit`` of the goal chat)
``goal_status(chat)``          ``GET /goals`` (the chat's rounds) and ``GET /goals/result``
``cancel_goal(chat)``          ``POST /cancel_goal`` (a signed ``conv.cancel``)
``list_chats()``               ``GET /chats``
``chat_history(chat)``         ``GET /chats/history``
``audit_chat(chat)``           ``GET /chats/audit``
``send_message(peer, text)``   ``POST /send``
=============================  ====================================================================

Every failure is an MCP tool error (``isError``) whose text is our message: the node is not running (start
it with ``ioa node start``), an unknown chat, a goal that failed or was aborted, a wrong argument.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from pathlib import Path
from typing import Any, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from typing_extensions import TypedDict

from ioa_p2p.api.discovery import FindRequest
from ioa_p2p.api.events import DoneEvent, ErrorEvent, HeartbeatEvent, TeamEvent
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.control_client.aio import AsyncControlClient
from ioa_p2p.errors import IoAError
from ioa_p2p.gateways.views import EventText, audit_view, clip, events_of, result_view, transcript

INSTRUCTIONS = (
    "Tools of an ioa-p2p node: a peer-to-peer network of AI agents with signed capability cards. "
    "find_agents looks agents up by what they can do; launch_goal forms a team and works a goal out in a "
    "signed group chat (progress as it goes; the answer, steps, citations, chat ID and audit verdict at "
    "the end); goal_status, cancel_goal, list_chats, chat_history, audit_chat follow up on chats; "
    "send_message sends a signed direct message to a peer."
)


class TeamMember(TypedDict):
    peer_id: str
    name: str


class GoalOutput(TypedDict):
    """The result of ``launch_goal`` (docs/gateways.md)."""

    answer: str
    status: str
    complete: bool
    exit_code: int
    steps: list[dict[str, Any]]
    citations: list[dict[str, Any]]
    chat_id: str
    round_id: str
    conclusion: str
    team: list[TeamMember]
    turns: int
    messages: int
    summary: str
    audit: dict[str, Any]


class Tools:
    """The tools, over one client of the node of ``home`` (read again for each call: the node may
    start, stop or restart while the MCP server runs)."""

    def __init__(self, home: Path, shared: AsyncControlClient | None = None) -> None:
        self.home = home
        self.shared = shared

    @asynccontextmanager
    async def client(self) -> AsyncIterator[AsyncControlClient]:
        """The server's client of the node (one connection pool for every session), or one for this
        call when the server was built without one."""
        if self.shared is not None:
            yield self.shared
            return
        async with AsyncControlClient(self.home, timeout=30.0) as client:
            yield client

    async def find_agents(self, text: str, k: int = 5) -> dict[str, Any]:
        """Agents on the network whose signed capability cards best match ``text`` (at most ``k``)."""
        async with self.client() as client:
            found = await client.find(_request(lambda: FindRequest(text, k)))
        results = [
            {
                "peer_id": m.peer_id,
                "name": m.name,
                "description": clip(m.description, 500),
                "skills": list(m.skills),
                "adapter": m.adapter,
                "score": round(m.score, 4),
                "self": m.is_self,
            }
            for m in found.results
        ]
        return {"query": found.query, "results": results}

    async def launch_goal(
        self,
        goal: str,
        ctx: Context,
        team: list[str] | None = None,
        max_turns: int | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the goal's time (a tool argument)
    ) -> GoalOutput:
        """Form a team and work ``goal`` out; progress notifications as the goal's events happen."""
        request = _request(
            lambda: LaunchRequest(
                goal, team=tuple(team) if team else None, max_turns=max_turns, timeout=timeout
            )
        )
        text = EventText()
        count = 0
        async with self.client() as client, aclosing(events_of(client, request)) as events:
            async for item in events:
                event = item.event
                if isinstance(event, HeartbeatEvent):
                    continue
                if isinstance(event, ErrorEvent):
                    raise ToolError(f"the goal failed: {event.error.type}: {event.error.message}")
                if isinstance(event, DoneEvent):
                    return await _finish(client, event)
                count += 1
                line = text(event)
                if isinstance(event, TeamEvent):
                    line = f"{line}\n(chat {event.chat_id}: cancel_goal with this chat ID stops the goal)"
                await ctx.report_progress(count, None, line)
        raise ToolError("the node ended the goal's stream without its result; see goal_status")

    async def goal_status(self, chat: str) -> dict[str, Any]:
        """The rounds of a goal chat on this node (running or ended), and the result of the latest ended
        one."""
        async with self.client() as client:
            await client.history(chat)  # the node's error for a chat it does not know
            rounds = [g.to_json() for g in await client.goals() if g.chat_id.startswith(chat.lower())]
            out: dict[str, Any] = {"chat": chat, "rounds": rounds}
            if rounds and rounds[-1].get("status") != "running":
                result = await client.round_result(str(rounds[-1]["chat_id"]))
                out["result"] = result_view(result, {"valid": None, "error": "see audit_chat"})
        return out

    async def cancel_goal(self, chat: str) -> dict[str, Any]:
        """Cancel the running round this node launched in a goal chat (a signed conv.cancel)."""
        async with self.client() as client:
            reply = await client.cancel_goal(chat=chat)
        return reply.to_json()

    async def list_chats(self) -> dict[str, Any]:
        """The chats this node takes part in."""
        async with self.client() as client:
            chats = await client.chats()
        return {"chats": [clip(c.to_json(), 500) for c in chats[-200:]]}

    async def chat_history(self, chat: str) -> dict[str, Any]:
        """A chat's transcript in causal order (the last 500 messages), as text and as messages."""
        async with self.client() as client:
            history = await client.history(chat)
        messages = [clip(m.to_json(), 1000) for m in history.messages[-500:]]
        return {"chat_id": history.chat.chat_id, "transcript": transcript(history), "messages": messages}

    async def audit_chat(self, chat: str) -> dict[str, Any]:
        """Audit this node's copy of a chat: signatures, hash chain, membership, equivocation."""
        async with self.client() as client:
            view = await client.audit(chat)
        return audit_view(view)

    async def send_message(self, peer: str, text: str) -> dict[str, Any]:
        """Send a signed direct message to a peer (its peer ID); answers once the peer acknowledged it."""
        async with self.client() as client:
            reply = await client.send(peer, text)
        return reply.to_json()


async def _finish(client: AsyncControlClient, done: DoneEvent) -> GoalOutput:
    result = done.result
    if result.status != "concluded":
        raise ToolError(
            f"the goal was aborted ({clip(result.conclusion, 500) or 'no conclusion'}); chat "
            f"{result.chat_id} holds what the team had (chat_history)"
        )
    try:
        audit = audit_view(await client.audit(result.chat_id))
    except IoAError as exc:
        audit = audit_view(None, f"{type(exc).__name__}: {exc}")
    view = result_view(result, audit)
    return cast(GoalOutput, view)


def _request(build: Any) -> Any:
    """A typed request, its InvalidField as a tool error naming the argument."""
    try:
        return build()
    except IoAError as exc:
        raise ToolError(str(exc)) from None


def tool_errors(fn: Any) -> Any:
    """Our errors as MCP tool errors with our messages (the node not running, an unknown chat...)."""

    @functools.wraps(fn)
    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except IoAError as exc:
            raise ToolError(str(exc)) from None

    return wrapped


def build_server(home: Path, client: AsyncControlClient | None = None) -> MCPServer:
    """The MCP server of the node of ``home``: the tools above and the resources
    (:mod:`~ioa_p2p.gateways.mcp.resources`). ``client``: the one client of the node every session's
    calls share (the caller owns and closes it; it reads the node's endpoint at each call); without it,
    each call opens its own."""
    from ioa_p2p.gateways.mcp.resources import NodeMCPServer

    tools = Tools(home, client)
    server = NodeMCPServer(home, tools.client, name="ioa-p2p", instructions=INSTRUCTIONS, version="0.1.0")
    for fn in (tools.find_agents, tools.launch_goal, tools.goal_status, tools.cancel_goal, tools.list_chats,
               tools.chat_history, tools.audit_chat, tools.send_message):  # fmt: skip
        server.add_tool(tool_errors(fn), name=fn.__name__, description=fn.__doc__)
    return server


__all__ = ["INSTRUCTIONS", "GoalOutput", "Tools", "build_server"]
