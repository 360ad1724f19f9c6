"""Whether a value read from a fact is of the kind the question asks for (pure): an answer whose type does not
match the question is not given; the next fact is tried, and the question is refused when none fits.

- "how many sessions": a number a prose fact states of another counted thing ("5 credits", "12 books",
  "4 unwaxed lemons") counts something else;
- "how long does the ride take": a period said with "every" ("every 20 minutes") is how often, not how
  long; "how often ...": an answer must be a period or a count, never a share or an amount of money;
- "in which month": a month's name; "on which day of the week": a weekday's name.

:func:`misfit` says what is wrong (for the adapter's log and its tests), or None when the value fits.
"""

from __future__ import annotations

import os
import re

from ioa_p2p.adapters.retrieval.terms import STOP, question_terms, terms
from ioa_p2p.planning.answer_types import TIME_UNITS, answer_type, attribute_units
from ioa_p2p.planning.values import ALIASES, MONTHS, Value

_HOW_MANY = re.compile(r"\bhow many ([a-z][a-z-]+)", re.I)
_HOW_OFTEN = re.compile(r"\bhow often\b|\bhow frequently\b|\b(?:interval|frequency)\b", re.I)
_HOW_LONG = re.compile(r"\bhow long\b|\bhow much time\b", re.I)
_AUXILIARY = frozenset("may can do does did is are was were will would should must could have has".split())  # noqa: SIM905
#: "route#b", "zone#c", "band#4": a family word and a short code, never a band's bound ("over#200")
_DESIGNATOR = re.compile(r"(?!(?:over|under|up|from|to|above|below|at|time|for)#)[a-z]{3,}#[a-z0-9]{1,3}")
_PER_TIME = re.compile(r"\b(?:in|per|a|an|each|every) (second|minute|hour|day|week|month|year)\b(?!s)", re.I)
_HOW_MUCH = re.compile(r"\bhow much ([a-z]+)\b", re.I)
_WHICH_MONTH = re.compile(r"\b(?:which|what) month\b", re.I)
_WHICH_WEEKDAY = re.compile(r"\b(?:which|what) (?:day of the week|weekday)\b|\bon which day\b", re.I)
_WEEKDAYS = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day", re.I)
_EVERY = re.compile(r"\bevery\s+$", re.I)
#: words that may stand between a count and the thing counted ("2 resident permits", "3 more bags")
_BETWEEN = frozenset("more extra further additional other free full new old small large whole".split())  # noqa: SIM905


def misfit(question: str, fact_text: str, value: Value, in_table: bool = False) -> str | None:
    """Why ``value`` (read from ``fact_text``) does not answer ``question``'s kind; None when it does."""
    text = fact_text.split("\0")[0]
    if _WHICH_MONTH.search(question):
        words = re.findall(r"[a-z]+", value.text.lower())
        return None if any(w in MONTHS for w in words) else "a month is asked"
    if _WHICH_WEEKDAY.search(question) and value.kind != "date":
        return None if _WEEKDAYS.search(value.text) else "a day of the week is asked"
    other = _other_designator(question, text)
    if other:
        return f"the fact is about {other}"  # "ROUTE A ... crossing time 55 minutes" for Route B
    if value.kind != "number" or value.number is None:
        return None
    rate = answer_type(question)
    latin = rate.per.split()[0] in ("diem", "annum", "capita", "cent", "centum") if rate.per else False
    if rate.per and not latin and value.unit == "%" and "%" not in rate.units:  # "60 % of the A5 rate"
        return f"a rate per {rate.per} is asked, not a share"
    if _HOW_OFTEN.search(question):
        if value.unit and value.unit not in TIME_UNITS:  # "2.5 ml", "5 %", "EUR 20": not how often
            return "how often: a period or a count is asked, not a share or an amount"
        return None
    per = _PER_TIME.search(question)
    if per and value.unit == ALIASES.get(per.group(1).lower()):  # "10 days" for "the most ... in a day"
        return f"an amount per {per.group(1)} is asked, not a number of {per.group(1)}s"
    much = _HOW_MUCH.search(question)
    said = much is not None and much.group(1)[:5].lower() in fact_text.lower()  # "notice" of a notice table
    if (
        much
        and value.unit in TIME_UNITS
        and not attribute_units(much.group(1))
        and _substance(much.group(1))
        and not said
    ):
        return f"how much {much.group(1)}: an amount of it is asked, not a period"  # "2 min" of buttermilk
    if _HOW_LONG.search(question) and _said_with_every(text, value):
        return "how long: a period said with 'every' is how often"
    noun = _counted(question)
    if noun and not in_table:
        other = _counts_other(text, value, noun)
        if other:
            return f"how many {noun}: the fact's {value.text} counts {other}"
    return None


