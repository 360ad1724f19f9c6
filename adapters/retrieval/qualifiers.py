"""A question's qualifiers that the document an answer is read from must name (pure).

"What was the water bill for 2024?" over minutes that give the 2025 bill, "the KD-6's flight controller"
over the KD-4's bill of materials, "the rate limit in API v1" over a reference for v2 and v3, "tarnsync
3.0" over the page of tarnsync 2.6, "Kelby Town's points" over a table without that club: the best row
is a **near miss**, and its value answers another question. The retrieval abstains (the task fails as
``absent``, so the planner names the value missing, exit 3) when the document the answer comes from names
none of the forms of one of the question's qualifiers:

- a **year** standing alone or a season ("for 2024", "the 2024-25 season"; never the year of a full date
  such as "on 3 May 2025", which is usually a quantity the question gives, not a selector);
- a **version** ("v1", "version 2", "rev 5", "release 4.2", "3.4.1", a dotted number right after a name:
  "tarnsync 3.0");
- an **item code** (letters then digits: "KD-6", "QP-4031", "X7"), matched with or without its hyphen;
- an **option or compound name** ("--max-file-size", "max-file-size"), matched with hyphens, spaces or
  neither;
- a **proper name** (a capitalised word after the question's first word: "Kelby"; never a month, a
  weekday, a unit or a currency), matched on word boundaries, its plural and possessive too;
- a **day of the week** ("on Sundays") when the answering fact holds on other days only ("Saturdays in
  April at 14:00"; "Friday to Sunday" holds on Sunday);
- a **temperature** ("kept at room temperature") when the answering fact states only temperatures more
  than 3 °C away ("at 4 °C for up to 3 days");
- a **group** ("a Standard member") when the answering fact is limited to another group the question does
  not name ("Gold members may instead ...") and the document tells the groups apart (a key line
  "Standard: ..." or "Standard members ...");
- a group the asker says they are **outside of** ("I'm not a member", "a non-resident") when the
  answering fact is limited to it ("£295 for members only", "members' rate only");
- a **calendar date** (day and month) when the document is a calendar (three or more of its lines open
  with a date) and states this one in none of its forms ("12 April" where the rows run from 1 to 7 April).

Names are not checked in a question that describes the asker's own situation ("I'm flying to Dubai",
"my trip to Singapore"): there the places are what the rules apply to; nor a name before a designator
("Flat 4B").

Only classes that name *which* thing is asked are checked: ordinary words are not (a question paraphrases
freely: "how long does it wait" over "Seconds to wait"), nor numbers (a quantity the question gives). The
classes were chosen on the readable train and dev splits: none of their right answers has such a
qualifier missing from its document (``bench/abstention_stats.py`` counts it; docs/performance.md, "Third
probe set").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ioa_p2p.adapters.retrieval.terms import weekdays_in
from ioa_p2p.planning.values import ALIASES, CURRENCIES, MONTHS, dates_in

_WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
_DAY_ABBR = frozenset(["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"])
_FRAME_WORDS = """
    the a an what which who whom whose when where why how is are was were does do did can could would should
    will may please tell find look get give compute calculate work run add take convert multiply divide
    subtract then and or if in on at for of by to with from per eur usd gbp chf euro euros dollar dollars
    pound pounds i we my our you your it its this that there
    """
_FRAME = frozenset(_FRAME_WORDS.split())
_YEAR = re.compile(r"(?<![\d.,:/-])((?:19|20)\d{2})(?:\s*[-/–]\s*(\d{2}|(?:19|20)\d{2}))?(?![\d.,:]\d)")
_VERSION_WORD = re.compile(
    r"\b(v|version|ver|rev|revision|release|edition|firmware|fw)\.?\s*(\d+(?:\.\d+)*)(?![\d])", re.I
)
_SEMVER = re.compile(r"(?<![\w.])(\d+\.\d+\.\d+)(?![\w.]*\d)")
_NAMED_VERSION = re.compile(
    r"\b([A-Za-z][\w-]*[A-Za-z])\s+(\d+\.\d+)(?![\d.]*\d)(?!\s*[%€$])(?:\s*([A-Za-z]+))?"
)
_CODE = re.compile(r"(?<![\w-])([A-Za-z]{1,5}-?\d+[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?![\w-])")
_COMPOUND = re.compile(r"(?<![\w-])(-{0,2}[a-z]+(?:-[a-z]+){1,4})(?![\w-])")
_NAME = re.compile(r"\b([A-Z][a-z]{2,})\b")
#: a question that describes the asker's situation ("I'm flying to Dubai", "my trip to Singapore", "we'd
#: like the Glasshouse"): the places and names in it are what the rules are applied to, not selectors
_SITUATION = re.compile(r"\b(?:i|i'm|i've|i'd|my|we|we're|we'd|we've|our|us)\b", re.IGNORECASE)
_VERSION_NAMES = frozenset({"v", "version", "ver", "rev", "revision", "release", "edition", "firmware", "fw"})


@dataclass(frozen=True, slots=True)
class Qualifier:
    """One qualifier of a question: how it is shown, its class and the patterns that find it in a text."""

    shown: str
    kind: str
    patterns: tuple[str, ...]

    def named_in(self, text: str) -> bool:
        return any(re.search(p, text, re.IGNORECASE) for p in self.patterns)


def qualifiers(question: str) -> list[Qualifier]:
    """The year, version, code, compound-name, proper-name and date qualifiers of ``question``."""
    out: list[Qualifier] = []
    full_dates = [m.span() for m in re.finditer(_FULL_DATE, question)]
    for m in _YEAR.finditer(question):
        if any(a <= m.start() < b for a, b in full_dates):
            continue
        out.append(_year(m.group(1), m.group(2)))
    versions = {m.group(2) for m in _VERSION_WORD.finditer(question)} | set(_SEMVER.findall(question))
    versions |= {n for w, n, after in _NAMED_VERSION.findall(question) if _named_version(w, after)}
    out += [_version(v) for v in sorted(versions)]
    for m in _CODE.finditer(question):
        code = m.group(1)
        if _is_code(code):
            out.append(_code(code))
    for m in _COMPOUND.finditer(question):
        parts = m.group(1).strip("-").split("-")
        if len(parts) >= 3 or m.group(1).startswith("--"):
            out.append(_compound(parts))
    if not _SITUATION.search(question):  # the asker's own trip, booking, flat: its names are givens
        out += [_name(n) for n in _names(question)]
    return _unique(out)


def unnamed_qualifiers(question: str, document: str, path: str = "", fact: str = "") -> list[Qualifier]:
    """The qualifiers of ``question`` that ``document`` (and its path) names in none of their forms; a
    date only when the document is a calendar (three or more dates) that lacks it; the days of the week
    the question asks about when the answering ``fact`` holds on other days only."""
    text = f"{document}\n{path.replace('-', ' ').replace('_', ' ').replace('/', ' ')}\n{path}"
    missing = [q for q in qualifiers(question) if not q.named_in(text)]
    return (
        missing
        + _unstated_dates(question, document)
        + _other_days(question, fact)
        + _other_temps(question, fact)
        + _other_groups(question, fact, document)
        + _excluded_group(question, fact)
    )


#: the asker says they are outside a group: "I'm not a club member", "as a non-member", "non-residents"
_NOT_IN = re.compile(r"\bnot (?:a |an |yet a )?(?:[a-z]+ )?([a-z]{4,}?)s?\b|\bnon-?\s?([a-z]{4,}?)s?\b", re.I)


def _excluded_group(question: str, fact: str) -> list[Qualifier]:
    """ "I'm not a club member; what would I pay?" answered by "costs £295 for members only": the fact is
    limited to a group (``members only``, ``only for members``, ``members' rate only``) the question says
    the asker is outside of."""
    out: list[Qualifier] = []
    for m in _NOT_IN.finditer(question):
        noun = (m.group(1) or m.group(2)).lower()
        limited = rf"\b{noun}s?'?(?:\s+(?:rate|price|fee)s?)?\s+only\b|\bonly\s+(?:for|to)\s+{noun}s\b"
        if re.search(limited, fact, re.I) and not re.search(rf"\bnon-?\s?{noun}", fact, re.I):
            out.append(Qualifier(m.group(0), "group", ()))
    return out


def _other_groups(question: str, fact: str, document: str) -> list[Qualifier]:
    """ "What does a Basic Orbit subscriber pay?" answered by "Premium subscribers pay EUR 9": the fact is
    limited to a group (capitalised words before a noun the question names too) of which the question
    names none, it names none of the question's own words for that group, and the document names the
    question's group elsewhere ("Basic subscribers ..."): two groups the document tells apart."""
    out: list[Qualifier] = []
    for m in _GROUP.finditer(question):
        if m.start() == 0:
            continue  # a question's first word is capitalised anyway
        asked = set(m.group(1).split())
        noun = m.group(2).lower().rstrip("s")
        said = {
            w
            for g in _GROUP.finditer(fact)
            if g.group(2).lower().rstrip("s") == noun
            for w in g.group(1).split()
            if w.lower() not in _NOT_GROUP
        }
        defined = {
            w
            for g in _GROUP.finditer(document)
            if g.group(2).lower().rstrip("s") == noun
            for w in g.group(1).split()
        }
        defined |= set(_GROUP_KEY.findall(document))  # "2.1 Standard: every member."
        other = said and not any(_word_in(w, question) for w in said)
        if other and asked & defined - said and not any(_word_in(w, fact) for w in asked):
            out.append(Qualifier(f"{m.group(1).strip()} {m.group(2)}", "group", ()))
    return out


def _word_in(word: str, text: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\b", text) is not None


#: capitalised words right before a noun: "a Standard Brightlane member", "Gold members may ..."
_GROUP = re.compile(r"((?:[A-Z][a-z]+ ){1,2})([a-z]{4,})\b")
#: a group the document defines as a key of its own line ("2.1 Standard: every member.", "Gold: ...")
_GROUP_KEY = re.compile(r"^\s*(?:[\d.]+\s+|[-*]\s+)?([A-Z][a-z]+):", re.M)
_NOT_GROUP = frozenset(
    "all any each every the a an our your their its some most many new existing other such these those".split()  # noqa: SIM905, E501
)


def _other_temps(question: str, fact: str) -> list[Qualifier]:
    """ "How long can a gel be kept at room temperature?" answered by "kept at 4 °C for up to 3 days": the
    fact's own temperatures are all far (over 3 °C) from every one the question states."""
    asked = _temperatures(question)
    said = _temperatures(fact) if asked and fact else []
    if not said or any(abs(a - b) <= 3 for a in asked for b in said):
        return []
    shown = _TEMPERATURE.search(question) or _TEMPERATURE_WORD.search(question)
    return [Qualifier(shown.group(0) if shown else "the temperature asked", "temperature", ())]


def _temperatures(text: str) -> list[float]:
    """The temperatures ``text`` states (°C), "room temperature" as 20, a fridge as 4, a freezer as -18."""
    found = [float(m.group(1).replace("−", "-")) for m in _TEMPERATURE.finditer(text)]
    return found + [_TEMPERATURE_WORDS[m.group(1).lower()[:5]] for m in _TEMPERATURE_WORD.finditer(text)]


#: a fact that names days of the week as the ones it does not hold on
_EXCLUDING = re.compile(r"\b(?:outside|except|excluding|other than|apart from|not on)\b", re.I)


def _other_days(question: str, fact: str) -> list[Qualifier]:
    """ "Do the trips leave on Sundays?" answered by "trips on Saturdays at 14:00": the fact's own days of
    the week exclude every day the question names."""
    asked = weekdays_in(_PLURAL_DAYS.sub(r"\1", question))
    said = weekdays_in(_PLURAL_DAYS.sub(r"\1", fact)) if asked and fact else set()
    if not said or asked & said or _EXCLUDING.search(fact):
        return []  # "outside office hours (Monday to Friday)": the days named are the ones it excludes
    return [Qualifier(" or ".join(_DAY_NAMES[d] for d in sorted(asked)), "weekday", ())]


# --------------------------------------------------------------------------- the classes


def _year(year: str, second: str | None) -> Qualifier:
    if second is None:
        return Qualifier(year, "year", (rf"(?<![\d.,]){year}(?![\d]|\.\d|,\d)",))
    short = second[-2:]
    return Qualifier(
        f"{year}-{short}",
        "year",
        (rf"(?<!\d){year}\s*[-/–]\s*(?:{short}|{year[:2]}{short})(?!\d)",),
    )


def _version(number: str) -> Qualifier:
    """A dotted version is found as itself; a whole number only after a version word ("rev 5", "v5")."""
    n = re.escape(number)
    if "." in number:
        return Qualifier(number, "version", (rf"(?<![\d.]){n}(?!\d)",))
    words = "|".join(sorted(_VERSION_NAMES | {"r"}))
    return Qualifier(f"version {number}", "version", (rf"\b(?:{words})\.?\s*{n}(?![\d])",))


def _code(code: str) -> Qualifier:
    letters, rest = re.match(r"([A-Za-z]+)-?(.*)", code).groups()  # type: ignore[union-attr]
    return Qualifier(code, "code", (rf"(?<![\w-]){re.escape(letters)}[-\s]?{re.escape(rest)}(?![\w]|-\d)",))


def _compound(parts: list[str]) -> Qualifier:
    joined = r"[-\s_]?".join(re.escape(p) for p in parts)
    return Qualifier("-".join(parts), "compound", (rf"(?<![\w]){joined}(?!\w)",))


def _name(name: str) -> Qualifier:
    stem = re.escape(name.lower())
    return Qualifier(name, "name", (rf"(?<![\w]){stem}(?:s|es|'s|’s)?(?!\w)",))


def _names(question: str) -> list[str]:
    """Capitalised words after the first word of each sentence: names, unless a frame word, a month, a
    weekday, a unit or a currency."""
    out = []
    for m in _NAME.finditer(question):
        before = question[: m.start()].rstrip()
        if not before or before[-1] in ".!?:;\n`\"'(":
            continue  # a sentence's first word
        word = m.group(1).lower()
        if word in _FRAME or word in MONTHS or word.rstrip("s") in _WEEKDAYS or word in ALIASES:
            continue
        if word[:3] in _DAY_ABBR and len(word) <= 5:
            continue
        if re.match(r"\s+[A-Z]?\d", question[m.end() :]):
            continue  # "Flat 4B", "Room 101": a designator, its number is the name
        out.append(m.group(1))
    return out


def _named_version(word: str, after: str) -> bool:
    """ "tarnsync 3.0": a dotted number after a name, not after a frame word, nor before a unit."""
    low = word.lower()
    if after.lower() in ALIASES or after.lower() in ("per", "percent", "times", "x"):
        return False  # "3.5 kg", "2.5 per cent": a quantity
    return low not in _FRAME and low not in ALIASES and low not in _VERSION_NAMES and not low.isdigit()


def _is_code(code: str) -> bool:
    letters = re.match(r"[A-Za-z]+", code).group(0).lower()  # type: ignore[union-attr]
    if letters.upper() in CURRENCIES or letters in _VERSION_NAMES or letters in _FRAME:
        return False  # "EUR5", "v2" (a version)
    if re.fullmatch(r"[a-z]+\d+(st|nd|rd|th)", code.lower()):
        return False
    return bool(re.search(r"\d", code))


def _unique(found: list[Qualifier]) -> list[Qualifier]:
    seen: set[str] = set()
    out = []
    for q in found:
        if q.shown.lower() not in seen:
            seen.add(q.shown.lower())
            out.append(q)
    return out


# --------------------------------------------------------------------------- calendar dates

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_FULL_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?:19|20)\d{{2}}\b"
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d{{2}}\b|\b(?:19|20)\d{{2}}-\d{{2}}-\d{{2}}\b",
    re.IGNORECASE,
)
#: a calendar's row: a line that opens with a date (after a weekday, a bullet or a table bar)
_ROW_DATE = re.compile(
    rf"^\s*(?:[|*-]\s*)?(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|{_MONTH}\s+\d{{1,2}}\b|(?:19|20)\d{{2}}-\d{{2}}-\d{{2}}|\d{{1,2}}[./]\d{{1,2}}\b)",
    re.IGNORECASE,
)
_PLURAL_DAYS = re.compile(r"\b((?:mon|tues|wednes|thurs|fri|satur|sun)day)s\b", re.IGNORECASE)
_TEMPERATURE = re.compile(r"([-−]?\d+(?:\.\d+)?)\s*°\s*C\b")
_TEMPERATURE_WORD = re.compile(r"\b(room temperature|refrigerat\w*|fridge|frozen|freezer)\b", re.IGNORECASE)
_TEMPERATURE_WORDS = {"room ": 20.0, "refri": 4.0, "fridg": 4.0, "froze": -18.0, "freez": -18.0}
_DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_WORDS = "January February March April May June July August September October November December"
_MONTH_NAMES = _MONTH_WORDS.split()
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})(?![a-z])", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?!\d)", re.IGNORECASE)


