"""Documents in AsciiDoc, Org, MediaWiki, recfile, XML and unlisted text files are read; a question about
something the answering document never mentions is refused (adapters/retrieval/markup.py, text_sniff.py,
subject.py). Made-up documents; real files and the real retrieval adapter."""

from __future__ import annotations

from pathlib import Path

import trio

from ioa_p2p.adapters import Task, TaskResult, load_adapter, run_task
from ioa_p2p.adapters.retrieval.adapter import RetrievalAdapter
from ioa_p2p.adapters.retrieval.formats import readable
from ioa_p2p.adapters.retrieval.index import RetrievalOptions, scan_folder
from ioa_p2p.adapters.retrieval.markup import pipe_table, render_markup
from ioa_p2p.adapters.retrieval.subject import noun_phrase_words, unmentioned_subjects
from ioa_p2p.adapters.retrieval.text_sniff import is_text

ADOC = """= Harbour Kayak Hire
:revdate: 2026-03-01

== Boats

[cols="2,1",options="header"]
|===
|Boat |Price per hour (EUR)
|Single kayak |14.00
|Double kayak
|22.00
|===

* *Guided tour*: two hours with a guide, EUR 45.00.
life jacket:: included
"""

ORG = """#+TITLE: Fell Bikes: Rates
* Hire per day (GBP)
| Bike     | Weekday | Weekend |
|----------+---------+---------|
| Hybrid   |      18 |      24 |
| E-bike   |      35 |      42 |
"""

WIKI = """= Cove Sailing =
== Lessons ==
{| class="wikitable"
! Course !! Hours !! Price
|-
| [[Taster]] session || 2 || 60
|-
| ''Day skipper'' || 40 || 890
|}
* Wetsuit hire: 8
"""

REC = """# Glen Bothy prices, 2026
%rec: Beds

Kind: Bunk
Price: 12.00

Kind: Private room
Price: 40.00

%rec: Rules

Rule: Arrival
Text: Arrive by 20:00. Later arrivals must phone ahead, or the warden may give the bed to someone else
+ on the waiting list.
"""

XML = """<?xml version="1.0"?>
<!-- Quayside Storage price list -->
<prices currency="EUR">
  <unit size="small" monthly="39" deposit="50"/>
  <unit size="large" monthly="89" deposit="100"/>
  <note>Prices include insurance up to EUR 2,000.</note>
</prices>
"""


def test_asciidoc_tables_headings_and_lists() -> None:
    text = render_markup(".adoc", ADOC) or ""
    assert text.startswith("# Harbour Kayak Hire")
    assert "## Boats" in text
    assert "| Single kayak | 14.00 |" in text and "| Double kayak | 22.00 |" in text  # a row over two lines
    assert "- Guided tour: two hours with a guide, EUR 45.00." in text
    assert "- life jacket: included" in text and "[cols" not in text and "|===" not in text


def test_org_tables_keep_their_rows_and_rules_become_markdown() -> None:
    text = render_markup(".org", ORG) or ""
    assert text.splitlines()[0] == "# Fell Bikes: Rates"
    assert "## Hire per day (GBP)" in text and "|---|---|---|" in text and "+" not in text


def test_mediawiki_tables_links_and_emphasis() -> None:
    text = render_markup(".wiki", WIKI) or ""
    assert "# Cove Sailing" in text and "## Lessons" in text
    assert "| Course | Hours | Price |" in text and "| Taster session | 2 | 60 |" in text
    assert "| Day skipper | 40 | 890 |" in text and "- Wetsuit hire: 8" in text


def test_recfile_records_become_tables_and_prose_stays_prose() -> None:
    text = render_markup(".rec", REC) or ""
    assert "## Beds" in text and "| Kind | Price |" in text and "| Private room | 40.00 |" in text
    assert "- Arrival: Arrive by 20:00." in text and "on the waiting list" in text  # joined continuation
    assert not any(line.startswith("#") and "Glen" in line for line in text.splitlines())  # comment: prose


