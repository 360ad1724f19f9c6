"""Issue 23 (p-rules, class 7): an answer worked out for a natural question accounts for every quantity the
question gives (planning/accounted.py), or the step is refused with that quantity named (exit 3), never a
confident number that answers another question. Made-up documents and wordings."""

from __future__ import annotations

import json

import pytest

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning import CALC, PlanStep
from ioa_p2p.planning.accounted import stated_quantities, unaccounted
from ioa_p2p.planning.derive import DERIVE, derive_expression, derive_missing
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.refusal import refusal
from ioa_p2p.planning.values import Value


def _stated(question: str) -> list[tuple[float, str]]:
    return [(q.number, q.unit) for q in stated_quantities(question)]


@pytest.mark.parametrize(
    ("question", "stated"),
    [
        ("Three of us are staying at the Orla Inn from 5 to 8 October. What's the room cost?", [(3.0, "")]),
        ("I'm 23 and hiring a Tarnby van for 12 days. What's the surcharge?", [(12.0, "days")]),
        ("My son is 9 and swims 4 times a week at Pellin pool in 2026.", [(4.0, "")]),
        ("A Year 9 pupil on line 4 takes Route 7 to Room 101 - how long?", []),
        ("A 30 kg dog is on a drip for 20 hours, paid on 12 May 2026.", [(30.0, "kg"), (20.0, "h")]),
        ("The Ostra site was up 98.7 % last month.", []),  # a share selects a band; never required
        ("A school group of 30 pupils, all aged 10, visits Brisca.", [(30.0, "")]),
    ],
)
def test_the_quantities_a_question_gives_never_ages_dates_years_labels_or_shares(
    question: str, stated: list[tuple[float, str]]
) -> None:
    assert _stated(question) == stated


def _found(number: float, unit: str, *evidence: str) -> Value:
    return Value.of_number(number, unit).with_evidence(tuple(evidence))


def test_a_quantity_the_expression_ignores_is_named_one_it_uses_or_converts_is_not() -> None:
    question = "We need three rooms at the Orla Inn for 4 nights. What's the cost?"
    found = _found(122, "EUR", "Double room | 122 per night")
    lacking = unaccounted(question, "122", found)
    assert lacking is not None and "3 rooms" in lacking.what and "122" in lacking.why, lacking
    assert unaccounted(question, "122 * 4", found) is not None  # the three rooms are still ignored
    assert unaccounted(question, "122 * 4 * 3", found) is None
    assert unaccounted("A Pellin kiln firing of 2 hours: what does it cost?", "0.4 * 120", found) is None


def test_the_line_the_value_was_read_from_and_an_exemption_account_for_the_quantities() -> None:
    question = "What does a 3-day hire of the Tarnby K2 cost?"
    stated = _found(120, "EUR", "K2\nA 3-day hire of the K2 costs EUR 120.")
    assert unaccounted(question, "120", stated) is None
    assert unaccounted(question, "120", _found(120, "EUR", "The K2 costs EUR 120.")) is not None
    assert unaccounted("She is 12 and 5 days late: the fine?", "0 * 1", _found(0, "EUR")) is None


PARCELS = """# Ostra Post: parcel prices

| Weight | Price |
|---|---|
| up to 2 kg | EUR 4.50 |
| over 2 kg up to 5 kg | EUR 7.90 |
| over 5 kg up to 10 kg | EUR 11.20 |
"""


def test_a_band_of_the_documents_records_that_holds_the_quantity_accounts_for_it() -> None:
    records = records_from_data(json.loads(json.dumps(records_data(read_document("parcels.md", PARCELS)))))
    found = _found(7.9, "EUR", PARCELS).with_records(records)
    assert unaccounted("What does a 3 kg parcel cost with Ostra Post?", "7.9", found) is None
    assert unaccounted("What do 12 parcels cost with Ostra Post?", "7.9", found) is not None


