"""The OpenAI-compatible model backend against a real local HTTP server, JSON repair and retries."""

from __future__ import annotations

import socket

import pytest
import trio

from ioa_p2p.errors import (
    ConfigError,
    IoATimeout,
    ModelError,
    ModelOutputError,
    PeerUnreachable,
)
from ioa_p2p.llm.json_repair import parse_json_object
from ioa_p2p.llm.model import ModelReply, ToolCall, complete_json
from ioa_p2p.llm.openai_compat import OpenAIModel, model_from_settings
from ioa_p2p.testing.models import ScriptedModel

from .openai_server import Reply, ToolCallReply, serve

USER = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server():
    with serve() as s:
        yield s


def make(server, **kw) -> OpenAIModel:
    options = dict(model="scripted-1", base_url=server.base_url, api_key="test-key",
                   timeout=10.0)  # fmt: skip
    options.update(kw)
    return OpenAIModel(**options)


def needs_answer(obj: dict) -> str:
    if not isinstance(obj.get("answer"), str):
        raise ValueError('the object needs an "answer" string')
    return obj["answer"]


async def test_plain_completion_over_real_http(server) -> None:
    server.script(Reply(content="hi there"))
    model = make(server)
    with trio.fail_after(10):
        reply = await model.complete(USER)
    await model.aclose()
    assert reply.text == "hi there" and reply.tool_calls == () and reply.finish_reason == "stop"
    [request] = server.chat_requests()
    assert request["model"] == "scripted-1" and request["messages"] == USER
    assert "response_format" not in request


async def test_json_mode_with_repair_and_retry(server) -> None:
    server.script(
        Reply(content="Sure! Here it is: {'answer': None}"),  # repaired, but fails validation
        Reply(content='```json\n{"answer": "42",}\n```'),  # fenced, trailing comma
    )
    model = make(server)
    with trio.fail_after(10):
        answer = await complete_json(model, USER, needs_answer, retries=2)
    await model.aclose()
    assert answer == "42"
    first, second = server.chat_requests()
    assert first["response_format"] == {"type": "json_object"}
    assert "could not be used" in second["messages"][-1]["content"]
    assert second["messages"][-2]["role"] == "assistant"


async def test_tool_call_arguments_are_used(server) -> None:
    server.script(Reply(tool_calls=(ToolCallReply("decide", '{"answer": "via tool"'),)))  # unclosed
    model = make(server)
    tools = [{"type": "function", "function": {"name": "decide", "parameters": {"type": "object"}}}]
    with trio.fail_after(10):
        answer = await complete_json(model, USER, needs_answer, tools=tools)
    reply_request = server.chat_requests()[0]
    assert reply_request["tools"][0]["function"]["name"] == "decide"
    server.script(Reply(tool_calls=(ToolCallReply("search", '{"queries": ["a", "b"]}', id="c1"),)))
    with trio.fail_after(10):
        reply = await model.complete(USER, tools=tools)
    await model.aclose()
    assert answer == "via tool"
    assert reply.tool_calls == (ToolCall("c1", "search", '{"queries": ["a", "b"]}'),)
    assert reply.tool_calls[0].parsed() == {"queries": ["a", "b"]}
    assert reply.as_message()["tool_calls"][0]["function"]["name"] == "search"


async def test_retries_are_bounded_then_a_typed_error(server) -> None:
    server.script(Reply(content="no json here"), Reply(content="still none"), Reply(content="{}"))
    model = make(server)
    with trio.fail_after(10), pytest.raises(ModelOutputError, match="3 attempts"):
        await complete_json(model, USER, needs_answer, retries=2)
    await model.aclose()
    assert len(server.chat_requests()) == 3


async def test_server_without_json_mode_is_asked_again_without_it(server) -> None:
    server.script(
        Reply(status=400, error_message="response_format is not supported"),
        Reply(content='{"answer": "plain"}'),
    )
    model = make(server)
    with trio.fail_after(10):
        answer = await complete_json(model, USER, needs_answer)
    await model.aclose()
    assert answer == "plain" and model.format_support == "none"
    assert "response_format" not in server.chat_requests()[1]


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, ConfigError), (403, ConfigError), (404, ConfigError), (500, ModelError), (429, ModelError),
     (400, ModelError)],
)  # fmt: skip
async def test_http_errors_become_typed_errors(server, status, error) -> None:
    server.script(Reply(status=status, error_message="nope"))
    model = make(server)
    with trio.fail_after(10), pytest.raises(error):
        await model.complete(USER)
    await model.aclose()


