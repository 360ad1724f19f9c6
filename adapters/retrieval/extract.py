"""Reading the answer span out of a fact, by the question's answer type (pure).

The answer type comes from :func:`~ioa_p2p.planning.answer_types.answer_type`: a date for "when", a clock
time for "what time", a name for "who" / "which", a version, the reason sentence for "why" (never a heading
such as "Reason"), the passage for "how do I", else a number, chosen among the fact's numbers by what
the question asks (:mod:`~ioa_p2p.adapters.retrieval.number_span`).

A table row answers with the cell of the column whose header best matches the question; a question about
every row ("both", "all", "across") gets the column's values as a list. "What <noun>" answers with the
words under the column the noun names ("What cabin ..." -> "Cabin allowed"), and a cell with a condition
("business, only with director approval; otherwise premium economy") with the branch the question's
situation meets (:func:`otherwise`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from ioa_p2p.adapters.retrieval.clock_value import hours_value, time_value
from ioa_p2p.adapters.retrieval.facts import SECTION, Fact, Scorer, quantities, stem, terms
from ioa_p2p.adapters.retrieval.fit import calendar_word, states_count
from ioa_p2p.adapters.retrieval.keyed import (
    asked_extreme,
    extreme_column,
    listing_key,
    range_end_of,
    ratio_cell,
)
from ioa_p2p.adapters.retrieval.number_span import closest, holds_stated, number_value
from ioa_p2p.adapters.retrieval.picks import asks_end, of_named_year, section_version
from ioa_p2p.adapters.retrieval.tariff import per_dimension_pattern
from ioa_p2p.adapters.retrieval.terms import STOP
from ioa_p2p.planning.answer_types import MONEY_UNITS, AnswerType, answer_type, attribute_units
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.units import unit_in_header
from ioa_p2p.planning.values import ALIASES, MONTHS, Value, dates_in, numbers_in

_AGGREGATE = re.compile(r"\b(both|all|each|every|across|combined)\b", re.I)
_NAME = re.compile(r"\b([A-Z][a-zà-ÿ'-]+(?:\s+[A-Z][a-zà-ÿ'-]+){1,2})\b")
_ENTITY = re.compile(r"\b[A-Z][\w&'-]*(?:[ -](?:[A-Z0-9][\w'-]*|&))*")
_VERSION = re.compile(r"\b\d+\.\d+\.\d+\b|\bv\d+(?:\.\d+)+\b")
_CLOCK = re.compile(r"(?<![\d.:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_CAUSE = re.compile(
    r"\b(?:because|due to|caused by|cause[ds]?|root cause|as a result of|owing to|after|since|when|"
    r"reason|triggered|expired|expiry|ran out|broke|overload\w*|exhausted|misconfigur\w*|deleted|bug|leak\w*|"
    r"failed|failure|so that|in order (?:to|that)|so as (?:to|not to)|to (?:avoid|prevent|protect|ensure|"
    r"make sure|stop|reduce|limit|keep))\b",
    re.I,
)


def extract(question: str, fact: Fact, kind: str, scorer: Scorer, facts: Sequence[Fact]) -> Value | None:
    """The value of the kind asked for that ``fact`` states, or None."""
    text = fact.text
    counted = fact.kind == "heading" and kind == "number" and states_count(question, text)
    if fact.kind == "heading" and kind not in ("date", "dates", "version") and not counted:
        return None  # a heading names a topic ("Curing", "Reason"); it answers nothing (but "makes 3 jars")
    if kind in ("date", "dates"):
        return _date_value(kind, fact, scorer, facts)
    if kind == "time":
        return time_value(question, fact, scorer)
    if kind == "hours":
        return hours_value(question, fact, scorer)
    named_day = calendar_word(question, text) if kind == "name" else None
    if named_day is not None:  # "in which month is the dividend credited": "... in December"
        return Value.of_text(named_day)
    named = _named_column(question, fact) if fact.cells and kind in ("name", "number") else None
    if named is None and fact.cells and kind == "name":
        named = _worded_column(question, fact)  # "who supplies ...": the Supplier column's words
    if named is None and fact.cells and kind == "name":
        named = _coded_column(fact, scorer)  # "which modem does the QS-800 have": the QS-800 column's cell
    if named is not None:  # "what cabin ...": the Cabin column of the row, its words
        return Value.of_text(otherwise(named, question))
    figure = _named_column(question, fact, figures=True) if fact.cells and kind == "name" else None
    if figure is not None:  # "which reorder point applies to ...": its column holds a figure
        found = numbers_in(figure)
        return Value.of_number(found[0].number, found[0].unit, found[0].text) if found else None
    if kind == "name":
        return _name_value(question, fact, scorer)
    if kind == "version":
        released = section_version(question, fact.context.split(SECTION, 1)[-1])  # "### Removed" of a release
        if released is not None:
            return Value.of_text(released)
        found_v = [(m.start(), m.end(), m.group()) for m in _VERSION.finditer(text)]
        return Value.of_text(closest(found_v, text, scorer)[2]) if found_v else None
    if kind == "reason":
        sentence = text.split("\0")[0].strip()
        if not _CAUSE.search(sentence) or len(sentence.split()) < 4:
            return None
        return Value.of_text(sentence[:400])
    if kind == "passage":
        return Value.of_text(text.split("\0")[0].strip()[:400])
    wanted = answer_type(question)
    if fact.cells:
        return _cell_value(question, fact, scorer, facts, wanted)
    if wanted.kind == "count" and not any(f.unit == "" for f in numbers_in(text)):
        return None  # only amounts with units here: they do not count anything
    return number_value(question, text, scorer, wanted)


_ASKED_NOUN = re.compile(
    r"^\W*(?:and\s+)?(?:what|which)\s+(?:kind of\s+|type of\s+|class of\s+)?([a-z]{3,})\b", re.I
)


def _named_column(question: str, fact: Fact, figures: bool = False) -> str | None:
    """ "What cabin may I book?", "which hall ...": the words of the row's cell under the column the
    question's noun names ("Cabin allowed"), when they are words and not a figure; None otherwise."""
    m = _ASKED_NOUN.match(question) or _ASKED_OF.match(question)  # "what is the trend of ...": Trend
    if not m or m.group(1).lower() in _NOT_NOUNS:
        return None
    noun = stem(m.group(1).lower())
    for header, cell in fact.cells[1:]:
        if (
            noun in terms(header)
            and cell.strip()
            and not dates_in(cell)
            and bool(numbers_in(cell)) == figures
        ):
            return cell.strip()
    return None


