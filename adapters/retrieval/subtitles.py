"""Subtitle files (SRT, WebVTT) read as what was said (pure): a video's or a call's words, cue by cue.

A subtitle file numbers its cues and times them (``4`` / ``00:00:15,500 --> 00:00:21,900``) and wraps
what is said over two lines. Read as plain text, the cue number and both time stamps run into the
sentence ("4 00:00:15,500 --> 00:00:21,900 A full service is eighty-five pounds"), so the time stamp's
"21,900" reads as the figure asked and a sentence split over two cues is two facts. Rendered here:

- the cue numbers, time lines and the ``WEBVTT`` header dropped; each cue's lines joined into one line,
  a blank line between cues (a cue is one paragraph: its sentences are facts of their own);
- numbers said in words as digits ("eighty-five pounds" -> "£85", "a hundred and forty pounds" ->
  "£140", "three working days" -> "3 working days"): speech writes out what a price list prints, and
  money said so is signed (conversation.py's ``spoken_money``).

A file is read so when its suffix is ``.srt`` or ``.vtt``, or when at least :data:`MIN_CUES` of its lines
are cue timings.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.conversation import spoken_money
from ioa_p2p.planning.literal import digits

MIN_CUES = 3
SUBTITLE_FORMATS = frozenset({".srt", ".vtt", ".sbv"})
_TIMING = re.compile(
    r"^\s*(?:\d{1,2}:)?\d{1,2}:\d{2}[,.]\d{1,3}\s*-->\s*(?:\d{1,2}:)?\d{1,2}:\d{2}[,.]\d{1,3}\b.*$"
)
_CUE_NUMBER = re.compile(r"^\s*\d{1,6}\s*$")
_HEADER = re.compile(r"^\s*WEBVTT\b|^\s*(?:NOTE|STYLE|REGION)\b")
_ONES = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}  # fmt: skip
_SMALL = rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(list(_ONES)[:9])}))?|{'|'.join(_ONES)})"
_HUNDREDS = re.compile(rf"\b(a|one|{'|'.join(list(_ONES)[:9])}) hundred(?: and ({_SMALL}))?\b", re.IGNORECASE)
_MONEY_WORD = re.compile(rf"\b({_SMALL})(?= (?:pounds?|quid|euros?|dollars?|pence)\b)", re.IGNORECASE)


def is_subtitles(suffix: str, text: str) -> bool:
    """Whether ``text`` (of a file ending in ``suffix``) is a subtitle file."""
    if suffix in SUBTITLE_FORMATS:
        return True
    return sum(1 for line in text.splitlines()[:4000] if _TIMING.match(line)) >= MIN_CUES


def render_subtitles(suffix: str, text: str) -> str | None:
    """``text`` as its cues' words, a paragraph per cue (see the module docstring); None for no subtitles."""
    if not is_subtitles(suffix, text):
        return None
    out: list[str] = []
    cue: list[str] = []
    for line in text.splitlines():
        if _TIMING.match(line) or _HEADER.match(line):
            continue
        if _CUE_NUMBER.match(line) and not cue:
            continue
        if not line.strip():
            if cue:
                out += [said(" ".join(cue)), ""]
                cue = []
            continue
        cue.append(re.sub(r"<[^>]{1,40}>", "", line.strip()))  # WebVTT's <i>, <v Dana> voice tags
    if cue:
        out.append(said(" ".join(cue)))
    return "\n".join(out)


def said(text: str) -> str:
    """Numbers said in words as digits, money said so signed ("eighty-five pounds" -> "£85"), and a
    number said alone closing a clause after one with its unit given that unit ("3 working days; for a
    premium service, allow five" -> "allow 5 working days"; never "or 9 if ...": another thing's)."""
    text = _HUNDREDS.sub(_hundreds, text)
    text = _MONEY_WORD.sub(lambda m: str(_small(m.group(1))), text)
    text = spoken_money(digits(text))
    return ". ".join(_elided(sentence) for sentence in text.split(". "))


#: a figure with its unit: a sign before it or a unit's words after it ("£12", "3 working days")
_STATED = re.compile(r"(?P<sign>[£€$])\d[\d,.]*|\b\d+(?P<unit> (?:working |calendar |business )?[a-z]+s)\b")
#: a number said alone, closing a clause: "allow five.", "about 40,"
_ALONE = re.compile(
    rf"\b(?P<lead>allow|about|around)\s+(?P<n>\d+|{_SMALL})(?=\s*(?:[.,;!?]|$))",
    re.IGNORECASE,
)


def _elided(sentence: str) -> str:
    stated = list(_STATED.finditer(sentence))
    if not stated:
        return sentence
    first = stated[0]

    def given(m: re.Match[str]) -> str:
        if m.start() < first.end():
            return m.group(0)
        n = m.group("n") if m.group("n").isdigit() else str(_small(m.group("n")))
        if first.group("sign"):
            return f"{m.group('lead')} {first.group('sign')}{n}"
        return f"{m.group('lead')} {n}{first.group('unit')}"

    return _ALONE.sub(given, sentence)


def _small(words: str) -> int:
    parts = re.split(r"[- ]", words.lower())
    return sum(_TENS.get(p, 0) + _ONES.get(p, 0) for p in parts)


def _hundreds(m: re.Match[str]) -> str:
    head = m.group(1).lower()
    count = 1 if head in ("a", "one") else _ONES[head]
    return str(100 * count + (_small(m.group(2)) if m.group(2) else 0))


__all__ = ["MIN_CUES", "SUBTITLE_FORMATS", "is_subtitles", "render_subtitles", "said"]
