"""The LLM path against hostile OpenAI-compatible servers (real HTTP on 127.0.0.1, the real openai client).

Each turn runs as the node runs it (:func:`~ioa_p2p.node.goals.turns.take_turn_bounded`: one cancel scope
for the whole call, the offline planner's decision marked with the failure's kind when the model fails),
with a credential in the API key and in the base URL's userinfo; the credential must not appear in the
turn, the errors or the logs. The team-up tool loop, the prompt budget and structured output are covered
here too; tests/test_llm_goals_process.py runs whole goals across node processes.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

import pytest
import trio

from ioa_p2p.conversation.brains.base import MemberInfo, fallback_kind, turn_origin
from ioa_p2p.conversation.brains.llm import LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.brains.prompt import turn_prompt
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.conversation.plan import SharedStep
from ioa_p2p.conversation.types import Incoming, Speak, TurnDraft
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.errors import IoAError, ModelOutputError
from ioa_p2p.llm.failures import estimate_tokens, redact_url
from ioa_p2p.llm.openai_compat import OpenAIModel
from ioa_p2p.node.goals.model_calls import GuardedModel
from ioa_p2p.node.goals.turns import BRAIN_SHARE, take_turn_bounded
from ioa_p2p.teaming.candidates import Candidate
from ioa_p2p.teaming.llm_team import fit_messages, llm_team_from_shortlist
from ioa_p2p.testing.hostile_model import serve_hostile

PASSWORD = "hunter2-PW-7731"
API_KEY = "sk-SECRET-KEY-5521"
SECRETS = (PASSWORD, API_KEY, base64.b64encode(f"user:{PASSWORD}".encode()).decode())
GOAL = "Calculate 17 * 23. Then calculate the result times 2"
MEMBERS = [
    MemberInfo("peerA", "coordinator", "Coordinates agents.", (), False),
    MemberInfo("peerB", "calculator", "Exact arithmetic: products, sums."),
]
SPEAKER_TIMEOUT = 3.0  # the turn's budget is 0.8 x this
#: Only a hang fails on it (the turn's bound is checked on trio's clock, whatever the machine's load).
HANG_GUARD = 120.0


class Goals:
    """What take_turn_bounded needs to know of the members: their cards."""

    async def team_info(self, members: Any) -> list[MemberInfo]:
        return list(MEMBERS)

    def member_info(self, peer: str) -> MemberInfo:
        return next(m for m in MEMBERS if m.peer_id == peer)


def credential_url(base_url: str) -> str:
    return base_url.replace("http://", f"http://user:{PASSWORD}@")


class WatchedModel:
    """A model that records, on trio's clock, each call's start and deadline, and how the call ended:
    ``cancelled`` (a cancel scope ended it), ``answered``, or the error's type."""

    def __init__(self, inner: GuardedModel) -> None:
        self.inner = inner
        self.calls: list[tuple[float, float, str]] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    async def complete(self, messages: Any, **options: Any) -> Any:
        began, deadline = trio.current_time(), trio.current_effective_deadline()
        try:
            reply = await self.inner.complete(messages, **options)
        except trio.Cancelled:
            self.calls.append((began, deadline, "cancelled"))
            raise
        except Exception as exc:
            self.calls.append((began, deadline, type(exc).__name__))
            raise
        self.calls.append((began, deadline, "answered"))
        return reply


def brain_for(base_url: str, *, retries: int = 1) -> tuple[LLMBrain, OpenAIModel]:
    brain, raw, _ = watched_brain_for(base_url, retries=retries)
    return brain, raw


def watched_brain_for(base_url: str, *, retries: int = 1) -> tuple[LLMBrain, OpenAIModel, WatchedModel]:
    raw = OpenAIModel(model="hostile", base_url=credential_url(base_url), api_key=API_KEY, timeout=60)
    model = WatchedModel(GuardedModel(raw, retries=retries))
    brain = LLMBrain(model, fallback=OfflineBrain(HashingEmbedder()), retries=1)  # type: ignore[arg-type]
    return brain, raw, model


