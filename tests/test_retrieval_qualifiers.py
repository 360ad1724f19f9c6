"""Issue 23, round 3: single lookups that generalise. The answering value is read by the question's
structure: the qualifier that picks one of near-duplicate facts (a year, a superseded list, the caption a
plain-text table sits under), the row and the column a table cell is named by (a numeric row key, an
abbreviated column), the unit the question asks in, the end of a change it asks for, and the typed
model's answer never replacing a fact the question's qualifiers pick. Made-up documents (no suite's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioa_p2p.adapters.retrieval.answer import in_asked_unit
from ioa_p2p.adapters.retrieval.chunks import is_caption, with_caption
from ioa_p2p.adapters.retrieval.facts import facts_of, quantities
from ioa_p2p.planning.values import Value

from .test_retrieval import ask, hashing_adapter

STOCK = """ORMSBY TEA MERCHANTS -- CELLAR COUNT
Count date: 2 March 2026

LOOSE LEAF (5 kg sacks)

Lot     Origin                 Sacks   Kg per sack   Cost EUR/kg
------  ---------------------  -----   -----------   -----------
L-101   Assam second flush        12             5         18.40
L-102   Darjeeling first flush     7             5         41.00

TINNED RETAIL (100 g tins)

Blend                 Tin size   Tins in stock   Price per tin (EUR)
--------------------  --------  --------------  -------------------
Assam second flush    100 g                230                 7.90
Darjeeling first      100 g                118                12.40
"""

PRICES = """# Pellworth Signs: price list 2026

Effective 1 February 2026. All prices in EUR.

| Item                 | Price |
|----------------------|------:|
| Door plate, engraved | 38.00 |
| Set-up, per design   | 14.00 |

Until 31 January 2026 the set-up fee was EUR 11.00 per design; orders placed in 2025 are still charged
that old fee.
"""

SHUTTLE = """# Quarry Hill shuttle buses: rates

| Distance band | R1 Day | R1 Night | R2 Day | R2 Night |
|---------------|-------:|---------:|-------:|---------:|
| up to 5 km    |   2.10 |     3.00 |   2.60 |     3.70 |
| up to 15 km   |   3.40 |     4.90 |   4.20 |     5.80 |
"""

PACK = """Corvel BX-4 field battery -- data sheet

Runtime at a 10 W load by ambient temperature.

==========  ===========
Ambient     Runtime (h)
(°C)
==========  ===========
-10         18
10          31
25          36
==========  ===========
"""

PACK_RANGE = """# Corvel field batteries

| Model | Capacity | Runtime | Max. temperature | Weight |
|-------|----------|---------|------------------|--------|
| BX-2  | 200 Wh   | 18 h    | 40 °C            | 1.9 kg |
| BX-4  | 400 Wh   | 36 h    | 45 °C            | 3.2 kg |
"""

RULES = """# Brackwater Rowing Club: rules

## Outings

