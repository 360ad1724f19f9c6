"""Issue 23, class 7: a price from the documents applied on the documents' terms to the quantities a request
states, on made-up documents and requests (none from a goal suite): the quantities read from the request,
the terms read from a price list and its rules (per-unit, increments, minimums, caps, free allowances,
percentages off, each only where its conditions are met), the arithmetic written out, and a missing
quantity named, never guessed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ioa_p2p.planning import CALC, LOOKUP, Value, describe, plan_request
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.tariffs import render_charge

from .test_retrieval import ask, hashing_adapter


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("We sail from 10:15 until 1 pm.", [(165.0, "min", "")]),
        ("the kiln runs 8:00 to 16:30 on Tuesday 3 March 2026", [(510.0, "min", "")]),
        ("for four and a half hours", [(4.5, "h", "")]),
        ("a three-hour workshop", [(3.0, "h", "")]),
        ("returned 2 days and 5 hours later", [(53.0, "h", "")]),
        ("Nine of us adults and three children", [(9.0, "", "adults"), (3.0, "", "children")]),
        ("400 paper plates for 2 weeks", [(400.0, "", "plates"), (2.0, "weeks", "")]),
        ("12.5 km with one trailer in 2026", [(12.5, "km", ""), (1.0, "", "trailer")]),
    ],
)
def test_the_quantities_a_request_states(text: str, found: list[tuple[float, str, str]]) -> None:
    assert [(q.number, q.unit, q.what) for q in stated_quantities(text)] == found


def rate(number: float, *terms: tuple[str, str]) -> Value:
    return Value.of_number(number, "EUR").with_terms(tuple(terms))


def test_a_charge_is_written_out_on_its_terms() -> None:
    started_quarter = rate(2.4, ("per", "h"), ("step", "15 min"), ("cap", "10"))
    expression = render_charge(started_quarter, stated_quantities("from 10:15 until 1 pm"))
    assert expression == "(min(2.4 * (ceil((165 / 60) / (15 / 60)) * (15 / 60)), 10))"  # 2.75 h -> 6.60
    free_first = rate(3, ("per", "days"), ("free", "24 h"), ("step", "1 days"))
    assert render_charge(free_first, stated_quantities("2 days and 5 hours")) == (
        "(3 * (ceil((max(53 / 24 - 24 / 24, 0)) / 1) * 1))"
    )
    per_guard_per_hour = rate(38, ("per", "guard"), ("per", "h"), ("minimum", "4 h"), ("discount", "10 %"))
    assert render_charge(per_guard_per_hour, stated_quantities("3 guards for a five-hour event")) == (
        "((38 * 3 * (max(5, 4))) * (1 - 10 / 100))"
    )
    fixed = Value.of_number(65, "EUR")
    assert render_charge(fixed, []) == "(65)"
    assert render_charge(rate(0.3, ("per", "km")), stated_quantities("for 3 hours")) == (
        "(missing: a quantity in km)"
    )


def test_a_price_question_is_planned_as_a_lookup_and_a_charge_with_vat_when_asked() -> None:
    steps = plan_request(
        "We'd like the Orwin Boathouse on Sunday for a three-hour party. What will the hire come to with VAT?"
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template == "(charge(v1; 3 h) * (1 + v2 / 100))"
    values = {1: rate(90, ("per", "h"), ("minimum", "4 h")), 2: Value.of_number(20, "%")}
    assert describe(steps[2], values) == "Calculate (90 * (max(3, 4))) * (1 + 20 / 100)"
    (lookup, calc) = plan_request(
        "I kept a Velo Depot cargo bike from 9:00 to 11:20. How much is that?"
    ).steps
    assert lookup.kind == LOOKUP and calc.template == "charge(v1; 140 min)"


TARIFF = """# Brindle Marina - Charges 2026

All charges in EUR, excluding VAT.

## Moorings

| Berth | Location              | Charge per hour | Daily cap |
|-------|-----------------------|----------------:|----------:|
| P     | Pontoon (visitors)    | EUR 4.00        | EUR 30.00 |
| Q     | Quay wall             | EUR 2.50        | EUR 18.00 |

Mooring is charged **per started 30 minutes**. The minimum charge is one hour.

**Sailing club members** moored at the Quay wall get the first **two hours** free.

## Slipway

Slipway use: EUR 12 per launch.

## Old charges (superseded)

Until 2025 mooring was charged per started hour.
"""


def marina(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "brindle").mkdir(parents=True, exist_ok=True)
    (docs / "brindle" / "charges.md").write_text(TARIFF)
    return docs


async def test_the_terms_of_a_price_come_from_its_row_and_its_rules(tmp_path: Path) -> None:
    adapter = hashing_adapter(marina(tmp_path))
    result = await ask(
        adapter, "We moor on the Pontoon at Brindle Marina from 10:00 until 13:10. What do we pay?"
    )
    assert result.ok, result.text
    value = Value.from_dict(result.data["value"])
    assert value is not None and value.number == 4.0
    terms = dict(value.terms)
    assert (
        terms["per"] == "h"
        and terms["cap"] == "30"
        and terms["step"] == "30 min"
        and terms["minimum"] == "1 h"
    )
    assert "free" not in terms  # the members' rule names a condition the request does not meet
    member = await ask(
        adapter,
        "As sailing club members we moor at the Brindle Marina Quay wall for five hours. What do we pay?",
    )
    value = Value.from_dict(member.data["value"])
    assert value is not None and value.number == 2.5 and dict(value.terms)["free"] == "2 h"
    expression = render_charge(value, stated_quantities("for five hours"))
    assert expression.startswith("(min(2.5 * ") and "max(5 - 2, 0)" in expression
