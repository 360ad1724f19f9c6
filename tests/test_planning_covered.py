"""Issue 23 (p-natural5): a fee covering a first number of units plus a price for each unit beyond them,
read from one sentence (planning/covered.py) and applied to the quantity a question states (planning/
situated.py's stated terms). Wordings are made up here and differ from every suite's."""

from __future__ import annotations

import math
from dataclasses import replace

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.covered import covered_rule
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.rule_reader import apply_to_quantity
from ioa_p2p.planning.situated import stated_terms
from ioa_p2p.planning.values import Value

PLAN = (
    "The studio's monthly plan is £12.00 and covers up to 40 prints a month; each print above 40 costs 15p."
)
PRINT_SHOP = f"""Inkwell Print Studio - member plans

{PLAN}
Lamination is £1.10 per sheet.
"""


def _records(text: str) -> DocRecords:
    records = records_from_data(records_data(read_document("plans.txt", text)))
    assert records is not None
    return records


def _value(expression: str | None) -> float:
    assert expression is not None
    return float(eval(expression, {"__builtins__": {}, "ceil": math.ceil, "max": max, "min": min}))


def test_a_fee_that_covers_units_and_a_price_per_unit_above_them_in_pence() -> None:
    rule = covered_rule(PLAN)
    assert rule is not None and (rule.add, rule.rate, rule.allowance) == (12.0, 0.15, 40.0)
    assert _value(apply_to_quantity(rule, 52)) == 12 + 12 * 0.15
    assert _value(apply_to_quantity(rule, 30)) == 12  # within what the fee covers


def test_the_first_unit_and_each_further_one_started_in_full() -> None:
    rule = covered_rule(
        "Mooring is EUR 9 for the first night and EUR 6.50 for each further night or part of it."
    )
    assert rule is not None and rule.allowance == 1 and rule.started
    assert _value(apply_to_quantity(rule, 3)) == 9 + 2 * 6.5


def test_a_fee_for_up_to_a_number_of_days_then_each_extra_day() -> None:
    rule = covered_rule("Scaffold hire is GBP 75 for up to 5 days and GBP 12 for each extra day.")
    assert rule is not None and _value(apply_to_quantity(rule, 8)) == 75 + 3 * 12


def test_other_forms_are_not_read_as_a_covered_fee() -> None:
    assert covered_rule("Courier charges are EUR 6 plus EUR 1.50 per kg.") is None  # a base and a rate
    assert covered_rule("Tickets are EUR 5 for adults and EUR 2 for each child.") is None
    # the number above which units are charged differs from what the fee covers: two rules, not one
    assert covered_rule("The plan is £10 and covers up to 20 scans; each scan above 30 costs 20p.") is None


def test_the_value_looked_up_is_charged_on_its_sentence_for_the_quantity_given() -> None:
    found = replace(Value.of_number(12.0, "GBP"), records=_records(PRINT_SHOP))
    charged = stated_terms("We expect to make 52 prints next month. What will the plan cost us?", found)
    assert charged is not None and _value(charged[0]) == 12 + 12 * 0.15
