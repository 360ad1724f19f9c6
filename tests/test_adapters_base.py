"""The adapter protocol: run_task turns every adapter misbehaviour into a failed result."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import trio
import trio.lowlevel

from ioa_p2p.adapters import (
    BAD_OUTPUT,
    CRASH,
    REJECTED,
    TIMEOUT,
    Adapter,
    AdapterCard,
    Progress,
    Task,
    TaskContext,
    TaskResult,
    check_result,
    parse_options,
    run_task,
)
from ioa_p2p.adapters.base import MAX_DATA_BYTES, MAX_FILES_BYTES, MAX_TEXT_CHARS
from ioa_p2p.errors import AdapterOptionsError, BadAdapterOutput, TaskRejected
from ioa_p2p.testing.echo import EchoAdapter
from ioa_p2p.wire import canonical


class Scripted:
    """An adapter whose run() is a given coroutine function (the scripted fake of the protocol)."""

    def __init__(self, behaviour) -> None:
        self.behaviour = behaviour
        self.cleaned_up = False

    def describe(self) -> AdapterCard:
        return AdapterCard("scripted", "test", (), "scripted", ("text",))

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        try:
            return await self.behaviour(task, ctx)
        finally:
            self.cleaned_up = True

    async def aclose(self) -> None:
        pass


async def test_success_passes_through_and_progress_is_reported() -> None:
    seen: list[Progress] = []

    async def sink(p: Progress) -> None:
        seen.append(p)

    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        await ctx.progress("half", 0.5)
        await ctx.progress("x" * 10_000, 7.0)  # clamped and cut
        return TaskResult.success(task.text.upper(), data={"n": 1}, files={"a/b.txt": b"hi"})

    with trio.fail_after(5):
        result = await run_task(Scripted(work), Task.create("hello", timeout=5), TaskContext(sink))
    assert result.ok and result.text == "HELLO" and result.files == {"a/b.txt": b"hi"}
    assert [p.fraction for p in seen] == [0.5, 1.0]
    assert len(seen[1].text) == 500


async def test_progress_rate_limit_keeps_final_report() -> None:
    ctx = TaskContext(min_interval=10.0)
    await ctx.progress("a", 0.1)
    await ctx.progress("b", 0.2)  # dropped: too soon
    await ctx.progress("done", 1.0)  # never dropped
    assert [p.text for p in ctx.reports] == ["a", "done"]


async def test_crash_becomes_failed_result() -> None:
    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        raise ZeroDivisionError("boom")

    adapter = Scripted(work)
    result = await run_task(adapter, Task("x"))
    assert not result.ok and result.failure == CRASH
    assert "ZeroDivisionError: boom" in result.text
    assert adapter.cleaned_up


async def test_system_exit_in_adapter_does_not_kill_the_caller() -> None:
    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        raise SystemExit(3)

    result = await run_task(Scripted(work), Task("x"))
    assert result.failure == CRASH


async def test_deadline_cancels_adapter_and_cleans_up() -> None:
    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    adapter = Scripted(work)
    with trio.fail_after(5):
        started = trio.current_time()
        result = await run_task(adapter, Task.create("x", timeout=0.2))
    assert result.failure == TIMEOUT and "deadline" in result.text
    assert 0.2 <= trio.current_time() - started < 2
    assert adapter.cleaned_up


async def test_past_deadline_fails_immediately() -> None:
    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        await trio.lowlevel.checkpoint()
        return TaskResult.success("late")

    deadline = trio.current_time() - 1
    result = await run_task(Scripted(work), Task("x", deadline=deadline))
    assert result.failure == TIMEOUT


async def test_task_create_takes_earlier_of_timeout_and_deadline() -> None:
    now = trio.current_time()
    assert Task.create("x", timeout=10, deadline=now + 1).deadline == pytest.approx(now + 1, abs=0.1)
    assert Task.create("x", timeout=1, deadline=now + 10).deadline == pytest.approx(now + 1, abs=0.1)
    assert Task.create("x").deadline is None and Task("x").remaining() == float("inf")


async def test_outer_cancellation_propagates() -> None:
    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    adapter = Scripted(work)
    with trio.move_on_after(0.1) as scope:
        await run_task(adapter, Task("x"))
    assert scope.cancelled_caught and adapter.cleaned_up


async def test_rejection_becomes_rejected_result() -> None:
    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        raise TaskRejected("not my kind of task")

    result = await run_task(Scripted(work), Task("x"))
    assert result.failure == REJECTED and "not my kind of task" in result.text


@pytest.mark.parametrize(
    "bad",
    [
        "a string",
        None,
        TaskResult(True, "x" * (MAX_TEXT_CHARS + 1)),
        TaskResult(True, "x", data={"big": "y" * MAX_DATA_BYTES}),
        TaskResult(True, "x", data={"obj": object()}),
        TaskResult(True, "x", data={"huge_int": 2**70}),
        TaskResult(True, "x", files={"../escape": b""}),
        TaskResult(True, "x", files={"/abs": b""}),
        TaskResult(True, "x", files={"a//b": b""}),
        TaskResult(True, "x", files={"f": "not bytes"}),  # type: ignore[dict-item]
        TaskResult(True, "x", files={f"f{i}": b"" for i in range(40)}),
        TaskResult(True, "x", files={"a": b"x" * MAX_FILES_BYTES, "b": b"x"}),
        TaskResult(True, "x", failure=CRASH),
        TaskResult(False, "x", failure=None),
        TaskResult(False, "x", failure="made-up"),
    ],
)
async def test_bad_output_becomes_failed_result(bad: object) -> None:
    async def work(task: Task, ctx: TaskContext) -> TaskResult:
        return bad  # type: ignore[return-value]

    result = await run_task(Scripted(work), Task("x"))
    assert not result.ok and result.failure == BAD_OUTPUT
    check_result(result)  # the failure itself is a valid result


def test_result_round_trips_through_canonical_cbor() -> None:
    result = TaskResult.success("t", data={"k": [1, "v"]}, files={"out/x.bin": b"\x00\x01"})
    again = TaskResult.from_dict(canonical.decode(canonical.encode(result.to_dict())))
    assert again == result
    failed = TaskResult.failed(TIMEOUT, "too slow")
    assert TaskResult.from_dict(canonical.decode(canonical.encode(failed.to_dict()))) == failed
    with pytest.raises(BadAdapterOutput):
        TaskResult.from_dict({"ok": True})
    with pytest.raises(ValueError):
        TaskResult.failed("nonsense", "x")


def test_card_overrides_and_dict() -> None:
    card = AdapterCard("calc", "d", ("a",), "calculator", ("arithmetic",))
    merged = card.with_overrides(name="n", skills=["a", "b"])
    assert merged.name == "n" and merged.description == "d" and merged.skills == ("a", "b")
    assert canonical.encode(merged.to_dict())


@dataclass(frozen=True, slots=True)
class _Opts:
    path: str
    size: int = 3
    ratio: float = 0.5
    flag: bool = False
    names: tuple[str, ...] = ()
    maybe: str | None = None


def test_parse_options_types_and_errors() -> None:
    opts = parse_options(_Opts, {"path": "p", "ratio": 1, "names": ["a"], "maybe": None}, "k")
    assert opts == _Opts("p", 3, 1.0, False, ("a",), None)
    for bad in (
        {"path": "p", "size": "3"},
        {"path": "p", "size": True},
        {"path": "p", "flag": 1},
        {"path": "p", "names": "a"},
        {"path": "p", "names": [1]},
        {"path": "p", "ratio": float("nan")},
        {"path": "p", "unknown": 1},
        {},  # required option missing
    ):
        with pytest.raises(AdapterOptionsError):
            parse_options(_Opts, bad, "k")


async def test_echo_adapter_scripts_failures() -> None:
    assert isinstance(EchoAdapter.from_options({}), Adapter)
    ok = await run_task(EchoAdapter.from_options({}), Task("hi"))
    assert ok.ok and ok.text == "echo: hi"
    expected = {"crash": CRASH, "bad_output": BAD_OUTPUT, "reject": REJECTED, "hang": TIMEOUT}
    for mode, failure in expected.items():
        adapter = EchoAdapter.from_options({"fail": mode})
        with trio.fail_after(5):
            result = await run_task(adapter, Task.create("hi", timeout=0.2))
        assert result.failure == failure, mode
    with pytest.raises(AdapterOptionsError):
        EchoAdapter.from_options({"fail": "explode"})
