"""Issue 23 (p-probe3): a near miss is no answer (adapters/retrieval/qualifiers.py).

When the question names a year, a version, an item code, an option, a proper name or a calendar date
that the document the answer would be read from never names, the best row answers another question (the
2025 figure for "2024", the X20's price for "the X30", tides of 3 May for "9 May"): the retrieval fails the
task as ``absent`` and the planner names the value missing (exit 3). Made-up documents and wordings.
"""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.qualifiers import qualifiers, unnamed_qualifiers
from ioa_p2p.planning.refusal import ABSENT

from .test_retrieval import ask, hashing_adapter

REPORT = """# Wexcombe Rowing Club: treasurer's report

The club's boathouse insurance for 2023 cost EUR 1,240.
Membership income in 2023 was EUR 18,600 from 124 members.
The new coaching launch (model Harlan M-40) cost EUR 9,800.
"""

FERRY = """SKELLA SOUND FERRY - SAILINGS, MAY
Mon 4 May    07:15  12:40  18:05
Tue 5 May    07:20  12:45  18:10
Wed 6 May    07:30  12:55  18:20
Thu 7 May    07:35  13:00  18:25
"""

MANUAL = """GRINDLE(1)

OPTIONS
   --block-size=N   Size of a block in KiB. Default: 64.
   --max-depth=N    How deep grindle descends into folders. Default: 8.

This page describes grindle 4.2.
"""


def kinds(question: str) -> list[tuple[str, str]]:
    return [(q.kind, q.shown) for q in qualifiers(question)]


def test_a_year_standing_alone_or_a_season_qualifies_a_date_of_a_situation_does_not() -> None:
    assert ("year", "2022") in kinds("What did the Wexcombe boathouse insurance cost in 2022?")
    assert ("year", "2021-22") in kinds("How many races did the eight win in the 2021-22 season?")
    assert not [k for k in kinds("If I join on 3 March 2024, what is my first fee?") if k[0] == "year"]


def test_versions_codes_options_and_names() -> None:
    assert ("version", "version 3") in kinds("What was the launch price in catalogue rev 3?")
    assert ("version", "5.1") in kinds("Which default did grindle 5.1 use for the block size?")
    assert ("version", "2.0.7") in kinds("When was 2.0.7 released?")
    assert ("code", "M-55") in kinds("What did the Harlan M-55 launch cost?")
    assert ("compound", "min-free-space") in kinds("What is the default of --min-free-space?")
    assert ("name", "Tolbury") in kinds("How much did the Tolbury Rowing Club pay?")
    # a quantity, a unit, a designator, a sentence's first word are no qualifiers
    assert kinds("Convert 3.5 kg to pounds.") == []
    assert ("name", "Flat") not in kinds("What is the rent of Flat 4B?")
    # the asker's own situation: its places are givens, not selectors
    situation = kinds("I'm rowing to Tolbury on Sunday: what is the launch fee?")
    assert not [k for k in situation if k[0] == "name"]


def test_the_document_must_name_each_qualifier_in_one_of_its_forms() -> None:
    assert unnamed_qualifiers("What did the boathouse insurance cost in 2023?", REPORT) == []
    older = unnamed_qualifiers("What did the boathouse insurance cost in 2022?", REPORT)
    assert [q.shown for q in older] == ["2022"]
    assert unnamed_qualifiers("What did the Harlan M40 launch cost?", REPORT) == []  # without its hyphen
    assert [q.kind for q in unnamed_qualifiers("What did the Harlan M-50 launch cost?", REPORT)] == ["code"]
    assert unnamed_qualifiers("What is grindle's default --max-depth?", MANUAL) == []
    assert [q.shown for q in unnamed_qualifiers("What is grindle's default --max-size?", MANUAL)] == [
        "max-size"
    ]
    assert [q.shown for q in unnamed_qualifiers("Which block size did grindle 5.0 use?", MANUAL)] == ["5.0"]
    assert unnamed_qualifiers("Which block size does grindle 4.2 use?", MANUAL) == []
    # a name in the path of the document counts as named
    path = "wexcombe-club/report.md"
    assert unnamed_qualifiers("What did Wexcombe pay?", "insurance EUR 1,240", path) == []


