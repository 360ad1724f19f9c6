"""Facts (pure): the sentences, list items, ``key: value`` lines and table rows of retrieved passages, and
the IDF-weighted :class:`Scorer` that says how much of a question each fact holds.

Passages are cut into **facts**: sentences and list items, ``key: value`` lines, rows of markdown,
space-aligned and comma-separated tables (:mod:`.tables`; cells named by the header row), each with its
**context** (file name, heading trail, the header of the block or table it sits in); headings are facts of
kind ``heading`` (context for what
follows, never an answer). A fact scores the IDF-weighted share of the question's terms it holds (terms in
the context count 0.6); a fact that names another model of the same family as one the question names
(``X5`` when the question says ``X7``) without the question's own counts a third; documents that say they
were superseded count 0.7 unless the question names them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.chunks import is_caption
from ioa_p2p.adapters.retrieval.closeness import WordSource, near_credit, plain
from ioa_p2p.adapters.retrieval.corrections import REPLACED_WEIGHT, only_replaced, replaced_amounts
from ioa_p2p.adapters.retrieval.measures import asked_measures, conflicts
from ioa_p2p.adapters.retrieval.quoting import quote_weight, without_parties
from ioa_p2p.adapters.retrieval.tables import table_at
from ioa_p2p.adapters.retrieval.terms import (
    CODE,
    STOP,
    named_terms,
    question_terms,
    stem,
    terms,
    unit_terms,
    weekdays_in,
)
from ioa_p2p.adapters.retrieval.validity import out_of_validity
from ioa_p2p.planning.values import dates_in, numbers_in

#: A dot leader between an item and its value in a price list or a spec sheet.
_LEADER = re.compile(r"\s*(?:\.\s?){4,}\s*|\s*\u2026{2,}\s*")
_SUPERSEDED = re.compile(r"\b(superseded|replaced by|obsolete|no longer valid|outdated)\b", re.I)
#: A section, heading or sentence about figures no longer in force (the document itself may be current).
_OLD = re.compile(
    r"\b(?:superseded|replaced by|obsolete|no longer (?:valid|sold|offered|available|appl\w+|in force)|"
    r"outdated|"
    r"previous (?:fares|prices|rates|edition|list|figures|version)|for reference only|formerly|"
    r"until \d{1,2} \w+ \d{4}\b[^.]*\b(?:was|were)\b|old (?:rate|price|fare)s?\b)",
    re.I,
)
#: "the old price", "the previous list" name superseded figures; an age ("a 9-year-old") does not
_OLD_ASKED = re.compile(r"\b(?:(?<![-\w])(?<!years )(?<!year )old|previous|former|earlier|prior)\b", re.I)
_TOTAL_ASKED = re.compile(r"\b(?:total|overall|full[- ]year|annual|whole year|in all|altogether)\b", re.I)
_TOTAL_ROW = frozenset({"total", "fy", "full year", "year", "all", "sum", "overall", "grand total"})
_RANGE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:-|–|to)\s*(\d[\d,]*(?:\.\d+)?)")
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(])")


@dataclass(frozen=True, slots=True)
class Fact:
    path: str
    line: int
    text: str  # the fact as written
    context: str  # file name, headings, block / table header
    cells: tuple[tuple[str, str], ...] = ()  # (column header, cell) for table rows
    table: str = ""  # an id shared by the rows of one table
    prior: float = 0.0  # the search score of the passage it is in
    kind: str = ""  # "heading" for a heading line (context, never an answer)
    quoted: int = 0  # the quote level it is written at (0: the text written last; quoting.py)


def facts_of(
    path: str,
    start_line: int,
    heading: str,
    text: str,
    superseded: bool = False,
    title: str = "",
    prior: float = 0.0,
    depths: Sequence[int] = (),
) -> list[Fact]:
    """The facts of one passage (``text`` starts at source line ``start_line``; ``title``: the document's
    first line, context for every fact; ``depths``: each line's quote level in a thread, quoting.py)."""
    lines = text.splitlines()
    depths = [*depths[: len(lines)], *[0] * (len(lines) - len(depths))]
    # the file's name and title, then (after SECTION) the section: its heading trail and block headers
    context0 = re.sub(r"[_\-./]+", " ", path) + " " + title + f" {SECTION} " + heading
    out: list[Fact] = []
    i = 0
    block_header = ""
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        titled = stripped.startswith("#") and not ("|" in stripped and table_at(lines, i))  # "# | who"
        if not stripped or titled or is_caption(line):
            if stripped:  # a heading, or a plain-text caption ("GREEN COFFEE"): what follows is about it
                block_header = stripped.lstrip("# ")
                out.append(Fact(path, start_line + i, block_header, context0, kind="heading"))
            i += 1
            continue
        table = table_at(lines, i)
        if table is not None and line[:1].isspace() and not block_header:
            block_header = next(
                (x.strip() for x in reversed(lines[:i]) if x.strip() and not x[:1].isspace()), ""
            )
        if table is not None:
            header, rows, used = table
            tid = f"{path}:{start_line + i}"
            for offset, cells in rows:
                named = tuple(zip(header, cells, strict=False))
                own = " | ".join(cells) + " \0 " + " ".join(header)
                if header and cells and len(cells[0].split()) == 1:  # "Zone | A": the row is Zone A
                    own += f" {header[0].strip()} {cells[0].strip()}"
                depth = depths[min(i + offset, len(depths) - 1)]
                context = f"{context0} {block_header}"
                out.append(Fact(path, start_line + i + offset, own, context, named, tid, quoted=depth))
            i += used
            continue
        indented = line[:1].isspace()
        following = next((x for x in lines[i + 1 : i + 4] if x.strip()), "")
        if not indented and following[:1].isspace():  # "ROUTE B -- daily" heads the indented block below
            block_header = stripped  # (a list item wrapped onto indented lines too: its rules' context)
        first = i
        item = bool(
            re.match(r"([-*•]|\d+[.)])\s|\d+(?:\.\d+)+\.?\s+[A-Z]", stripped)
        )  # "3.3 Bonfires ...": a clause
        leader = bool(_LEADER.search(stripped))  # "Standing charge ..... 0.62 per day": a line of its own
        keyed = bool(_KEY_LINE.match(stripped))  # "BOM revision:  7": one key, one value, one fact
        while (
            i + 1 < len(lines)
            and not leader
            and depths[i + 1] == depths[first]  # (another quote level: another message)
            and _continues(lines[i + 1], item)
        ):
            if _LEADER.search(lines[i + 1]) or keyed and _KEY_LINE.match(lines[i + 1]):
                break
            i += 1
            stripped += " " + lines[i].strip()
        term = term_of(lines, first) if indented else ""  # "--retries=N" above its indented description
        while term and i + 1 < len(lines) and _wraps(line, lines[i + 1], stripped):
            i += 1  # "... before tarnsync gives" / "up on that file.": one sentence wrapped
            stripped += " " + lines[i].strip()
        body = (
            re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", stripped).lstrip("-*• ").strip()
        )  # its label is no sentence
        body = _LEADER.sub(": ", body)  # "Netting, per metre ....... EUR 1.35": a key and its value
        sentences = [x for x in _SENTENCE_END.split(body) if x]
        for n, sentence in enumerate(sentences):
            lead = (
                f" {sentences[0]}" if n else ""
            )  # "Tutor: H. Quayle." belongs to the course its paragraph opens
            context = f"{context0} {block_header}{term}{lead}"
            role = "heading" if not without_parties(sentence) else ""  # a sign-off: no answer (quoting.py)
            out.append(Fact(path, start_line + first, sentence, context, kind=role, quoted=depths[first]))
        i += 1
    old_section = bool(_OLD.search(heading))

    def mark(f: Fact) -> str:
        old = superseded or old_section or bool(_OLD.search(f.context + " " + f.text))
        return " \0superseded" if old else ""

    return [
        Fact(f.path, f.line, f.text, f.context + mark(f), f.cells, f.table, prior, f.kind, f.quoted)
        for f in out
    ]


SECTION = "\u2016"


def section_of(fact: Fact) -> str:
    """The heading trail and block header a fact sits under (not the file's name or title)."""
    return fact.context.split("\0")[0].partition(SECTION)[2]


def row_designators(fact: Fact) -> set[str]:
    """The designators a table row names ("band#f" for the row keyed "F" under "Band", "zone#2" for a
    cell "Zone 2"): from its own cells and its key under the first header, never from a header that
    names one ("Ratio to Band D" names no row)."""
    cells = fact.text.split("\0")[0]
    key = f" {fact.cells[0][0].strip()} {fact.cells[0][1].strip()}" if fact.cells else ""
    return {t for t in terms(cells + key) if "#" in t}


def _continues(line: str, item: bool = False) -> bool:
    """A wrapped line of the same paragraph (not blank, a list item, a heading, a table or indented; a list
    item's wrapped lines are indented under it)."""
    s = line.strip()
    indented_ok = item and line[:1].isspace() and not re.search(r"\S\s{2,}\S", s)
    return (
        bool(s)
        and (indented_ok or not line[:1].isspace())
        and not re.match(r"([-*•|#+]|\d+[.)])\s|\d+(?:\.\d+)+\.?\s+[A-Z]", s + " ")
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def term_of(lines: Sequence[str], i: int) -> str:
    """The term an indented description belongs to (a definition list, a man page's options): the line
    just above its paragraph, with no blank line between, indented at least 4 columns less, short and no
    sentence (" " + its text); "" for none."""
    depth = _indent(lines[i])
    j = i - 1
    while j >= 0 and lines[j].strip() and _indent(lines[j]) == depth:
        j -= 1
    if j < 0 or not lines[j].strip() or _indent(lines[j]) > depth - 4 or table_at(lines, j) is not None:
        return ""
    term = lines[j].strip()
    # a term is short and no sentence or label of its own ("--retries=N", "Pot life"; never "Energy, per
    # monthly billing period:" or a rule whose sentence wraps)
    if len(term.split()) > 4 or re.search(r"[.:;,]$", term):
        return ""
    return " " + term


def _wraps(line: str, following: str, text: str) -> bool:
    """An indented line wrapped onto the next (the same indent, a sentence not yet ended, going on in
    lower case): "... before tarnsync gives" / "up on that file."."""
    return (
        bool(following.strip())
        and _indent(following) == _indent(line)
        and following.strip()[:1].islower()
        and not re.search(r"[.:;!?]$", text)
        and not re.search(r"\S\s{2,}\S", following.strip())
    )


#: A ``key: value`` line of a document's head or a record ("Currency:      EUR"): a key of a few words.
_CONTRARY = re.compile(r"\b(off|non|without|excluding|except|outside)[\s-]+([a-z]{3,})")
_KEY_LINE = re.compile(r"[A-Z][A-Za-z0-9()/&'-]*(?: [A-Za-z0-9()/&'-]+){0,3}:\s+\S")
_CLOCK = re.compile(r"(?<![\d.:])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:])")
#: days or hours a question excludes: "outside Monday-Friday 08:00-18:00", "except on Sundays"
_OUTSIDE = re.compile(
    r"\b(?:outside|except|other than)\b[^,.;?!]{0,30}?"
    r"(?:\d{1,2}:\d\d|\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b)",
    re.I,
)
_NAME = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*"
#: a list of names after a word that excludes them: "outside Amsterdam, Paris and London"
_EXCLUDED_NAMES = re.compile(
    rf"\b(?:outside|except(?:\s+in|\s+for)?|other\s+than|apart\s+from|excluding)\s+"
    rf"({_NAME}(?:\s*(?:,|\band\b|\bor\b|&)\s*{_NAME})*)"
)
#: The lines of a document's head (title, parties, addressee, date): names there are about all of it.
HEAD_LINES = 8


#: the word vectors a scorer credits paraphrase with by default (closeness.py): none. Measured over the
#: readable goal suites (docs/performance.md, p-prose) the credit turned 4 goals right and 3 wrong (a loose
#: pair lifts another fact: "adult" ~ "people", "domestic" ~ "DOM"); pass ``words=WORDS`` to use it.
PARAPHRASE: WordSource | None = None


class Scorer:
    """IDF-weighted matching of a question's terms against facts (IDF over the given facts)."""

    def __init__(self, question: str, facts: Sequence[Fact], words: WordSource | None = PARAPHRASE) -> None:
        self.question = question
        self.low = question.lower()
        # names the question excludes ("outside Amsterdam, Paris and London"): no match, their facts not it
        self.excluded = {t for m in _EXCLUDED_NAMES.finditer(question) for t in terms(m.group(1))}
        self.q_terms = question_terms(question) - self.excluded
        n = max(1, len(facts))
        df: dict[str, int] = {}
        for f in facts:
            for t in terms(f.text) | terms(f.context) | unit_terms(f.text):
                df[t] = df.get(t, 0) + 1
        # in a fixed order: sums of floats in a set's (hash-seeded) order would break ties differently per run
        self.idf = {t: math.log(1 + n / (1 + df.get(t, 0))) for t in sorted(self.q_terms)}
        for t in (
            named_terms(question) & self.q_terms
        ):  # names and codes pin the answer down: they weigh double
            self.idf[t] *= 2
        self.total = sum(v for t, v in self.idf.items() if not t.startswith("u_")) or 1.0  # units: a bonus
        self.codes = {t for t in self.q_terms if CODE.match(t)}
        self.names_superseded = bool(_SUPERSEDED.search(question) or _OLD_ASKED.search(question))
        self.question = question
        self.low = question.lower()
        self.current_asked = bool(
            re.search(r"\b(?:current|currently|now|latest|new|today|valid)\b", question, re.I)
        )
        # a named term (Munich) that some fact of a document states: that document's facts must state it
        self.named = named_terms(question) & self.q_terms
        self.stated: dict[str, set[str]] = {}
        for f in facts:  # (a name only the document's head states, its parties or addressee, is its context)
            if f.line > HEAD_LINES:
                self.stated.setdefault(f.path, set()).update(terms(without_parties(f.text)) & self.named)
        self.quantities = quantities(question)
        self.measured = {(n.number, n.unit) for n in numbers_in(question) if n.unit}
        self.sizes = asked_measures(question)  # "a 16 A hook-up": the row of another size conflicts
        self.clocks = {_hhmm(c) for c in _CLOCK.findall(question)}
        self.outside = bool(_OUTSIDE.search(question))  # the days and hours named are the ones excluded
        self.total_asked = bool(_TOTAL_ASKED.search(question))
        self.years = {t for t in self.q_terms if re.fullmatch(r"(?:19|20)\d\d", t)}
        self.days = weekdays_in(question) | {d.weekday() for _, _, d in dates_in(question)}
        # the question's ordinary words a fact may say in other words (closeness.py); never a name
        self.words = words
        self.paraphrased = {t for t in self.idf if plain(t) and t not in self.named}
        self.replaced: dict[str, set[float]] = {}  # per document: the amounts it says were replaced
        for f in facts:
            self.replaced.setdefault(f.path, set()).update(replaced_amounts([f.text.split("\0")[0]]))

    def contrary(self, key: str) -> bool:
        """A fact's key that negates a word of the question the question does not negate ("off peak",
        "non-member", "without breakfast" for "peak", "member", "breakfast")."""
        low = key.lower()
        for m in _CONTRARY.finditer(low):
            word = stem(m.group(2))
            negated = rf"\b{m.group(1)}[\s-]+{re.escape(m.group(2))}"
            if word in self.q_terms and not re.search(negated, self.low):
                return True
        return False

    def score(self, fact: Fact) -> float:
        own, ctx = terms(fact.text) | unit_terms(fact.text), terms(fact.context)
        if fact.cells:  # a table row's subject is the heading right above its table ("### Fixed Home 12")
            own = own | (terms(section_of(fact).split(">")[-1]) & self.named)
            own = {t for t in own if "#" not in t} | row_designators(fact)  # not its header's "Band D"
            figures = {t for t in terms(fact.text.split("\0")[0]) if t[:1].isdigit()}
            own = {t for t in own if not t[:1].isdigit()} | figures  # not its header's "(6-12)"
        squashed = {_squashed(t) for t in own | ctx if CODE.match(t)}
        ctx = ctx | {c for c in self.codes - own if _squashed(c) in squashed}  # "KD-4" in "kd4-bom.txt"
        got = sum(w * (1.0 if t in own else 0.6 if t in ctx else 0.0) for t, w in self.idf.items())
        unmet = self.paraphrased - own - ctx
        if unmet and self.words is not None and not fact.cells:  # prose: "cost" where it says "price"
            got += sum(self.idf[t] * c for t, c in near_credit(unmet, own, self.words).items())
        value = got / self.total
        everywhere = own | ctx
        for code in self.codes:
            family = re.match(r"[a-z]+", code)
            siblings = {t for t in everywhere if CODE.match(t) and _squashed(t) != _squashed(code)}
            if family and code not in everywhere and any(s.startswith(family.group()) for s in siblings):
                value *= 0.33
        for _name in self.stated.get(fact.path, set()) - own - ctx:
            value *= 0.6
        value *= 1 + 0.25 * len(self.codes & own)  # a code the fact itself states (not only its file's name)
        of_year = bool(self.years & everywhere)  # "trips made in 2024": the figures of that year, old or not
        # (a year only the document's name or title states, "rules and rents for 2026-27", is no figure's
        # year: the old figures of its reference-only section stay old)
        old_of_year = bool(self.years & (own | terms(fact.context.split(SECTION, 1)[-1])))
        if self.years and not of_year and any(re.fullmatch(r"(?:19|20)\d\d", t) for t in everywhere):
            value *= 0.5  # "Q4 2023": a fact of another year only (a table of 2024's figures) is not of it
        if out_of_validity(self.question, fact.text):  # "until 30 April 2026" for "from May 2026"
            value *= 0.25
        elif "\0superseded" in fact.context and not self.names_superseded and not old_of_year:
            value *= 0.25 if self.current_asked else 0.5
        key = _key_of(fact)
        if self.contrary(key):  # "off peak: 2" for "a peak period", "non-members" for "members"
            value *= 0.5
        band = _band(key)
        if band is not None and self.quantities:  # volume bands, weight bands: the one the quantity is in
            value *= 1.6 if any(band[0] <= q <= band[1] for q in self.quantities) else 0.4
        elif fact.cells and self.quantities and band is None:  # a curve's row: the one at the quantity
            keyed = [n.number for n in numbers_in(key)]
            if len(keyed) == 1:
                value *= 1.6 if keyed[0] in self.quantities else 0.6
        named_here = not (self.codes - own)  # a total row of another period is not the total asked for
        if self.total_asked and fact.cells and key.strip(" *_").lower() in _TOTAL_ROW and named_here:
            value *= 1.5
        if self.sibling(key):
            value *= 0.4
        days = weekdays_in(key) if self.days else set()
        if days:  # "on a Wednesday": the row of "Tuesday to Friday", not "Saturday and Sunday"
            inside = not (self.days & days) if self.outside else self.days <= days
            value *= 1.5 if inside else 0.6
        if self.clocks:  # "the 13:00 sailing": the row of that time
            here = {_hhmm(c) for c in _CLOCK.findall(fact.text)}
            if not self.outside:
                value *= 1.5 if here & self.clocks else (0.7 if here else 1.0)
        if self.excludes(fact):  # "outside Mon-Fri 08:00-18:00": not the row keyed by those days or hours
            value *= 0.25
        if self.contradicts(fact):
            value *= 0.5
        if fact.quoted and not self.names_superseded:  # an earlier message's value, quoted (quoting.py)
            value *= quote_weight(fact.quoted)
        asked_then = self.names_superseded or bool(self.years)  # "the old fee", "orders in 2025"
        if not asked_then and only_replaced(fact.text.split("\0")[0], self.replaced[fact.path]):
            value *= REPLACED_WEIGHT  # "canapes £6.90" where a later line says "(not £6.90 ...)"
        return value

    def excludes(self, fact: Fact) -> bool:
        """The question excludes the days or hours this fact's key is for ("outside Mon-Fri 08:00-18:00"
        over the row "Call-out, Mon-Fri 08:00-18:00")."""
        if self.excluded and self.excluded & terms(_key_of(fact) or fact.text.split("\0")[0]):
            return True
        if not self.outside:
            return False
        key = _key_of(fact)
        clocks = {_hhmm(c) for c in _CLOCK.findall(key)}
        return bool(self.days & weekdays_in(key)) or bool(self.clocks & clocks)

    def contradicts(self, fact: Fact) -> bool:
        """The fact states amounts in the unit of one the question measures, none of them that one ("0 m
        head" or a row of "13 m" max. head where the question says "at 6 m of head"; bands excepted)."""
        if conflicts(self.sizes, fact.text):  # "Electric hook-up (10 A)" for "a 16 A hook-up" (measures.py)
            return True
        if not self.measured or fact.cells and (_band(_key_of(fact)) or any(_band(c) for _, c in fact.cells)):
            return False
        found = {(n.number, n.unit) for n in numbers_in(fact.text.split("\0")[0]) if n.unit}
        same_unit = {u for _, u in self.measured} & {u for _, u in found}
        return bool(same_unit) and not (found & self.measured)

    def sibling(self, key: str) -> bool:
        """The fact is about a sibling of what the question names: its key "Lime curd" where the question
        says "Lemon curd" (same head word, another modifier the question does not use)."""
        words = re.findall(r"[a-z]+", key.lower())
        if len(words) < 2 or len(words) > 4:
            return False
        head, modifier = words[-1], words[-2]
        asked = re.findall(rf"\b([a-z]+) {re.escape(head)}\b", self.question.lower())
        asked = [w for w in asked if w not in STOP]  # "how much sugar" names no other sugar than "caster"
        return bool(asked) and modifier not in asked and stem(modifier) not in self.q_terms


def _squashed(code: str) -> str:
    """A code without its separators: "KD-4" and "kd4" (a file's name) name the same model."""
    return re.sub(r"[^a-z0-9]", "", code.lower())


def _hhmm(clock: str) -> str:
    h, m = clock.split(":")
    return f"{int(h):02d}:{m}"


def quantities(question: str) -> list[float]:
    """The quantities a question states (800 cards, 3 kg): numbers that are not years, parts of codes or
    designators ("Zone 2", "Line 4": a name, not an amount)."""
    return [
        n.number
        for n in numbers_in(question)
        if not (n.unit == "" and (1900 <= n.number <= 2100 or _DESIGNATOR.search(question[: n.start])))
    ]


_DESIGNATOR = re.compile(r"\b[A-Z][a-z]{2,} $")


def _key_of(fact: Fact) -> str:
    """What a fact is about: a table row's first cell, else a sentence's words before its colon."""
    if fact.cells:
        return fact.cells[0][1]
    colon = fact.text.find(":")
    return fact.text[:colon] if 0 < colon <= 60 else ""


def _band(key: str) -> tuple[float, float] | None:
    """The range of quantities a row or line is for ("100-249", "1,000+", "up to 5 kg", "over 10,000"),
    None when it names none."""
    low = key.lower()
    m = _RANGE.search(low)
    if m:
        return float(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))
    nums = [n.number for n in numbers_in(key)]
    if len(nums) != 1:
        return None
    n = nums[0]
    # the word bounds the figure itself ("over 10 kg", "up to EUR 50", "5 kg or more"); a word elsewhere in
    # the key does not ("Flue length max (60/100 mm)": an attribute, its figure a size)
    if re.search(rf"\d\s*\+|\b(?:over|above|beyond|more than|from|at least){_TO_FIGURE}|"
                 r"\d[^.;,]{0,12}?\b(?:and more|or more)\b", low):  # fmt: skip
        return n, math.inf
    if re.search(rf"\b(?:up to|under|below|less than|first|max(?:imum)?|at most|within){_TO_FIGURE}", low):
        return 0.0, n
    return None


#: after a band's word: the figure it bounds, perhaps after a currency ("up to EUR 50", "max. 20 kg")
_TO_FIGURE = r"\.?\s*(?:[a-z€£$]{1,3}\s?)?\d"


def superseded(text: str) -> bool:
    head = "\n".join(text.splitlines()[:3])
    return bool(_SUPERSEDED.search(head))


__all__ = [
    "SECTION",
    "unit_terms",
    "Fact",
    "Scorer",
    "facts_of",
    "question_terms",
    "section_of",
    "stem",
    "superseded",
    "terms",
]
