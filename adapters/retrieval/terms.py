"""The terms of a text (pure): words lower-cased and stemmed, stop words out, codes and designated nouns
("Route A") kept whole, units and the days of the week a text names; a question's terms add the attribute
its adjectives name ("heavy" -> weight). :mod:`.facts` scores facts by them.
"""

from __future__ import annotations

import re
import unicodedata

from ioa_p2p.planning.values import ALIASES, dates_in

#: A word of lower-cased text (dotted and hyphenated parts kept together).
WORD = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*")
_STOP_TEXT = """
    a an the of in on at to for by with from and or is are was were be been do does did what which
    who whom when where how much many it its this that these those there their our we i you me my
    your please tell find look up get give search according document documents docs value number
    amount what's whats s than as per into about can could would should may might will shall has
    have had any all both each every across over under after before between she he her him his they them
    us mum dad
    """
#: Words that are no content term of a question or a fact.
STOP = frozenset(_STOP_TEXT.split())
#: A model or product code ("x7", "ir-2291").
CODE = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z]+-?\d+[a-z]?$")
_DIGIT_CODE = re.compile(r"\d{1,4}[A-Z]{1,3}")
#: question words that name an attribute under another word
SYNONYMS = {
    "longest": "maximum",
    "most": "maximum",
    "shortest": "minimum",
    "least": "minimum",
    "heavy": "weight",
    "heavier": "weight",
    "weigh": "weight",
    "lighter": "weight",
    "light": "weight",
    "cost": "price",
    "costs": "price",
    "expensive": "price",
    "cheaper": "price",
    "pay": "price",
    "long": "length",
    "longer": "length",
    "sold": "sell",
    "sale": "sell",
    "sales": "sell",
    "effect": "valid",
    "effective": "valid",
    "teaches": "tutor",
    "teach": "tutor",
    "taught": "tutor",
    "teacher": "tutor",
    "reach": "arr",
    "reaches": "arr",
    "arrive": "arr",
    "arrives": "arr",
    "arrival": "arr",
    "leave": "dep",
    "leaves": "dep",
    "depart": "dep",
    "departs": "dep",
    "departure": "dep",
}


def stem(word: str) -> str:
    if re.search(r"(ch|sh|x|ss|z)es$", word) and len(word) > 5:
        return word[:-2]
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if (
            len(word) > len(suffix) + 2
            and not word.endswith("ss")
            and word.endswith(suffix)
            and not CODE.match(word)
        ):
            word = word[: -len(suffix)] + keep
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "ls":
                word = word[:-1]  # capped -> cap, shipped -> ship
            return word
    return word


_PER_WORDS = {
    "h": "hour", "hr": "hour", "d": "day", "min": "minute", "hourly": "hour", "daily": "day",
    "nightly": "night", "weekly": "week", "monthly": "month", "yearly": "year", "annual": "year",
    "annually": "year",
}  # fmt: skip
_PER_UNIT = re.compile(
    r"(?:/|\b)(h|hr|d|min|hourly|daily|nightly|weekly|monthly|yearly|annual|annually)\b(?!\.\d)", re.I
)
_DESIGNATED = re.compile(r"\b([A-Za-z]{3,}) ([A-Z](?:\+[A-Z])*(?![\w+])|\d{1,3}\b)(?![.,:]?\d)")


def terms(text: str, *, years: bool = True) -> set[str]:
    """Content terms: lower-cased, stemmed, stop words out; hyphenated codes kept whole and in parts; a
    noun with a designator ("Route A", "Zone 4", "Line 2") also as one term (``route#a``)."""
    designated = list(_DESIGNATED.finditer(text))  # "Band D", "Zone H": a designator, never "per day"
    out: set[str] = {f"{stem(m.group(1).lower())}#{m.group(2).lower()}" for m in designated}
    ends = {m.start(2) for m in designated if m.group(2).isalpha()}

    def per_word(m: re.Match[str]) -> str:
        return m.group(0) if m.start(1) in ends else " " + _PER_WORDS[m.group(1).lower()]

    text = _PER_UNIT.sub(per_word, text)  # "RATE/h": a rate per hour
    for token in WORD.findall(folded(text.lower())):
        parts = [token, *token.split("-")] if "-" in token else [token]
        year = re.fullmatch(r"[a-z]{1,3}((?:19|20)\d{2})", token) if years else None
        if year:  # a fact's FY2023 is about 2023 too (a question's FY2023 stays precise)
            parts.append(year.group(1))
        parts = [_ORDINALS.get(p, p) for p in parts]  # "first prize" meets a "1st" column
        out.update(stem(p) for p in parts if p not in STOP and (len(p) > 1 or p.isdigit()))
    return out


