"""Issue 23 (p-situ): the value a table gives is the cell at the row and the column the question names.

Over made-up documents: a markdown table written without its outer pipes, a specification table whose
models are columns over a stub column of labels, a price grid whose row key spans two cells ("1 day" and
"Peak"), a header that names a figure in brackets ("Day Ticket (24 h)"), a clock time stated by a column's
header; a designator in a header ("Ratio to Grade C") names no row; a row keyed by a length the question
does not ask ("a 4-day ticket" over rows of 1 and 5 days) and a season the document is not for are
refused, naming what is unmatched.
"""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.agreement import disagreements
from ioa_p2p.adapters.retrieval.described import definitions, described_designator
from ioa_p2p.adapters.retrieval.facts import _band
from ioa_p2p.adapters.retrieval.keyed import extreme_column
from ioa_p2p.adapters.retrieval.rowkeys import other_model, other_season, unlisted_row_key
from ioa_p2p.adapters.retrieval.tables import bare_pipe_table_at, table_at
from ioa_p2p.adapters.retrieval.terms import terms
from ioa_p2p.planning.refusal import ABSENT

from .test_retrieval import ask, hashing_adapter

LEVY = """# Harrowgate Parish - Dog Licence Levy 2027/28

## Levy per grade for 2027/28

Grade | Typical breed weight | Ratio to Grade C | Yearly levy
----- | -------------------- | ---------------- | -----------
A | up to 10 kg | 4/8 | £21.50
B | 10 to 25 kg | 6/8 | £32.25
C | 25 to 40 kg | 8/8 | £43.00
D | over 40 kg | 11/8 | £59.10

The levy for 2026/27 was £40.00 for Grade C.
"""

SPEC = """ORVANE HP 9 / HP 12 HEAT PUMPS
Technical sheet, edition 2

1 DATA
                                   HP 9          HP 12
  Rated heating output             9.0 kW        12.0 kW
  Refrigerant charge               1.9 kg        2.6 kg
  Sound power (outdoor unit)       55 dB         58 dB
  Weight (outdoor unit)            68 kg         81 kg
"""

TICKETS = """KESTRA FELL RAILWAY - WINTER 2027/28 - TICKET PRICES (EUR)

TICKET            ADULT   STUDENT (16-25)   CHILD (5-15)
1 day    Quiet       30         24               12
1 day    Peak        38         30               15
5 days   Quiet      120         96               48
5 days   Peak       150        120               60
Season              410        330              165
"""

ROAMING = """Tallis Mobile - abroad

    Region   Day Ticket (24 h)   Calls, per minute   Texts
    A        EUR 2.50            EUR 0.19            EUR 0.05
    B        EUR 6.50            EUR 0.79            EUR 0.25
"""

GAUGE = """FENWICK MOOR RAIN AND TEMPERATURE LOG - 1 TO 6 MARCH 2027

Day   Tmax   Tmin   Rain
01    9.4    1.2    0.0
02    8.1   -0.6    3.4
03   11.0    2.9    0.8
"""

ZONES = """Tallis Mobile - abroad

* **Region A** (EU and EEA): no extra charge.
* **Region B**: Norway, Iceland, Andorra, Monaco.
* **Region C**: Japan, Korea, Singapore.
"""

FUND = """# Oakhill Trust - Small Grants 2027

| Strand  | Award range          | Max share of costs | Deadline  |
|---------|----------------------|--------------------|-----------|
| Spark   | EUR 500 - 5,000      | 80 %               | 1 March   |
| Build   | EUR 5,001 - 25,000   | 65 %               | 1 May     |
"""

FERRY = """HOLMSEA FERRY - FARES 2027

2. FARES PER CROSSING (EUR)
                 Day       Evening (19:30-23:00)
   Foot          3.20      2.10
   Bicycle       4.80      3.00
"""


def _docs(tmp_path: Path, name: str, text: str) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / name).write_text(text)
    return docs


async def _value(docs: Path, question: str) -> dict[str, object]:
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    value = result.data["value"]
    assert isinstance(value, dict)
    return value