def _worded_column(question: str, fact: Fact) -> str | None:
    """The words of the row's cell under a column a word of the question names by its stem ("who
    supplies" -> "Supplier", "which code means" -> "Code"), never a cell the question itself states (the
    row's key) nor a figure; the column named by the earliest such word; None when none is."""
    words = [w for w in re.findall(r"[a-z]{4,}", question.lower()) if w not in STOP]
    asked = terms(question)
    best: tuple[int, str] | None = None
    for header, cell in fact.cells:
        text = cell.strip()
        own = {t for t in terms(text) if len(t) > 2}
        if not text or numbers_in(text) or dates_in(text) or own and len(own & asked) * 2 >= len(own):
            continue
        heads = [h for h in re.findall(r"[a-z]{4,}", header.lower()) if h not in STOP]
        at = next((k for k, w in enumerate(words) if any(_same_stem(w, h) for h in heads)), None)
        if at is not None and (best is None or at < best[0]):
            best = (at, text)
    return best[1] if best else None


def _coded_column(fact: Fact, scorer: Scorer) -> str | None:
    """The words of the row's cell under the one column headed by a code the question names ("QS-800" of
    "Specification | QS-200 | QS-400 | QS-800"), when the row's own key does not name it."""
    if not scorer.codes or scorer.codes & terms(fact.cells[0][1]):
        return None
    cells = [c.strip() for h, c in fact.cells[1:] if scorer.codes & terms(h) and c.strip()]
    return cells[0] if len(cells) == 1 and re.search(r"[A-Za-z]", cells[0]) else None  # ("5G": a name)


def _same_stem(a: str, b: str) -> bool:
    n = min(len(a), len(b), 6)
    return n >= 4 and a[:n] == b[:n] and abs(len(a) - len(b)) <= 4


