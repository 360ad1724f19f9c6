"""The typed document model (adapters/retrieval/docmodel): quantities, records, questions, typed answers.

Every document here is made up for these tests (a kayak outfitter, a print shop, a dentist's rules...);
none is from a goal suite.
"""

from __future__ import annotations

import pytest

from ioa_p2p.adapters.retrieval.docmodel import (
    Document,
    ask,
    convert,
    dimension,
    quantities_in,
    read_document,
    read_question,
)
from ioa_p2p.adapters.retrieval.docmodel.bands import band_of
from ioa_p2p.adapters.retrieval.docmodel.conditions import conditions_in, split_otherwise
from ioa_p2p.adapters.retrieval.docmodel.records import FIELD, ROW, SENTENCE, TERM

# --------------------------------------------------------------------------- quantities


@pytest.mark.parametrize(
    ("text", "number", "unit", "per", "per_amount"),
    [
        ("EUR 12 per hour", 12, "EUR", "h", 1),
        ("needs 300 g per 4 jars", 300, "g", "jar", 4),
        ("£7.50 a day", 7.5, "GBP", "days", 1),
        ("CHF 3.20/kWh", 3.2, "CHF", "kWh", 1),
        ("USD 9 per seat a month", 9, "USD", "seat/months", 1),
        ("it takes three weeks", 3, "weeks", "", 1),
        ("half an hour", 0.5, "h", "", 1),
        ("a 45-minute slot", 45, "min", "", 1),
        ("2.5 million", 2.5e6, "", "", 1),
        ("the 64 GB card", 64, "GB", "", 1),
    ],
)
def test_quantities_read_number_unit_and_rate(
    text: str, number: float, unit: str, per: str, per_amount: float
) -> None:
    found = quantities_in(text)
    assert found, text
    q = found[0]
    assert (q.number, q.unit, q.per, q.per_amount) == (number, unit, per, per_amount)


def test_codes_dates_and_clock_times_are_not_quantities() -> None:
    assert quantities_in("Model KX-200 in room D4.12, ticket SR-2031-7, on 3 May 2026 at 14:30") == []


def test_ranges_and_frequencies() -> None:
    [low] = quantities_in("Works between -10 to 35 °C")
    assert (low.number, low.high, low.unit) == (-10, 35, "°C")
    [twice] = quantities_in("The filter is changed twice")
    assert twice.number == 2 and twice.times


def test_dimensions_and_conversion() -> None:
    assert dimension("GBP") == "money" and dimension("min") == "time" and dimension("kcal") == "energy"
    assert convert(90, "min", "h") == pytest.approx(1.5)
    assert convert(750, "g", "kg") == pytest.approx(0.75)
    assert convert(3, "kg", "h") is None


# --------------------------------------------------------------------------- conditions


def test_conditions_and_exceptions_are_typed() -> None:
    kinds = [c.kind for c in conditions_in("Seniors pay half, except on Sundays, unless booked online.")]
    assert kinds == ["except", "unless"]
    assert [c.kind for c in conditions_in("Refunds only with a receipt.")] == ["only"]
    assert [c.kind for c in conditions_in("The fee is capped at EUR 40.")] == ["maximum"]


def test_otherwise_splits_into_branch_and_fallback() -> None:
    assert split_otherwise("Quiet hours start at 22:00 on weekdays and at 23:30 otherwise.") == (
        "Quiet hours start at 22:00 on weekdays",
        "at 23:30",
    )
    assert split_otherwise("No fallback here.") is None


# --------------------------------------------------------------------------- records

KAYAKS = """\
# Riverbend Kayaks: rates

| Boat           | Per hour | Per day | Deposit |
|----------------|----------|---------|---------|
| Single kayak   | EUR 9    | EUR 35  | EUR 80  |
| Double kayak   | EUR 14   | EUR 55  | EUR 120 |
| Stand-up board | EUR 11   | EUR 40  | EUR 60  |

## Rules

Guided tours last 3 hours and leave at 10:15. Children under 8 ride only with an adult.
A wetsuit costs EUR 6 per day, except in July and August when it is free.
"""

PRINT_SHOP = """\
INKWELL PRINTERS - trade price sheet

Product        Size   Minimum order   Price per 100   Turnaround
Flyers         A5     250             GBP 14          2 days
Posters        A2     10              GBP 90          4 days
Business cards 85x55  500             GBP 11          1 day

Contact: orders are handled by Nadia Okafor.
"""

