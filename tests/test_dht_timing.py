"""dht/timing.py: a find's requests recorded per step, and the split of a step's wall time."""

from __future__ import annotations

import trio
import trio.testing

from ioa_p2p.dht import timing


def test_nothing_is_recorded_outside_a_collection() -> None:
    assert timing.record("value", 3, 0.0, 0.1) is None


def test_requests_are_recorded_in_the_collection_and_in_tasks_started_from_it() -> None:
    async def main() -> list[timing.RequestTiming]:
        async def request(kind: str) -> None:
            await trio.sleep(1)
            entry = timing.record(kind, 2, trio.current_time() - 1, trio.current_time())
            assert entry is not None
            await trio.sleep(0.5)
            entry.answered = trio.current_time()

        with timing.collect() as recorded:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(request, "value")
                nursery.start_soon(request, "owner")
        assert timing.record("value", 1, 0.0, 0.0) is None  # the collection ended
        return recorded

    recorded = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert sorted(r.kind for r in recorded) == ["owner", "value"]
    assert all(r.answered is not None and r.answered - r.sent == 0.5 for r in recorded)


def test_a_step_splits_into_backlog_answers_and_the_tail_of_the_slowest() -> None:
    steps = [
        timing.RequestTiming("value", 1, queued=0.0, sent=0.1, answered=0.3, handled=0.35),
        timing.RequestTiming("value", 1, queued=0.0, sent=0.1, answered=0.4, handled=0.4),
        timing.RequestTiming("value", 1, queued=0.0, sent=0.3, answered=2.0, handled=2.1),
        timing.RequestTiming("value", 1, queued=0.0, sent=0.1),  # failed
    ]
    summary = timing.summarize(steps, 0.0, 2.1)
    assert summary["requests"] == 4 and summary["failed"] == 1
    assert summary["answer_p50_s"] == 0.3 and summary["answer_max_s"] == 1.7
    assert summary["queued_p50_s"] == 0.1 and summary["queued_max_s"] == 0.3
    assert summary["handled_max_s"] == 0.1
    assert summary["tail_s"] == 1.7  # 2.1 s of wall against 0.1 s queued + 0.3 s answer typically


def test_an_empty_step_is_all_wall_time() -> None:
    assert timing.summarize([], 1.0, 1.5) == {
        "wall_s": 0.5,
        "requests": 0,
        "failed": 0,
        "answer_p50_s": 0.0,
        "answer_max_s": 0.0,
        "queued_p50_s": 0.0,
        "queued_max_s": 0.0,
        "handled_p50_s": 0.0,
        "handled_max_s": 0.0,
        "tail_s": 0.5,
    }


def test_the_collection_is_bounded() -> None:
    with timing.collect() as recorded:
        for _ in range(timing.MAX_RECORDED + 10):
            timing.record("value", 1, 0.0, 0.0)
    assert len(recorded) == timing.MAX_RECORDED