def test_a_derivation_or_a_charge_that_ignores_a_given_count_is_refused_with_it_named() -> None:
    question = "Four of us want Brisca museum day tickets. What do we pay?"
    found = _found(16, "EUR", "Brisca museum day ticket: EUR 16")
    lacking = derive_missing(question, found)
    assert lacking is not None and "4" in lacking.what, lacking
    step = PlanStep(2, CALC, question, DERIVE, (1,))
    assert refusal(step, {1: found}) == lacking
    answered = _found(64, "EUR", "Brisca museum day tickets for 4 people: EUR 64 (EUR 16 per person)")
    assert derive_missing(question, answered) is None
    per_person = _found(16, "EUR", "Brisca museum day ticket: EUR 16 per person")  # its unit takes the 4
    assert derive_missing(question, per_person) is None
    assert derive_expression(question, per_person) == ("16 * 4", "EUR")  # planning/rate_operand.py


def test_a_count_of_people_is_required_only_where_the_documents_price_per_person() -> None:
    question = "Two adults staying 3 nights in a Double at the Orla Inn: what's the room cost?"
    room = _found(123, "EUR", "Double | 123 | 140")
    assert unaccounted(question, "123 * 3", room) is None  # a room's price counts no people
    taxed = _found(123, "EUR", "Double | 123 | 140\nCity tax: EUR 2.50 per person per night.")
    lacking = unaccounted(question, "123 * 3", taxed)
    assert lacking is not None and "2 adults" in lacking.what, lacking
    assert unaccounted(question, "123 * 3 + 2.5 * 2 * 3", taxed) is None


LIDO = """# Fairmead Lido: tickets

| Ticket | Price |
|---|---|
| Adult (18+) | EUR 6.00 |
| Child (4-17) | EUR 3.50 |
"""


def test_rows_priced_for_a_kind_of_person_require_the_count_of_people() -> None:
    records = records_from_data(json.loads(json.dumps(records_data(read_document("lido.md", LIDO)))))
    found = _found(3.5, "EUR", LIDO).with_records(records)
    question = "Our group of 3 children, each aged 8, visits Fairmead Lido. What do their tickets cost?"
    lacking = unaccounted(question, "3.5", found)
    assert lacking is not None and "3 children" in lacking.what, lacking
    assert unaccounted(question, "3.5 * 3", found) is None


def test_a_charges_planned_durations_and_counts_are_its_rules_to_apply_its_measures_are_not() -> None:
    from ioa_p2p.planning.quantities import stated_quantities as planned

    question = "Night tariff, 31-day month: 180 kWh at night and 260 kWh by day. What's the bill?"
    taken = planned("31 days; 180 kWh; 260 kWh")
    found = _found(0.17, "EUR", "Night units: 0.17 per kWh")
    lacking = unaccounted(question, "0.17 * 180 + 0.47 * 30", found, taken)
    assert lacking is not None and "260 kWh" in lacking.what, lacking  # a measure the charge dropped
    assert (
        unaccounted(question, "0.17 * 180 + 0.31 * 260 + 0.47 * 30", found, taken) is None
    )  # 31 days: split


def test_a_band_of_the_row_read_and_a_product_of_two_measures_account_for_them() -> None:
    leave = _found(27, "", "| Service | Days |\n| 5 to 9 years | 27 |\n| 10 years or more | 30 |")
    question = "How many days of leave does a full-timer with 6 years' service at Orla get?"
    assert unaccounted(question, "27", leave) is None  # the row's band holds the 6 years
    assert unaccounted("How many days of leave after 12 years' service?", "27", leave) is not None
    banner = "What would a 3 m by 0.8 m banner from Pellin Print cost?"
    assert unaccounted(banner, "max(18 * 2.4, 45)", _found(45, "EUR", "18.00 per square metre")) is None


def test_a_measure_rounded_up_by_the_rules_and_one_of_what_a_rate_is_per_are_accounted_for() -> None:
    berth = _found(
        3.2, "EUR", "Visiting boats pay EUR 3.20 per metre per night, rounded up to the next half metre."
    )
    question = "A 9.3 m yacht stays at Orla Marina. What is the berth charge?"
    assert unaccounted(question, "max(3.2 * 9.5, 22)", berth) is None  # 9.3 m rounded up to 9.5
    assert unaccounted(question, "max(3.2 * 12, 22)", berth) is not None  # no rounding gives 12
    gas = _found(95, "kWh", "Over one heating season the heating uses 95 kWh per square metre.")
    assert (
        unaccounted("How much gas does the Pellin office burn over one heating season?", "95 * 420", gas)
        is None
    )
