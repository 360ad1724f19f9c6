"""Issue 23, class 7: a year of a monthly price paid at once, on the document's own rule for it
(planning/yearly.py). Documents and wordings are made up here and differ from every suite's."""

from __future__ import annotations

import math
from dataclasses import replace

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.values import Value
from ioa_p2p.planning.yearly import yearly_expression

STUDIO = """\
# Kelpie Climbing Wall - memberships

All prices in EUR per month.

| Plan     | Monthly fee |
|----------|-------------|
| Anytime  | 55.00       |
| Daytime  | 38.00       |

Members who settle a whole year in advance pay 10 monthly fees instead of 12.
"""

PLANS = """\
; Drumlin Hosting plans. Prices in EUR per month, VAT excluded.

[basic]
price_eur = 12

[billing]
annual_discount_pct = 20
"""

ANNUAL_COLUMN = """\
# Heron Pool - prices in EUR

| Plan     | Monthly | Annual, paid upfront |
|----------|---------|----------------------|
| Swim     | 30.00   | 300.00               |

Members who pay a year up front get 5 % off.
"""


def _found(text: str, name: str, number: float, unit: str = "EUR") -> Value:
    records = records_from_data(records_data(read_document(name, text)))
    return replace(Value.of_number(number, unit), records=records)


def _value(found: tuple[str, str] | None) -> float:
    assert found is not None
    return float(eval(found[0], {"__builtins__": {}}))


def test_a_year_paid_up_front_on_the_documents_rule() -> None:
    q = "What is a whole year of the Anytime plan at Kelpie if I pay it in advance?"
    assert _value(yearly_expression(q, _found(STUDIO, "wall.md", 55))) == 550
    q = "How much is the Drumlin basic plan for a full year paid annually?"
    assert math.isclose(_value(yearly_expression(q, _found(PLANS, "plans.ini", 12))), 12 * 12 * 0.8)


def test_no_reading_without_a_year_paid_at_once_or_for_an_annual_price() -> None:
    assert yearly_expression("What is the Anytime plan per month?", _found(STUDIO, "wall.md", 55)) is None
    assert yearly_expression("What does a year of Anytime cost?", _found(STUDIO, "wall.md", 55)) is None
    q = "What does a year of Swim cost paid upfront?"  # the annual price is already the year's
    assert yearly_expression(q, _found(ANNUAL_COLUMN, "pool.md", 300)) is None
