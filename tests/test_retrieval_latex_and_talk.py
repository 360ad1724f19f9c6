"""Issue 23 (p-formats): a LaTeX source is read as its sections, tables and lists (retrieval/latex.py); a
call transcript or chat export as one list item per turn, money said in words signed and a chat's year-less
dates given their year (conversation.py); a pipe table with no delimiter row (the action list of minutes) is
a table and its "who" column answers "who" (tables.py, extract.py); an answer limited to a group the asker
says they are outside of is a near miss (qualifiers.py). Made-up documents and requests."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.conversation import render_conversation, spoken_money, with_years
from ioa_p2p.adapters.retrieval.formats import readable
from ioa_p2p.adapters.retrieval.latex import looks_like_latex, render_latex
from ioa_p2p.adapters.retrieval.layout import clock_times
from ioa_p2p.adapters.retrieval.qualifiers import unnamed_qualifiers
from ioa_p2p.adapters.retrieval.tables import table_at
from ioa_p2p.adapters.retrieval.tariff import charged
from ioa_p2p.planning.values import Value

from .test_retrieval import ask, hashing_adapter

LATEX = r"""\documentclass{article}
\usepackage{booktabs}
\title{Kestrel Rowing Club\\Coaching fees 2027}
\begin{document}
\maketitle
\section*{Sculling courses}
\begin{tabular}{lrr}
\hline
Course & Sessions & Price (\pounds) \\
\hline
Learn to scull & 6 & 140 \\
Improver \textbf{block} & 4
  & 95 \\
\hline
\end{tabular}
% old prices, not printed: Learn to scull 120
\subsection{Rules}
\begin{itemize}
  \item Juniors pay \pounds 60 for the Learn to scull course --- members only.
  \item Cancel 14~days ahead: refund less 10\%.
\end{itemize}
\end{document}
"""

TRANSCRIPT = """Harlow Glazing - call transcript
Date: Tuesday 3 March 2026

[00:00] Sam: Harlow Glazing, Sam speaking.
[00:04] Caller: How much is a survey visit?
[00:07] Sam: A survey is 45 pounds, taken off the order if you go ahead.
[00:15] Caller: And a cracked pane?
[00:18] Sam: A standard pane replacement starts at 120 pounds fitted,
        plus a 25 pound call-out on weekends.
[00:30] Caller: Thanks.
"""

CHAT = """[28/11/2026, 18:02:11] Ana (secretary): Winter social is Sat 9 Jan at the boathouse
[28/11/2026, 18:03:40] Ana (secretary): Tickets are £12, or £8 for juniors
[29/11/2026, 09:15:02] Tom: Can guests come?
[29/11/2026, 09:20:48] Ana (secretary): Yes, guests pay 15 pounds
"""

MINUTES = """WELLBROOK TENANTS ASSOCIATION - minutes

ACTIONS
  #  | task                        | who        | by
  1  | chase the lift repair       | K. Obi     | 12 May 2026
  2  | book the hall for the fair  | L. Marsh   | 30 May 2026