def first_speak(now: float) -> tuple[Conversation, Speak]:
    start = ConvStart.create(GOAL, initiator="peerA", members=["peerA", "peerB"], now=now, timeout=60,
                             speaker_timeout=SPEAKER_TIMEOUT)  # fmt: skip
    conv = Conversation(start, me="peerA", start_id="start", now=now)
    [speak] = [d for d in conv.on_tick(now) if isinstance(d, Speak)]
    return conv, speak


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text


@dataclass
class Turn:
    draft: TurnDraft
    server: Any
    #: Each model call: when it began and the deadline it ran under (trio's clock), how it ended
    #: (:class:`WatchedModel`).
    calls: list[tuple[float, float, str]]

    @property
    def endings(self) -> list[str]:
        return [how for _, _, how in self.calls]

    def bounded(self) -> bool:
        """One deadline bounds every model call, retries included, and it is the turn's budget: set at most
        that long before the first call began. (The node's wall clock stands still during the turn, so the
        turn's scope lasts exactly the budget from its start, which is before the first call.)"""
        if not self.calls:
            return False
        first_began, deadline, _ = self.calls[0]
        one = all(d == deadline for _, d, _ in self.calls)
        return one and deadline <= first_began + SPEAKER_TIMEOUT * BRAIN_SHARE


async def run_turn(mode: str, caplog: pytest.LogCaptureFixture, **options: Any) -> Turn:
    caplog.set_level(logging.DEBUG)
    with serve_hostile(mode, **options) as server:
        brain, raw, model = watched_brain_for(server.base_url)
        now = time.time()
        conv, speak = first_speak(now)
        with trio.fail_after(HANG_GUARD):
            draft = await take_turn_bounded(Goals(), brain, conv.view, speak, "chat", lambda: now)  # type: ignore[arg-type]
        await raw.aclose()
    assert draft is not None
    assert_no_secret(draft.text, caplog.text, json.dumps([str(r.msg) for r in caplog.records]))
    return Turn(draft, server, model.calls)


