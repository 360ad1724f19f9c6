"""Reaching a remote Agent2Agent agent: its agent card (fetched, bounded, parsed) and an ``a2a-sdk`` client.

The card is read from ``<url><card_path>`` (default ``/.well-known/agent-card.json``) with our own bounded
``httpx`` client, parsed by the SDK (which also accepts v0.3 cards), and turned into our
:class:`~ioa_p2p.adapters.AdapterCard`: the remote's name and description, its skills' names and tags as
skills, and a one-line summary of each skill appended to the description. Every failure is one of our
errors: :class:`~ioa_p2p.errors.PeerUnreachable`, :class:`~ioa_p2p.errors.IoATimeout`,
:class:`~ioa_p2p.errors.ProtocolViolation` (not an A2A agent card / no transport we speak).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import trio
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.types.a2a_pb2 import AgentCard, AgentInterface
from a2a.utils.constants import PROTOCOL_VERSION_1_0, TransportProtocol
from google.protobuf.json_format import ParseError

from ioa_p2p.adapters.base import AdapterCard
from ioa_p2p.adapters.remote import cut_utf8, fit_card, scrub, strip_userinfo, translate_http_error
from ioa_p2p.errors import IoATimeout, ProtocolViolation, RemotePeerError

KIND = "a2a"
#: Transports we can talk (gRPC would need the grpc extra of a2a-sdk).
BINDINGS = [TransportProtocol.JSONRPC.value, TransportProtocol.HTTP_JSON.value]


@dataclass(frozen=True, slots=True)
class RemoteAgent:
    """A connected remote agent: its parsed card and a client that uses our HTTP client."""

    url: str
    card: AgentCard
    client: Client
    streaming: bool  # we stream: the remote supports it and the options allow it


def card_url(url: str, card_path: str) -> str:
    return url.rstrip("/") + "/" + card_path.lstrip("/")


async def fetch_agent_card(http: httpx.AsyncClient, url: str, card_path: str, time_limit: float) -> AgentCard:
    """The remote's agent card; raises our errors (see the module docstring)."""
    where = f"the A2A agent at {strip_userinfo(url)}"
    try:
        with trio.fail_after(time_limit):
            response = await http.get(card_url(url, card_path), headers={"Accept": "application/json"})
            body = await response.aread()
    except trio.TooSlowError:
        raise IoATimeout(f"{where} did not send its agent card within {time_limit:g} s") from None
    except Exception as exc:
        raise translate_http_error(exc, where) from None
    if response.status_code != 200:
        detail = scrub(body.decode("utf-8", "replace"), limit=200)
        raise RemotePeerError(
            f"{where} answered HTTP {response.status_code} for its agent card at {card_path}: {detail}; "
            "check the URL (and card_path)"
        )
    try:
        card = parse_agent_card(json.loads(body))
    except (ValueError, ParseError, TypeError) as exc:
        raise ProtocolViolation(f"{where} sent no valid agent card: {scrub(str(exc), limit=300)}") from None
    if not card.supported_interfaces:
        card.supported_interfaces.append(
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version=PROTOCOL_VERSION_1_0)
        )
    return card


def make_client(http: httpx.AsyncClient, card: AgentCard, *, want_streaming: bool) -> tuple[Client, bool]:
    """An SDK client over ``http``; streaming when both sides want it, otherwise send-and-poll."""
    streaming = want_streaming and card.capabilities.streaming
    config = ClientConfig(
        streaming=streaming,
        polling=not streaming,  # ask for an immediate answer carrying the task id, then poll GetTask
        httpx_client=http,
        supported_protocol_bindings=list(BINDINGS),
    )
    try:
        return ClientFactory(config).create(card), streaming
    except ValueError as exc:
        offered = sorted({i.protocol_binding for i in card.supported_interfaces})
        raise ProtocolViolation(
            f"the A2A agent {card.name!r} offers transports {offered}; this node speaks {BINDINGS} ({exc})"
        ) from None


async def connect(
    http: httpx.AsyncClient, url: str, *, card_path: str, time_limit: float, want_streaming: bool
) -> RemoteAgent:
    card = await fetch_agent_card(http, url, card_path, time_limit)
    client, streaming = make_client(http, card, want_streaming=want_streaming)
    return RemoteAgent(url, card, client, streaming)


def adapter_card(card: AgentCard, task_types: Sequence[str]) -> AdapterCard:
    """Our card from the remote's: name, description (+ one line per skill), skill names and tags."""
    skills: list[str] = []
    lines: list[str] = []
    for skill in card.skills:
        skills.append(skill.name or skill.id)
        skills.extend(skill.tags)
        summary = cut_utf8(skill.description, 200)
        lines.append(f"{skill.name or skill.id}: {summary}" if summary else (skill.name or skill.id))
    description = card.description.strip()
    if lines:
        description = f"{description} Skills: " + "; ".join(lines) + "."
    return fit_card(name=card.name, description=description, skills=skills, kind=KIND, task_types=task_types)


def placeholder_card(url: str, task_types: Sequence[str]) -> AdapterCard:
    """The card before the remote's is known (an adapter that was never started)."""
    return fit_card(
        name="a2a agent",
        description=f"A remote Agent2Agent agent at {strip_userinfo(url)} (its card is read at start).",
        skills=(),
        kind=KIND,
        task_types=task_types,
    )


def card_summary(card: AgentCard) -> dict[str, Any]:
    """What a task result says about the remote agent."""
    return {"name": card.name, "version": card.version, "streaming": card.capabilities.streaming}


__all__ = [
    "KIND",
    "RemoteAgent",
    "adapter_card",
    "card_summary",
    "connect",
    "fetch_agent_card",
    "make_client",
    "placeholder_card",
]
