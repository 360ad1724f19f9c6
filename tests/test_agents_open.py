"""How the agents of a process open (``node.agents.run._open_all``): the first alone, then at most
``START_CONCURRENCY`` at a time, in the specs' order; the process's start is no longer the sum of every
agent's start (issue 26: 2 x 50 and 4 x 25 agents did not start in 200 s one after the other)."""

from __future__ import annotations

from typing import Any

import trio
from trio.testing import MockClock

from ioa_p2p.node.agents.run import START_CONCURRENCY, _open_all


def test_the_first_opens_alone_then_a_few_at_a_time_in_order() -> None:
    async def main() -> None:
        opening, most, began = [0], [0], []

        async def host(run: Any, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
            began.append(run)
            opening[0] += 1
            most[0] = max(most[0], opening[0])
            if run == 0:
                assert opening[0] == 1  # nobody opens beside the first
            await trio.sleep(1.0)  # its start
            opening[0] -= 1
            task_status.started()
            await trio.sleep_forever()

        async with trio.open_nursery() as nursery:
            start = trio.current_time()
            await _open_all(nursery, list(range(13)), host)  # type: ignore[arg-type]
            took = trio.current_time() - start
            nursery.cancel_scope.cancel()
        assert began == list(range(13)) and most[0] == START_CONCURRENCY
        assert took == 1.0 + 12 / START_CONCURRENCY  # not 13 s one after the other

    trio.run(main, clock=MockClock(autojump_threshold=0))


def test_no_agents_opens_nothing() -> None:
    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await _open_all(nursery, [], lambda run: None)

    trio.run(main)
