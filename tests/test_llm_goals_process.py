"""Whole goals across node processes with the LLM brain on a hostile model server (issue 12).

The coordinator's ``[model]`` points at a :func:`~ioa_p2p.testing.hostile_model.serve_hostile` server through
a base URL carrying ``user:password@`` and an API key. For a stalling server and for a proxy that echoes the
request headers in its 500 answers, ``ioa goal`` ends within ``--timeout`` plus the grace, the team-up and
every turn fall back to the offline planner visibly (terminal, ``--json``, the signed turns), the goal
still gets done, every member's copy of the chat passes the audit, and the credential appears in no
output, log or stored file. The stall run also cancels goals: ``ioa goal cancel CHAT`` from another
shell, and Ctrl-C on ``ioa goal``: every member sees the signed ``conv.cancel`` and aborts the round.
Every other hostile mode runs as a whole goal too (one testnet, the server switched between goals: marked
``long``), and per turn in tests/test_llm_hostile.py (the default run); bench/bench_llm_path.py prints the
wall time / timeout ratios.
"""

from __future__ import annotations

import json
import signal
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.bootstrap.testnet import Testnet, TestnetNode, open_testnet
from ioa_p2p.testing.hostile_model import serve_hostile

from .test_goals_process import (
    CALCULATOR,
    COORDINATOR,
    audit_members,
    clean_env,
    ioa,
    poll_until,
    spec,
    wait_cards,
)

pytestmark = pytest.mark.slow

PASSWORD = "pw-Proc-99812"
API_KEY = "sk-proc-SECRET-4410"
TIMEOUT = 25.0
GRACE = 5.0  # GOAL_GRACE of the node
CLI_SLACK = 5.0  # the CLI's own slack, and a Python process start
GOAL = "Calculate 17 * 23"


def model_table(base_url: str) -> dict[str, Any]:
    url = base_url.replace("http://", f"http://user:{PASSWORD}@")
    return {"base_url": url, "api_key": API_KEY, "model": "hostile", "max_retries": 1}


def specs_for(base_url: str) -> list[Any]:
    goals = {"brain": "llm", "speaker_timeout": 4.0, "team_up_timeout": 4.0}
    return [
        spec("coordinator", COORDINATOR, goals, model=model_table(base_url)),
        spec("calculator", CALCULATOR),
    ]


def assert_no_credential(root: Path, *outputs: bytes) -> None:
    secrets = (PASSWORD.encode(), API_KEY.encode())
    for out in outputs:
        assert not any(s in out for s in secrets)
    for path in root.rglob("*"):
        if path.is_file() and path.name != "config.toml":  # the operator's own config holds them
            data = path.read_bytes()
            assert not any(s in data for s in secrets), path


async def timed_goal(home: Path, *args: str) -> tuple[trio.CompletedProcess[bytes], float]:
    t0 = trio.current_time()
    done = await ioa(home, "goal", GOAL, "--timeout", str(int(TIMEOUT)), *args, limit=TIMEOUT + 30)
    return done, trio.current_time() - t0


async def signed_turn_texts(node: TestnetNode, chat: str) -> list[str]:
    history = await node.call("GET", f"/chats/history?chat={chat}")
    return [m["content"]["text"] for m in history["messages"] if m["kind"].startswith("conv.") and
            isinstance(m["content"], dict) and "height" in m["content"]]  # fmt: skip


async def test_goals_with_a_stalling_server_and_a_header_echoing_proxy(tmp_path: Path) -> None:
    """One testnet, the hostile model server switched between goals: it stalls, then echoes the request
    headers in its 500s: a whole goal across node processes ends within ``--timeout`` plus the grace,
    with the fallback visible in ``--json`` and the signed turns, every member's copy audits valid, and
    the credential is in no output or stored file; a stalled goal is cancelled from another shell and
    by Ctrl-C. The other modes run as whole goals in the ``long`` test below."""
    with serve_hostile("stall") as server, trio.fail_after(600):
        async with open_testnet(tmp_path / "net", specs_for(server.base_url)) as net:
            coordinator = net["coordinator"]
            await wait_cards(net, coordinator, 1)
            outputs = [
                *await stalling_goal(net),
                await cancel_from_another_shell(net),
                await interrupt_the_cli(net),
            ]
            server.mode = "echo_headers"
            outputs.append(await echoing_goal(net))
            assert server.chat_requests()  # the proxy was asked, and echoed the credential back
            assert_no_credential(tmp_path / "net", *outputs)


