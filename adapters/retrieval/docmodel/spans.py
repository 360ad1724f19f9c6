"""Spans inside a record (pure): clauses, clock times, names, causes and the branch a situation meets.

A sentence states several values in clauses ("EUR 240 for full members and EUR 95 for junior members");
:func:`clauses` cuts it where a new value starts and gives each clause the sentence's lead (the words before
its first value) so that the lead's words apply to every clause. :func:`clocks`, :func:`names` and
:func:`cause` read the typed spans a question may ask for; :func:`situation_branch` picks, for a sentence with
a fallback ("21:00 from April to September and 18:00 otherwise"), the branch the question's month or day
meets.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.docmodel.conditions import split_otherwise
from ioa_p2p.adapters.retrieval.docmodel.quantity import UNIT_ALIASES

_CLAUSE_SPLIT = re.compile(
    r";\s+|,\s+(?:and|but|while|whereas)\s+|\s+(?:and|but|while|whereas)\s+|,\s+|\s(?=\()|(?<=\))\s"
)  # a parenthesis is a clause of its own: "35 °C (AL-500X: 50 °C)"
CLOCK = re.compile(r"(?<![\d.:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_NAME = re.compile(
    r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s)?[A-Z][a-zA-Z'’-]+(?:\s(?:[A-Z][a-zA-Z'’-]+|[A-Z]\.|of|de|van|von|and|&)){0,4}"
    r"(?:\s(?:Ltd|GmbH|Inc|LLC|plc|AG|SA)\.?)?"
)
_CAUSE = re.compile(
    r"\b(?:because(?: of)?|caused by|due to|owing to|as a result of|on account of|the reason (?:was|is)|"
    r"since|was down to)\s+",
    re.I,
)
_MONTH_WORDS = "january february march april may june july august september october november december"
MONTHS = _MONTH_WORDS.split()
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_CALENDAR_WORDS = frozenset(MONTHS + DAYS + [m[:3] for m in MONTHS] + ["the", "a", "an", "this", "it"])


def clauses(text: str) -> list[tuple[int, int, str]]:
    """(start, end, words that apply) for each clause of ``text``; the lead joins every clause after it."""
    cuts = [0] + [m.end() for m in _CLAUSE_SPLIT.finditer(text)] + [len(text) + 1]
    spans = [(a, min(b, len(text))) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    if not spans:
        return [(0, len(text), text)]
    lead = text[spans[0][0] : spans[0][1]]
    out = []
    for n, (a, b) in enumerate(spans):
        words = text[a:b] if n == 0 else f"{lead} {text[a:b]}"
        out.append((a, b, words))
    return out


def clause_of(text: str, at: int) -> str:
    """The words that apply to the value at offset ``at``."""
    for a, b, words in clauses(text):
        if a <= at < b or (b == len(text) and at >= a):
            return words
    return text


def clocks(text: str) -> list[tuple[int, str]]:
    """Clock times (offset, ``HH:MM``) in order."""
    return [(m.start(), f"{int(m.group(1)):02d}:{m.group(2)}") for m in CLOCK.finditer(text)]


def names(text: str, asked: set[str]) -> list[tuple[int, str]]:
    """Proper names (offset, name) that the question does not itself use (``asked``: its lower-case words),
    not calendar words; a sentence's first word only when it is followed by another capitalised word."""
    out = []
    for m in _NAME.finditer(text):
        name = m.group().strip(" ,;:.")
        name = re.sub(r"\s+(?:of|de|van|von|and|&)$", "", name)
        words = [w.lower() for w in re.findall(r"[A-Za-z'’-]+", name)]
        if not words or all(w in _CALENDAR_WORDS or w in asked or w in UNIT_ALIASES for w in words):
            continue
        if (m.start() == 0 and len(words) == 1) or re.fullmatch(r"[A-Z\s'’-]{4,}", name):
            continue  # a sentence's first word alone, a word in capitals (a heading, not a name)
        if any(w in asked for w in words) and len(words) <= 2:
            continue
        out.append((m.start(), name))
    return out


def cause(text: str) -> str | None:
    """The cause a sentence gives: the words after "because", "caused by", "due to"...; None when none."""
    m = _CAUSE.search(text)
    if not m:
        return None
    return text[m.end() :].strip(" .;")[:300] or None


def situation_branch(text: str, question: str) -> str | None:
    """For "A <in months / on days> and B otherwise": the branch the question's month or day meets, or
    None when the text has no fallback or the question names no month or day."""
    split = split_otherwise(text)
    if split is None:
        return None
    branch, fallback = split
    low_q = question.lower()
    for names_ in (MONTHS, DAYS):
        asked = [i for i, n in enumerate(names_) if re.search(rf"\b{n}\b", low_q)]
        span = _range(branch.lower(), names_)
        if asked and span is not None:
            first, last = span
            inside = first <= asked[0] <= last if first <= last else asked[0] >= first or asked[0] <= last
            return branch if inside else fallback
    return None


def _range(text: str, names_: list[str]) -> tuple[int, int] | None:
    alts = "|".join(names_)
    m = re.search(rf"\b({alts})\s*(?:to|-|–|until|through)\s*({alts})\b", text)
    if not m:
        return None
    return names_.index(m.group(1)), names_.index(m.group(2))
