"""The thing a question asks about, read strictly (issue 23, class 5): a word that only shares its first
letters with a document's word names another thing ("motorcycle" is not "motorway"); the column a question
names is the value asked, not a second item of a bill; a discount granted for a case the question does not
name is not applied to a plain price. Made-up documents and wordings (none from a goal suite)."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.subject import is_form_of, unmentioned_subjects
from ioa_p2p.planning import CALC, Value, describe, plan_request

from .test_retrieval import ask, hashing_adapter

SCHEDULE = """CORRANBY MUTUAL - BOAT INSURANCE SCHEDULE
Policy number ......... CB-2026-5521
Period of insurance ... 01/04/2026 to 31/03/2027

SECTION  COVER                          SUM INSURED     EXCESS
-------  -----------------------------  --------------  --------
A        Hull and machinery             EUR 48,000      EUR 400
B        Sails and rigging              EUR 9,500       EUR 175
C        Personal effects on board      EUR 2,000       EUR 90

Storm excess (Section A only): EUR 1,200, in place of the section excess.
Theft of outboard engines (Section A): EUR 650 excess.
Each claim is paid less the excess of its section.
"""

RIDING = """= Fernmoor Riding School: Lessons and Prices 2026

== Single lessons

|===
|Lesson |Length |Price (EUR)
|Group lesson, arena |60 min |38.00
|Private lesson, arena |45 min |55.00
|Moor hack lesson (experienced riders only) |90 min |72.00
|===

Lessons booked for a Sunday cost EUR 5.00 more per lesson.

== Cancellations

A lesson cancelled with less than 24 hours' notice is charged in full. A lesson cancelled earlier is free.
If the school cancels, the rider gets that lesson refunded and a voucher for 20 % off the next lesson.
"""


def test_a_word_sharing_first_letters_names_another_thing() -> None:
    assert not is_form_of("motorcycle", "motorway")
    assert not is_form_of("paddleboard", "paddock")
    assert is_form_of("snorkell", "snorkel")
    assert is_form_of("electrical", "electricity")
    assert is_form_of("cancellation", "cancelled")
    doc = "Motorway lessons are 90 minutes. A snorkel set is EUR 8 a day."
    missing = unmentioned_subjects("What does one motorcycle lesson cost?", doc)
    assert [q.shown for q in missing] == ["motorcycle"]
    assert unmentioned_subjects("What does a snorkelling set cost?", doc) == []


async def test_the_column_a_question_names_is_the_value_asked(tmp_path: Path) -> None:
    (tmp_path / "corranby").mkdir()
    (tmp_path / "corranby" / "schedule.txt").write_text(SCHEDULE)
    adapter = hashing_adapter(tmp_path)
    result = await ask(
        adapter,
        "What excess applies to a claim under the Sails and rigging section of Corranby policy CB-2026-5521?",
    )
    assert result.ok, result.text
    value = result.data["value"]
    assert value["kind"] == "number" and value["value"] == 175.0 and value["unit"] == "EUR", result.text


async def test_a_discount_for_a_case_the_question_does_not_name_is_not_applied(tmp_path: Path) -> None:
    (tmp_path / "fernmoor").mkdir()
    (tmp_path / "fernmoor" / "prices.adoc").write_text(RIDING)
    adapter = hashing_adapter(tmp_path)
    result = await ask(
        adapter, "How much does Fernmoor Riding School charge for a 90-minute moor hack lesson?"
    )
    assert result.ok, result.text
    value = result.data["value"]
    assert value["value"] == 72.0, result.text
    assert ["discount", "20 %"] not in value.get("terms", []), value
    cancelled = await ask(
        adapter, "The school cancels my lesson today: what do I pay for my next group lesson at Fernmoor?"
    )
    assert cancelled.ok, cancelled.text
    assert ["discount", "20 %"] in cancelled.data["value"].get("terms", []), cancelled.data["value"]


async def test_a_fixed_price_for_the_measure_asked_is_the_charge(tmp_path: Path) -> None:
    (tmp_path / "fernmoor").mkdir()
    (tmp_path / "fernmoor" / "prices.adoc").write_text(RIDING)
    adapter = hashing_adapter(tmp_path)
    lookup, *rest = plan_request(
        "How much does Fernmoor Riding School charge for a 90-minute moor hack lesson?"
    ).steps
    result = await ask(adapter, describe(lookup, {}))
    assert result.ok, result.text
    value = Value.from_dict(result.data["value"])
    assert value is not None and ("for", "90 min") in value.terms, value
    (calc,) = [s for s in rest if s.kind == CALC]
    assert describe(calc, {1: value}) == "Calculate 72 * 1"
    per_hour = Value.of_number(72.0, "EUR").with_terms((("per", "h"),))
    assert describe(calc, {1: per_hour}) == "Calculate 72 * (90 / 60)"  # a rate per hour: applied to 90 min


async def test_a_percent_column_gives_its_cells_percent(tmp_path: Path) -> None:
    (tmp_path / "quill").mkdir()
    (tmp_path / "quill" / "rates.md").write_text(
        "# Quillby Copy Studio: extras\n\n## Surcharges\n\n| name | percent |\n|---|---|\n"
        "| Same-day delivery | 35 |\n| Faxed or photographed originals | 12 |\n\n## Reductions\n\n"
        "| name | text |\n|---|---|\n| Reprints of an earlier job | Charged at 40 % of the usual price. |\n"
    )
    adapter = hashing_adapter(tmp_path)
    result = await ask(
        adapter, "By how many percent does Quillby raise its price when the originals are photographed?"
    )
    assert result.ok, result.text
    value = result.data["value"]
    assert (value["value"], value["unit"]) == (12.0, "%"), result.text
