"""The run's lookup slots: the total holds, a joining node's lookup goes ahead of waiting routine ones,
and a waiter cancelled at any point neither keeps nor loses a slot."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from ioa_p2p.node.net.lookup_slots import LookupSlots


async def _hold(slots: LookupSlots, joining: bool, name: str, order: list[str], seconds: float) -> None:
    async with slots.slot(joining=joining):
        order.append(name)
        await trio.sleep(seconds)


def test_total_holds_and_joiners_go_first() -> None:
    async def main() -> None:
        slots = LookupSlots(2)
        order: list[str] = []
        most = 0
        async with trio.open_nursery() as nursery:
            for name, seconds in (("r1", 10.0), ("r2", 20.0)):  # take both slots, let go at 10 s and 20 s
                nursery.start_soon(_hold, slots, False, name, order, seconds)
                await trio.sleep(0.1)
            await trio.sleep(1)
            for name in ("r3", "r4"):  # routine lookups queue first...
                nursery.start_soon(_hold, slots, False, name, order, 30.0)
                await trio.sleep(0.1)
            nursery.start_soon(_hold, slots, True, "j1", order, 10.0)  # ...a joiner arrives after them
            for _ in range(90):
                most = max(most, slots.busy)
                await trio.sleep(1)
        assert order[:2] == ["r1", "r2"]
        assert order[2] == "j1"  # served at the first free slot, ahead of r3 and r4
        assert order[3:] == ["r3", "r4"]
        assert most == 2
        assert slots.busy == 0 and slots.waiting == 0
        assert slots.counts.joiners_first == 1 and slots.counts.at_once == 2 and slots.counts.waited == 3

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_cancelled_waiter_gives_its_turn_back() -> None:
    async def main() -> None:
        slots = LookupSlots(1)
        order: list[str] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_hold, slots, False, "a", order, 5.0)
            await trio.sleep(1)
            with trio.move_on_after(1):  # waits, then is cancelled before its turn
                await _hold(slots, True, "gone", order, 1.0)
            assert slots.waiting == 0
            nursery.start_soon(_hold, slots, False, "b", order, 1.0)
        assert order == ["a", "b"]
        assert slots.busy == 0

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_waiter_cancelled_as_its_turn_comes_passes_it_on() -> None:
    async def main() -> None:
        slots = LookupSlots(1)
        order: list[str] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_hold, slots, False, "a", order, 5.0)
            await trio.sleep(1)
            scope = trio.CancelScope(deadline=trio.current_time() + 4.0)  # ends when "a" lets go

            async def doomed() -> None:
                with scope:
                    await _hold(slots, False, "doomed", order, 1.0)

            nursery.start_soon(doomed)
            await trio.sleep(0.1)
            nursery.start_soon(_hold, slots, False, "c", order, 1.0)
        assert "c" in order and slots.busy == 0 and slots.waiting == 0

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_no_slot_is_refused() -> None:
    with pytest.raises(ValueError):
        LookupSlots(0)
