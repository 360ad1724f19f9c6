"""Issue 23 (p-prose): lookups over threads — an e-mail's ``>`` quote levels, a BBCode forum thread, an amount
a later message corrects, a past value asked of a document that states only today's (quoting.py, bbcode.py,
corrections.py, evidence_scope.current_for_past). Made-up documents and requests."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.bbcode import render_bbcode
from ioa_p2p.adapters.retrieval.corrections import only_replaced, replaced_amounts
from ioa_p2p.adapters.retrieval.evidence_scope import current_for_past
from ioa_p2p.adapters.retrieval.quoting import message_title, quote_weight, unquoted, without_parties
from ioa_p2p.adapters.retrieval.subtitles import render_subtitles, said
from ioa_p2p.planning.values import Value

from .test_retrieval import ask, hashing_adapter

THREAD = """From: Odile Marchetti <odile@glassworks.example>
To: Bram Oyelowo <bram@example.org>
Subject: Re: Re: window cleaning quote - Fennick Court

Bram,

Agreed for the whole of Fennick Court from next month. Gutter clearing stays as quoted below.

Kind regards, Odile
Marchetti Glassworks - Yard 9, Copper Row

> On Mon, 4 Oct 2027 at 10:15, Bram Oyelowo wrote:
> Thanks Odile. Can you confirm the pane price for the revised list?
>
>> On Fri, 1 Oct 2027 at 16:02, Odile Marchetti wrote:
>> Revised list, sorry for the mix-up:
>>   Window cleaning ......... EUR 1.30 per pane (not EUR 1.10 as I first wrote)
>>   Gutter clearing ......... EUR 2.40 per metre
>>
>>> On Thu, 30 Sep 2027 at 09:00, Odile Marchetti wrote:
>>> First figures for Fennick Court: window cleaning EUR 1.10 per pane and a
>>> skylight is EUR 6.50 extra each; conservatory roofs are quoted on sight.
"""

FORUM = """[size=3][b]Harrowden Kayak Club > Trips > Lake Orrin weekend[/b][/size]

[b]Post #1[/b] by [b]trip_lead_Ines[/b] >> Tue 2 Mar 2027, 18:10
The Lake Orrin weekend is on: [b]Friday 14 May to Sunday 16 May 2027[/b].
[list]
[*]Bunkhouse: €27 per person per night
[*]Boat trailer space €9 per boat, paid once
[*]Wetsuit hire €7 per day
[/list]
Sign up by [b]30 April 2027[/b].

[b]Post #2[/b] by [b]paddler_Tomasz[/b] >> Tue 2 Mar 2027, 19:40
[quote="trip_lead_Ines"]Bunkhouse: €24 per person per night[/quote]
Cheaper than I thought - is that right?