def bare_clock_count(question: str, value: Value, table_text: str) -> bool:
    """ "How many hours ...": a table's bare figure whose caption says it counts other things per period
    ("Mathematics | 8 | 7" under "LESSONS PER FORTNIGHT") and never speaks of hours or minutes counts
    those things, not hours."""
    asked = answer_type(question)
    if asked.kind != "duration" or not set(asked.units) <= {"h", "min", "s"} or value.unit:
        return False
    counted = re.search(r"\b([a-z]+s) per (?:week|fortnight|month|day|term|year)\b", table_text, re.I)
    if counted is None or re.match(r"(?:hour|hr|minute|min|second|sec)s$", counted.group(1), re.I):
        return False  # only a table that says what else it counts ("LESSONS PER FORTNIGHT")
    return not re.search(r"\b(?:hours?|hrs?|h|minutes?|mins?|seconds?|secs?)\b", table_text, re.I)


def unnamed_row(question: str, cells: tuple[tuple[str, str], ...]) -> bool:
    """A table row keyed by words none of which the question uses, not even by its stem ("Science | 6 | 8"
    for "hours of maths"): the question names another row. Rows keyed by figures or bands (a quantity the
    question states picks them) and rows of one word cell the question's words cannot reach are kept."""
    key = cells[0][1].strip() if cells else ""
    if not key or re.search(r"\d", key) or re.search(rf"(?<!\w){re.escape(key)}(?!\w)", question, re.I):
        return False  # ("M | Ford Transit Custom | 75.00" for "a size M van": the key itself is named)
    asked = [w for w in re.findall(r"[a-z]{3,}", question.lower()) if w not in STOP]
    words = [w for _, c in cells if not re.search(r"\d", c) for w in re.findall(r"[a-z]{3,}", c.lower())]
    words = [w for w in words if w not in STOP]
    return bool(words) and not any(
        _same_thing(w, a) or w[:4] == a[:4] and len(a) >= 4 for w in words for a in asked
    )


def _other_designator(question: str, text: str) -> str:
    """A designator of the family the question names ("Route B") that ``text`` gives another member of
    ("ROUTE A"), never the asked one: what the fact is about instead ("route a"); "" otherwise."""
    asked = {t for t in question_terms(question) if _DESIGNATOR.fullmatch(t)}
    if not asked:
        return ""
    own = {t for t in terms(text) if _DESIGNATOR.fullmatch(t)}
    for t in sorted(asked):
        family = t.split("#")[0]
        others = sorted(o for o in own if o.split("#")[0] == family and o != t)
        if others and t not in own:
            return others[0].replace("#", " ")
    return ""


