"""Reading the answer span out of a fact, by the question's answer type (pure).

The answer type comes from :func:`~ioa_p2p.planning.answer_types.answer_type`: a date for "when", a clock
time for "what time", a name for "who" / "which", a version, the reason sentence for "why" (never a heading
such as "Reason"), the passage for "how do I", else a number. A number is chosen among the fact's numbers by
what the question asks:

- its unit fits the answer type (a duration for "how long", a currency for "how much", a bare number for
  "how many customers", the unit the attribute implies: kg for a weight);
- a rate question's denominator ("per square metre") stands right after it;
- a name or code the question uses (AL-500X) stands right before it ("35 °C (AL-500X: 50 °C)");
- after the colon of a ``key: value`` line whose key holds the question's words;
- otherwise, nearest the question's words (each weighted by its IDF).

A table row answers with the cell of the column whose header best matches the question; a question about
every row ("both", "all", "across") gets the column's values as a list. "What <noun>" answers with the
words under the column the noun names ("What cabin ..." -> "Cabin allowed"), and a cell with a condition
("business, only with director approval; otherwise premium economy") with the branch the question's
situation meets (:func:`otherwise`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ioa_p2p.adapters.retrieval.facts import _WORD, Fact, Scorer, quantities, stem, terms
from ioa_p2p.adapters.retrieval.picks import change_end, counts_a_thing, day_of_month, of_named_year
from ioa_p2p.adapters.retrieval.tariff import per_dimension_pattern
from ioa_p2p.planning.answer_types import MONEY_UNITS, AnswerType, answer_type, attribute_units
from ioa_p2p.planning.expr import WORD_NUMBERS
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.units import factor, unit_in_header
from ioa_p2p.planning.values import ALIASES, Found, Value, dates_in, numbers_in

_AGGREGATE = re.compile(r"\b(both|all|each|every|across|combined)\b", re.I)
_NAME = re.compile(r"\b([A-Z][a-zà-ÿ'-]+(?:\s+[A-Z][a-zà-ÿ'-]+){1,2})\b")
_ENTITY = re.compile(r"\b[A-Z][\w&'-]*(?:[ -](?:[A-Z0-9][\w'-]*|&))*")
_VERSION = re.compile(r"\b\d+\.\d+\.\d+\b|\bv\d+(?:\.\d+)+\b")
_CLOCK = re.compile(r"(?<![\d.:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_CAUSE = re.compile(
    r"\b(?:because|due to|caused by|cause[ds]?|root cause|as a result of|owing to|after|since|when|"
    r"reason|triggered|expired|expiry|ran out|broke|overload\w*|exhausted|misconfigur\w*|deleted|bug|leak\w*|"
    r"failed|failure)\b",
    re.I,
)


def extract(question: str, fact: Fact, kind: str, scorer: Scorer, facts: Sequence[Fact]) -> Value | None:
    """The value of the kind asked for that ``fact`` states, or None."""
    text = fact.text
    if fact.kind == "heading" and kind not in ("date", "dates", "version"):
        return None  # a heading names a topic ("Curing", "Reason"); it answers nothing
    if kind in ("date", "dates"):
        return _date_value(kind, fact, scorer, facts)
    if kind == "time":
        return _time_value(question, fact, scorer)
    named = _named_column(question, fact) if fact.cells and kind in ("name", "number") else None
    if named is not None:  # "what cabin ...": the Cabin column of the row, its words
        return Value.of_text(otherwise(named, question))
    figure = _named_column(question, fact, figures=True) if fact.cells and kind == "name" else None
    if figure is not None:  # "which reorder point applies to ...": its column holds a figure
        found = numbers_in(figure)
        return Value.of_number(found[0].number, found[0].unit, found[0].text) if found else None
    if kind == "name":
        return _name_value(question, fact, scorer)
    if kind == "version":
        found_v = [(m.start(), m.end(), m.group()) for m in _VERSION.finditer(text)]
        return Value.of_text(_closest(found_v, text, scorer)[2]) if found_v else None
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
    return _number_value(question, text, scorer, wanted)


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
    found = of_named_year(scorer.question, dates_in(text))  # "the marathon in 2027": not 2026's race
    if not found:
        return None
    if kind == "dates":
        same = [d for f in facts if f.path == fact.path for d in dates_in(f.text)]
        days = tuple(dict.fromkeys(d for _, _, d in same)) if len(found) < 2 else tuple(d for *_, d in found)
        return Value.of_list(tuple(Value.of_date(d) for d in days))
    start, end, day = _closest(list(found), text, scorer)
    return Value.of_date(day, text[start:end])


def _time_value(question: str, fact: Fact, scorer: Scorer) -> Value | None:
    """A clock time: in a timetable row, the cell of the column the question names ("reach Carrick Isle"
    -> "Carrick Isle arr."), never the time the question itself states; else the nearest to its words."""
    asked = {f"{int(m.group(1)):02d}:{m.group(2)}" for m in _CLOCK.finditer(question)}

    def clock(cell: str) -> str:
        m = _CLOCK.search(cell)
        return f"{int(m.group(1)):02d}:{m.group(2)}" if m else ""

    if fact.cells:
        cells = [(h, clock(c)) for h, c in fact.cells if clock(c) and clock(c) not in asked]
        if not cells:
            return None
        q_terms = scorer.q_terms
        low = question.lower()
        to = re.search(r"\b(?:reach(?:es)?|arriv\w* (?:at|in)|get to|to|for|into)\s+((?:[a-z]+ ?){1,3})", low)
        src = re.search(r"\b(?:from|leav\w*|depart\w*(?: from)?)\s+((?:[a-z]+ ?){1,3})", low)

        def col_score(header: str) -> float:
            score = sum(scorer.idf.get(t, 0.0) for t in sorted(terms(header) & q_terms))
            h = terms(header)
            if to and "arr" in h and terms(to.group(1)) & h:
                score += 2.0  # "reach Carrick Isle": the Carrick Isle arrival column
            if src and "dep" in h and terms(src.group(1)) & h and not (to and "arr" in q_terms):
                score += 2.0  # "the first departure from Tobarin": the Tobarin departure column
            return score

        best = max(cells, key=lambda hc: (col_score(hc[0]), -cells.index(hc)))
        return Value.of_text(best[1])
    text = fact.text
    clocks = [(m.start(), m.end(), f"{int(m.group(1)):02d}:{m.group(2)}") for m in _CLOCK.finditer(text)]
    clocks = [c for c in clocks if c[2] not in asked]
    return Value.of_text(_closest(clocks, text, scorer)[2]) if clocks else None


def _name_value(question: str, fact: Fact, scorer: Scorer) -> Value | None:
    text = fact.text.split("\0")[0]
    if (
        fact.cells
    ):  # the cell of the column the question names ("who is the owner": Owner), else the row's key
        noun = _WHO_NOUN.search(question)
        asked = {stem(noun.group(1).lower())} if noun else scorer.q_terms
        for header, cell in fact.cells[1:]:
            words = terms(header) - {"name"}
            if words & asked and re.search(r"[A-Za-z]{2}", cell) and not numbers_in(cell):
                return Value.of_text(cell.strip())
        key = fact.cells[0][1].strip()
        lettered = re.search(r"[A-Za-z]", key) is not None  # a clock time or a figure is no name
        return Value.of_text(key) if key and lettered and not (terms(key) <= scorer.q_terms) else None
    names = [(m.start(), m.end(), m.group(1)) for m in _NAME.finditer(text)]
    if not names and not re.search(r"\bwho\b", question, re.I):
        names = [(m.start(), m.end(), m.group(0)) for m in _ENTITY.finditer(text) if m.start() > 0]
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
    return Value.of_text(_closest(list(names), text, scorer)[2].strip())


_WHO_NOUN = re.compile(r"\bwho(?:'s| is| was| are| were)? (?:the |our |their |its )?([a-z]{3,})\b", re.I)
_ACTS_AS_SUBJECT = re.compile(r"\s+(?:is|are|was|were|has|have|can|may|must|will|opens?|closes?|holds?|"
                              r"takes?|seats?|costs?|runs?)\b", re.I)  # fmt: skip


def _number_value(question: str, text: str, scorer: Scorer, wanted: AnswerType) -> Value | None:
    if wanted.kind == "duration":
        spelled = periods_in(text)  # "within ten working days": the period as the document qualifies it
        if spelled and not any(n.unit in wanted.units for n in numbers_in(text)):
            f = _closest([(x.start, x.end, x) for x in spelled], text, scorer)[2]
            return Value.of_number(f.number, f.unit, f.text)
    found = [
        f
        for f in numbers_in(text)
        if not (f.unit == "" and 1900 <= f.number <= 2100 and "year" not in question.lower())
    ]
    asked = {(n.number, n.unit) for n in numbers_in(question)}
    found = [f for f in found if (f.number, f.unit) not in asked and (f.number, "") not in asked] or found
    found = [f for f in found if not _stated(f, question)] or found
    found = [f for f in found if not _clause_number(text, f)]  # "7.3 When a meal is provided ...": a label
    found = [f for f in found if not day_of_month(text, f)] or found  # "(1 November to ...)": a date
    if not found:
        return None
    units = wanted.units
    fits = [f for f in found if f.unit in units] if units else []
    if units == MONEY_UNITS and not fits and wanted.kind != "amount":  # a price asked: not "170 gsm"
        found = [f for f in found if f.unit or not counts_a_thing(text, f)]
        if not found:
            return None
    if wanted.kind == "amount" and not fits:
        # "what will she pay?": an amount of money, never the "two hours" of a rule; a price list's bare
        # figures count when they read as prices ("+ 0.02 per card", "6.50")
        fits = [f for f in found if not f.unit and _reads_as_price(text, f)]
        if not fits:
            return None
    if wanted.kind == "duration" and units and not fits:
        return None  # "how soon ...?": a period, never the house number of an address
    pool = fits or found
    low = text.lower()
    if wanted.per:  # "18.00 per square metre" for "the rate per square metre"
        per = [f for f in pool if _per_follows(low, f.end, wanted.per)]
        if per:
            pool = per
    moved = change_end(question, text, pool)  # "reset from 512 to 64": the end the question asks for
    if moved is not None:
        return _of(moved)
    anchored = _after_names(pool, text, scorer) or _in_own_segment(pool, text, scorer)
    if anchored is not None:
        return _of(anchored)
    colon = text.find(":")
    if colon != -1 and terms(text[:colon]) & scorer.q_terms:
        after = [f for f in pool if f.start > colon]
        if after:
            return _of(after[0])
    spans = [(f.start, f.end, f) for f in pool]
    return _of(_closest(spans, text, scorer)[2])


_PERIOD = re.compile(
    r"\b(\d+|" + "|".join(w for w in WORD_NUMBERS if " " not in w) + r")(?:-| )"
    r"((?:working|business|calendar|clear|school|banking|full) )?(days?|weeks?|months?|hours?|years?)\b",
    re.I,
)


def periods_in(text: str) -> list[Found]:
    """Periods a text states in words or with a qualifier ("ten working days", "14 calendar days"), each in
    its unit with the qualifier kept ("working days"): a working day is not a day."""
    out = []
    for m in _PERIOD.finditer(text):
        word = m.group(1).lower()
        number = float(word) if word.isdigit() else float(WORD_NUMBERS[word])
        unit = ALIASES.get(m.group(3).lower(), m.group(3).lower())
        if m.group(2):
            unit = f"{m.group(2).strip().lower()} {m.group(3).lower().rstrip('s')}s"
        elif word.isdigit():
            continue  # a plain "10 days": numbers_in reads it
        out.append(Found(m.start(), m.end(), number, unit, m.group(0)))
    return out


def _clause_number(text: str, f: Found) -> bool:
    """A number that opens the fact and is followed by a capitalised word numbers a clause or a section
    ("7.3 When a meal ...", "2. Cleaning is charged ..."): a label, never a value."""
    return not f.unit and not text[: f.start].strip(" *#-") and bool(re.match(r"\.?\s+[A-Z]", text[f.end :]))


def _stated(f: Found, question: str) -> bool:
    """The question itself states this measure, in any unit ("after half an hour of pumping": 30 minutes
    of the document is the situation, not the answer)."""
    if not f.unit:
        return False
    for q in stated_quantities(question):
        scale = factor(q.unit, f.unit) if q.unit else None
        if scale is not None and abs(q.number * scale - f.number) < 1e-9 * max(1.0, abs(f.number)):
            return True
    return False


def _reads_as_price(text: str, f: Found) -> bool:
    after = text[f.end : f.end + 12].lower()
    return bool(re.search(r"\.\d\d$", f.text) or re.match(r"\s*(?:per|/|each|a |an )", after))


def _of(f: Found) -> Value:
    return Value.of_number(f.number, f.unit, f.text)


def _per_follows(low: str, end: int, per: str) -> bool:
    after = low[end : end + 40]
    head = per.split()[-1][:5]
    if re.match(rf"\s*(?:/|per|a|an|each)\s*(?:\w+\s)?{re.escape(head)}", after):
        return True
    return bool(re.match(r"\s*/\s*m[²2³3]", after)) and ("metre" in per or "meter" in per)


def _in_own_segment(pool: Sequence[Found], text: str, scorer: Scorer) -> Found | None:
    """In an enumeration ("standard resin 8 minutes per side, tough resin 15 minutes per side, ..."), the
    number of the one item whose own words the question uses (words every item shares do not count)."""
    if len(pool) < 2:
        return None
    cuts = [0, *(m.end() for m in re.finditer(r"[,;:]\s+|\s+(?:and|or)\s+", text)), len(text) + 1]
    segments = [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    owned: list[tuple[set[str], Found]] = []
    for a, b in segments:
        inside = [f for f in pool if a <= f.start < b]
        if len(inside) == 1:
            owned.append((terms(text[a:b]), inside[0]))
    if len(owned) < 2:
        return None
    shared = set.intersection(*(t for t, _ in owned))
    scored = [
        (sum(scorer.idf.get(t, 0.0) for t in sorted((own - shared) & scorer.q_terms)), f) for own, f in owned
    ]
    scored.sort(key=lambda x: -x[0])
    if scored[0][0] > 0 and scored[0][0] > scored[1][0]:
        return scored[0][1]
    return None


def _after_names(pool: Sequence[Found], text: str, scorer: Scorer) -> Found | None:
    """The number right after a mention of a code the question names ("(AL-500X: 50 °C)"), when the fact
    mentions it in the middle (a fact about that code alone has no competing numbers)."""
    low = text.lower()
    best: Found | None = None
    for code in scorer.codes:
        for m in re.finditer(rf"(?<![\w-]){re.escape(code)}(?![\w-])", low):
            if m.start() < 3:
                continue
            following = [f for f in pool if 0 <= f.start - m.end() <= 12]
            if following and (best is None or following[0].start < best.start):
                best = following[0]
    return best


def _cell_value(
    question: str, fact: Fact, scorer: Scorer, facts: Sequence[Fact], wanted: AnswerType
) -> Value | None:
    stated = {n.text.lower() for n in numbers_in(question)}
    columns = [
        (h, c) for h, c in fact.cells if (numbers_in(c) or dates_in(c)) and c.strip().lower() not in stated
    ]
    given = set(quantities(question))  # "at 10 °C": the row's key column, not its answer
    columns = [(h, c) for h, c in columns if {n.number for n in numbers_in(c)} - given] or columns
    names = _DESIGNATED.findall(question)  # "Severity 1": the cell that names the row, never its answer
    columns = [(h, c) for h, c in columns if not any(_names(c, w, n) for w, n in names)] or columns
    if wanted.kind == "count":  # "how many bags": a bare number, not the bag size
        columns = [(h, c) for h, c in columns if any(n.unit == "" for n in numbers_in(c))] or columns
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

    def col_score(header: str) -> float:
        named = {t for t in terms(header) & q_terms if not t.startswith("u_")}  # units: below, by kind
        score = sum(scorer.idf.get(t, 0.0) for t in sorted(named))
        score += 1.0 if per and per in header.lower() else 0.0
        if wanted.units and unit_in_header(header, ALIASES) in wanted.units:
            score += 1.0  # "how many hours": the column "Runtime (h)"
        if abbreviated & terms(header):
            score += 2.0  # "Zone 2" named, the column "Z2 Standard": its abbreviation
        if per_quantity is not None and per_quantity.search(header):
            score += 1.0  # "for five hours": the column of the rate per hour
        if money and re.search(r"\b(?:min(?:imum|\.)|max(?:imum|\.)|capacity|stay|seats?)\b", header, re.I):
            score -= 0.5  # a price is asked: not a limit's column
        if money and re.search(r"\b(?:rates?|prices?|charges?|fees?|costs?|fares?|eur)\b|€", header, re.I):
            score += 1.0  # a price is asked: a column of prices
        other = unit_in_header(header, ALIASES)
        if money and other and other not in MONEY_UNITS and other != "cent":
            score -= 3.0  # "MIN. HIRE (hours)", "AREA (m2)": a quantity of another kind
        if money and set(attribute_units(header)) & set(MONEY_UNITS):
            score += 0.5  # "the café revenue": the Revenue column, not the Cafés count
        return score

    header, cell = max(columns, key=lambda hc: (col_score(hc[0]), -columns.index(hc)))
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
    nums = numbers_in(cell)
    if nums:
        pick = next((n for n in nums if n.unit in wanted.units), nums[0])
        unit = pick.unit or unit_in_header(header, ALIASES)  # "Green coffee roasted (tonnes)": 66.8 t
        if wanted.units == ("%",) and unit != "%" and "%" not in header:
            return None  # a percentage asked ("the VAT rate"): a figure of another kind is none
        return Value.of_number(pick.number, unit, pick.text)
    days = dates_in(cell)
    return Value.of_date(days[0][2]) if days else None


_DESIGNATED = re.compile(r"\b([A-Z][a-z]{2,}) (\d{1,3})\b(?![.,:]?\d)")


def _names(cell: str, word: str, number: str) -> bool:
    """The cell names a thing the way the question does ("Severity 1 (production down)")."""
    return re.search(rf"\b{re.escape(word)} {number}\b(?![.,:]?\d)", cell, re.I) is not None


def _closest(spans: Sequence[tuple[int, int, Any]], text: str, scorer: Scorer) -> tuple[int, int, Any]:
    """The span most tied to the question's words: each word weighs its IDF over its distance."""
    anchors = [
        (m.start(), scorer.idf.get(stem(m.group()), scorer.idf.get(m.group(), 0.0)))
        for m in _WORD.finditer(text.lower())
    ]
    anchors = [(pos, w) for pos, w in anchors if w > 0]
    if not anchors:
        return spans[0]

    def pull(span: tuple[int, int, object]) -> float:
        total = 0.0
        for pos, weight in anchors:
            gap = (span[0] - pos) / 6 if span[0] >= pos else (pos - span[1]) / 4 + 2
            total += weight / (1 + max(0.0, gap))
        return total

    return max(spans, key=pull)


__all__ = ["counts", "extract", "units_wanted"]
