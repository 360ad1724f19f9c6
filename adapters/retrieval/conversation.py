"""Call transcripts and chat exports read as one list item per turn, line for line (pure).

A call recording's transcript (``[00:20] Priya: So our call-out charge is 75 pounds``) and a messenger's
chat export (``[02/09/2026, 19:05:40] Maeve (chair): Subs this term are £65``, or the
``02/09/2026, 19:05 - Maeve: ...`` form) are plain text whose lines run together into one paragraph for
the passage reader: a sentence then spans two speakers, the time stamps read as times of day and the
question's answer sits among the caller's questions. They are recognised by content (three or more lines
that open with a time stamp or a chat date and a speaker's name) and rendered line for line:

- each turn a list item ``- Speaker: words`` (the stamp dropped: it is when something was said, not a
  value of what was said), so every turn is a fact of its own; a line that continues a turn is kept,
  indented, under it;
- money said in words, as speech recognition writes it (``75 pounds``, ``a 30 pound fee``,
  ``12 euros``, ``40 quid``), with its sign (``£75``, ``EUR 12``) so it reads as a price;
- a time of day written informally (``7.30pm``) a clock time (``7:30 pm``, layout.py);
- in a chat export, a date said without its year (``Sat 7 Nov``, ``FRIDAY 11 Dec``) given the year of
  its first occurrence on or after the message's own date (``7 Nov 2026`` in a message of 2 September
  2026; ``10 Jan 2027`` in one of December 2026), so it reads as a date;
- in a chat export, a message that corrects or updates an earlier one (``Update: ...``, ``Sorry, ...
  not Thursday``, ``now £70``) is kept as written; the header and footer lines (``Date:``, ``--- end of
  transcript ---``) too.
"""

from __future__ import annotations

import re
from datetime import date

from ioa_p2p.adapters.retrieval.layout import clock_times
from ioa_p2p.planning.values import MONTHS

#: the suffixes whose text is tested for a conversation (other formats have their own structure)
CONVERSATION_FORMATS = frozenset({".txt", ".text", ".log", ".chat", ""})
MIN_TURNS = 3
_SPEAKER = r"(?P<who>[A-Z][\w.'&-]*(?: [\w.'&-]+){0,3}(?: \([^)]{1,30}\))?)"
_STAMP = re.compile(r"^\s*\[(?P<at>\d{1,2}:\d{2}(?::\d{2})?)\]\s*" + _SPEAKER + r"\s*:\s*(?P<said>.*)$")
_CHAT = re.compile(
    r"^\s*\[?(?P<day>\d{1,4}[./-]\d{1,2}[./-]\d{1,4}),?\s+(?P<at>\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?)\]?"
    r"\s*(?:-\s*)?" + _SPEAKER + r"\s*:\s*(?P<said>.*)$"
)
_WORD_MONEY = re.compile(
    r"\b(?P<num>\d+(?:[.,]\d+)*)\s*(?P<word>pounds?|quid|euros?|dollars?|francs?)\b(?!\s+(?:of|in weight))",
    re.I,
)
_SIGNS = {"pound": "£", "quid": "£", "euro": "EUR ", "dollar": "$", "franc": "CHF "}


def render_conversation(suffix: str, text: str) -> str | None:
    """``text`` with one list item per turn when it is a transcript or chat export; None otherwise."""
    if suffix not in CONVERSATION_FORMATS:
        return None
    lines = text.splitlines()
    pattern = _turn_pattern(lines)
    if pattern is None:
        return None
    out: list[str] = []
    in_turn = False
    for line in lines:
        turn = pattern.match(line)
        if turn:
            said = clock_times(spoken_money(turn.group("said")))
            sent = _day_of(turn.groupdict().get("day") or "")
            out.append(f"- {turn.group('who')}: {with_years(said, sent) if sent else said}".rstrip())
            in_turn = True
        elif in_turn and line.startswith((" ", "\t")) and line.strip():
            out.append("  " + spoken_money(line.strip()))
        else:
            in_turn = False
            out.append(spoken_money(line))
    return "\n".join(out)


def _turn_pattern(lines: list[str]) -> re.Pattern[str] | None:
    """The turn pattern at least :data:`MIN_TURNS` lines (and a third of the non-blank ones) match."""
    filled = [line for line in lines[:5000] if line.strip()]
    for pattern in (_CHAT, _STAMP):
        turns = sum(1 for line in filled if pattern.match(line))
        if turns >= MIN_TURNS and 3 * turns >= len(filled):
            return pattern
    return None


def spoken_money(text: str) -> str:
    """Money written out as speech ("75 pounds", "a 30 pound fee") with its sign ("£75")."""

    def signed(m: re.Match[str]) -> str:
        word = m.group("word").lower().rstrip("s")
        return _SIGNS[word] + m.group("num")

    return _WORD_MONEY.sub(signed, text)


_DAY_MONTH = re.compile(
    r"\b(?P<d>[0-3]?\d)(?:st|nd|rd|th)?\s+(?P<mn>[A-Za-z]{3,9})\.?(?P<year>,?\s+\d{4})?(?![A-Za-z])"
)


def with_years(text: str, sent: date) -> str:
    """``text`` with each day-and-month date lacking a year given the year that puts it on or after
    ``sent`` (the day the message was sent)."""

    def dated(m: re.Match[str]) -> str:
        month = MONTHS.get(m.group("mn").lower())
        if m.group("year") or not month:
            return m.group(0)
        try:
            year = sent.year + (date(sent.year, month, int(m.group("d"))) < sent)
            date(year, month, int(m.group("d")))
        except ValueError:
            return m.group(0)
        return f"{m.group(0)} {year}"

    return _DAY_MONTH.sub(dated, text)


def _day_of(stamp: str) -> date | None:
    """A chat export's message date: ``02/09/2026`` (day first), ``2026-09-02``, ``9/2/26`` read day first
    unless the day cannot be a month's."""
    parts = re.split(r"[./-]", stamp)
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    a, b, c = (int(p) for p in parts)
    year, first, second = (a, b, c) if len(parts[0]) == 4 else (c if c >= 100 else 2000 + c, a, b)
    if len(parts[0]) == 4:
        first, second = c, b  # ISO: year-month-day
    day, month = (first, second) if second <= 12 else (second, first)
    try:
        return date(year, month, day)
    except ValueError:
        return None