"""


def test_latex_reads_as_headings_a_pipe_table_and_list_items() -> None:
    out = render_latex(".tex", LATEX)
    assert out is not None
    lines = out.split("\n")
    assert len(lines) == len(LATEX.splitlines())  # line for line: citations keep the file's lines
    assert "# Kestrel Rowing Club - Coaching fees 2027" in lines
    assert "## Sculling courses" in lines and "### Rules" in lines
    assert "| Course | Sessions | Price (£) |" in lines
    assert "| Improver block | 4 | 95 |" in lines  # a row over two lines, its bold mark dropped
    assert "- Juniors pay £60 for the Learn to scull course — members only." in lines
    assert "- Cancel 14 days ahead: refund less 10%." in lines
    assert "120" not in out  # a comment is not in the printed document
    assert not any(word in out for word in ("documentclass", "usepackage", "itemize", "tabular", "\\"))


def test_latex_is_recognised_by_content_in_a_text_file() -> None:
    assert looks_like_latex(LATEX)
    assert readable("fees.txt", LATEX).startswith("\n\n# Kestrel")
    assert not looks_like_latex("Prices: see \\\\server\\share for the list.\nNothing else here.")
    assert readable("notes.txt", "Plain text, 10% off.") == "Plain text, 10% off."


def test_a_transcript_reads_as_one_item_per_turn_with_signed_money() -> None:
    out = render_conversation(".txt", TRANSCRIPT)
    assert out is not None
    lines = out.splitlines()
    assert len(lines) == len(TRANSCRIPT.splitlines())
    assert "- Sam: A survey is £45, taken off the order if you go ahead." in lines
    assert "  plus a £25 call-out on weekends." in lines  # a turn's second line stays under it
    assert lines[0] == "Harlow Glazing - call transcript"  # the header as it is
    assert spoken_money("5 pounds of flour for 3 pounds") == "5 pounds of flour for £3"
    assert render_conversation(".txt", "Meeting at 10:30.\nAgenda: budget.\n") is None
    assert render_conversation(".md", TRANSCRIPT) is None  # markdown keeps its own structure


def test_a_chat_export_dates_its_year_less_dates_by_the_message() -> None:
    out = render_conversation(".txt", CHAT)
    assert out is not None
    lines = out.splitlines()
    assert lines[0] == "- Ana (secretary): Winter social is Sat 9 Jan 2027 at the boathouse"  # after 28 Nov
    assert lines[3] == "- Ana (secretary): Yes, guests pay £15"
    whatsapp = "02/09/2026, 19:05 - Maeve: Concert on 12 December\n" * 3
    assert "12 December 2026" in (render_conversation(".txt", whatsapp) or "")
    from datetime import date

    assert (
        with_years("due 3 Sept, paid 22 March 2026", date(2026, 9, 1))
        == "due 3 Sept 2026, paid 22 March 2026"
    )
    assert with_years("on 31 Feb", date(2026, 9, 1)) == "on 31 Feb"  # no such day: left as it is


def test_a_pipe_table_without_a_delimiter_row_is_a_table() -> None:
    lines = MINUTES.splitlines()
    table = table_at(lines, 3)
    assert table is not None
    header, rows, used = table
    assert header == ["#", "task", "who", "by"] and used == 3
    assert rows[1][1] == ["2", "book the hall for the fair", "L. Marsh", "30 May 2026"]
    assert table_at(["a | b", "some prose | more prose", "x"], 0) is None  # two short lines: no table


def test_an_answer_limited_to_a_group_the_asker_is_outside_of_is_a_near_miss() -> None:
    fact = "The Safety Boat course (two days) costs £295 for members only."
    missed = unnamed_qualifiers(
        "I'm not a club member; what would the Safety Boat course cost?", fact, "", fact
    )
    assert [q.kind for q in missed] == ["group"]
    assert not unnamed_qualifiers("What does the Safety Boat course cost a member?", fact, "", fact)
    both = "Entry £5, non-members £8 (members only on Sundays)."
    assert not unnamed_qualifiers("What do non-members pay for entry?", both, "", both)


async def test_questions_over_latex_a_transcript_a_chat_and_minutes(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kestrel-fees.tex").write_text(LATEX)
    (docs / "harlow-call.txt").write_text(TRANSCRIPT)
    (docs / "wellbrook-minutes.txt").write_text(MINUTES)
    adapter = hashing_adapter(docs)
    result = await ask(adapter, "How many sessions does the Kestrel Improver block have?")
    assert result.ok and result.data["value"].get("value") == 4, result.text
    result = await ask(adapter, "How much is a Harlow Glazing survey visit?")
    assert result.ok and result.data["value"].get("value") == 45, result.text
    assert result.data["value"].get("unit") == "GBP", result.text
    result = await ask(adapter, "Who has to book the hall for the fair?")
    assert result.ok and "L. Marsh" in result.text.splitlines()[0], result.text


FLYER = """        ~ ~  KNOTT END  ~ ~
             HARVEST SUPPER
                                  Fri 2 Oct 2026
   doors 6pm                         food 7pm

   * MAINS *                  PUDDINGS
    hotpot £9                 crumble £4
     veggie pie £8.50         trifle (serves 2) £6

        TICKET FOR FOUR (2 ad + 2 ch) £25
      raffle      bar      quiz
