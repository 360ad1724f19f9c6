"""The people a question is about (pure): how many, and the age of those whose age it states.

A per-person rate needs a count of people, and rules by age ("children under 12 eat for half price",
"guests under 16 don't pay it") need to know who is which age. Questions say it in many ways: "three
friends", "two adults and our 9-year-old", "2 adults and two kids aged 7 and 10", "two of us", "a couple",
"I'm staying alone". :func:`party_of` reads them into :class:`Member` groups (a count, and the age when
stated; an adult's age is left unknown); None when the question names no people.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.doc_facts import WORD_NUMBERS

_NUM = r"(\d{1,3}|" + "|".join(w for w in WORD_NUMBERS if " " not in w) + r")"
_PEOPLE = (
    r"adults?|friends|people|persons|guests|seniors|students|passengers|kids|children|teenagers|teens|"
    r"members|colleagues|visitors|pupils|travellers|walkers|riders|participants|attendees|delegates|us"
)
_GROUP = re.compile(
    rf"(?<![/.\d-])\b{_NUM}\s+(?:of\s+(?=us\b|them\b))?({_PEOPLE}|them)\b(?:\s+aged\s+([\d ,and]+))?", re.I
)
_YEAR_OLD = re.compile(r"\b(?:a|an|one|our|my|their|his|her)\s+(\d{1,2})[- ]years?[- ]old\b", re.I)
_COUPLE = re.compile(r"\b(?:a|the) couple\b|\bboth of us\b|\bwe both\b|\bmy (?:wife|husband|partner) and I\b",
                     re.I)  # fmt: skip
_ALONE = re.compile(r"\b(?:alone|on my own|by myself|just me|for myself|solo)\b", re.I)
#: "I'm 67 and ...", "I am 16, ...": the age of the one who asks (never "I'm 3 km away")
_I_AM = re.compile(r"\bI(?:'m|’m|\s+am)\s+(\d{1,3})(?:\s+years?\s+old)?(?=\s*(?:,|\.|;|\band\b|\bwith\b|$))")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I'll|I've|me|my)\b")


#: a person's age the request states ("I'm 70 and", "my daughter is 9 and", "aged 12", "a 9-year-old")
_AGE = re.compile(
    r"\b(?:I'm|I’m|I am|(?:he|she)(?:'s| is)|(?:daughter|son|child|kid|wife|husband|partner|mum|dad|mother"
    r"|father)\s+is)\s+(\d{1,3})(?:\s+years?\s+old)?(?=\s*(?:,|\.|;|\band\b|\bwith\b|$))"
    r"|\b(?:aged|age)\s+(\d{1,3})\b|\b(\d{1,3})[- ]years?[- ]old\b",
    re.I,
)


def age_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` states a person's age (the number's span): a number there counts nothing."""
    return [m.span(next(i for i in (1, 2, 3) if m.group(i))) for m in _AGE.finditer(text)]


@dataclass(frozen=True, slots=True)
class Member:
    """``count`` people of the question; ``age`` when it states theirs."""

    count: float
    age: float | None = None
    kind: str = ""


def party_of(question: str) -> tuple[Member, ...] | None:
    """The people ``question`` is about (see the module docstring); None when it names none."""
    out: list[Member] = []
    for m in _GROUP.finditer(question):
        n = _number(m.group(1))
        kind = m.group(2).lower()
        ages = [float(a) for a in re.findall(r"\d{1,2}", m.group(3) or "")]
        if ages and len(ages) == n:
            out.extend(Member(1.0, a, kind) for a in ages)
        else:
            out.append(Member(n, None, kind))
    out.extend(Member(1.0, float(m.group(1)), "year-old") for m in _YEAR_OLD.finditer(question))
    if out:
        return tuple(out)
    if _COUPLE.search(question):
        return (Member(2.0),)
    me = _I_AM.search(question)
    if me is not None and 0 < float(me.group(1)) <= 110:
        return (Member(1.0, float(me.group(1))),)
    if _ALONE.search(question) or _FIRST_PERSON.search(question):
        return (Member(1.0),)
    return None


def head_count(party: tuple[Member, ...]) -> float:
    return sum(m.count for m in party)


def counted(party: tuple[Member, ...]) -> frozenset[str]:
    """The words the question counts people with ("friends", "adults"): a count of them is the party's."""
    return frozenset(m.kind for m in party if m.kind)


def _number(raw: str) -> float:
    low = raw.lower()
    return float(WORD_NUMBERS[low]) if low in WORD_NUMBERS else float(raw)


__all__ = ["age_spans", "Member", "counted", "head_count", "party_of"]