async def test_unreachable_server_and_timeout() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = OpenAIModel(model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k")
    with trio.fail_after(10), pytest.raises(PeerUnreachable, match="cannot reach"):
        await model.complete(USER)
    await model.aclose()
    with serve() as slow:
        slow.script(Reply(content="late", delay=2.0))
        model = OpenAIModel(model="m", base_url=slow.base_url, api_key="k", timeout=0.3)
        with trio.fail_after(10), pytest.raises(IoATimeout):
            await model.complete(USER)
        await model.aclose()


async def test_trio_cancellation_interrupts_a_request(server) -> None:
    server.script(Reply(content="late", delay=2.0))
    model = make(server)
    with trio.fail_after(5):
        with trio.move_on_after(0.2) as scope:
            await model.complete(USER)
        assert scope.cancelled_caught
    await model.aclose()


def test_model_from_settings_and_environment() -> None:
    assert model_from_settings({}, env={}) is None
    model = model_from_settings({}, env={"OPENAI_API_KEY": "k", "OPENAI_MODEL": "gpt-x"})
    assert model is not None and model.model_id == "openai/gpt-x"
    model = model_from_settings({"base_url": "http://127.0.0.1:1/v1", "model": "local"}, env={})
    assert model is not None and model.model_id == "openai/local"
    with pytest.raises(ConfigError, match="unknown"):
        model_from_settings({"modle": "x", "api_key": "k"}, env={})
    with pytest.raises(ConfigError):
        model_from_settings({"api_key": "k", "timeout": "soon"}, env={})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Here you go:\n```json\n{"a": [1, 2,],}\n```\nbye', {"a": [1, 2]}),
        ("{'a': True, 'b': None}", {"a": True, "b": None}),
        ('{a: 1, "b": "x"}', {"a": 1, "b": "x"}),
        ('{"a": {"b": [1, 2', {"a": {"b": [1, 2]}}),
        ('{"text": "braces } inside { strings"}', {"text": "braces } inside { strings"}),
        ("\u201ca\u201d", None),
        ("[1, 2]", None),
    ],
)
def test_parse_json_object_repairs(text, expected) -> None:
    if expected is None:
        with pytest.raises(ModelOutputError):
            parse_json_object(text)
    else:
        assert parse_json_object(text) == expected


async def test_scripted_model_fake() -> None:
    model = ScriptedModel(['{"answer": "x"}', ModelReply("t"), PeerUnreachable("down")])
    assert await complete_json(model, USER, needs_answer) == "x"
    assert (await model.complete(USER)).text == "t"
    with pytest.raises(PeerUnreachable):
        await model.complete(USER)
    with pytest.raises(ModelError, match="no replies left"):
        await model.complete(USER)


# --------------------------------------------------------------------------- whole goals with the LLM brain


def _llm_sim(server, members, runner):
    from ioa_p2p.conversation.brains.base import MemberInfo
    from ioa_p2p.conversation.brains.llm import LLMBrain
    from ioa_p2p.conversation.brains.offline import OfflineBrain
    from ioa_p2p.conversation.messages import ConvStart
    from ioa_p2p.embedding import HashingEmbedder

    from .conv_sim import Sim

    team = [MemberInfo(p, name, desc) for p, name, desc in members]
    model = make(server)
    brain = LLMBrain(model, fallback=OfflineBrain(HashingEmbedder()), retries=1)

    async def take(view, speak):
        return await brain.take_turn(view, speak, team)

    ids = [p for p, _, _ in members]
    spec = ConvStart.create("What is 17 * 23? Give the answer.", initiator=ids[0], members=ids,
                            now=0.0, speaker_timeout=30.0)  # fmt: skip
    return Sim(spec, {p: take for p in ids}, runner=runner), model


def _calc_runner(member, task):
    from ioa_p2p.conversation.messages import TaskOutcome

    return 1.0, TaskOutcome(task.task_id, True, "17 * 23 = 391")