_ASKED_OF = re.compile(r"^\W*(?:and\s+)?what(?:'s| is| was| are| were) the ([a-z]{3,}) (?:of|for)\b", re.I)
_NOT_NOUNS = frozenset("is are was were do does did will would can could should the a an".split())  # noqa: SIM905
_OTHERWISE = re.compile(
    r"^(?P<a>[^;]+?),?\s+(?:only\s+)?(?:with|if|when|after|subject to)\s+(?P<cond>[^;]+?)[;,.]\s*"
    r"(?:otherwise|else|if not|without (?:it|that|this|approval))\s*:?\s*(?P<b>.+)$",
    re.I,
)
_NEGATED = (
    r"\b(?:no|not|never|without|hasn't|haven't|hasnt|havent|isn't|wasn't|didn't|doesn't|won't|lacks?|"
    r"missing|refused|denied|rejected)\b"
)


def otherwise(cell: str, question: str) -> str:
    """ "business, only with director approval; otherwise premium economy": the branch the situation in
    ``question`` meets (the condition denied there: the other branch; else the cell as written)."""
    m = _OTHERWISE.match(cell.strip())
    if not m:
        return cell
    cond = {t for t in terms(m.group("cond")) if len(t) > 2}
    for clause in re.split(r"[.;,()]|\band\b|\bbut\b", question):
        if cond & terms(clause):  # the situation speaks of the condition: denied or met
            return m.group("b" if re.search(_NEGATED, clause, re.I) else "a").strip(" .")
    return cell


def counts(question: str) -> bool:
    """The question asks how many of some thing ("how many X7 modules"), not an amount in a unit."""
    return answer_type(question).kind == "count"


def units_wanted(question: str) -> tuple[str, ...]:
    return answer_type(question).units


def _date_value(kind: str, fact: Fact, scorer: Scorer, facts: Sequence[Fact]) -> Value | None:
    text = fact.text.split("\0")[0]  # a table row's own cells: a date in its header is the column's, not its
    found = of_named_year(scorer.question, range_starts(text) + dates_in(text))  # "the race in 2027"
    found = sorted(found, key=lambda d: d[0])
    if not found:
        return None
    if kind == "dates":
        same = [d for f in facts if f.path == fact.path for d in dates_in(f.text)]
        days = tuple(dict.fromkeys(d for _, _, d in same)) if len(found) < 2 else tuple(d for *_, d in found)
        return Value.of_list(tuple(Value.of_date(d) for d in days))
    spans = range_starts(text)
    if spans and asks_end(scorer.question):  # "(12 June - 1 November 2026)" for "when does it end"
        after = [d for d in found if d[0] > spans[0][0] and d[2] >= spans[0][2]]
        if after:
            return Value.of_date(after[0][2], text[after[0][0] : after[0][1]])
    start, end, day = closest(list(found), text, scorer)
    return Value.of_date(day, text[start:end])


_RANGE_START = re.compile(
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)? (?P<mn>[A-Za-z]{3,9})\.?\s*(?:-|–|to|until)\s*"
    r"(?:[A-Za-z]+,? )?\d{1,2}(?:st|nd|rd|th)? [A-Za-z]{3,9}\.?,? (?P<y>\d{4})\b"
)


def range_starts(text: str) -> list[tuple[int, int, date]]:
    """ "Monday 26 October to Friday 30 October 2026": the range's first day takes the year its last
    states (2026-10-26), as :func:`~ioa_p2p.planning.values.dates_in` reads only full dates."""
    out = []
    for m in _RANGE_START.finditer(text):
        month = MONTHS.get(m.group("mn").lower().rstrip("."), 0)
        try:
            out.append((m.start(), m.end("mn"), date(int(m.group("y")), month, int(m.group("d")))))
        except ValueError:
            continue
    return out