def folded(text: str) -> str:
    """``text`` without accents ("canapé", "crème brûlée" -> "canape", "creme brulee"): a question typed
    with or without them meets the document's words either way."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
#: a "1st" column is the question's "first" (a word, not a figure: "1st" is no quantity)
_ORDINALS = {f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}": w
             for n, w in enumerate(_ORDINAL_WORDS, 1)}  # fmt: skip


def unit_terms(text: str) -> set[str]:
    """The units a text names, as terms ("litres" and "(L/min)" meet as ``u_l``): the fact scorer's only."""
    return {
        f"u_{ALIASES[t].lower()}" for t in WORD.findall(text.lower()) if t in ALIASES and t not in ("s", "t")
    }


def named_terms(question: str) -> set[str]:
    """Terms of the question's codes (X7, IR-2291) and capitalised words after its first word."""
    words = re.findall(r"[A-Za-z0-9]+(?:[.\-][A-Za-z0-9]+)*", question)
    out = {stem(w.lower()) for w in words[1:] if w[:1].isupper() and w.lower() not in STOP}
    out |= {w.lower() for w in words if _DIGIT_CODE.fullmatch(w)}  # "the 10K", "Flat 4B": names
    return out | {t for t in terms(question) if CODE.match(t)}


def question_terms(text: str) -> set[str]:
    """A question's terms, with the attribute its adjectives and verbs name ("heavy" -> weight) and the
    kind of day a day or date is ("Saturday", "14 June 2025" -> weekend)."""
    words = {w for w in WORD.findall(text.lower())}
    out = terms(text, years=False) | {stem(SYNONYMS[w]) for w in words if w in SYNONYMS} | unit_terms(text)
    days = {d.weekday() for _, _, d in dates_in(text)} | {i for i, d in enumerate(_WEEKDAYS) if d in words}
    if days and all(d >= 5 for d in days):
        out.add("weekend")
    elif days and all(d < 5 for d in days):
        out.add("weekday")
    return out


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = r"(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?"
_DAY_RANGE = re.compile(rf"\b{_DAY}\s*(?:-|–|to|until|through|thru)\s*{_DAY}(?![a-z])", re.I)
_ONE_DAY = re.compile(rf"\b{_DAY}(?![a-z])", re.I)


def weekdays_in(text: str) -> set[int]:
    """The days of the week a text names (0 = Monday): ranges ("Tuesday to Friday", "Mon-Fri") in full,
    "weekdays" / "weekends", single days ("Saturday and Sunday")."""
    low = text.lower()
    out: set[int] = set()
    for m in _DAY_RANGE.finditer(low):
        a, b = _DAY_INDEX[m.group(1)], _DAY_INDEX[m.group(2)]
        out |= {(a + i) % 7 for i in range((b - a) % 7 + 1)}
    rest = _DAY_RANGE.sub(" ", low)
    out |= {_DAY_INDEX[m.group(1)] for m in _ONE_DAY.finditer(rest) if _plausible_day(m.group(0))}
    if re.search(r"\bweekdays?\b|\bworking days?\b", low):
        out |= {0, 1, 2, 3, 4}
    if re.search(r"\bweekends?\b", low):
        out |= {5, 6}
    return out


_DAY_INDEX = {d[:3]: i for i, d in enumerate(_WEEKDAYS)}


def _plausible_day(word: str) -> bool:
    """A weekday's name or its usual abbreviation ("Sat", "Sun."), not a word that starts like one."""
    w = word.lower().rstrip(".")
    return w in _WEEKDAYS or len(w) == 3 or w in ("tues", "thur", "thurs", "weds")


__all__ = [
    "CODE",
    "STOP",
    "SYNONYMS",
    "WORD",
    "folded",
    "named_terms",
    "question_terms",
    "stem",
    "terms",
    "unit_terms",
    "weekdays_in",
]
