"""Issue 23, class 7: a charge by the hour at most the price of the day it falls in, where the document
says so, and hours started charged in full by a document's own sentence (planning/rulebook.py,
planning/composer.py). Documents and wordings are made up here and differ from every suite's."""

from __future__ import annotations

import math

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.composer import composed_charge
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.rulebook import rulebook

KAYAKS = """\
# Tidewater Paddle Centre - rental tariff

| Craft          | hourly    | daily     |
|----------------|----------:|----------:|
| Single kayak   | EUR 7.00  | EUR 30    |
| Tandem kayak   | EUR 11.00 | EUR 48    |

- Rentals are billed per started hour.
- One day's rental is capped at the daily rate, whatever the hours.
- Dry bags: EUR 3 per rental.
"""

NO_CAP = KAYAKS.replace("- One day's rental is capped at the daily rate, whatever the hours.\n", "")


def _records(text: str) -> DocRecords:
    records = records_from_data(records_data(read_document("tariff.md", text)))
    assert records is not None
    return records


def _value(found: tuple[str, str] | None) -> float:
    assert found is not None
    return float(eval(found[0], {"__builtins__": {}, "ceil": math.ceil, "max": max, "min": min}))


def test_the_document_sentence_on_started_hours_and_the_daily_cap_are_read() -> None:
    book = rulebook(_records(KAYAKS))
    assert book.started and book.period_cap
    assert not rulebook(_records(NO_CAP)).period_cap


def test_hours_started_are_charged_in_full_and_capped_by_the_day() -> None:
    q = "What will 2.25 hours in a tandem kayak at Tidewater come to?"
    assert _value(composed_charge(q, _records(KAYAKS), looked=(11.0,))) == 33  # 3 started hours
    q = "What does renting a single kayak for 6 hours from Tidewater cost?"
    assert _value(composed_charge(q, _records(KAYAKS), looked=(7.0,))) == 30  # 42 is over the day's 30
    q = "What do I pay for a single kayak for 5 hours with a dry bag at Tidewater?"
    assert _value(composed_charge(q, _records(KAYAKS), looked=(7.0,))) == 30 + 3


def test_without_the_cap_the_hours_are_charged_as_they_are() -> None:
    q = "What does renting a single kayak for 6 hours from Tidewater cost?"
    found = composed_charge(q, _records(NO_CAP), looked=(7.0,))
    assert found is None or _value(found) == 42  # one rule applied as it is: the single-rule readings


STEAM = """\
# Harrowgate Steam Network - heat prices 2027

Prices in EUR. Steam is billed per MWh in tiers counted over the contract year:

| Tier            | Price per MWh |
|-----------------|--------------:|
| first 10 MWh    | 90.00         |
| next 15 MWh     | 82.00         |
| above 25 MWh    | 75.00         |

Customers paying by standing order get a 3 % discount on the steam charge.
"""


def test_a_tiered_consumption_charge_splits_the_quantity_over_its_tiers() -> None:
    q = "What does Harrowgate bill for 31 MWh of steam in a year for a customer paying by standing order?"
    found = composed_charge(q, _records(STEAM), looked=(75.0,))
    assert math.isclose(_value(found), (10 * 90 + 15 * 82 + 6 * 75) * 0.97)
    q = "What does Harrowgate bill for 12 MWh over the year?"
    found = composed_charge(q, _records(STEAM), looked=(82.0,))
    assert math.isclose(_value(found), 10 * 90 + 2 * 82)  # not 12 at the second tier's price