[b]Post #3[/b] by [b]trip_lead_Ines[/b] >> Wed 3 Mar 2027, 08:05
No, I'd copied the old figure, the post is edited now.
"""


def _docs(tmp_path: Path, files: dict[str, str]) -> Path:
    docs = tmp_path / "docs"
    for name, text in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text)
    return docs


async def _answer(docs: Path, question: str) -> tuple[bool, str]:
    result = await ask(hashing_adapter(docs), question)
    return result.ok, result.text.split("\n")[0]


def test_a_thread_loses_its_markers_and_keeps_its_levels() -> None:
    lines, depths = unquoted(THREAD.splitlines())
    at = {line.strip(): d for line, d in zip(lines, depths, strict=True) if line.strip()}
    assert at["Thanks Odile. Can you confirm the pane price for the revised list?"] == 1
    assert at["Revised list, sorry for the mix-up:"] == 2
    assert at["skylight is EUR 6.50 extra each; conservatory roofs are quoted on sight."] == 3
    assert at["Bram,"] == 0
    assert quote_weight(0) == 1.0 and quote_weight(2) < quote_weight(1) < 1.0
    assert quote_weight(9) == quote_weight(3)


def test_a_note_set_off_in_a_document_is_no_thread() -> None:
    note = ["# Opening hours", "> Note: the shop shuts early", "> on bank holidays.", "Mon-Fri 9-5"]
    assert unquoted(note) == (note, [0, 0, 0, 0])


def test_a_messages_title_is_its_subject_and_parties() -> None:
    title = message_title(THREAD)
    assert title is not None
    assert "Fennick Court" in title and "Bram Oyelowo" in title and "@" not in title
    assert message_title("# Price list\nFrom: 9:00\n") is None
    assert without_parties("Kind regards, Odile Marchetti Glassworks - Yard 9") == ""
    assert "Bram" not in without_parties("On Mon, 4 Oct 2027 at 10:15, Bram Oyelowo wrote: Thanks.")


def test_amounts_a_document_corrects_are_replaced() -> None:
    replaced = replaced_amounts(["Window cleaning EUR 1.30 per pane (not EUR 1.10 as I first wrote)"])
    assert replaced == {1.10}
    assert only_replaced("window cleaning EUR 1.10 per pane", replaced)
    assert not only_replaced("Window cleaning EUR 1.30 per pane (not EUR 1.10 as I first wrote)", replaced)
    assert not only_replaced("a skylight is EUR 6.50 extra each", replaced)
    assert replaced_amounts(["The day rate is now £14, up from £12."]) == {12.0}


async def test_the_corrected_amount_answers_not_the_first_quote(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"glassworks/re-quote.txt": THREAD})
    ok, text = await _answer(docs, "What does Marchetti Glassworks charge per pane for window cleaning now?")
    assert ok and text == "EUR 1.3", text
    ok, text = await _answer(docs, "What is Marchetti's extra charge for each skylight at Fennick Court?")
    assert ok and text == "EUR 6.5", text  # stated only in the oldest message: still read


def test_a_forum_thread_in_bbcode_reads_as_items_and_quotes() -> None:
    text = render_bbcode(".txt", FORUM)
    assert text is not None
    lines = text.splitlines()
    assert "- Bunkhouse: €27 per person per night" in lines
    assert "- Wetsuit hire €7 per day" in lines
    assert "> trip_lead_Ines wrote: Bunkhouse: €24 per person per night" in lines
    assert not any("[" in line for line in lines)
    assert render_bbcode(".txt", "A [b]bold[/b] claim in plain prose.") is None


async def test_a_forum_posts_list_items_are_facts_of_their_own(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"kayak/lake-orrin-thread.txt": FORUM})
    ok, text = await _answer(docs, "How much is the bunkhouse per night on the Harrowden Lake Orrin weekend?")
    assert ok and text == "EUR 27", text
    ok, text = await _answer(docs, "What does wetsuit hire cost per day on the Lake Orrin weekend?")
    assert ok and text == "EUR 7", text


def test_a_past_value_asked_of_a_sentence_that_states_todays_is_a_near_miss() -> None:
    asked = "What did wetsuit hire cost per day on last year's trip?"
    today = "Wetsuit hire €7 per day"
    assert [q.kind for q in current_for_past(asked, today, Value.of_number(7, "EUR"))] == ["period"]
    assert current_for_past(asked, "Wetsuit hire was €6 per day last year", Value.of_number(6, "EUR")) == []
    assert current_for_past("What does wetsuit hire cost per day?", today, Value.of_number(7, "EUR")) == []
    row = "Wetsuit | 7 \0 Item Price"  # a table row's period is its table's: not judged
    assert current_for_past(asked, row, Value.of_number(7, "EUR")) == []


async def test_last_years_price_is_refused_when_only_this_years_is_stated(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"kayak/lake-orrin-thread.txt": FORUM})
    question = "What did wetsuit hire cost per day on last year's Lake Orrin trip?"
    result = await ask(hashing_adapter(docs), question)
    assert not result.ok, result.text


SUBTITLES = """1
00:00:00,400 --> 00:00:03,900
Hello, I'm Priya from Kestrel Locksmiths.

2
00:00:04,000 --> 00:00:09,700
A lock change is sixty-five pounds,
and a new key is twelve pounds.

3
00:00:09,800 --> 00:00:15,200
An emergency call-out is a hundred and twenty pounds after eight at night.

4
00:00:15,300 --> 00:00:19,900
A standard job takes two working days; for a safe opening, allow four.
"""


def test_subtitles_read_as_what_was_said() -> None:
    text = render_subtitles(".srt", SUBTITLES)
    assert text is not None
    assert "-->" not in text and "00:00" not in text
    lines = [line for line in text.splitlines() if line]
    assert lines[1] == "A lock change is £65, and a new key is £12."
    assert "An emergency call-out is £120 after eight at night." in lines
    assert lines[3] == "A standard job takes 2 working days; for a safe opening, allow 4 working days."
    assert said("Tickets are £4, or 3 for £10.") == "Tickets are £4, or 3 for £10."
    assert render_subtitles(".txt", "Meeting notes\n10:00 start\n") is None


async def test_a_cues_figure_is_what_was_said_not_its_time_stamp(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"kestrel/prices-video.srt": SUBTITLES})
    ok, text = await _answer(docs, "What does Kestrel Locksmiths charge for a lock change?")
    assert ok and text == "GBP 65", text
    ok, text = await _answer(docs, "How much is an emergency call-out from Kestrel Locksmiths?")
    assert ok and text == "GBP 120", text


NEWSLETTER = """# Fernley Primary - The Friday Letter

## Trips

Last week's letter gave the Year 3 Mossbank Farm trip price as
£9.20. That was a mistake: the farm has raised its entry fee
and the trip now costs £10.40 per child. Please pay online by Wednesday.
"""


async def test_a_sentence_that_states_the_past_price_gives_way_to_the_one_after_it(tmp_path: Path) -> None:
    docs = _docs(tmp_path, {"fernley/friday-letter.md": NEWSLETTER})
    ok, text = await _answer(docs, "What's the price of the Year 3 Mossbank Farm trip now?")
    assert ok and text == "GBP 10.4", text


def test_a_past_time_told_as_a_given_asks_nothing_past() -> None:
    asked = "Our shop's alarm went off twice last month. How much does the call-out cost?"
    fact = "A call-out costs €45"
    assert current_for_past(asked, fact, Value.of_number(45, "EUR")) == []