CLINIC = """\
Brightsmile Dental: patient rules
=================================

Terms
-----

No-show
    A booked appointment missed without 24 hours' notice.

Charges
-------

A check-up costs EUR 45. A no-show is charged EUR 30. The practice opens Monday to Thursday from 8:00 to
18:00 and on Friday from 8:00 to 13:00. Emergency slots are kept at 12:30 from October to March and at
13:00 otherwise. The practice closed in 2024 because the building was renovated.
"""

SPEC = """\
# Gullwing GX-3 drone

Flight time: 34 minutes
Weight: 895 g
Max speed: 68 km/h
Camera: 4K at 60 fps
Battery: 5,000 mAh
"""

FAQ = """\
# Questions

**How long does delivery take?**
Orders ship within 2 working days and arrive in 3 to 5 days.

**Who makes the lamps?**
Every lamp is made by Halden Lightworks in Tampere.
"""


def docs() -> list[Document]:
    return [
        read_document("riverbend/rates.md", KAYAKS),
        read_document("inkwell/prices.txt", PRINT_SHOP),
        read_document("brightsmile/rules.rst", CLINIC),
        read_document("gullwing/spec.md", SPEC),
        read_document("lamps/faq.md", FAQ),
    ]


def test_markdown_table_rows_are_keyed_by_headers() -> None:
    rows = [r for r in read_document("k.md", KAYAKS).records if r.kind == ROW]
    assert [r.key for r in rows] == ["Single kayak", "Double kayak", "Stand-up board"]
    assert rows[1].cell("Deposit") == "EUR 120"
    assert rows[1].section == ("Riverbend Kayaks: rates",)


def test_aligned_table_rows_and_fields() -> None:
    records = read_document("p.txt", PRINT_SHOP).records
    rows = [r for r in records if r.kind == ROW]
    assert rows[0].cell("Minimum order") == "250" and rows[2].cell("Turnaround") == "1 day"
    assert len(rows) == 3


def test_rst_sections_definitions_and_fields() -> None:
    records = read_document("c.rst", CLINIC).records
    [term] = [r for r in records if r.kind == TERM]
    assert term.key == "No-show" and "24 hours" in term.value
    assert any(r.kind == SENTENCE and r.section[-1] == "Charges" for r in records)
    fields = [r for r in read_document("s.md", SPEC).records if r.kind == FIELD]
    assert [f.key for f in fields][:2] == ["Flight time", "Weight"]


# --------------------------------------------------------------------------- questions


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How long is the guided tour?", "duration"),
        ("What does a double kayak cost per day?", "amount"),
        ("How heavy is the drone?", "quantity"),
        ("How many flyers is the minimum order?", "count"),
        ("What time do the tours leave?", "time"),
        ("Who handles orders at Inkwell?", "name"),
        ("Why did the practice close in 2024?", "reason"),
        ("What is a no-show?", "definition"),
    ],
)
def test_question_answer_types(question: str, kind: str) -> None:
    assert read_question(question).kind == kind


def test_question_rate_denominator_and_extreme() -> None:
    q = read_question("What is the maximum hourly rate?")
    assert q.per == "h" and q.extreme == "max"
    assert read_question("What does a poster cost per day?").per == "days"


# --------------------------------------------------------------------------- typed answers


@pytest.mark.parametrize(
    ("question", "number", "unit"),
    [
        ("What is the deposit for a double kayak?", 120, "EUR"),
        ("What does a stand-up board cost per day?", 40, "EUR"),
        ("What is the hourly rate for a single kayak?", 9, "EUR"),
        ("How long does a guided kayak tour last?", 3, "h"),
        ("What do 100 posters cost at Inkwell?", 90, "GBP"),
        ("What is the minimum order of business cards?", 500, ""),
        ("How much does a dental check-up cost?", 45, "EUR"),
        ("How much is charged for a no-show?", 30, "EUR"),
        ("How heavy is the Gullwing drone?", 895, "g"),
        ("What is the flight time of the GX-3?", 34, "min"),
    ],
)
def test_typed_number_answers(question: str, number: float, unit: str) -> None:
    found = ask(question, docs())
    assert found is not None, question
    assert (found.value.number, found.value.unit) == (number, unit), found.span


