"""Issue 23 (p-refuse): a fact that disagrees with the question is no answer (retrieval/agreement.py).

A month, a day of a log, a quantity's band, a designator and a specification the question states select
*where* in a document its answer is; the fact the retrieval found must agree with each, else the task fails
as ``absent`` and the planner names the value missing (exit 3). Made-up documents and wordings.
"""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.agreement import (
    asked_months,
    designators,
    disagreements,
    months_covered,
    near_misses,
    open_bound,
    period_months,
)
from ioa_p2p.planning.refusal import ABSENT

from .test_retrieval import ask, hashing_adapter

TARIFF = """# Lindqvist Climbing Hall - Prices 2027/28

Season: 1 September 2027 to 31 August 2028. All prices in EUR.

| Pass           | Price |
|----------------|------:|
| Ten-visit card |    95 |
| Monthly pass   |    48 |

Bouldering cave for pass holders: EUR 6 per visit, open to them from April to June only.
Sauna: EUR 4 per visit.
"""

LOG = """RIVERSEND LOCK - DAILY LEVEL LOG, 1 TO 8 MARCH 2027
Levels in cm above the sill.

Day   Upstream  Downstream
01     212       140
02     215       141
03     230       150
04     241       152
05     238       149
06     226       146
07     219       144
08     214       142
"""

CHART = """# Pondamol syrup 120 mg/5 mL - doses for children

| Child's weight | One dose |
|----------------|---------:|
| 6 to 9.9 kg    |   3.0 mL |
| 10 to 17.9 kg  |   5.0 mL |
| 18 to 29.9 kg  |   8.5 mL |
"""

SCHEDULE = """FENWICK BOAT COVER - SCHEDULE
Sections B and D apply to moored boats only.

A  Hull           EUR 48,000   excess EUR 300
B  Engine         EUR 12,500   excess EUR 200
D  Trailer        EUR  3,100   excess EUR 100
"""


def test_the_months_a_text_covers_and_the_months_a_question_asks() -> None:
    assert months_covered("open from November to February") == {11, 12, 1, 2}
    assert months_covered("sow Mar-Apr, Oct") == {3, 4, 10}
    assert asked_months("What does the sauna cost in July?") == [7]
    assert asked_months("How warm was it in June 2027?") == [6]
    # the month of a day-month date is a date, not a month asked about; "may" the verb is no month
    assert asked_months("Which level was logged on 3 March?") == []
    assert asked_months("Where may I park?") == []


def test_a_document_states_its_period_in_its_header_only() -> None:
    assert period_months(LOG) == {3}
    assert period_months(TARIFF) == set(range(1, 13))  # September to August: every month
    assert period_months("# Pondamol chart\nLeaflet rev 2 (March 2027).\n") == set()  # a date, not a period
    assert open_bound("Early price (until 30 Nov 2027) EUR 40") and not open_bound("from April to June only")


def test_a_fact_limited_to_other_months_is_a_near_miss() -> None:
    fact = "Bouldering cave for pass holders: EUR 6 per visit, open to them from April to June only."
    missing = disagreements("What would the bouldering cave cost a pass holder in October?", TARIFF, "", fact)
    assert [(q.kind, q.shown) for q in missing] == [("month", "October")]
    assert disagreements("What would the bouldering cave cost a pass holder in May?", TARIFF, "", fact) == []
    # a fact open on one side ("until 30 November") holds the months before it
    early = "Early price (until 30 Nov 2027) EUR 40"
    assert disagreements("What is the price if I book in October?", TARIFF, "", early) == []


def test_a_log_must_hold_the_day_and_the_month_asked() -> None:
    assert disagreements("What was the upstream level at Riversend on 5 March?", LOG, "", "05 238 149") == []
    late = disagreements("What was the upstream level at Riversend on 19 March 2027?", LOG, "", "01 212 140")
    assert [(q.kind, q.shown) for q in late] == [("date", "19 March")]
    other = disagreements("What was the highest upstream level at Riversend in April?", LOG, "", "04 241 152")
    assert [(q.kind, q.shown) for q in other] == [("month", "April")]