def test_xml_repeated_elements_become_a_table() -> None:
    text = render_markup(".xml", XML) or ""
    assert text.startswith("# Quayside Storage price list")
    assert "| size | monthly | deposit |" in text and "| large | 89 | 100 |" in text
    assert "- note: Prices include insurance up to EUR 2,000." in text
    assert render_markup(".xml", "<broken><") == "<broken><"  # not XML: read as it is
    assert readable("a.xml", "<broken><") == "<broken><"


def test_pipe_table_pads_and_reads_prose_cells_as_items() -> None:
    assert pipe_table([["a", "b"], ["1"]]) == ["| a | b |", "|---|---|", "| 1 |  |", ""]
    long = "x" * 80
    assert pipe_table([["k", "v"], ["r", long]]) == [f"- r: {long}", ""]


def test_text_is_sniffed_by_content() -> None:
    assert is_text("Prices: 12,50 €\n".encode())
    assert is_text("é".encode() * 2047 + "é".encode()[:1])  # a character cut at the sample's end
    assert not is_text(b"\x89PNG\r\n\x1a\n\0\0\0")
    assert not is_text(b"\xff\xfe" + b"a" * 100)
    assert not is_text(b"")


def test_scan_reads_unlisted_text_files_and_skips_binary(tmp_path: Path) -> None:
    (tmp_path / "NOTES").write_text("Opening hours: 9 to 5\n")
    (tmp_path / "rates.text").write_text("Rates\n")
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    (tmp_path / "blob.xyz").write_bytes(bytes(range(256)))
    (tmp_path / "tool.py").write_text("print('rates')\n")  # code beside the documents: not one of them
    found, _ = scan_folder(tmp_path, RetrievalOptions(path=str(tmp_path)))
    assert sorted(found) == ["NOTES", "rates.text"]
    found, _ = scan_folder(tmp_path, RetrievalOptions(path=str(tmp_path), sniff_text=False))
    assert sorted(found) == []


def test_a_subject_the_document_never_mentions() -> None:
    doc = "Bunk: CHF 12 per night. Private room: CHF 40. Snorkelling gear: CHF 9 a day. Moving a boat: 30."
    assert [q.shown for q in unmentioned_subjects("What does a hot shower cost per night?", doc)] == [
        "hot",
        "shower",
    ]
    assert unmentioned_subjects("How much is the private room for two nights?", doc) == []
    assert unmentioned_subjects("Look up the snorkel gear price and multiply it by 3", doc) == []  # a form
    assert unmentioned_subjects("What does moving a boat cost? Pass it to `print(zebra)`", doc) == []
    assert unmentioned_subjects("What does the Glenmore bunk cost?", doc) == []  # names: qualifiers.py
    assert unmentioned_subjects("We are bringing a hot shower kit: what does a bunk cost?", doc) == []
    assert noun_phrase_words("Look up Brisa's daily drysuit rental, then a 16 A hook-up returned late") == [
        "daily",
        "drysuit",
        "rental",
        "hook",
        "up",
    ]


def hashing_adapter(docs: Path) -> RetrievalAdapter:
    made = load_adapter("retrieval", {"path": str(docs), "embedding": {"backend": "hashing"}})
    assert isinstance(made, RetrievalAdapter)
    return made


async def ask(adapter: RetrievalAdapter, question: str) -> TaskResult:
    with trio.fail_after(60):
        return await run_task(adapter, Task.create(question, timeout=60))


async def test_markup_documents_answer_and_absent_subjects_are_refused(tmp_path: Path) -> None:
    (tmp_path / "bikes.org").write_text(ORG)
    (tmp_path / "storage.xml").write_text(XML)
    adapter = hashing_adapter(tmp_path)
    ebike = await ask(adapter, "What does an e-bike cost per weekend day at Fell Bikes?")
    assert ebike.ok and ebike.data["passages"][0]["path"] == "bikes.org", ebike.text
    assert "42" in ebike.text.splitlines()[0], ebike.text
    large = await ask(adapter, "What is the monthly price of a large unit at Quayside Storage?")
    assert large.ok and "89" in large.text.splitlines()[0], large.text
    tandem = await ask(adapter, "What does a tandem cost per weekday at Fell Bikes?")
    assert not tandem.ok and "tandem" in tandem.text, tandem.text
    await adapter.aclose()