@pytest.mark.long
async def test_every_other_hostile_mode_as_a_whole_goal(tmp_path: Path) -> None:
    """Each remaining mode (:data:`OTHER_MODES`) as a whole goal on one testnet, the server switched
    between goals: ends within ``--timeout`` plus the grace, falls back with the mode's kind, audits
    valid, and leaves the credential nowhere. (The default run covers these modes per turn, in
    tests/test_llm_hostile.py, and the whole-goal path with the two modes above.)"""
    with serve_hostile(OTHER_MODES[0][0]) as server, trio.fail_after(600):
        async with open_testnet(tmp_path / "net", specs_for(server.base_url)) as net:
            await wait_cards(net, net["coordinator"], 1)
            outputs: list[bytes] = []
            for mode, timeout, kind in OTHER_MODES:
                server.mode = mode
                outputs += await hostile_goal(net, mode, timeout, kind)
            assert_no_credential(tmp_path / "net", *outputs)


async def stalling_goal(net: Testnet) -> list[bytes]:
    coordinator = net["coordinator"]
    done, elapsed = await timed_goal(coordinator.home, "--json")
    assert done.returncode == 0, done.stderr.decode()
    assert elapsed <= TIMEOUT + GRACE + CLI_SLACK
    result = json.loads(done.stdout)
    assert result["status"] == "concluded" and result["exit_code"] == 0
    assert result["team_fallback"] == "timeout"  # the team-up stalled: chosen by similarity
    assert result["model_turns"] == 0 and result["fallback_turns"] >= 2
    assert result["fallbacks"] == {"timeout": result["fallback_turns"]}
    assert [t["status"] for t in result["tasks"]] == ["completed"]
    assert result["plan"] and result["plan"][0]["status"] == "done"
    texts = await signed_turn_texts(net["calculator"], result["chat_id"])
    assert texts and all(t.startswith("[fallback to offline planner: timeout] ") for t in texts)
    assert len(await audit_members(net, result)) == 1
    plans = await ioa(coordinator.home, "history", result["chat_id"], "--plan")
    assert plans.returncode == 0 and b"plan v1" in plans.stdout and b"[done]" in plans.stdout
    return [done.stdout, done.stderr, plans.stdout]


async def echoing_goal(net: Testnet) -> bytes:
    coordinator = net["coordinator"]
    done, elapsed = await timed_goal(coordinator.home)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert elapsed <= TIMEOUT + GRACE + CLI_SLACK
    assert "LLM team-up failed (server_error); team chosen by similarity" in out
    assert "[fallback: server_error]" in out and "model 0, fallback" in out
    assert "calculator done step 1/1: 17 * 23 = 391" in out
    chat = out.strip().splitlines()[-1].removeprefix("chat ")
    history = await net["calculator"].call("GET", f"/chats/history?chat={chat}")
    result = {"chat_id": chat, "team": [{"peer_id": str(n.peer_id)} for n in net.agents]}
    assert len(await audit_members(net, result)) == 1
    assert "upstream failed" not in out + done.stderr.decode()
    return done.stdout + done.stderr + json.dumps(history).encode()


async def launch_in_background(home: Path, nursery: trio.Nursery) -> trio.Process:
    command = [sys.executable, "-m", "ioa_p2p", "--home", str(home), "goal", GOAL, "--timeout", "200"]
    run = partial(trio.run_process, command, capture_stdout=True, capture_stderr=True, check=False,
                  env=clean_env())  # fmt: skip
    process: trio.Process = await nursery.start(run)
    return process