def _name_value(question: str, fact: Fact, scorer: Scorer) -> Value | None:
    text = fact.text.split("\0")[0]
    key = listing_key(question, text, scorer)
    if key is not None:
        return Value.of_text(key)
    if (
        fact.cells
    ):  # the cell of the column the question names ("who is the owner": Owner), else the row's key
        noun = _WHO_NOUN.search(question)
        asked = {stem(noun.group(1).lower())} if noun else scorer.q_terms
        for header, cell in fact.cells[1:]:
            words = terms(header) - {"name"}
            if (
                _WHO_COLUMN.fullmatch(header.strip())
                and re.search(r"\bwho\b", question, re.I)
                and cell.strip()
            ):
                return Value.of_text(cell.strip())  # an action list's "who" column: the person it names
            if words & asked and re.search(r"[A-Za-z]{2}", cell) and not numbers_in(cell):
                return Value.of_text(cell.strip())
        key = fact.cells[0][1].strip()
        lettered = re.search(r"[A-Za-z]", key) is not None  # a clock time or a figure is no name
        return Value.of_text(key) if key and lettered and not (terms(key) <= scorer.q_terms) else None
    owner = _bracketed_person(question, text, scorer)
    if owner is not None:  # "Who is in charge of the raffle?" - "Raffle (Mei)": the owner in brackets
        return Value.of_text(owner)
    names = [(m.start(), m.end(), m.group(1)) for m in _NAME.finditer(text)]
    if not names and not re.search(r"\bwho\b", question, re.I):
        names = [(m.start(), m.end(), m.group(0)) for m in _ENTITY.finditer(text) if m.start() > 0]
    coded = _codes_of_asked_kind(question, text)  # "which CVE ...": the CVE-2026-0117 the line names
    if coded:
        return Value.of_text(coded[0])
    names = [n for n in names if not (terms(n[2]) & scorer.q_terms)]
    if not names:
        return None
    lead = re.match(r"\W*(?:the\s+)?", text, re.I)
    subject = [n for n in names if lead is not None and n[0] <= lead.end()]
    if (
        subject
        and re.match(r"\s*(?:which|what)\b", question, re.I)
        and _ACTS_AS_SUBJECT.match(text[subject[0][1] :])
    ):  # "Which room can only be booked in summer?" - "The Terrace is open ... only": the subject
        return Value.of_text(re.sub(r"^the\s+", "", subject[0][2].strip(), flags=re.I))
    return Value.of_text(closest(list(names), text, scorer)[2].strip())


_WHO_COLUMN = re.compile(r"(?:by )?who(?:m)?|owner|responsible|assigned(?: to)?|action by|lead", re.I)
_CODE_OF = re.compile(r"\b([A-Z]{2,6})-\d[\w.-]*\b")


def _codes_of_asked_kind(question: str, text: str) -> list[str]:
    """ "Which CVE was fixed ...", "what RFC defines ...": the codes of ``text`` whose prefix is the kind of
    thing the question asks which of (CVE-2026-0117, RFC-9110), never one the question itself names."""
    asked = _ASKED_NOUN.match(question)
    if asked is None:
        return []
    kind = asked.group(1).upper()
    return [
        m.group(0)
        for m in _CODE_OF.finditer(text)
        if m.group(1) == kind and m.group(0).lower() not in question.lower()
    ]


_BRACKETED = re.compile(r"\(([A-Z][a-zà-ÿ'-]+(?:\s+[A-Z][a-zà-ÿ'-]+){0,2})\)")
#: a role in brackets after a person's name ("(chair)", "(treasurer)") and the name itself (two or three
#: capitalised words right before it)
_ROLE = re.compile(r"\(([a-z][a-z' -]{2,30})\)")
_NAME_BEFORE = re.compile(r"([A-Z][a-zà-ÿ'’-]+(?:\s+[A-Z][a-zà-ÿ'’-]+){1,2})\s*$")
_WEEKDAY_WORDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NOT_PEOPLE = frozenset(MONTHS) | frozenset(_WEEKDAY_WORDS) | frozenset(d[:3] for d in _WEEKDAY_WORDS)


def _bracketed_person(question: str, text: str, scorer: Scorer) -> str | None:
    """A "who" question about a thing the line names with a person's name in brackets after it ("Raffle
    (Mei)", "Gate (Ade Obi)", the checklist and task-list way of naming an owner): that name; None when the
    question asks no "who", the line has no such bracket or its words are the question's own. A role in
    brackets the question names ("who chaired": "Hana Okafor (chair)") gives the name before it, and so
    does a label the question names before a person's name ("Top scorer: Jonah Kessler (Carrow
    Athletic)")."""
    if not re.search(r"\bwho\b", question, re.I):
        return None
    for m in _ROLE.finditer(text):  # "Hana Okafor (chair)" for "who chaired": the person the role follows
        name = _NAME_BEFORE.search(text[: m.start()])
        if name and terms(m.group(1)) & scorer.q_terms:
            return name.group(1)
    for m in _BRACKETED.finditer(text):
        words = m.group(1).split()
        if any(w.lower() in _NOT_PEOPLE for w in words) or terms(m.group(1)) & scorer.q_terms:
            continue
        if terms(text[: m.start()]) & scorer.q_terms:  # the thing before it is one the question names
            name = _NAME_BEFORE.search(text[: m.start()])
            label = text[: name.start()] if name else ""
            if name and re.search(r":\s*$", label) and terms(label) & scorer.q_terms:
                return name.group(1)  # "Top scorer: Jonah Kessler (Carrow Athletic)": the person labelled
            return m.group(1)
    return None


