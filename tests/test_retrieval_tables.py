"""Issue 23 (suite 3 misses, round 7): plain-text tables read as rows of cells (retrieval/tables.py), over
made-up documents: a comma-separated stock file (a row named by its code, a column by its snake_case name,
the unit at the end of a name), and a space-aligned tariff whose header names bands with figures ("1-2
days", "14+ days"); prose with commas and a line of figures stay no table."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.tables import table_at

from .test_retrieval import ask, hashing_adapter

STOCK = """# Fenwick Supplies, Dock Lane store: stock count of 30 June 2026
# Comma-separated; unit_price_eur is the price of one unit.
code,item,shelf,on_hand,unit,unit_price_eur,min_stock
FW-210,"Packing tape, clear 48 mm",S-02-01,410,roll,2.35,150
FW-220,Bubble wrap 500 mm x 10 m,S-03-04,96,roll,7.90,40
FW-230,Kraft paper 750 mm,S-05-02,58,roll,12.40,30
FW-240,Shipping labels A6 (500),S-01-07,140,box,9.60,50
"""

TARIFF = """MARLOW VAN RENTAL - TARIFF 2026
Prices in EUR per van per day.

DAILY RATES BY VAN SIZE AND RENTAL LENGTH

  Size    Example model          1-2 days   3-6 days   7+ days   Seats
  S       Citroen Berlingo          55.00      48.00     41.00       2
  M       Ford Transit Custom       75.00      66.00     57.00       3
  L       Iveco Daily 3.5 t         98.00      86.00     77.00       3
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


async def test_a_comma_separated_table_answers_by_row_and_column(tmp_path: Path) -> None:
    docs = _docs(tmp_path, "stock-2026-06-30.txt", STOCK)
    price = await _value(
        docs, "Look up the unit price of FW-230 kraft paper in Fenwick's Dock Lane stock file"
    )
    assert (price["value"], price["unit"]) == (12.4, "EUR")
    assert (await _value(docs, "Which shelf holds item FW-220 at Fenwick Supplies?"))["text"] == "S-03-04"
    assert (await _value(docs, "How many rolls of FW-210 packing tape does Fenwick have on hand?"))[
        "value"
    ] == 410


async def test_a_header_that_names_bands_with_figures_is_a_tables_header(tmp_path: Path) -> None:
    docs = _docs(tmp_path, "tariff-2026.txt", TARIFF)
    assert (await _value(docs, "What is Marlow's 3-6 day rate for a size M van?"))["value"] == 66
    assert (await _value(docs, "Marlow Van Rental: daily rate for a size L van rented for 1-2 days?"))[
        "value"
    ] == 98


def test_prose_with_commas_and_lines_of_figures_are_no_tables() -> None:
    prose = [
        "Refunds are paid within 14 days, by bank transfer, to the account that paid, never in cash.",
        "Cancellations made by phone, by email, or at the desk are all accepted.",
        "Late returns, lost cards, and damaged items are charged as below.",
    ]
    assert table_at(prose, 0) is None
    figures = ["  12.00   14.00   16.00", "  18.00   19.00   20.00", "  21.00   22.00   23.00"]
    assert table_at(figures, 0) is None
    header, rows, used = table_at(STOCK.splitlines(), 2) or ([], [], 0)
    assert header[5] == "unit price (eur)" and len(rows) == 4 and used == 5
    assert rows[0][1][1] == "Packing tape, clear 48 mm"  # a quoted field keeps its comma
