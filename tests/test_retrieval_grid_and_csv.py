"""Issue 23 (p-chain3): tables in any format answer by row and column keys, over made-up documents: a
``.csv`` file is served by default and its header may name columns with figures ("run 207"), and an RST grid
table (``+---+`` borders) is read as rows of cells, a row label wrapped over two lines joined, models as
columns (a transposed spec table) as well as models as rows."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.tables import grid_table_at, table_at

from .test_retrieval import ask, hashing_adapter

TIMETABLE = """stop,run 205,run 207,run 209
Oakley Depot,05:50,06:35,07:20
Grange Lane,05:58,06:44,07:29
Mersey Quay,06:09,06:56,07:41
Fallow Cross,06:21,07:08,07:53
"""

FEES = """membership,monthly EUR,annual EUR,joining EUR
Off-peak,21.00,230.00,15.00
Standard,34.50,380.00,15.00
All-hours,47.00,520.00,0.00
"""

SPEC = """Brisca heat guns
================

+--------------------+-------------+-------------+
| Model              | HG-1800     | HG-2300 Max |
+====================+=============+=============+
| Airflow            | 250 l/min   | 500 l/min   |
+--------------------+-------------+-------------+
| Time to full heat  | 25 s        | 12 s        |
| (cold start)       |             |             |
+--------------------+-------------+-------------+
| Weight             | 0.7 kg      | 0.95 kg     |
+--------------------+-------------+-------------+
| Price              | EUR 39      | EUR 74      |
+--------------------+-------------+-------------+
"""

NOZZLES = """Brisca nozzles
==============

+---------+-----------+-------------+
| Code    | Shape     | Price (EUR) |
+=========+===========+=============+
| BN-20   | reflector | 6.90        |
+---------+-----------+-------------+
| BN-35   | glass     | 5.40        |
| (flat)  | protector |             |
+---------+-----------+-------------+
| BN-50   | wide      | 4.80        |
+---------+-----------+-------------+
"""


async def _answer(docs: Path, question: str) -> tuple[str, str]:
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    value = result.data["value"]
    assert isinstance(value, dict)
    return str(value.get("text", "")), result.text


async def test_a_csv_file_is_served_and_answers_by_row_and_column(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "oakley-line-timetable.csv").write_text(TIMETABLE)
    (docs / "oakley-gym-fees.csv").write_text(FEES)
    assert (await _answer(docs, "What time does run 207 leave Mersey Quay?"))[0] == "06:56"
    assert (await _answer(docs, "Oakley line: when is run 209 at Grange Lane?"))[0] == "07:29"
    text, shown = await _answer(docs, "How much is the annual Standard membership at the Oakley gym?")
    assert "380" in text and "oakley-gym-fees.csv" in shown
    assert "47" in (await _answer(docs, "Oakley gym, All-hours membership: the monthly fee?"))[0]


async def test_a_transposed_grid_table_answers_by_attribute_row_and_model_column(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brisca-heat-guns.rst").write_text(SPEC)
    assert (await _answer(docs, "How long does the Brisca HG-2300 Max take to reach full heat?"))[0] == "12 s"
    assert (await _answer(docs, "Brisca HG-1800: time to full heat?"))[0] == "25 s"
    assert "74" in (await _answer(docs, "What does the Brisca HG-2300 Max cost?"))[0]
    assert (await _answer(docs, "How heavy is the Brisca HG-1800?"))[0] == "0.7 kg"


async def test_a_grid_table_with_models_as_rows_answers_by_code(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brisca-nozzles.rst").write_text(NOZZLES)
    assert "5.4" in (await _answer(docs, "What is the price of the Brisca BN-35 nozzle?"))[0]
    assert (await _answer(docs, "Which shape is nozzle BN-20?"))[0] == "reflector"


def test_grid_rows_join_their_wrapped_lines_and_the_header_is_above_the_double_border() -> None:
    lines = SPEC.splitlines()
    header, rows, used = grid_table_at(lines, 3) or ([], [], 0)
    assert header == ["Model", "HG-1800", "HG-2300 Max"]
    assert [cells[0] for _, cells in rows] == ["Airflow", "Time to full heat (cold start)", "Weight", "Price"]
    assert rows[1] == (5, ["Time to full heat (cold start)", "25 s", "12 s"]) and used == 12
    nozzles = table_at(NOZZLES.splitlines(), 3)
    assert nozzles is not None and nozzles[1][1][1] == ["BN-35 (flat)", "glass protector", "5.40"]
    assert grid_table_at(["+---+---+", "| a | b |", "+---+---+"], 0) is None  # one row: no table
    assert grid_table_at(["| a | b |", "| 1 | 2 |"], 0) is None  # no border: markdown's


def test_a_csv_header_may_name_columns_with_figures_but_a_row_of_data_is_no_header() -> None:
    header, rows, _ = table_at(TIMETABLE.splitlines(), 0) or ([], [], 0)
    assert header == ["stop", "run 205", "run 207", "run 209"] and len(rows) == 4
    assert table_at(TIMETABLE.splitlines(), 1) is None  # "Oakley Depot,05:50,...": data, not a header
