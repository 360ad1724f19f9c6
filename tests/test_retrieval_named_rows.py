"""Issue 23 (suite 3 misses, round 7): made-up documents and several wordings (no suite's).

- an age ("a 9-year-old", "aged 70 years old") is no request for the superseded figures ("the old price");
- a row named like "Severity 1" answers with the cell of the column the question names, never with the
  cell that names the row (its "1" is a name, not a figure);
- a date in a table's header is the column's, not the row's; a date question that names the year of what
  it asks about is answered by a date of that year;
- a question that asks for an amount of one thing ("the joining fee", "how many kilometres a day") is
  answered by the figure looked up, not by a document rule's base amount of another thing or unit.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ioa_p2p.adapters.retrieval.picks import of_named_year
from ioa_p2p.planning import plan_request, value_of
from ioa_p2p.planning.derive import DERIVE, derive_expression

from .test_retrieval import ask, hashing_adapter

PRICES = """# Quillon Aquarium: tickets

Prices from 1 January 2026.

| Ticket            | Price (EUR) |
|-------------------|------------:|
| Adult (18-64)     | 14.00       |
| Child (4-17)      | 6.50        |
| Senior (65+)      | 9.00        |
"""

OLD_PRICES = """# Quillon Aquarium: old ticket prices (superseded)

These prices were replaced on 1 January 2026 and are kept for reference only.

| Ticket            | Price (EUR) |
|-------------------|------------:|
| Adult (18-64)     | 12.00       |
| Child (4-17)      | 5.00        |
| Senior (65+)      | 8.00        |
"""

SUPPORT = """# Brisk Hosting: support

Response times
--------------

=========================================  ===========  ============  ===========
Priority                                   Basic        Plus          Max
=========================================  ===========  ============  ===========
Priority 1 (site down)                     6 hours      2 hours       20 minutes
Priority 2 (site slow)                     2 days       8 hours       2 hours
=========================================  ===========  ============  ===========
"""

FEES = """# Harlow Rowing Club: fees

| Boat class | Early (until 31 Jan 2027) | Late (1 Feb - 28 Feb 2027) |
|------------|---------------------------|----------------------------|
| Single     | EUR 40.00                 | EUR 55.00                  |
| Double     | EUR 70.00                 | EUR 90.00                  |

Regatta day: Saturday 12 June 2027.
"""

GYM = """PELLWORTH LEISURE - PRICES 2026

MEMBERSHIPS            MONTHLY     ANNUAL
Basic                  EUR 25.00   EUR 270.00
Plus                   EUR 39.00   EUR 420.00

Joining fee: EUR 30.00 for every monthly membership. No joining fee on annual memberships.
Students pay 20 % less on any membership.

CAR HIRE ALLOWANCES
Group A: 150 km per rental day included; each further km costs EUR 0.25.
Group B: 250 km per rental day included; each further km costs EUR 0.35.
Daily rate group A: EUR 41.00. Daily rate group B: EUR 58.00.
"""


def _docs(tmp_path: Path, files: dict[str, str]) -> Path:
    docs = tmp_path / "docs"
    for rel, text in files.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text)
    return docs


async def _value(docs: Path, question: str) -> str:
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return str(result.data["value"]["text"])


async def test_an_age_is_no_request_for_the_superseded_prices(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"quillon/tickets.md": PRICES, "quillon/tickets-2025-old.md": OLD_PRICES})
    for question in (
        "How much is a child ticket for a 9-year-old at the Quillon Aquarium?",
        "What does a 12 years old child pay for a ticket at Quillon Aquarium?",
    ):
        assert await _value(docs, question) == "EUR 6.5", question
    assert await _value(docs, "What was the old price of a child ticket at Quillon Aquarium?") == "EUR 5"


async def test_the_cell_that_names_the_row_is_not_its_answer(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"brisk/support.rst": SUPPORT})
    assert await _value(docs, "What is Brisk Hosting's Priority 1 response time on the Plus plan?") == "2 h"
    assert await _value(docs, "Look up the Priority 2 response time on Brisk's Max plan") == "2 h"
    assert await _value(docs, "Brisk Hosting: Priority 1 response time for Max?") == "20 min"


async def test_a_date_in_a_tables_header_is_not_a_rows_date(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"harlow/fees.md": FEES})
    result = await ask(hashing_adapter(docs), "When is the Harlow Rowing Club regatta for a single boat?")
    assert result.ok, result.text
    assert result.data["value"]["kind"] == "date"
    assert result.data["value"]["date"] == "2027-06-12"


def test_a_date_question_that_names_a_year_takes_that_years_dates() -> None:
    found = [(0, 10, dt.date(2026, 4, 19)), (20, 30, dt.date(2027, 4, 18))]
    assert [d[2].year for d in of_named_year("What date is the marathon in 2027?", found)] == [2027]
    assert [d[2].year for d in of_named_year("When is the Kittering Marathon 2026?", found)] == [2026]
    assert of_named_year("When was the 2026 price list withdrawn?", found) == found  # a name, not the year
    assert of_named_year("When is the marathon?", found) == found


async def _single(docs: Path, question: str) -> str:
    plan = plan_request(question)
    if len(plan.steps) == 1:
        return ""
    assert plan.steps[-1].template == DERIVE, plan.steps
    result = await ask(hashing_adapter(docs), plan.steps[0].text)
    assert result.ok, result.text
    found = value_of(result.text, result.data, plan.steps[0].template)
    derived = derive_expression(plan.steps[-1].text, found)
    return derived[0] if derived else ""


async def test_the_figure_looked_up_answers_a_question_for_one_amount(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"pellworth/prices.txt": GYM})
    for question in (
        "What's the joining fee for a monthly membership at Pellworth Leisure?",
        "How much is Pellworth Leisure's joining fee on a monthly membership?",
        "How many kilometres a day are included when I hire a group B car from Pellworth?",
    ):
        assert await _single(docs, question) in ("", "30 * 1", "250 * 1"), question


def test_a_start_time_asks_for_a_time_and_the_day_of_an_event_for_a_date() -> None:
    from ioa_p2p.planning.answer_types import answer_type

    for question in ("regatta 2027 - start time of heat B?", "What is the pool's opening time on Sundays?"):
        assert answer_type(question).kind == "time", question
    for question in ("Look up the race day of the Harlow regatta", "Find the day of the village fair."):
        assert answer_type(question).kind == "date", question
    for question in ("What is the day rate for a van?", "What is the charge for the day?", "Fee per day?"):
        assert answer_type(question).kind != "date", question
    assert answer_type("How many kilometres a day are included with a group B car?").per == "day"
    assert answer_type("How many cards are in a pack?").per == ""