def test_a_rate_says_what_it_is_per() -> None:
    found = ask("What does a wetsuit cost per day at Riverbend?", docs())
    assert found is not None and found.value.number == 6 and found.per == "days"
    assert ("per", "days") in found.value.terms
    assert any(c.kind == "except" for c in found.conditions)  # the exception travels with the value


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("What time does the dental practice close on Friday?", "13:00"),
        ("When does the practice open on Tuesday?", "08:00"),
        ("At what time is the emergency slot in June?", "13:00"),
        ("At what time is the emergency slot in November?", "12:30"),
        ("Who handles orders at Inkwell Printers?", "Nadia Okafor"),
        ("Who makes the lamps?", "Halden Lightworks"),
        ("Why did the dental practice close in 2024?", "building was renovated"),
        ("What is a no-show?", "without 24 hours' notice"),
    ],
)
def test_typed_text_answers(question: str, text: str) -> None:
    found = ask(question, docs())
    assert found is not None, question
    assert text in found.value.shown(), (found.value.shown(), found.span)


def test_the_answer_cites_its_source_span() -> None:
    found = ask("What is the deposit for a single kayak?", docs())
    assert found is not None
    assert found.span.path == "riverbend/rates.md" and found.span.line == 5
    assert found.slot == "Deposit" and found.record_kind == ROW
    shown = found.to_dict()
    assert shown["value"] == {"kind": "number", "text": "EUR 80", "value": 80.0, "unit": "EUR"}
    assert shown["source"] == {"path": "riverbend/rates.md", "line": 5, "text": found.span.text}


def test_a_quantity_the_question_states_is_not_the_answer() -> None:
    found = ask("A tour of 3 hours leaves at what time?", docs())
    assert found is not None and found.value.shown() == "10:15"


def test_weights_restrict_the_documents() -> None:
    found = ask("How much is the deposit?", docs(), weights={"riverbend/rates.md": 1.0})
    assert found is not None and found.span.path == "riverbend/rates.md"
    assert ask("How much is the deposit?", docs(), weights={}) is None


# --------------------------------------------------------------------------- bands, header units, counts

RENTALS = """\
# Moorfield van hire

All prices in GBP.

| Hire length        | Price per day |
|--------------------|---------------|
| 1 to 3 days        | 65            |
| 4 to 6 days        | 58            |
| 7 days or more     | 49            |

| Van          | Load (kg) | Deposit |
|--------------|-----------|---------|
| Small van    | 800       | 250     |
| Luton van    | 1,100     | 400     |

The Luton van needs a driver aged 25 or over (Small van: 21). Vans are checked every 500 km
and 2 fuel cards and 14 keys are kept at the depot. Returns after 18:00 cost GBP 20.
"""


def test_bands_read_from_keys() -> None:
    band = band_of("4 to 6 days")
    assert band is not None and band.holds(5, "days") and band.holds(6, "days") and not band.holds(7, "days")
    over = band_of("over 15 kg")
    assert over is not None and over.holds(16, "kg") and not over.holds(15, "kg")
    assert over.holds(20_000, "g") is True  # converted
    assert band_of("Great Hall") is None


def test_the_band_a_stated_amount_falls_in() -> None:
    found = ask(
        "What is the daily price for a 5-day van hire at Moorfield?", [read_document("m.md", RENTALS)]
    )
    assert found is not None and (found.value.number, found.value.unit) == (58, "GBP")
    assert found.per == "days"


def test_units_from_headers_and_the_documents_currency() -> None:
    doc = read_document("m.md", RENTALS)
    assert doc.currency == "GBP"
    load = ask("How heavy a load can the Luton van carry?", [doc])
    assert load is not None and (load.value.number, load.value.unit) == (1100, "kg")
    deposit = ask("What is the deposit for the small van?", [doc])
    assert deposit is not None and (deposit.value.number, deposit.value.unit) == (250, "GBP")


def test_a_parenthesis_is_its_own_clause() -> None:
    found = ask("What is the minimum driver age for the Small van?", [read_document("m.md", RENTALS)])
    assert found is not None and found.value.number == 21


def test_a_count_prefers_the_things_it_counts() -> None:
    found = ask("How many keys are kept at the depot?", [read_document("m.md", RENTALS)])
    assert found is not None and found.value.number == 14


def test_a_stated_amount_in_other_units_is_not_the_answer() -> None:
    doc = read_document("p.md", "# Pump\n\nAfter 30 minutes of running the pump rests for 10 minutes.\n")
    found = ask("After half an hour of running, how long does the pump rest?", [doc])
    assert found is not None and (found.value.number, found.value.unit) == (10, "min")


def test_a_rate_named_by_a_ratio_word_is_a_percentage() -> None:
    assert read_question("What is the VAT rate?").dimensions == ("ratio",)
    assert read_question("What is the hourly rate?").kind == "amount"