def test_a_calendar_must_state_the_date_asked() -> None:
    assert unnamed_qualifiers("When does the first Skella ferry leave on 6 May?", FERRY) == []
    missing = unnamed_qualifiers("When does the first Skella ferry leave on 9 May?", FERRY)
    assert [(q.kind, q.shown) for q in missing] == [("date", "9 May")]
    # a document that is no calendar: the date is a given of the question
    assert unnamed_qualifiers("What did the insurance cost for cover from 9 May 2023?", REPORT) == []


async def test_the_retrieval_abstains_on_a_near_miss_and_answers_the_right_row(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "treasurer-report.md").write_text(REPORT)
    adapter = hashing_adapter(docs)
    right = await ask(adapter, "What did the Wexcombe boathouse insurance cost in 2023?")
    assert right.ok and ("1,240" in right.text or "1240" in right.text)
    near = await ask(adapter, "What did the Wexcombe boathouse insurance cost in 2021?")
    assert not near.ok and near.data[ABSENT] is True and near.data["unnamed"] == ["2021"]
    assert "never names 2021" in near.text


def test_a_short_column_header_abbreviates_the_word_asked() -> None:
    """ "How many points" picks the column "Pts" over "Pos" (adapters/retrieval/extract.py)."""
    from ioa_p2p.adapters.retrieval.extract import abbreviates

    asked = {"points", "quantity", "weight"}
    assert abbreviates("Pts", asked) and abbreviates("Qty", asked) and abbreviates("Wt.", asked)
    assert not abbreviates("Pos", asked) and not abbreviates("P", asked) and not abbreviates("Club", asked)


async def test_a_fixed_width_table_answers_from_the_abbreviated_column(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bowls-league.txt").write_text(
        "ASHMERE BOWLS LEAGUE - TABLE\n\n"
        "Pos  Team              P   W   L   Pts\n"
        "  1  Ashmere Greens   12  10   2    30\n"
        "  2  Tolbury Rinks    12   8   4    24\n"
        "  3  Corrin Park      12   5   7    15\n"
    )
    found = await ask(hashing_adapter(docs), "How many points do Tolbury Rinks have in the Ashmere league?")
    assert found.ok and found.data["value"]["text"].startswith("24")


async def test_who_questions_read_a_role_or_a_label_beside_a_name(tmp_path: Path) -> None:
    """ "Who chaired" answers the name before "(chair)"; "who is the top scorer" the name a "Top scorer:"
    label names, not the club in brackets after it (adapters/retrieval/extract.py)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "choir-minutes.md").write_text(
        "# Penhallow Choir: AGM minutes\n\n"
        "Present: Ruth Delacey (treasurer), Owen Marsh (chair), Ida Fenwick (librarian).\n\n"
        "Longest-serving member: Bryn Talfan (Tregaron Tenors), 31 years.\n"
    )
    adapter = hashing_adapter(docs)
    chair = await ask(adapter, "Who chaired the Penhallow choir's AGM?")
    assert chair.ok and chair.text.startswith("Owen Marsh")
    longest = await ask(adapter, "Who is the Penhallow choir's longest-serving member?")
    assert longest.ok and longest.text.startswith("Bryn Talfan")


def test_a_temperature_the_answering_fact_does_not_hold_at() -> None:
    fact = "Opened jars keep for up to 10 days at 4 °C."
    missing = unnamed_qualifiers("How long does an opened jar keep at room temperature?", "x", "", fact)
    assert [(q.kind, q.shown) for q in missing] == [("temperature", "room temperature")]
    assert unnamed_qualifiers("How long does an opened jar keep in the fridge?", "x", "", fact) == []
    assert unnamed_qualifiers("How long does an opened jar keep at 5 °C?", "x", "", fact) == []
    assert unnamed_qualifiers("How long does an opened jar keep?", "x", "", fact) == []  # none asked


def test_a_weekday_the_answering_fact_excludes() -> None:
    fact = "Guided walks: Saturdays in June at 10:00, two hours."
    sunday = unnamed_qualifiers("When do the guided walks start on Sundays?", "x", "", fact)
    assert [(q.kind, q.shown) for q in sunday] == [("weekday", "Sunday")]
    assert unnamed_qualifiers("When do the guided walks start on Saturday?", "x", "", fact) == []
    assert (
        unnamed_qualifiers("Is the hall open on Sunday?", "x", "", "Open Friday to Sunday, 10:00-16:00") == []
    )
