"""A trip's daily allowance worked out on a handbook's rules (issue 23, class 7: per-diem deductions): the
trip's days from weekdays, dates or nights, the meals provided, the full-day and travel-day rates and the
meal deductions looked up (amounts or shares of the full rate), and the sum. Made-up handbooks and
wordings (none from a goal suite)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters.base import Task, run_task
from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.planning import CALC, LOOKUP, Value, describe, plan_request
from ioa_p2p.planning.allowances import meals_provided, render_parts, trip_days

from .test_retrieval import ask, hashing_adapter


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("leaving on Wednesday, back on Friday night", 3),
        ("I fly out Friday and come back on Monday", 4),
        ("from 3 March 2026 to 7 March 2026", 5),
        ("two nights in Lyon", 3),
        ("out on Tuesday at 6 am and back home on Tuesday at 10 pm", 1),
        ("a meeting in Graz", None),
    ],
)
def test_the_days_of_a_trip(text: str, days: int | None) -> None:
    assert trip_days(text) == days


def test_the_meals_provided() -> None:
    assert meals_provided("breakfast is included on Tuesday and Wednesday", 3) == {"breakfast": 2}
    assert meals_provided("Two nights at a hotel with breakfast. The client paid lunch on Thursday.", 3) == {
        "breakfast": 2,
        "lunch": 1,
    }
    assert meals_provided("no breakfast at the hotel", 2) == {}


def test_a_share_of_the_full_rate_or_an_amount() -> None:
    values = {1: Value.of_number(60, "EUR"), 2: Value.of_number(80, "%"), 3: Value.of_number(9, "EUR")}
    assert render_parts("(2 * part(v2 of v1) + 1 * v1 - 2 * part(v3 of v1))", values) == (
        "(2 * (60 * 80 / 100) + 1 * v1 - 2 * 9)"
    )


FIXED = """# Quarrow Logistics - Staff Handbook

## 5. Travel

### 5.4 Daily allowance

| Trip                              | Inland  | Abroad  |
|-----------------------------------|---------|---------|
| Full calendar day away            | EUR 40  | EUR 55  |
| Day of departure or return        | EUR 20  | EUR 30  |

If a hotel includes breakfast, deduct EUR 7 from the daily allowance. A lunch or dinner paid by a
customer is deducted at EUR 12.
"""
SHARES = """# Ombry Consulting - Travel policy

## 4. Per diem

4.1 The full daily rate of the destination city applies to each full day away.

4.2 The day of departure and the day of return are each paid at 80 % of the daily rate.

4.3 When a meal is provided free, the per diem for that day is reduced by a share of the full daily
rate: breakfast 20 %, lunch 30 %, dinner 40 %.

## 5. City rates

| City     | Country  | Per diem (full day) | Hotel cap |
|----------|----------|--------------------:|----------:|
| Vienna   | Austria  | 70                  | 180       |
| Madrid   | Spain    | 60                  | 150       |
"""


async def allowance(tmp_path: Path, goal: str) -> float:
    root = tmp_path / "docs"
    for folder, text in (("quarrow", FIXED), ("ombry", SHARES)):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "policy.md").write_text(text)
    adapter = hashing_adapter(root)
    steps = plan_request(goal).steps
    assert [s.kind for s in steps[:-1]] == [LOOKUP] * (len(steps) - 1) and steps[-1].kind == CALC
    values: dict[int, Value] = {}
    for step in steps[:-1]:
        result = await ask(adapter, describe(step, values))
        assert result.ok, result.text
        found = Value.from_dict(result.data["value"])
        assert found is not None
        values[step.index] = found
    calculator = adapter_from_config({"name": "calculator", "adapter": "calculator"})
    with trio.fail_after(30):
        done = await run_task(calculator, Task.create(describe(steps[-1], values), timeout=30))
    assert done.ok, done.text
    total = Value.from_dict(done.data["value"])
    assert total is not None and total.number is not None
    return total.number


async def test_fixed_amounts_per_day_and_meal(tmp_path: Path) -> None:
    goal = (
        "I'm working abroad for Quarrow Logistics: leaving Tuesday, back Thursday, and my hotel has "
        "breakfast on Wednesday and Thursday. How much daily allowance can I claim?"
    )
    assert await allowance(tmp_path, goal) == 2 * 30 + 55 - 2 * 7


async def test_shares_of_the_citys_full_rate(tmp_path: Path) -> None:
    goal = (
        "For Ombry Consulting I'm in Vienna from 2 June 2026 to 5 June 2026; breakfast is included on "
        "3, 4 and 5 June. What per diem do I get?"
    )
    assert await allowance(tmp_path, goal) == pytest.approx(2 * 56 + 2 * 70 - 3 * 14)