async def running_chat(node: TestnetNode, known: set[str]) -> str:
    found: list[str] = []

    async def started() -> bool:
        found[:] = [g["chat_id"] for g in await node.call("GET", "/goals")
                    if g["status"] == "running" and g["chat_id"] not in known]  # fmt: skip
        return bool(found)

    await poll_until(started, 30)
    return found[0]


async def round_aborted_on(node: TestnetNode, chat: str) -> bool:
    goals = [g for g in await node.call("GET", "/goals") if g["chat_id"] == chat]
    return bool(goals) and goals[-1]["status"] == "aborted"


async def cancel_from_another_shell(net: Testnet) -> bytes:
    coordinator, calculator = net["coordinator"], net["calculator"]
    known = {g["chat_id"] for g in await coordinator.call("GET", "/goals")}
    async with trio.open_nursery() as nursery:
        process = await launch_in_background(coordinator.home, nursery)
        chat = await running_chat(coordinator, known)
        cancel = await ioa(coordinator.home, "goal", "cancel", chat)
        assert cancel.returncode == 0, cancel.stderr.decode()
        with trio.fail_after(20):
            await process.wait()
    assert process.returncode == 4
    await poll_until(lambda: round_aborted_on(calculator, chat), 20)  # the member saw the signed cancel
    history = await calculator.call("GET", f"/chats/history?chat={chat}")
    assert any(m["kind"] == "conv.cancel" for m in history["messages"])
    return cancel.stdout + cancel.stderr


async def interrupt_the_cli(net: Testnet) -> bytes:
    coordinator, calculator = net["coordinator"], net["calculator"]
    known = {g["chat_id"] for g in await coordinator.call("GET", "/goals")}
    command = [sys.executable, "-m", "ioa_p2p", "--home", str(coordinator.home), "goal", GOAL]
    process = await trio.lowlevel.open_process(command, env=clean_env(), stdout=-1, stderr=-1)
    chat = await running_chat(coordinator, known)
    await trio.sleep(0.5)  # the CLI has seen the team event (it carries the chat id)
    process.send_signal(signal.SIGINT)
    with trio.fail_after(20):
        await process.wait()
    err = await process.stderr.receive_some(65536) if process.stderr else b""  # type: ignore[union-attr]
    assert process.returncode == 4, err
    assert b"interrupted: cancelled the goal" in err
    await poll_until(lambda: round_aborted_on(calculator, chat), 20)
    return err


#: The other hostile modes, each a whole goal on one testnet: (mode, --timeout, the failure kind the
#: team-up and the turns fall back with; None: the model's turns are usable, no fallback is due).
OTHER_MODES: list[tuple[str, float, str | None]] = [
    ("trickle", 25.0, "timeout"),
    ("rate_limit", 15.0, "rate_limited"),
    ("invalid_json", 15.0, "bad_output"),
    ("unknown_members", 15.0, "bad_output"),
    ("huge", 15.0, "bad_output"),
    ("stream", 15.0, "bad_output"),
    ("self_nomination", 15.0, None),
]


async def hostile_goal(net: Testnet, mode: str, seconds: float, kind: str | None) -> list[bytes]:
    coordinator = net["coordinator"]
    t0 = trio.current_time()
    done = await ioa(coordinator.home, "goal", GOAL, "--timeout", str(int(seconds)), "--json",
                     limit=seconds + 30)  # fmt: skip
    elapsed = trio.current_time() - t0
    assert elapsed <= seconds + GRACE + CLI_SLACK, (mode, elapsed)
    assert done.returncode in (0, 3), (mode, done.returncode, done.stderr.decode()[-2000:])
    result = json.loads(done.stdout)
    assert result["status"] == "concluded", mode
    if kind is not None:
        assert result["fallback_turns"] >= 1 and set(result["fallbacks"]) == {kind}, (mode, result)
        texts = await signed_turn_texts(net["calculator"], result["chat_id"])
        assert any(t.startswith(f"[fallback to offline planner: {kind}] ") for t in texts), mode
    assert len(await audit_members(net, result)) == 1, mode
    return [done.stdout, done.stderr]