@pytest.mark.parametrize(
    ("mode", "kind", "options"),
    [
        ("stall", "timeout", {}),
        ("trickle", "timeout", {"interval": 0.5}),
        ("rate_limit", "rate_limited", {"retry_after": 3600}),
        ("echo_headers", "server_error", {}),
        ("invalid_json", "bad_output", {}),
        ("unknown_members", "bad_output", {}),
        ("huge", "bad_output", {}),
        ("stream", "bad_output", {}),
    ],
)
async def test_a_hostile_server_costs_at_most_the_turn_and_the_turn_falls_back_visibly(
    mode: str, kind: str, options: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    turn = await run_turn(mode, caplog, **options)
    draft, server = turn.draft, turn.server
    assert fallback_kind(draft.text) == kind and turn_origin(draft.text) == "fallback"
    assert draft.text.startswith(f"[fallback to offline planner: {kind}] [offline planner] ")
    assert draft.kind == "conv.task.sync" and draft.tasks[0].assignee == "peerB"  # the planner's step 1
    assert draft.plan is not None and draft.plan[0].status == "todo"
    assert turn.bounded(), turn.calls  # the turn's budget, not the server's pace
    if mode in ("stall", "trickle"):  # the server never finishes: the turn's scope ended the one call
        assert turn.endings == ["cancelled"] and len(server.chat_requests()) == 1
    if mode == "rate_limit":  # Retry-After 3600 s does not fit: raised at once (not by the deadline)
        assert turn.endings == ["ModelRateLimited"] and len(server.chat_requests()) == 1
    if mode == "echo_headers":  # the proxy did receive the credential and echoed it: it was at risk
        assert any(API_KEY in json.dumps(r["headers"]) for r in server.chat_requests())


async def test_retry_after_that_fits_is_waited_for(caplog: pytest.LogCaptureFixture) -> None:
    turn = await run_turn("rate_limit", caplog, retry_after=0.5, fail_first=1)
    draft, server = turn.draft, turn.server
    # the model answered (after one wait); its conclusion on turn 1 does not advance the plan: the floor
    assert fallback_kind(draft.text) == "no_progress" and draft.kind == "conv.task.sync"
    assert len(server.chat_requests()) == 2


async def test_a_model_that_states_no_plan_gets_one_from_its_tasks() -> None:
    task = {"assignee": "calculator", "title": "product", "description": "17 * 23"}
    answer = {"message_type": "sync_task", "content": "Calculator, please.", "tasks": [task]}
    with serve_hostile("ok", content=json.dumps(answer)) as server:
        brain, raw = brain_for(server.base_url)
        conv, speak = first_speak(time.time())
        with trio.fail_after(10):
            turn = await brain.take_turn(conv.view(), speak, MEMBERS)
        await raw.aclose()
    # the model chose the planner's next step: its turn stands, with the step as the plan types it
    assert turn_origin(turn.text) == "model" and turn.text.startswith("Calculator, please.")
    assert [(t.assignee, t.title) for t in turn.tasks] == [("peerB", "step 1/2")]
    assert turn.plan is not None and turn.plan[0].owner == "peerB"


async def test_endless_self_nomination_is_a_model_turn_the_state_machine_caps(
    caplog: pytest.LogCaptureFixture,
) -> None:
    draft = (await run_turn("self_nomination", caplog)).draft
    # a discussion nominating itself does not advance the plan: the planner's step replaces it (issue 23);
    # the cap on self-turns stays the state machine's (docs/conversation.md)
    assert fallback_kind(draft.text) == "no_progress" and draft.kind == "conv.task.sync"


async def test_structured_output_and_max_tokens_are_sent_and_the_schema_is_detected_once() -> None:
    with serve_hostile("no_schema") as server:
        brain, raw = brain_for(server.base_url)
        conv, speak = first_speak(time.time())
        with trio.fail_after(10):
            first = await brain.take_turn(conv.view(), speak, MEMBERS)
            second = await brain.take_turn(conv.view(), speak, MEMBERS)
        await raw.aclose()
    assert fallback_kind(first.text) == fallback_kind(second.text) == "no_progress"  # answered, floored
    formats = [r["body"].get("response_format", {}).get("type") for r in server.chat_requests()]
    assert formats == ["json_schema", "json_object", "json_object"]  # refused once, remembered
    assert raw.format_support == "json_object"
    schema = server.chat_requests()[0]["body"]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["message_type"]["enum"] == [
        "discussion", "sync_task", "async_task", "pause", "conclusion"]  # fmt: skip
    assert schema["properties"]["next_speakers"]["items"]["enum"] == ["calculator", "coordinator"]
    assert all(r["body"]["max_tokens"] == brain.max_tokens for r in server.chat_requests())


async def test_json_schema_is_kept_when_the_server_accepts_it() -> None:
    with serve_hostile("ok") as server:
        base = credential_url(server.base_url)  # no API key: the userinfo is the basic auth
        raw = OpenAIModel(model="hostile", base_url=base, api_key=None, timeout=60)
        brain = LLMBrain(GuardedModel(raw), fallback=OfflineBrain(HashingEmbedder()))
        conv, speak = first_speak(time.time())
        with trio.fail_after(10):
            draft = await brain.take_turn(conv.view(), speak, MEMBERS)
        await raw.aclose()
    assert fallback_kind(draft.text) == "no_progress" and raw.format_support == "json_schema"
    [request] = server.chat_requests()
    assert request["body"]["response_format"]["type"] == "json_schema" and request["body"]["max_tokens"] > 0
    auth = {k.lower(): v for k, v in request["headers"].items()}["authorization"]
    assert auth == "Basic " + SECRETS[2]  # the userinfo left the URL for the header


def test_error_messages_never_carry_url_userinfo() -> None:
    assert redact_url(f"http://user:{PASSWORD}@127.0.0.1:9/v1?key={API_KEY}") == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(("mode", "expected"), [("stall", "timeout"), ("self_nomination", "bad_output"),
                                                ("unknown_members", "bad_output")])  # fmt: skip
async def test_team_up_is_bounded_in_rounds_and_time(mode: str, expected: str) -> None:
    candidates = [Candidate(f"peer{i}", f"agent{i}", f"does thing {i}", 0.5) for i in range(3)]

    async def search(query: str) -> list[Candidate]:
        return candidates

    with serve_hostile(mode) as server:
        _, raw = brain_for(server.base_url)
        model = GuardedModel(raw)
        outcome = "timeout"
        with trio.fail_after(10), trio.move_on_after(2.0):
            try:
                await llm_team_from_shortlist(model, GOAL, candidates, search, context_tokens=1024)
                outcome = "ok"
            except IoAError as exc:
                outcome = "bad_output" if isinstance(exc, ModelOutputError) else type(exc).__name__
        await raw.aclose()
    assert outcome == expected
    for request in server.chat_requests():  # the tool loop's history stays within the budget
        assert estimate_tokens(request["body"]["messages"]) <= 1024 - 512
        assert request["body"]["max_tokens"] == 512


def test_the_prompt_keeps_within_the_context_budget_dropping_the_oldest_turns() -> None:
    start = ConvStart.create(GOAL, initiator="peerA", members=["peerA", "peerB"], now=0.0, timeout=600,
                             max_turns=200, speaker_timeout=30)  # fmt: skip
    conv = Conversation(start, me="peerA", start_id="start", now=0.0)
    prev = "start"
    for height in range(60):
        author = ("peerA", "peerB")[height % 2]
        text = f"turn {height}: " + "long words " * 80
        content = {"prev": prev, "height": height, "level": 0, "reason": "", "fail_tasks": [],
                   "text": text, "next": [("peerB", "peerA")[height % 2]]}  # fmt: skip
        decisions = conv.on_message(Incoming(f"m{height}", author, "conv.discussion", content), 1.0)
        prev = f"m{height}"
    speak = [d for d in decisions + conv.on_tick(2.0) if isinstance(d, Speak)][-1]
    messages = turn_prompt(conv.view(), speak, MEMBERS, budget=3072)
    assert estimate_tokens(messages) <= 3072
    user = messages[1]["content"]
    assert "turn 59:" in user and "turn 0:" not in user and "earlier messages cut" in user


def test_the_prompt_shows_the_shared_plan_by_member_names() -> None:
    conv, speak = first_speak(0.0)
    view = replace(conv.view(), plan=(SharedStep("multiply", "peerB", "running"),))
    user = turn_prompt(view, speak, MEMBERS)[1]["content"]
    assert "Shared plan" in user and "1. [running] multiply (calculator)" in user
    assert "Shared plan" not in turn_prompt(conv.view(), speak, MEMBERS)[1]["content"]


def test_fit_messages_drops_whole_exchanges_oldest_first() -> None:
    head = [{"role": "system", "content": "s"}, {"role": "user", "content": "goal"}]
    exchanges = [
        [{"role": "assistant", "content": "", "tool_calls": [{"id": f"c{i}"}]},
         {"role": "tool", "tool_call_id": f"c{i}", "content": "x" * 3000}]
        for i in range(5)
    ]  # fmt: skip
    fitted = fit_messages(head + [m for e in exchanges for m in e], 2500)
    assert fitted[:2] == head and fitted[-2:] == exchanges[-1]
    assert fitted[2]["role"] == "assistant" and estimate_tokens(fitted) <= 2500