def _day_months(text: str) -> set[tuple[int, int]]:
    """(month, day) of every date ``text`` states: ISO and numeric dates, "3 April", "Apr 3"."""
    found = {(d.month, d.day) for _, _, d in dates_in(text) if isinstance(d, date)}
    for m in _DAY_MONTH.finditer(text):
        month = MONTHS.get(m.group(2).lower().rstrip(".")[:3])
        if month and 1 <= int(m.group(1)) <= 31:
            found.add((month, int(m.group(1))))
    for m in _MONTH_DAY.finditer(text):
        month = MONTHS.get(m.group(1).lower().rstrip(".")[:3])
        if month and 1 <= int(m.group(2)) <= 31:
            found.add((month, int(m.group(2))))
    return found


def _unstated_dates(question: str, document: str) -> list[Qualifier]:
    asked = _day_months(question)
    if not asked:
        return []
    rows = [ln for ln in document.splitlines() if _ROW_DATE.match(ln)]
    if len(rows) < 3:  # not a calendar: a date in the question is a quantity it gives
        return []
    stated = _day_months(document)
    return [
        Qualifier(f"{day} {_MONTH_NAMES[month - 1]}", "date", ()) for month, day in sorted(asked - stated)
    ]


__all__ = ["Qualifier", "qualifiers", "unnamed_qualifiers"]
