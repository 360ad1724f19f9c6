"""Issue 23: the librarian reads any UTF-8 text file of its folder (by content), each markup by its form."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters import Task, TaskResult, load_adapter, run_task
from ioa_p2p.adapters.retrieval.adapter import RetrievalAdapter
from ioa_p2p.adapters.retrieval.index import RetrievalOptions, scan_folder
from ioa_p2p.adapters.retrieval.markup import markup_text
from ioa_p2p.adapters.retrieval.sniff import why_not_text


def adapter_over(docs: Path, **options: object) -> RetrievalAdapter:
    made = load_adapter(
        "retrieval",
        {"path": str(docs), "embedding": {"backend": "hashing"}, "read_any_text": True, **options},
    )
    assert isinstance(made, RetrievalAdapter)
    return made


async def ask(adapter: RetrievalAdapter, question: str) -> TaskResult:
    with trio.fail_after(60):
        return await run_task(adapter, Task.create(question, timeout=60))


def test_sniff_tells_text_from_binary() -> None:
    assert why_not_text(b"Ferry times\n\tdaily 07:10\r\n") == ""
    assert why_not_text("Zürich – café".encode()[:-1]) == ""  # a character cut at the sample's end
    assert "NUL" in why_not_text(b"PK\x03\x04\x00\x00abc")
    assert "UTF-8" in why_not_text(b"caf\xe9 au lait")
    assert "control" in why_not_text(b"\x1b\x02\x03" * 10 + b"a" * 100)


def test_files_are_chosen_by_content_and_skipped_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "rates.weird").write_text("Boat hire: 40 per hour\n")
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(256)))
    (tmp_path / "latin1.txt2").write_bytes(b"Pr\xe9sentation\n")
    found, skipped = scan_folder(tmp_path, RetrievalOptions(path=str(tmp_path), read_any_text=True))
    assert set(found) == {"rates.weird"}
    assert any(s.startswith("photo.jpg (binary") for s in skipped), skipped
    assert any(s.startswith("latin1.txt2 (not UTF-8") for s in skipped), skipped
    found, skipped = scan_folder(tmp_path, RetrievalOptions(path=str(tmp_path), read_any_text=False))
    assert found == {} and skipped == []  # off: the extension list only, as before


def test_asciidoc_form() -> None:
    text = markup_text(
        '= Wexley Kayak Hire\n:revdate: 2026-03-01\n\n== Boats\n\n[options="header"]\n|===\n'
        "|Boat |Hour |Day\n|Single kayak |14.00 |48.00\n|Tandem kayak |22.00 |70.00\n|===\n\n"
        "Deposit:: 50 per boat\n"
    )
    lines = text.splitlines()
    assert "# Wexley Kayak Hire" in lines and "## Boats" in lines
    assert "| Tandem kayak | 22.00 | 70.00 |" in lines and "| Boat | Hour | Day |" in lines
    assert "- Deposit: 50 per boat" in lines and not any(line.startswith(":revdate") for line in lines)


def test_org_form() -> None:
    text = markup_text(
        "#+TITLE: Olmstead Allotments\n* Plot rents\n:PROPERTIES:\n:PAYMENT_DUE: 1 April\n:END:\n"
        "| Plot | Rent |\n|------+------|\n| Half | 31 |\n| Full | 55 |\n** Water\nTap water is *free*.\n"
    )
    lines = text.splitlines()
    assert lines[0] == "# Olmstead Allotments" and "## Plot rents" in lines and "### Water" in lines
    assert "|---|---|" in lines and "| Full | 55 |" in lines
    assert "- payment due: 1 April" in lines and "Tap water is free." in lines


def test_mediawiki_form() -> None:
    text = markup_text(
        "= Tollbridge charges =\n''Valid 2026.''\n== Vehicles ==\n{| class=\"wikitable\"\n"
        "! Vehicle !! Toll\n|-\n| Car || 3.20\n|-\n| Van || 5.60\n|}\n# Cyclists cross free.\n"
    )
    lines = text.splitlines()
    assert "# Tollbridge charges" in lines and "## Vehicles" in lines and "Valid 2026." in lines
    assert "| Vehicle | Toll |" in lines and "| Van | 5.60 |" in lines
    assert "1. Cyclists cross free." in lines  # never a "#" heading


def test_xml_form() -> None:
    text = markup_text(
        '<?xml version="1.0"?>\n<!-- Harlow ferry fares -->\n<fares currency="EUR">\n'
        '  <fare route="Harlow-Isle" adult="9.50" child="4.75"/>\n'
        '  <fare route="Isle-Point" adult="6.00" child="3.00"/>\n'
        '  <rules><rule name="Bicycles">Carried for 2.00 each.</rule></rules>\n</fares>\n'
    )
    lines = text.splitlines()
    assert lines[0] == "# Harlow ferry fares" and "- currency: EUR" in lines
    assert "| route | adult | child |" in lines and "| Isle-Point | 6.00 | 3.00 |" in lines
    assert "- Bicycles: Carried for 2.00 each." in lines
    assert markup_text("<a><b>unclosed</a>") == "<a><b>unclosed</a>"  # not XML after all: as text
    bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;&a;</x>'
    assert markup_text(bomb) == bomb  # a DTD is never expanded


def test_recfile_form() -> None:
    text = markup_text(
        "# Brackla bothy fees\n%rec: Beds\n\nType: Bunk\nMember: 12.00\nGuest: 18.00\n\n"
        "Type: Floor space\nMember: 6.00\nGuest: 9.00\n\n%rec: Rules\n\nRule: Fires\nText: Only in the\n"
        "+ stove.\n"
    )
    lines = text.splitlines()
    assert lines[0] == "# Brackla bothy fees" and "## Beds" in lines and "## Rules" in lines
    assert "| Type | Member | Guest |" in lines and "| Floor space | 6.00 | 9.00 |" in lines
    assert "### Fires" in lines and "- Text: Only in the stove." in lines


def test_leaders_and_double_bar_rows() -> None:
    text = markup_text("Fees\nLocker hire ........ 3.50\n|| Sauna || 7.00 ||\nSee you soon...\n")
    lines = text.splitlines()
    assert "- Locker hire: 3.50" in lines and "| Sauna | 7.00 |" in lines and "See you soon..." in lines


async def test_each_form_answers_from_its_row(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kayaks.adoc").write_text(
        "= Wexley Kayak Hire\n\n== Boats\n\n|===\n|Boat |Hour price EUR |Day price EUR\n"
        "|Single kayak |14.00 |48.00\n|Tandem kayak |22.00 |70.00\n|Stand-up board |11.00 |39.00\n|===\n"
    )
    (docs / "bothy.rec").write_text(
        "# Brackla bothy fees in GBP\n%rec: Beds\n\nType: Bunk\nMember: 12.00\nGuest: 18.00\n\n"
        "Type: Floor space\nMember: 6.00\nGuest: 9.00\n\nType: Tent pitch\nMember: 4.00\nGuest: 7.00\n"
    )
    (docs / "ferry.csv").write_text(
        "Route;Adult fare EUR;Child fare EUR\n"
        "Harlow-Isle;9,50;4,75\nIsle-Point;6,20;3,10\nPoint-Bay;7,40;3,70\n"
    )
    adapter = adapter_over(docs)
    tandem = await ask(adapter, "What does a tandem kayak cost for a day?")
    assert tandem.ok and "70" in tandem.text.splitlines()[0], tandem.text
    bunk = await ask(adapter, "What does a guest pay for a bunk at Brackla bothy?")
    assert bunk.ok and "18" in bunk.text.splitlines()[0], bunk.text
    fare = await ask(adapter, "What is the adult fare from Isle to Point?")
    assert fare.ok and "6.2" in fare.text.splitlines()[0], fare.text
    await adapter.aclose()


@pytest.mark.parametrize("blob", [b"\x00\x01\x02" * 100, b"\xff\xfe" + "text".encode("utf-16-le")])
async def test_a_binary_file_never_breaks_the_folder(tmp_path: Path, blob: bytes) -> None:
    (tmp_path / "data.bin").write_bytes(blob)
    (tmp_path / "notes.org").write_text("#+TITLE: Notes\n* Opening\nThe shop opens at 09:30.\n")
    adapter = adapter_over(tmp_path)
    result = await ask(adapter, "When does the shop open?")
    assert result.ok and "09:30" in result.text, result.text
    assert any(s.startswith("data.bin (") for s in adapter.index.skipped), adapter.index.skipped
    await adapter.aclose()