"""


def test_a_laid_out_flyer_reads_as_captioned_columns_line_for_line() -> None:
    out = readable("supper-ocr.txt", FLYER)
    lines = out.split("\n")
    assert len(lines) == len(FLYER.split("\n")) - 1  # line for line (the last newline aside)
    assert "- Mains: hotpot £9; veggie pie £8.50" in lines  # the left column under its caption
    assert "- Puddings: crumble £4; trifle (serves 2) £6" in lines
    assert "- doors 6:00 pm; food 7:00 pm" in lines  # one line's gap; informal times as clock times
    assert "- Ticket For Four (2 ad + 2 ch) £25" in lines  # a priced line in capitals is no caption
    assert "raffle" in out and not any(line.startswith(" ") for line in lines)
    assert (
        readable("notes.txt", "   Indented note.\n   Another one.\n")
        == "   Indented note.\n   Another one.\n"
    )


async def test_a_price_on_a_flyer_is_found_under_its_column_caption(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "supper-ocr.txt").write_text(FLYER)
    result = await ask(hashing_adapter(docs), "What does a trifle cost at the Knott End harvest supper?")
    assert result.ok and result.data["value"].get("value") == 6, result.text


TERMS = """HOLMFIRTH SCOOTERS - RULES OF HIRE
1. Prices
1.1 Unlocking costs EUR 1.00, then EUR 0.20 per
    minute.
1.2 Day pass: EUR 9.00 for rides of up to 30 minutes each.
2. Returns
2.1 A scooter left outside a bay: EUR 15.00.
2.2 Exception to 2.1: no fee when every bay within 300 metres is full.
"""


def test_numbered_terms_read_as_one_item_per_clause() -> None:
    lines = readable("rules.txt", TERMS).split("\n")
    assert lines[1] == "## 1. Prices" and lines[5] == "## 2. Returns"
    assert lines[2] == "- 1.1 Unlocking costs EUR 1.00, then EUR 0.20 per"
    assert lines[3] == "    minute."  # the clause's continuation stays under it
    assert lines[4].startswith("- 1.2 Day pass")
    assert readable("notes.txt", "1.1 one\n1.2 two\nplain") == "1.1 one\n1.2 two\nplain"  # too few clauses


async def test_a_clause_is_a_fact_of_its_own(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "holmfirth-rules.txt").write_text(TERMS)
    result = await ask(hashing_adapter(docs), "How much is a Holmfirth scooter day pass?")
    assert result.ok and result.data["value"].get("value") == 9, result.text


async def test_the_amount_for_a_group_named_after_it_is_the_groups(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "larkfield-club.md").write_text(
        "# Larkfield Chess Club\n\nMembership this season is £45, or £20 for juniors and students.\n"
    )
    adapter = hashing_adapter(docs)
    result = await ask(adapter, "What is Larkfield chess club membership for juniors?")
    assert result.ok and result.data["value"].get("value") == 20, result.text
    result = await ask(adapter, "How much is Larkfield Chess Club membership this season?")
    assert result.ok and result.data["value"].get("value") == 45, result.text


def test_informal_times_of_day_read_as_clock_times() -> None:
    assert clock_times("gates 11am, racing 3pm & 4.30pm, talk 10 a.m.") == (
        "gates 11:00 am, racing 3:00 pm & 4:30 pm, talk 10:00 am"
    )
    assert clock_times("1.5 pm of rain, £5pm, 13pm, 10-4") == "1.5 pm of rain, £5pm, 13pm, 10-4"


def test_a_fine_or_how_much_asks_a_charge() -> None:
    money = Value.of_number(5.0, "EUR")
    assert charged("What's the daily overdue fine on an e-reader?", money)
    assert charged("How much per minute is a cargo bike?", money)
    assert not charged("How much per minute is a cargo bike?", Value.of_number(5.0, "min"))