_WHO_NOUN = re.compile(r"\bwho(?:'s| is| was| are| were)? (?:the |our |their |its )?([a-z]{3,})\b", re.I)
_ACTS_AS_SUBJECT = re.compile(r"\s+(?:is|are|was|were|has|have|can|may|must|will|opens?|closes?|holds?|"
                              r"takes?|seats?|costs?|runs?)\b", re.I)  # fmt: skip


def _cell_value(
    question: str, fact: Fact, scorer: Scorer, facts: Sequence[Fact], wanted: AnswerType
) -> Value | None:
    stated = {n.text.lower() for n in numbers_in(question)}
    columns = [
        (h, c) for h, c in fact.cells if (numbers_in(c) or dates_in(c)) and c.strip().lower() not in stated
    ]
    given = set(quantities(question))  # "at 10 °C": the row's key column, not its answer
    columns = [(h, c) for h, c in columns if {n.number for n in numbers_in(c)} - given] or columns
    columns = [(h, c) for h, c in columns if not holds_stated(c, question)] or columns  # "22 to 29.9 kg"
    names = _DESIGNATED.findall(question)  # "Severity 1": the cell that names the row, never its answer
    columns = [(h, c) for h, c in columns if not any(_names(c, w, n) for w, n in names)] or columns
    if wanted.kind == "count":  # "how many bags": a bare number, not the bag size
        columns = [(h, c) for h, c in columns if any(n.unit == "" for n in numbers_in(c))] or columns
    if wanted.numeric and fact.cells and len(columns) > 1 and columns[0] == fact.cells[0]:
        columns = columns[1:]  # "100256 | ELMSTEAD VILLAGE HALL | ...": the key names the row, not its figure
    if not columns:
        return None
    q_terms = scorer.q_terms
    per = wanted.per.split()[-1][:5] if wanted.per else ""
    # a designated thing the question names ("Zone 2", "Route B") as a header abbreviates it ("Z2")
    abbreviated = {f"{t[0]}{t.partition('#')[2]}" for t in q_terms if "#" in t and t[0].isalpha()}

    money = (bool(set(attribute_units(question)) & set(MONEY_UNITS)) or wanted.kind == "amount") and (
        wanted.kind != "count"
    )

    per_quantity = (
        per_dimension_pattern([q.dimension for q in stated_quantities(question)]) if money else None
    )
    asked_words = set(re.findall(r"[a-z]{4,}", question.lower()))
    extreme = asked_extreme(question)

    # the terms that name the row (the key column's header, "Band D": the key "D" under "Band") name no
    # column ("Ratio to Band D")
    key_header = terms(fact.cells[0][0]) if fact.cells else set()
    row_named = key_header | {t for t in terms(f"{fact.cells[0][0]} {fact.cells[0][1]}") if "#" in t}

    def col_score(header: str) -> float:
        named = {t for t in terms(header) & q_terms if not t.startswith("u_")} - row_named  # units: by kind
        bare = terms(re.sub(r"\([^)]*\)", " ", header))  # "CHILD (6-12)": its figures qualify, name nothing
        named = {t for t in named if not t[:1].isdigit() or t in bare}
        score = sum(scorer.idf.get(t, 0.0) for t in sorted(named))
        score += 1.0 if per and per in header.lower() else 0.0
        if wanted.units and unit_in_header(header, ALIASES) in wanted.units:
            score += 1.0  # "how many hours": the column "Runtime (h)"
        if abbreviated & terms(header):
            score += 2.0  # "Zone 2" named, the column "Z2 Standard": its abbreviation
        if not named and abbreviates(header, asked_words):
            score += 1.0  # "how many points": the column "Pts", not "Pos"
        score += extreme_column(header, extreme)  # "the minimum temperature": "Tmin", never "Tmax"
        if per_quantity is not None and per_quantity.search(header):
            score += 1.0  # "for five hours": the column of the rate per hour
        if money and re.search(r"\b(?:min(?:imum|\.)|max(?:imum|\.)|capacity|stay|seats?)\b", header, re.I):
            score -= 0.5  # a price is asked: not a limit's column
        if money and re.search(r"\b(?:rates?|prices?|charges?|fees?|costs?|fares?|eur)\b|€", header, re.I):
            score += 1.0  # a price is asked: a column of prices
        elif money and re.search(r"\b(?:total|amount|due|balance)\b", header, re.I):
            score += 0.75  # or of what is charged in all ("TOTAL", "Amount due")
        other = unit_in_header(header, ALIASES)
        if money and other and other not in MONEY_UNITS and other != "cent":
            score -= 3.0  # "MIN. HIRE (hours)", "AREA (m2)": a quantity of another kind
        if money and set(attribute_units(header)) & set(MONEY_UNITS):
            score += 0.5  # "the café revenue": the Revenue column, not the Cafés count
        return score

    def cell_score(cell: str) -> float:  # "the capacity in mAh": the cell stating mAh ("LiPo, 4200 mAh")
        return 1.0 if wanted.units and any(n.unit in wanted.units for n in numbers_in(cell)) else 0.0

    header, cell = max(columns, key=lambda hc: (col_score(hc[0]) + cell_score(hc[1]), -columns.index(hc)))
    row_key = fact.cells[0][1] if fact.cells else ""
    if _AGGREGATE.search(question) and not (terms(row_key) & q_terms):
        rows = [f for f in facts if f.table == fact.table and f.table]
        values = []
        for row in rows:
            match = [c for h, c in row.cells if h == header]
            nums = numbers_in(match[0]) if match else []
            if nums:
                values.append(Value.of_number(nums[0].number, nums[0].unit, nums[0].text))
        if len(values) > 1:
            return Value.of_list(tuple(values))
    ratio = ratio_cell(question, header, cell)
    if ratio is not None:  # "15/9" in a "Ratio to Band D" column: the ratio as written
        return ratio
    nums = numbers_in(cell)
    if nums:
        pick = next((n for n in nums if n.unit in wanted.units), nums[0])
        end = range_end_of(question, cell, nums)  # "the top of the range": "EUR 10,001 - 40,000" -> 40,000
        unit = pick.unit or unit_in_header(header, ALIASES)  # "Green coffee roasted (tonnes)": 66.8 t
        unit = unit or ("%" if _PERCENT_HEADER.fullmatch(header.strip()) else "")  # a "percent" column: 15 %
        pick = end or pick
        if wanted.units == ("%",) and unit != "%" and "%" not in header:
            return None  # a percentage asked ("the VAT rate"): a figure of another kind is none
        return Value.of_number(pick.number, unit, pick.text)
    days = dates_in(cell)
    return Value.of_date(days[0][2]) if days else None