def calendar_word(question: str, text: str) -> str | None:
    """ "In which month ...": the month's name ``text`` states; "on which day of the week": the weekday's."""
    if _WHICH_MONTH.search(question):
        names = [w for w in re.findall(r"[A-Z][a-z]+", text) if w.lower() in MONTHS and len(w) > 3]
        return names[0] if len(set(names)) == 1 else None
    if _WHICH_WEEKDAY.search(question):
        days = {m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+day\b", text) if _WEEKDAYS.match(m.group(0))}
        return days.pop() if len(days) == 1 else None
    return None


def states_count(question: str, text: str) -> bool:
    """ "how many jars" over "(makes 3 jars of 250 ml)": ``text`` states a number of the thing counted."""
    noun = _counted(question)
    if not noun:
        return False
    stem = re.escape(noun[: max(4, len(noun) - 2)])
    return bool(re.search(rf"\d[\d,.]*\s+(?:million\s+|thousand\s+)?(?:[a-z-]+\s+)?{stem}", text, re.I))


def counts_other(question: str, text: str, end: int) -> bool:
    """The words right after offset ``end`` of ``text`` count another thing than a "how many" question does
    ("1,840 customers" for "how many requests")."""
    noun = _counted(question)
    return bool(noun) and bool(_counted_word(text[end : end + 40], noun))


def _substance(word: str) -> bool:
    """ "how much buttermilk": a thing measured, not a verb or a pronoun ("how much is", "how much do")."""
    return word.lower() not in STOP and word.lower() not in _NOT_SUBSTANCE and not word.endswith("ly")


_NOT_SUBSTANCE_WORDS = "is are was were do does did will would can could should may might must it money cash "
_NOT_SUBSTANCE = frozenset((_NOT_SUBSTANCE_WORDS + "more less time longer extra altogether overall").split())


def _counted(question: str) -> str:
    """The thing a "how many" question counts ("sessions"), when it is no unit ("how many days": a period)."""
    if answer_type(question).kind != "count":
        return ""
    m = _HOW_MANY.search(question)
    phrase: list[str] = []  # "how many visitor vouchers may ...": the phrase's head noun, "vouchers"
    for w in re.findall(r"[a-z][a-z-]*", question[m.end(1) - len(m.group(1)) :].lower()) if m else []:
        if w in STOP or w in _AUXILIARY or len(phrase) == 4 or phrase and w.endswith(("ed", "ing")):
            break
        phrase.append(w)
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            break  # the plural ends the noun phrase ("customers opened tickets": customers)
    word = phrase[-1] if phrase else ""
    return "" if not word or word in ALIASES else word


def _said_with_every(text: str, value: Value) -> bool:
    """Every mention of the value's number in ``text`` follows "every" ("every 20 minutes")."""
    spots = _mentions(text, value)
    return bool(spots) and all(_EVERY.search(text[max(0, s - 12) : s]) for s, _ in spots)


def _counts_other(text: str, value: Value, noun: str) -> str:
    """The word every mention of the value's number counts, when it is no form of ``noun`` (nor a unit, nor a
    word the count may precede it by); "" when a mention counts ``noun`` or counts nothing said."""
    others = []
    for _, end in _mentions(text, value):
        counted = _counted_word(text[end : end + 40], noun)
        if not counted:
            return ""
        others.append(counted)
    return others[0] if others else ""


def _counted_word(after: str, noun: str) -> str:
    """The thing the words ``after`` a number count when it is not ``noun`` ("credits" of "5 credits" for
    sessions); "" when they count ``noun`` ("2 resident permits") or nothing ("18 on race day")."""
    words = re.findall(r"[A-Za-z][a-z-]*", after)[:3]
    if not re.match(r"\s*[A-Za-z]", after) or any(_same_thing(w.lower(), noun) for w in words):
        return ""
    first = next((w for w in words if w.lower() not in _BETWEEN), "")
    low = first.lower()
    return low if first[:1].islower() and low not in STOP and low not in ALIASES else ""


def _same_thing(word: str, noun: str) -> bool:
    """Two spellings of one counted thing: a common start of 4 letters or more covering most of the
    shorter ("session" / "sessions", "permit" / "permits"; "place" / "places")."""
    n, shorter = len(os.path.commonprefix([word, noun])), min(len(word), len(noun))
    return word == noun or (n >= min(4, shorter) and n >= 0.75 * shorter)  # ("dvd" / "dvds")


def _mentions(text: str, value: Value) -> list[tuple[int, int]]:
    """Where ``text`` states the value's number (as the value was read: "12", "1,312", "0.5")."""
    shown = re.escape(re.sub(r"^[A-Z]{3}\s*|\s*[A-Za-z%°].*$", "", value.text.strip()) or value.text)
    return [(m.start(), m.end()) for m in re.finditer(rf"(?<![\d.,]){shown}(?![\d]|[.,]\d)", text)]


__all__ = ["calendar_word", "counts_other", "misfit", "states_count", "unnamed_row", "bare_clock_count"]