def test_a_pipe_table_without_its_outer_pipes_is_a_table() -> None:
    lines = LEVY.splitlines()
    header, rows, used = bare_pipe_table_at(lines, 4) or ([], [], 0)
    assert header == ["Grade", "Typical breed weight", "Ratio to Grade C", "Yearly levy"]
    assert [cells[0] for _, cells in rows] == ["A", "B", "C", "D"] and used == 6
    assert table_at(lines, 4) is not None
    # a sentence with a bar in it, or a bar line without a delimiter row under it, is none
    assert bare_pipe_table_at(["Open | closed on Mondays", "Bring a towel."], 0) is None


def test_stub_columns_two_part_keys_and_bracketed_figures_in_headers() -> None:
    header, rows, _ = table_at(SPEC.splitlines(), 4) or ([], [], 0)
    assert header == ["", "HP 9", "HP 12"] and rows[3][1] == ["Weight (outdoor unit)", "68 kg", "81 kg"]
    header, rows, _ = table_at(TICKETS.splitlines(), 2) or ([], [], 0)
    assert header[0] == "TICKET" and [cells[0] for _, cells in rows][:3] == [
        "1 day Quiet",
        "1 day Peak",
        "5 days Quiet",
    ]
    assert rows[4][1] == ["Season", "410", "330", "165"]
    header, rows, _ = table_at(ROAMING.splitlines(), 2) or ([], [], 0)
    assert header[1] == "Day Ticket (24 h)" and rows[1][1][0] == "B"
    # a line of figures is still no header
    assert table_at(["  12.00   14.00   16.00", "  18.00   19.00   20.00"], 0) is None


def test_a_band_word_bounds_its_own_figure_only() -> None:
    assert _band("Chimney height max (40/60 mm)") is None  # an attribute's "max", its figure a size
    assert _band("max. 20 kg") == (0.0, 20.0) and _band("up to EUR 50") == (0.0, 50.0)
    assert _band("5 kg or more") == (5.0, float("inf")) and _band("over 1,000") == (1000.0, float("inf"))


def test_a_column_of_the_extreme_asked() -> None:
    assert extreme_column("Tmin", "low") > 0 > extreme_column("Tmax", "low")
    assert extreme_column("Max. load", "high") > 0 > extreme_column("Min. stay", "high")
    assert extreme_column("Admin fee", "low") == extreme_column("Minutes", "high") == 0.0


def test_a_designator_is_never_read_as_a_unit() -> None:
    assert "grade#d" in terms("What is the Grade D levy?") and "day" not in terms("the Grade D levy")
    assert "licence#b+e" in terms("a Licence B+E holder") and "licence#b" in terms("Licence B only")
    assert "hour" in terms("RATE/h") and "day" in terms("EUR 5/d")


async def test_the_cell_at_the_named_row_and_column(tmp_path: Path) -> None:
    docs = _docs(tmp_path, "levy-2027-28.md", LEVY)
    levy = await _value(docs, "What is the Grade D dog licence levy in Harrowgate for 2027/28?")
    assert (levy["value"], levy["unit"]) == (59.1, "GBP")
    assert (await _value(docs, "At what ratio to Grade C is a Harrowgate Grade B dog levied?"))[
        "text"
    ] == "6/8"
    docs = _docs(tmp_path, "orvane-hp-sheet.txt", SPEC)
    weight = await _value(docs, "What does the outdoor unit of the Orvane HP 12 weigh?")
    assert (weight["value"], weight["unit"]) == (81, "kg")
    docs = _docs(tmp_path, "kestra-winter.txt", TICKETS)
    assert (await _value(docs, "How much is a 1-day child ticket on the Kestra Fell Railway at peak?"))[
        "value"
    ] == 15
    assert (await _value(docs, "Kestra Fell Railway: what does a student season ticket cost?"))[
        "value"
    ] == 330


async def test_a_ranges_end_and_a_share_of_the_unit_asked(tmp_path: Path) -> None:
    docs = _docs(tmp_path, "oakhill-grants-2027.md", FUND)
    top = await _value(docs, "What is the top of the Build award range at Oakhill Trust?")
    assert (top["value"], top["unit"]) == (25000, "EUR")
    bottom = await _value(docs, "What is the smallest Spark award Oakhill Trust makes?")
    assert (bottom["value"], bottom["unit"]) == (500, "EUR")
    share = await _value(docs, "At most what share of the costs can an Oakhill Build grant cover?")
    assert (share["value"], share["unit"]) == (65, "%")


async def test_which_class_a_listed_member_is_in(tmp_path: Path) -> None:
    docs = _docs(tmp_path, "tallis-abroad.md", ZONES)
    assert (await _value(docs, "Which Tallis region is Andorra in?"))["text"] == "Region B"
    assert (await _value(docs, "Which region is Singapore in for Tallis Mobile?"))["text"] == "Region C"