_PERCENT_HEADER = re.compile(r"(?:percent(?:age)?|per cent|pct|%)", re.I)
_DESIGNATED = re.compile(r"\b([A-Z][a-z]{2,}) (\d{1,3})\b(?![.,:]?\d)")


def _names(cell: str, word: str, number: str) -> bool:
    """The cell names a thing the way the question does ("Severity 1 (production down)")."""
    return re.search(rf"\b{re.escape(word)} {number}\b(?![.,:]?\d)", cell, re.I) is not None


__all__ = ["counts", "extract", "units_wanted"]


_VOWELS = frozenset("aeiou")


def abbreviates(header: str, words: set[str]) -> bool:
    """Is ``header`` (one short word: "Pts", "Qty", "Amt") an abbreviation of one of ``words``: same first
    letter, the rest a subsequence of that word's later consonants ("pts" in "points"; "pos" is not, its
    "o" is no consonant)."""
    head = header.strip().lower().rstrip(".")
    if not re.fullmatch(r"[a-z]{2,4}", head):
        return False
    for word in words:
        if word[0] != head[0] or len(word) < len(head) + 2 or word.startswith(head):
            continue
        rest = iter(c for c in word[1:] if c not in _VOWELS)
        if all(c in rest for c in head[1:]):
            return True
    return False
