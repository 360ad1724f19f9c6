"""Issue 23, class 7: a charge on an amount of money the question gives (planning/valued.py): cover per
block of a declared value, a percentage of a price, a value plus a fee, the VAT on a bill. Documents and
wordings are made up here and differ from every suite's."""

from __future__ import annotations

import math
from dataclasses import replace

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.valued import valued_expression
from ioa_p2p.planning.values import Value

FREIGHT = """\
# Osterley Haulage - terms for consignments

1. Carriage is priced by the pallet: EUR 48.00 per pallet within the region.

2. Transit insurance: consignments are insured free up to the first EUR 250 of their stated worth.
   Beyond that, insurance costs EUR 2.20 for each EUR 250 (or part of EUR 250) of value over the first
   EUR 250, never more than EUR 40.00 per consignment.

3. Storage at our depot costs EUR 0.80 per day for each EUR 1,000 of declared value.
   The declared value is never less than EUR 5,000, whatever the sender states.

4. Damaged crates are charged at the repair value on the surveyor's report, plus a handling fee of EUR 12.

5. A customs brokerage fee of 1.5% of the invoice value applies to exports, but at least EUR 20.00.

All prices exclude VAT at 21%.
"""


def _records() -> DocRecords:
    records = records_from_data(records_data(read_document("terms.md", FREIGHT)))
    assert records is not None
    return records


def _found(number: float, unit: str = "EUR") -> Value:
    return replace(Value.of_number(number, unit), records=_records())


def _value(found: tuple[str, str] | None) -> float:
    assert found is not None
    return float(eval(found[0], {"__builtins__": {}, "ceil": math.ceil, "max": max, "min": min}))


def test_cover_per_started_block_of_value_over_a_free_first_amount_with_a_cap() -> None:
    q = "What would Osterley charge to insure a consignment I value at EUR 1,130?"
    found = valued_expression(q, _found(2.2))
    assert found is not None and found[1] == "EUR"
    assert math.isclose(_value(found), math.ceil((1130 - 250) / 250) * 2.2)  # 4 started blocks
    capped = valued_expression("How much is transit insurance for goods worth EUR 9,000?", _found(2.2))
    assert _value(capped) == 40.0


def test_value_raised_to_its_floor_before_the_blocks() -> None:
    q = "Storing crates declared at EUR 3,000 at the depot: what is that per day?"
    assert math.isclose(_value(valued_expression(q, _found(0.8))), 5000 / 1000 * 0.8)


def test_value_plus_a_fee_and_a_percentage_with_its_minimum() -> None:
    q = "The surveyor put the repair value of our damaged crate at EUR 310. What will Osterley bill?"
    assert _value(valued_expression(q, _found(12))) == 322
    q = "What brokerage fee applies to an export with an invoice value of EUR 4,000?"
    assert math.isclose(_value(valued_expression(q, _found(1.5, "%"))), 60.0)
    q = "What brokerage fee applies to an export with an invoice value of EUR 600?"
    assert math.isclose(_value(valued_expression(q, _found(1.5, "%"))), 20.0)  # 9.00 is under the minimum


def test_vat_on_a_given_bill() -> None:
    q = "How much VAT does Osterley add to an invoice of EUR 800?"
    assert math.isclose(_value(valued_expression(q, _found(21, "%"))), 168.0)


def test_no_reading_without_exactly_one_amount_of_money_or_a_rule_over_value() -> None:
    assert valued_expression("How much is transit insurance for a consignment?", _found(2.2)) is None
    q = "Is insurance for EUR 500 of goods cheaper than for EUR 900?"
    assert valued_expression(q, _found(2.2)) is None
    # a pallet price is a rate per pallet, not a charge on the value given
    assert valued_expression("What is carriage for goods worth EUR 700?", _found(48)) is None


def test_the_derivation_uses_it_where_a_rate_applies_to_none_of_the_quantities() -> None:
    q = "What would Osterley charge to insure a consignment I value at EUR 1,130?"
    derived = derive_expression(q, _found(2.2))
    assert derived is not None and math.isclose(_value(derived), 8.8)


def test_a_rule_that_leaves_out_the_price_looked_up_is_never_preferred() -> None:
    from ioa_p2p.planning.derive import preferred

    found = _found(12)  # the handling fee found; the typed rules chose the pallet rate
    assert preferred(None, ("48 * 504", "EUR"), found) is None
    assert preferred(None, ("12 * 3", "EUR"), found) == ("12 * 3", "EUR")


def test_the_rule_is_read_when_the_lookup_found_only_a_heading() -> None:
    found = replace(Value.of_text("Damaged crates."), records=_records())  # no amount found at all
    q = "Our crate was damaged; the repair value is EUR 95. What does Osterley bill for it?"
    assert _value(valued_expression(q, found)) == 107