async def test_a_clock_time_a_columns_header_states(tmp_path: Path) -> None:
    docs = _docs(tmp_path, "holmsea-fares-2027.txt", FERRY)
    assert (await _value(docs, "From what time do Holmsea's evening fares apply?"))["text"] == "19:30"


def test_a_row_key_or_a_season_the_question_does_not_ask_is_a_near_miss() -> None:
    row = "1 day Peak | 38 | 30 | 15 \0 TICKET ADULT STUDENT (16-25) CHILD (5-15)"
    assert [
        q.shown for q in unlisted_row_key("What does a 4-day adult ticket cost at peak?", TICKETS, row)
    ] == ["4 day"]
    assert unlisted_row_key("What does a 1-day adult ticket cost at peak?", TICKETS, row) == []
    assert unlisted_row_key("What does a 5-day adult ticket cost at peak?", TICKETS, row) == []
    rate = "1 hour | EUR 12 \0 Hire Price"
    assert unlisted_row_key("What do 3 hours of hire cost?", "Hire  Price\n1 hour  EUR 12\n", rate) == []
    assert [q.shown for q in other_season("Kestra adult 1-day ticket for summer 2028", TICKETS)] == ["summer"]
    assert other_season("Kestra adult 1-day ticket in winter", TICKETS) == []
    assert other_season("the summer 2028 timetable", "Timetable 2028\nDaily departures") == []
    pumps = "KARVO TX 20 / TX 30 PUMPS\n  Flow   40 l/min   55 l/min\n"
    assert [q.shown for q in other_model("What flow does the Karvo TX 25 give?", pumps)] == ["TX 25"]
    assert other_model("What flow does the Karvo TX-30 give?", pumps) == other_model("the TX30", pumps) == []
    assert other_model("What does EUR 40 buy at Karvo?", pumps) == []  # an amount, no model


async def test_an_unlisted_length_or_another_season_is_refused(tmp_path: Path) -> None:
    adapter = hashing_adapter(_docs(tmp_path, "kestra-winter.txt", TICKETS))
    for question in (
        "What does a 4-day adult ticket cost on the Kestra Fell Railway at peak?",
        "Get the Kestra Fell Railway adult 1-day quiet price for summer 2028",
    ):
        result = await ask(adapter, question)
        assert not result.ok and result.data.get(ABSENT) is True, result.text


BRIDGE = """PORTHAVEN BRIDGE - CHARGES ORDER 2027

1. CATEGORIES
   Category A   Bicycles and e-scooters
   Category B   Cars and vans up to 3.5 t
   Category C   Goods vehicles over 3.5 t with 2 axles; minibuses
   Category D   Goods vehicles with 3 or more axles

2. CHARGE PER CROSSING (EUR)
                  Day      Overnight
   Category A     0.40     0.20
   Category B     2.30     1.10
   Category C     6.90     3.20
   Category D    11.50     5.40
"""


def test_a_described_class_is_the_one_its_definition_fits() -> None:
    lines = BRIDGE.splitlines()
    assert [d for d, _ in definitions(lines)["Category"]] == [f"Category {c}" for c in "ABCD"]
    assert described_designator("the overnight charge for a 2-axle lorry over 3.5 t", lines) == "Category C"
    assert described_designator("What does an e-scooter pay by day?", lines) == "Category A"
    assert described_designator("What does a vehicle pay?", lines) is None  # two descriptions share it
    assert described_designator("the Category D day charge for my van", lines) is None  # one is named


async def test_a_described_class_is_answered_from_its_row_in_the_tables_currency(tmp_path: Path) -> None:
    docs = _docs(tmp_path, "porthaven-charges-2027.txt", BRIDGE)
    lorry = await _value(
        docs, "How much is an overnight crossing of Porthaven Bridge for a 2-axle lorry over 3.5 t?"
    )
    assert (lorry["value"], lorry["unit"]) == (3.2, "EUR")
    named = await _value(docs, "What is the Category D day charge at Porthaven Bridge?")
    assert not disagreements(
        "the Class 4 toll", "   Class 4   Goods vehicles with 3 or more axles"
    )  # "Class"
    assert (named["value"], named["unit"]) == (11.5, "EUR")
