"""Issue 23 (p-natural5): the asker's stated age is never the count a rate is multiplied by
(planning/rates.py: "I'm 70 and ..." planned as the price times 70 before). Wordings are made up here and
differ from every suite's."""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.rates import quantity
from ioa_p2p.planning.types import CALC


def test_an_age_is_not_the_quantity_a_rate_is_applied_to() -> None:
    assert (
        quantity("I'm 68 and come twice a week. What does the aqua class cost me at Fenwick Baths?") is None
    )
    assert quantity("Tickets for my nephew aged 11 at Fenwick Baths - what's the price?") is None
    assert quantity("What do 4 swim passes cost at Fenwick Baths for my 11-year-old?") == (4.0, "", "swim")


def test_a_plan_never_multiplies_a_price_by_the_askers_age() -> None:
    q = "I'm 68 and I pay per visit. This week I'd like aqua aerobics at Fenwick Baths. What's my total?"
    plan = plan_request(q)
    assert not any("68" in step.template for step in plan.steps if step.kind == CALC)