async def test_whole_goal_through_the_real_openai_client(server) -> None:
    from ioa_p2p.conversation.types import Concluded, TaskStatus

    server.script(
        Reply(content="I will ask the calculator."),  # not JSON: repaired? no -> retried
        Reply(content='{"thought": "delegate", "message_type": "sync_task", "content": "Please compute",'
                      ' "tasks": [{"assignee": "calculator", "title": "multiply",'
                      ' "description": "what is 17 * 23"}]}'),
        Reply(content='{"thought": "done", "message_type": "conclusion", "content": "17 * 23 = 391",'
                      ' "next_speakers": []}'),
    )  # fmt: skip
    members = [("peerA", "coordinator", "coordinates"), ("peerB", "calculator", "exact arithmetic")]
    sim, model = _llm_sim(server, members, _calc_runner)
    with trio.fail_after(20):
        await sim.arun(until=600)
    await model.aclose()
    final = sim.final("peerB")
    assert isinstance(final, Concluded) and final.author == "peerA"
    # the conclusion is composed from the completed step's value (the offline plan is the floor), never
    # from the model's free text alone; it ends with the cost per agent
    assert final.text.startswith("The answer is 391.")
    assert "Cost per agent (from the signed task results):" in final.text
    view = sim.members["peerA"].conv.view()
    assert [t.kind for t in view.turns] == ["conv.task.sync", "conv.conclusion"]
    [task] = view.tasks
    assert task.assignee == "peerB" and task.status is TaskStatus.COMPLETED
    requests = server.chat_requests()
    assert len(requests) == 3
    last_prompt = requests[2]["messages"][1]["content"]
    assert "T1 [completed] calculator" in last_prompt and "391" in last_prompt
    assert "coordinator (you)" in requests[0]["messages"][0]["content"]


async def test_llm_brain_falls_back_to_the_offline_planner_visibly(server) -> None:
    from ioa_p2p.conversation.types import Concluded

    server.default_reply = Reply(status=500, error_message="model overloaded")
    members = [("peerA", "coordinator", "coordinates"), ("peerB", "calculator", "exact arithmetic")]
    sim, model = _llm_sim(server, members, _calc_runner)
    with trio.fail_after(20):
        await sim.arun(until=600)
    await model.aclose()
    view = sim.members["peerA"].conv.view()
    assert view.turns and all(
        t.text.startswith("[fallback to offline planner: server_error] ") for t in view.turns
    )
    final = sim.final("peerA")
    assert isinstance(final, Concluded) and "391" in final.text


def test_parse_turn_decision_maps_names_and_rejects_nonsense() -> None:
    from ioa_p2p.conversation.brains.base import MemberInfo
    from ioa_p2p.conversation.brains.llm import parse_turn_decision
    from ioa_p2p.conversation.machine import Conversation
    from ioa_p2p.conversation.messages import ConvStart

    spec = ConvStart.create("goal", initiator="pA", members=["pA", "pB", "pC"], now=0.0)
    view = Conversation(spec, me="pA", start_id="s", now=0.0).view()
    team = [MemberInfo("pA", "alice"), MemberInfo("pB", "bob"), MemberInfo("pC", "bob")]
    draft = parse_turn_decision(
        {"message_type": "async_task_assign", "content": "go", "next_speakers": "alice",
         "tasks": [{"assignee": "bob#pB", "description": "do x"}]}, view, team)  # fmt: skip
    assert draft.kind == "conv.task.async" and draft.next == ("pA",)
    assert draft.tasks[0].assignee == "pB" and draft.tasks[0].title == "do x"
    for bad in (
        {"message_type": "shout", "content": "x"},
        {"message_type": "discussion", "content": ""},
        {"message_type": "discussion", "content": "x", "next_speakers": ["carol"]},
        {"message_type": "sync_task", "content": "x", "tasks": []},
        {"message_type": "sync_task", "content": "x", "tasks": [{"assignee": "bob", "description": "d"}]},
        {"message_type": "pause", "content": "x", "triggers": ["T9"]},
    ):  # "bob" is ambiguous: two members are called bob
        with pytest.raises(ModelOutputError):
            parse_turn_decision(bad, view, team)
