"""A teammate's conversation messages cannot end a node's goals service, or the node.

Regressions: a ``conv.task.result`` whose task id ends in ``#²`` (``"²".isdigit()`` is true, ``int("²")``
raises ``ValueError``) made ``Conversation.on_message`` raise inside the chat driver; the exception left
the goals service's nursery and the node ended. A teammate assigning many tasks had all of them run at
once (one adapter run, or one sub-team, each); now at most ``MAX_RUNNING_TASKS`` run at a time. The
hostile member here is a real node that runs only the chat service and posts by hand whatever a malicious
teammate could sign.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, TaskOutcome, Turn
from ioa_p2p.identity import Identity
from ioa_p2p.node import Node, open_node
from ioa_p2p.node.chats import Chats, open_chats
from ioa_p2p.node.goals.tasks import MAX_RUNNING_TASKS

from .hostile import Watch, watch_victim

pytestmark = pytest.mark.slow

FAST_CHATS = {"sync_interval": 1.0, "retry_initial": 0.1, "retry_max": 0.5}
VICTIM = {"chats": FAST_CHATS, "discovery": {"enabled": False}, "goals": {"brain": "offline"}}


@asynccontextmanager
async def chat_only_node(home: Path) -> AsyncIterator[tuple[Node, Chats]]:
    """A node that runs the chat service and nothing else (no goals driver posts on its behalf)."""
    config = NodeConfig(home=home, raw={"chats": FAST_CHATS})
    async with AsyncExitStack() as stack:
        node = await stack.enter_async_context(
            open_node(config, identity=Identity.generate(), write_info=False, services=False)
        )
        chats = await stack.enter_async_context(open_chats(node))
        yield node, chats


async def open_round(victim: Watch, attacker: Node, chats: Chats) -> tuple[bytes, str, str]:
    """The attacker opens a goal chat with the victim, starts a round and takes the first turn, assigning
    a task to itself. Returns (chat id, round id, turn id)."""
    await attacker.connect(victim.node.listen_addrs()[0])
    handle = await chats.create_chat([victim.node.peer_id], "goal: crash me")
    assert handle.accepted == (victim.node.peer_id,)
    me, them = str(attacker.peer_id), str(victim.node.peer_id)
    start = ConvStart.create("crash me", initiator=me, members=[me, them], now=time.time(), timeout=120)
    round_id = (await chats.post(handle.chat_id, cm.START, start.to_content())).hash.hex()
    task = TaskAssignment(me, "a task", "something only the attacker does")
    turn = Turn(cm.TASK_ASYNC, prev=round_id, height=0, text="mine", tasks=(task,), next=(me,))
    turn_id = (await chats.post(handle.chat_id, cm.TASK_ASYNC, turn.to_content())).hash.hex()
    return handle.chat_id, round_id, turn_id


async def conclude(chats: Chats, chat_id: bytes, turn_id: str, *, height: int = 1) -> None:
    end = Turn(cm.CONCLUSION, prev=turn_id, height=height, text="done")
    await chats.post(chat_id, cm.CONCLUSION, end.to_content())


async def wait_outcome(victim: Watch, chat_id: bytes, round_id: str) -> Any:
    goals = victim.node.services.goals
    while True:
        driver = goals.drivers.get(chat_id)
        found = driver.rounds.get(round_id) if driver else None
        if found is not None and found.outcome is not None:
            return found.outcome
        await trio.sleep(0.05)


async def test_a_result_with_a_non_ascii_digit_task_index_is_only_an_unknown_task(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with (
            watch_victim(tmp_path / "v", raw=VICTIM) as victim,
            chat_only_node(tmp_path / "a") as (attacker, chats),
        ):
            chat_id, round_id, turn_id = await open_round(victim, attacker, chats)
            bad = TaskOutcome(f"{turn_id}#\u00b2", True, "claimed", {}, {}, None)  # superscript two
            await chats.post(chat_id, cm.RESULT, bad.to_content())
            await conclude(chats, chat_id, turn_id)
            outcome = await wait_outcome(victim, chat_id, round_id)
            assert (outcome.status, outcome.conclusion) == ("concluded", "done")
            assert victim.node.faults.total == 0, victim.node.faults.snapshot()  # not even a contained fault
            victim.done()


async def test_a_message_the_conversation_chokes_on_costs_only_that_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver's fault boundary, for bugs nobody found yet: one message that makes the conversation
    raise is dropped and counted; the round goes on and ends normally."""
    real_parse = cm.parse

    def parse(kind: str, content: Any) -> Any:
        if isinstance(content, dict) and content.get("text") == "poison":
            raise RuntimeError("a bug the content of this message triggers")
        return real_parse(kind, content)

    monkeypatch.setattr(cm, "parse", parse)
    with trio.fail_after(90):
        async with (
            watch_victim(tmp_path / "v", raw=VICTIM) as victim,
            chat_only_node(tmp_path / "a") as (attacker, chats),
        ):
            chat_id, round_id, turn_id = await open_round(victim, attacker, chats)
            poison = TaskOutcome(f"{turn_id}#0", True, "poison", {}, {}, None)
            await chats.post(chat_id, cm.RESULT, poison.to_content())
            await conclude(chats, chat_id, turn_id)
            outcome = await wait_outcome(victim, chat_id, round_id)
            assert outcome.status == "concluded"
            assert victim.node.faults.counts["goal message:RuntimeError"] >= 1
            victim.done()


async def test_a_teammate_assigning_many_tasks_gets_a_bounded_number_run_at_once(tmp_path: Path) -> None:
    raw = {**VICTIM, "agent": {"name": "worker", "adapter": "echo", "options": {"fail": "hang"}}}
    with trio.fail_after(90):
        async with (
            watch_victim(tmp_path / "v", raw=raw) as victim,
            chat_only_node(tmp_path / "a") as (attacker, chats),
        ):
            chat_id, round_id, turn_id = await open_round(victim, attacker, chats)
            me, them = str(attacker.peer_id), str(victim.node.peer_id)
            tasks = tuple(TaskAssignment(them, f"t{i}", "work that never ends") for i in range(16))
            flood = Turn(cm.TASK_ASYNC, prev=turn_id, height=1, text="all yours", tasks=tasks, next=(me,))
            flood_id = (await chats.post(chat_id, cm.TASK_ASYNC, flood.to_content())).hash.hex()
            adapter = victim.node.services.goals.runtime.adapter
            while adapter.runs < MAX_RUNNING_TASKS:  # noqa: ASYNC110 - no event to wait on
                await trio.sleep(0.05)
            await trio.sleep(1.0)  # the other 8 wait for a slot: none starts
            assert adapter.runs == MAX_RUNNING_TASKS
            await conclude(chats, chat_id, flood_id, height=2)
            outcome = await wait_outcome(victim, chat_id, round_id)
            assert outcome.status == "concluded"
            assert adapter.runs == MAX_RUNNING_TASKS  # the waiting ones were cancelled, never run
            victim.done()
