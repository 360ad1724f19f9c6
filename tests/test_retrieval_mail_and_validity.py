"""Issue 23 (coordinator): a saved e-mail is read as its subject, sender, date and decoded body
(adapters/retrieval/mail.py); a space-aligned table whose header leaves its label column empty is read as
rows in the typed records (docmodel/reader.py); a fact whose dated validity ended before the month a
question asks about does not answer it (adapters/retrieval/validity.py). Made-up documents and requests."""

from __future__ import annotations

import base64
from pathlib import Path

from ioa_p2p.adapters.retrieval.docmodel.reader import read_document
from ioa_p2p.adapters.retrieval.formats import readable
from ioa_p2p.adapters.retrieval.mail import render_mail
from ioa_p2p.adapters.retrieval.validity import out_of_validity, validity

from .test_retrieval import ask, hashing_adapter

LETTER = """Return-Path: <news@quillmere.example>
Received: from mx.quillmere.example by mail.example; Mon, 2 Mar 2026 08:00:00 +0000
From: Quillmere Ferries <news@quillmere.example>
To: A. Reader <reader@example.org>
Subject: Your Quillmere ferry fares from 1 April 2026
Date: Mon, 2 Mar 2026 08:00:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Dear traveller,

From 1 April 2026 our crossing fares change.

                       Single     Return
  Foot passenger       4.20 =E2=82=AC     7.80 =E2=82=AC
  Car and driver       31.00 =E2=82=AC    55.00 =E2=82=AC
  Bicycle              1.50 =E2=82=AC     2.50 =E2=82=AC

Old prices (until 31 March 2026), for your records: foot passenger single 3.90 =E2=82=AC, car and
driver single 28.00 =E2=82=AC.
"""


def test_a_message_reads_as_subject_sender_date_and_decoded_body() -> None:
    text = render_mail(".eml", LETTER, lambda html: html)
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "# Your Quillmere ferry fares from 1 April 2026"
    assert "From: Quillmere Ferries <news@quillmere.example>" in lines
    assert not any(line.startswith(("Received:", "Return-Path:", "MIME-Version:")) for line in lines)
    assert "  Foot passenger       4.20 €     7.80 €" in lines  # quoted-printable decoded, columns kept
    assert render_mail(".txt", LETTER, lambda html: html) is None


def test_an_html_only_message_and_a_base64_attachment() -> None:
    html = "<html><body><h1>Menu</h1><p>Soup of the day: 6.50</p></body></html>"
    note = base64.b64encode(b"Corkage per bottle: 12.00\n").decode()
    raw = (
        "From: Bistro <b@example.org>\nSubject: This week\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="XX"\n\n--XX\nContent-Type: text/html; charset=utf-8\n\n'
        f"{html}\n--XX\nContent-Type: text/plain; name=wine.txt\nContent-Disposition: attachment; "
        f"filename=wine.txt\nContent-Transfer-Encoding: base64\n\n{note}\n"
        "--XX\nContent-Type: image/png\nContent-Disposition: attachment; filename=logo.png\n\nAAAA\n--XX--\n"
    )
    text = readable("week.eml", raw)
    assert text.startswith("# This week")
    assert "Soup of the day: 6.50" in text and "<p>" not in text  # the HTML part read as a page
    assert "## wine.txt" in text and "Corkage per bottle: 12.00" in text
    assert "logo.png" in text and "AAAA" not in text  # named, never read


def test_an_mbox_holds_several_messages_and_text_that_is_no_message_stays() -> None:
    box = (
        "From a@example.org Mon Mar  2 08:00:00 2026\nFrom: a@example.org\nSubject: First\n\nOne.\n\n"
        "From b@example.org Tue Mar  3 08:00:00 2026\nFrom: b@example.org\nSubject: Second\n\nTwo.\n"
    )
    text = readable("archive.mbox", box)
    assert "# First" in text and "# Second" in text and "One." in text and "Two." in text
    plain = "just some words\nno headers at all\n"
    assert readable("odd.eml", plain) == plain


def test_a_table_whose_header_leaves_the_label_column_empty_is_read_as_rows() -> None:
    text = readable("fares.eml", LETTER)
    rows = [r for r in read_document("fares.eml", text).records if r.kind == "row"]
    assert [r.key for r in rows] == ["Foot passenger", "Car and driver", "Bicycle"]
    assert dict(rows[1].cells)["Return"] == "55.00 €"


def test_dated_validity() -> None:
    old = "Previous fares (until 31 March 2026): foot passenger single 3.90"
    assert validity(old) == (None, 2026 * 12 + 2)
    assert out_of_validity("What is a foot passenger single from April 2026?", old)
    assert not out_of_validity("What was a foot passenger single in March 2026?", old)
    assert not out_of_validity("What is a foot passenger single in April?", old)  # no year: undecided
    assert not out_of_validity("What does a bicycle cost in May 2026?", "Bicycles travel free.")
    new = "From 1 June 2026 the harbour due is 9.00 per night, valid until December 2026."
    assert out_of_validity("the harbour due in May 2026", new)
    assert not out_of_validity("the harbour due in July 2026", new)
    assert out_of_validity("the harbour due in January 2027", new)
    assert out_of_validity("the fee in June 2026", "Before June 2026 the fee was 4.")


async def test_the_current_fare_answers_a_question_dated_after_the_old_fares_ended(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fares.eml").write_text(LETTER)
    adapter = hashing_adapter(docs)
    result = await ask(adapter, "What is the Quillmere foot passenger single price from April 2026?")
    assert result.ok, result.text
    assert result.data["value"].get("value") == 4.2, result.text
    result = await ask(adapter, "What was the Quillmere foot passenger single price in March 2026?")
    assert result.ok, result.text
    assert result.data["value"].get("value") == 3.9, result.text