def test_a_quantity_outside_every_band_of_the_fact_is_a_near_miss() -> None:
    row = "18 to 29.9 kg | 8.5 mL"
    assert disagreements("What dose does a 20 kg child get?", CHART, "", row) == []
    heavy = disagreements("What dose does a 52 kg child get?", CHART, "", row)
    assert [(q.kind, q.shown) for q in heavy] == [("band", "52 kg")]
    # a quantity of another unit than the bands is not checked
    assert disagreements("What dose does a child of 7 years get?", CHART, "", row) == []


def test_a_designator_must_be_named_in_a_form_of_the_document() -> None:
    assert designators("What is the excess under Section D of the Fenwick cover?") == [("Section", "D")]
    assert designators("Then Add 3 kg to the Zone 4 total") == [("Zone", "4")]  # "Add 3 kg": a quantity
    assert designators("What is my excess under Section D?") == []  # the asker's own situation
    assert disagreements("What is the excess under Section D of the Fenwick cover?", SCHEDULE) == []
    assert disagreements("What is the excess under Section A of the Fenwick cover?", SCHEDULE) == []
    assert disagreements("What is the fare on Route 2 at night?", "| km | R1 Night | R2 Night |") == []
    gap = disagreements("What is the excess under Section F of the Fenwick cover?", SCHEDULE)
    assert [(q.kind, q.shown) for q in gap] == [("designator", "Section F")]


def test_lower_case_designators_and_a_noun_the_document_numbers_itself() -> None:
    zones = "Delivery by zone: Zone A EUR 40, Zone B EUR 55, Zones C and D EUR 80."
    assert designators("Look up the delivery charge for zone E") == [("zone", "E")]
    assert [q.shown for q in disagreements("Look up the delivery charge for zone E", zones)] == ["zone E"]
    assert disagreements("Look up the delivery charge for zone D", zones) == []
    studios = "Studio 1: 70 per hour (north light). Studio 2: 55 per hour. A 3 hour minimum applies."
    gap = disagreements("What's the hourly rate for Studio 3 at Ambersley?", studios)
    assert [(q.kind, q.shown) for q in gap] == [("designator", "Studio 3")]  # its "3" is an hour count
    assert disagreements("What's the hourly rate for Studio 2 at Ambersley?", studios) == []
    rooms = "Rooms 1-4 sleep two; Rooms 5 to 8 sleep four. Room rate: 60 a night."
    assert disagreements("What does Room 3 cost a night at the inn?", rooms) == []  # in a numbered range
    assert [q.shown for q in disagreements("What does Room 9 cost a night at the inn?", rooms)] == ["Room 9"]


def test_a_specification_the_document_states_otherwise_is_a_near_miss() -> None:
    assert disagreements("How much 120 mg/5 mL Pondamol for a 12 kg child?", CHART) == []
    other = disagreements("How much 250 mg/5 mL Pondamol for a 12 kg child?", CHART)
    assert [(q.kind, q.shown) for q in other] == [("specification", "250 mg/5 ml")]


def test_near_misses_joins_unnamed_qualifiers_and_disagreements() -> None:
    shown = [q.shown for q in near_misses("What did the Section F cover cost in 2025?", SCHEDULE)]
    assert shown == ["2025", "Section F"]


async def test_the_retrieval_abstains_on_a_disagreeing_row(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pondamol-chart.md").write_text(CHART)
    adapter = hashing_adapter(docs)
    right = await ask(adapter, "What is the Pondamol dose for a child of 12 kg?")
    assert right.ok and "10 to 17.9 kg" in right.text  # the row that holds 12 kg is answered, not refused
    near = await ask(adapter, "What is the Pondamol dose for a child of 45 kg?")
    assert not near.ok and near.data[ABSENT] is True and near.data["unnamed"] == ["45 kg"]
