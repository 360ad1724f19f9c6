"""A naturally worded question asked again by its subject in the documents' words (adapters/retrieval/
focus.py), and days of the week a fact names as the ones it excludes (qualifiers.py).

Every document and question here is made up for this test.
"""

from __future__ import annotations

from pathlib import Path

import trio

from ioa_p2p.adapters import Task, load_adapter, run_task
from ioa_p2p.adapters.retrieval.adapter import RetrievalAdapter
from ioa_p2p.adapters.retrieval.focus import focus_query, situated
from ioa_p2p.adapters.retrieval.qualifiers import unnamed_qualifiers
from ioa_p2p.adapters.retrieval.terms import terms

FARES = """\
# Orrin Bay Ferries: fares

| Route | Single |
|---|---|
| Brackley - Tolmouth | EUR 4.80 |
| Brackley - Wenlow | EUR 6.10 |

A day return costs 1.8 times the single fare.
Passengers aged 65 and over pay 70 % of the adult fare.
"""

PARKING = """\
Harbour car parks: tariffs

Day ticket (return before midnight): 5
Evening ticket: 3
"""

ROTA = """\
# Night porters

Porters receive EUR 30 per night on duty and EUR 55 per hour called out outside normal hours
(normal hours: 08:00-17:00, Monday to Friday).
Boat trips run on Saturdays at 14:00.
"""


def test_the_focused_question_keeps_the_subject_in_the_documents_words() -> None:
    vocabulary = terms(FARES + PARKING)
    question = (
        "My aunt is 70 and we are going on 12 May 2026 at 09:15. "
        "How much will a day return between Brackley and Tolmouth set her back?"
    )
    focused = focus_query(question, vocabulary)
    assert focused.split() == ["day", "return", "Brackley", "Tolmouth"]  # aunt, going: no document's words
    assert "70" not in focused and "09" not in focused and "2026" not in focused
    assert focus_query("How much is it?", vocabulary) == ""  # nothing left to ask by


def test_a_question_is_situated_by_first_person_amounts_or_several_sentences() -> None:
    assert situated("If I stay 3 nights, what do I pay?")
    assert situated("Two adults arrive on 4 June 2026. What is the room price?")
    assert situated("The booking was made early. What is the fee?")
    assert not situated("What is the single fare from Brackley to Tolmouth?")


def test_days_a_fact_names_as_excluded_are_no_near_miss() -> None:
    fact = ROTA.splitlines()[2] + " " + ROTA.splitlines()[3]
    asked = "A porter is called out for 2 hours on a Sunday. What is the pay for that night?"
    assert unnamed_qualifiers(asked, ROTA, "rota/porters.md", fact) == []
    trips = "Do the boat trips run on Sundays?"  # the fact holds on Saturdays only: still a near miss
    missing = unnamed_qualifiers(trips, ROTA, "rota/porters.md", ROTA.splitlines()[4])
    assert [q.kind for q in missing] == ["weekday"]


LIBRARY = """\
# Ashby tool library: borrowing rules

1. Members may borrow up to 4 tools at a time. Membership costs GBP 30 a year, or GBP 15 a year for students.
2. A tool returned late is charged GBP 2 per day.
"""

HEATING = """\
ASHGROVE DISTRICT HEATING - DOMESTIC TARIFF 2026
Prices in EUR, excluding VAT of 7 %.

Standing charge ......................... 0.55 per day

Heat used is charged per MWh, in tiers counted within each calendar year:

  Heat used in the year      Price per MWh
  first 10 MWh               80.00
  above 10 MWh               70.00
"""


def _adapter(tmp_path: Path) -> RetrievalAdapter:
    for folder, name, text in (("library", "rules.md", LIBRARY), ("heating", "tariff.txt", HEATING)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text(text)
    made = load_adapter("retrieval", {"path": str(tmp_path), "embedding": {"backend": "hashing"}})
    assert isinstance(made, RetrievalAdapter)
    return made


def test_a_near_miss_is_asked_again_by_its_subject_and_answered_where_it_is_named(tmp_path: Path) -> None:
    """The question's own amount ("15 ... a year") pulled in another document's "GBP 15 a year", which never
    names the heating company, while the tariff's rows gave their key ("above 10 MWh") as the value; since
    a row's key column is no value column (p-situ, extract.py), the question as worded finds the tariff's
    row of the band 15 MWh is in, and a company named nowhere is still a near miss."""
    made = _adapter(tmp_path)
    asked = "What is Ashgrove District Heating's heat charge for 15 MWh used in a year?"
    absent = "What is Elmbury District Heating's heat charge for 15 MWh used in a year?"

    async def main() -> None:
        with trio.fail_after(60):
            made.index.refresh()
            first = made.index.answer_as_asked(asked)[1]  # the whole question alone: the near miss
            found = await run_task(made, Task.create(asked, timeout=60))
            refused = await run_task(made, Task.create(absent, timeout=60))
        assert first is not None and first.fact.path == "heating/tariff.txt"
        assert first.fact.text.startswith("above 10 MWh") and first.value.number == 70
        assert found.ok and found.data["citation"]["path"] == "heating/tariff.txt"
        assert found.data["value"]["unit"] == "EUR"
        assert not refused.ok and "never names Elmbury" in refused.text  # named nowhere: still a near miss

    trio.run(main)