Between 1 November and 28 February the limit is raised to **9 outings** a week.
The committee reset the guest quota from 6 to 4 visits a month in 2025.
"""


async def _answer(tmp_path: Path, files: dict[str, str], question: str) -> Value:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in files.items():
        (docs / name).write_text(text)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return Value.from_dict(result.data["value"])


def test_a_capitals_line_captions_the_plain_text_table_under_it() -> None:
    assert is_caption("LOOSE LEAF (5 kg sacks)") and is_caption("TINNED RETAIL")
    assert not is_caption("Count date: 2 March 2026") and not is_caption("Lot     Origin     Sacks")
    assert not is_caption("  INDENTED CAPITALS") and not is_caption("A sentence in capitals ENDS.")
    lines = STOCK.splitlines()
    table = lines.index("Lot     Origin                 Sacks   Kg per sack   Cost EUR/kg") + 1
    assert with_caption("", lines, table) == "LOOSE LEAF (5 kg sacks)"
    facts = facts_of("cellar.txt", 1, "", STOCK)
    assam = [f for f in facts if f.cells and "Assam" in f.text]
    assert "LOOSE LEAF" in assam[0].context and "TINNED RETAIL" in assam[1].context


async def test_the_caption_picks_which_of_two_tables_a_row_is_read_from(tmp_path: Path) -> None:
    loose = await _answer(
        tmp_path, {"cellar.txt": STOCK}, "How many sacks of loose leaf Assam tea are there?"
    )
    assert loose.number == 12
    tins = await _answer(tmp_path, {"cellar.txt": STOCK}, "How many tins of Assam second flush are in stock?")
    assert tins.number == 230


async def test_a_year_the_question_names_picks_the_old_figure(tmp_path: Path) -> None:
    files = {"prices.md": PRICES}
    old = await _answer(
        tmp_path, files, "What set-up fee per design did Pellworth charge for orders in 2025?"
    )
    assert old.number == 11
    current = await _answer(tmp_path, files, "What is Pellworth's set-up fee per design?")
    assert current.number == 14


async def test_an_abbreviated_column_is_the_one_the_question_names(tmp_path: Path) -> None:
    files = {"shuttle.md": SHUTTLE}
    fare = await _answer(
        tmp_path, files, "Quarry Hill shuttle, Route 2 at night, up to 15 km: what is the fare?"
    )
    assert fare.number == 5.8
    day = await _answer(tmp_path, files, "What is the Quarry Hill Route 1 day fare for 4 km?")
    assert day.number == 2.1


def test_a_designator_number_is_not_a_quantity() -> None:
    assert quantities("Route 2 at night, up to 15 km") == [15.0]
    assert quantities("ordering 20 posters in 2026") == [20.0]


async def test_a_stated_amount_picks_the_curve_row_over_the_named_models_maximum(tmp_path: Path) -> None:
    files = {"bx4.txt": PACK, "range.md": PACK_RANGE}
    runtime = await _answer(tmp_path, files, "For how many hours does the Corvel BX-4 run at 10 °C?")
    assert runtime.number == 31


async def test_a_day_of_a_date_is_not_the_value(tmp_path: Path) -> None:
    found = await _answer(
        tmp_path, {"rules.md": RULES}, "What is Brackwater's weekly outing limit in winter?"
    )
    assert found.number == 9


async def test_the_end_of_a_change_the_question_asks_for(tmp_path: Path) -> None:
    to = await _answer(
        tmp_path, {"rules.md": RULES}, "What did the Brackwater committee reset the guest quota to?"
    )
    assert to.number == 4
    start = await _answer(tmp_path, {"rules.md": RULES}, "What was the Brackwater guest quota reset from?")
    assert start.number == 6


def test_a_value_is_given_in_the_unit_the_question_asks_in() -> None:
    two_hours = Value.of_number(2, "h")
    assert in_asked_unit("In minutes, how long does the glaze cure?", two_hours).number == 120
    assert in_asked_unit("How long does the glaze cure, in days?", two_hours).number == pytest.approx(2 / 24)
    assert in_asked_unit("How long does the glaze cure?", two_hours) == two_hours
    assert in_asked_unit("In the workshop, how long does it cure?", two_hours) == two_hours


GUILD = """# Tarrow Bell-Ringers' Guild: handbook

## Towers

The guild rings at six towers; the tower captain keeps the key of each.

## Admissions

1. The tower captain proposes the candidate after three supervised practices; the committee votes
   at its next sitting.
2. The roll is read out at the annual meeting.

A new learner who was admitted and then left stays a member of the guild and is admitted again on
request.

## Example requests

Members often ask: how is a learner admitted to the guild? The answer is above.
"""


async def test_how_is_x_done_answers_from_the_opening_of_the_section_about_x(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guild.md").write_text(GUILD)
    result = await ask(
        hashing_adapter(docs), "Search the handbook for how a new learner is admitted to the guild."
    )
    assert result.ok, result.text
    text = str(result.data["value"]["text"])
    # the section about admissions answers from where it opens (not a sentence from its middle that
    # repeats the question's words, nor the line that quotes the request)
    assert text.startswith("The tower captain proposes the candidate"), text


async def test_the_demo_lookup_gets_a_real_answer_from_the_built_in_docs(tmp_path: Path) -> None:
    from ioa_p2p.cli.demo_cmds import FALLBACK_DOCS

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, body in FALLBACK_DOCS.items():
        (docs / name).write_text(body)
    result = await ask(hashing_adapter(docs), "Search the docs for how a new member is invited to a chat.")
    assert result.ok, result.text
    assert str(result.data["value"]["text"]).startswith("A new member is invited to a chat by its creator")


def test_unit_words_meet_unit_symbols() -> None:
    from ioa_p2p.adapters.retrieval.facts import question_terms, terms, unit_terms

    assert "u_l" in question_terms("How many litres does it hold?") and "u_l" in unit_terms("Flow (L/min)")
    assert "u_m" in unit_terms("a head of 8 metres") and "u_m" in unit_terms("Head (m)")
    assert "u_s" not in unit_terms("Rowe's figures")  # a possessive is no unit
    assert not any(t.startswith("u_") for t in terms("8 metres"))  # the fact scorer's own terms only


async def test_which_column_of_figures_answers_with_the_figure(tmp_path: Path) -> None:
    point = await _answer(
        tmp_path, {"cellar.txt": STOCK}, "Which cost per kg applies to Ormsby's Darjeeling first flush lot?"
    )
    assert point.number == 41


async def test_an_old_list_the_question_names_is_not_weighed_down(tmp_path: Path) -> None:
    old = await _answer(
        tmp_path, {"prices.md": PRICES}, "What was Pellworth's previous set-up fee per design?"
    )
    assert old.number == 11
