"""Issue 23, class 2/7: "how many 1.5 kg bags must I buy" for a number of items a batch recipe makes: the
amount per item times the items, over the size of a bag, rounded up to whole bags; the size that labels
the item asked for is no operand (planning/derive.py, planning/chains.py). Made-up documents and wording."""

from __future__ import annotations

import math

from ioa_p2p.planning.derive import derive_expression, item_labels
from ioa_p2p.planning.doc_facts import facts_in, givens_in
from ioa_p2p.planning.values import Value

BAKERY = """\
# Quayside Rolls - production notes

## Seeded rolls

Makes 16 rolls.

- 400 g strong flour
- 60 g mixed seeds
- 8 g yeast

## Buying

Strong flour comes in 1.5 kg bags at EUR 2.10 a bag.
"""


def _value(found: tuple[str, str] | None) -> float:
    assert found is not None
    return float(eval(found[0], {"__builtins__": {}, "ceil": math.ceil, "max": max, "min": min}))


def test_the_size_that_labels_the_item_asked_for_is_no_operand() -> None:
    q = "How many 1.5 kg bags of strong flour do I need to bake 80 Quayside seeded rolls?"
    givens, facts = item_labels(q, givens_in(q), facts_in(BAKERY))
    assert [g.number for g in givens] == [80.0]
    assert len(facts) == len(facts_in(BAKERY))  # the documents state the bag's size already
    q = "How many 2 kg sacks of strong flour do I need to bake 80 rolls?"
    givens, facts = item_labels(q, givens_in(q), facts_in(BAKERY))
    assert [g.number for g in givens] == [80.0]
    assert any(f.per == ("sack",) and f.number == 2.0 for f in facts)  # the question's size, stated


def test_whole_bags_for_the_items_asked_for() -> None:
    q = "How many 1.5 kg bags of strong flour do I need to bake 80 Quayside seeded rolls?"
    found = Value.of_number(1.5, "kg").with_evidence((BAKERY,))
    derived = derive_expression(q, found)
    assert derived is not None and "ceil(" in derived[0]
    assert _value(derived) == 2  # 25 g a roll x 80 = 2 kg: two bags


def test_a_calendar_span_is_never_counted_in_hours_of_a_price_per_hour() -> None:
    from ioa_p2p.planning.chains import MAX_EXPANSIONS, best_chain
    from ioa_p2p.planning.doc_facts import Quantity
    from ioa_p2p.planning.quantities import stated_quantities
    from ioa_p2p.planning.tariffs import render_charge

    coaching = Value.of_number(45, "EUR").with_terms((("per", "h"),))
    assert render_charge(coaching, stated_quantities("a pause of 5 weeks")) == "(missing: a quantity in h)"
    assert render_charge(coaching, stated_quantities("for 3 hours")) == "(45 * 3)"
    q = "What does coaching cost for 5 weeks?"
    rate = Quantity(45.0, "EUR", ("h",), frozenset({"coaching"}), frozenset({"coaching"}), "EUR 45 per hour")
    found = Value.of_number(45, "EUR")
    chain = best_chain(
        "EUR", [rate], givens_in(q), frozenset({"coaching"}), found, 0, frozenset(), [MAX_EXPANSIONS]
    )
    assert chain is None or "168" not in chain.expr  # never 45 x the 840 hours of five weeks


def test_a_duration_over_a_rate_stays_in_the_unit_the_rate_is_stated_in() -> None:
    doc = (
        "| Model | Battery | Flight time |\n|---|---|---|\n| T4 | 5,400 mAh | 25 min |\n\n"
        "The quick charger delivers 1,800 mAh per hour."
    )
    q = "How long does the quick charger take to fill a Model T4 battery?"
    derived = derive_expression(q, Value.of_number(5400, "mAh").with_evidence((doc,)))
    assert derived is not None and derived[1] == "h" and _value(derived) == 3  # not 180 min
