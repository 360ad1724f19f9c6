"""Quantities and rates read from passages and from a request (pure): the operands of a derivation.

A :class:`Quantity` is a number with what it counts or measures (``unit``: a known unit such as ``EUR``,
``kWh``, ``m²``, or a thing such as ``biscuit``) and what it is given per (``per``: ``("kWh",)`` for
"EUR 0.11 per kWh", ``("m²", "months")`` for "EUR 1.80 per square metre per month", ``("h",)`` for
"52 km/h"), with the words around it (its clause, and for a table cell its row and column names).

- :func:`facts_in` reads them from document text: sentences, list items, table cells; a section that says
  what it yields ("Makes 24 biscuits", "One loaf needs ...") turns its amounts into amounts per item;
- :func:`givens_in` reads the quantities a request states ("for 3 hours", "60 oat biscuits", "for a
  year", "a 5-day week", "six of us");
- :func:`convert` says how many of one unit make another (units of one kind, periods, things by name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import cast

from ioa_p2p.planning.units import factor, period_of, periods, unit_in_header
from ioa_p2p.planning.values import ALIASES, numbers_in

MAX_FACTS = 400
WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "a hundred": 100, "a dozen": 12, "half a dozen": 6,
}  # fmt: skip
_WORD_NUMBER = re.compile(r"\b(" + "|".join(sorted(WORD_NUMBERS, key=len, reverse=True)) + r")\b", re.I)
STOP = frozenset(
    re.findall(
        r"\S+",
        "the a an of in on at to for and or is are was were be been what which who how much many does do did "
        "will would should could can i we you it its our my your their this that these those with by from as "
        "if into over per each every total all any some there here get got need needs take takes whole full "
        "about than then when so one",
    )
)
_UNIT_NAMES = frozenset(ALIASES.values())
#: amounts that do not scale with a batch's size (a baking time, an oven temperature)
_UNSCALED = frozenset({"s", "min", "h", "days", "weeks", "months", "years", "°C", "°F", "%"})
#: units of measure a request's number may carry (a number in one counts no thing): not the periods
_MEASURES = frozenset(_UNIT_NAMES - {"days", "weeks", "months", "years", "h", "min", "s"})
_PERIOD_UNITS = {"days": "day", "weeks": "week", "months": "month", "years": "year"}


@dataclass(frozen=True, slots=True)
class Quantity:
    number: float
    unit: str  # a canonical unit ("EUR", "kWh") or a thing, singular ("biscuit")
    per: tuple[str, ...] = ()  # what it is per; () for an amount
    words: frozenset[str] = field(default=frozenset())  # its clause / row and column names
    context: frozenset[str] = field(default=frozenset())  # its sentence and section heading
    text: str = ""  # the source text, shown in the derivation
    alts: tuple[str, ...] = ()  # a request's quantity: the things it may count ("oat", "biscuit")
    at: int = 0  # where the number stands in ``text`` (a fact and its per-item form share it)
    #: per one item of a table row or of a batch ("0.9 kg" in the K2 row: per K2): only a number of
    #: items the request states multiplies it
    per_item: bool = False

    def key(self) -> tuple[float, str, tuple[str, ...], str]:
        return (self.number, self.unit, self.per, self.text)

    def source(self) -> tuple[str, int]:
        """The number in the documents this quantity is (used once in a derivation)."""
        return (self.text, self.at)


def singular(word: str) -> str:
    w = word.lower().strip(".,;:!?()'\"")
    if w.endswith("ves") and len(w) > 4:
        return w[:-3] + "f"
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("es") and len(w) > 4 and w[-3] in "sxz" or w.endswith(("ches", "shes")):
        return w[:-2]
    if w.endswith("s") and len(w) > 3 and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def content_words(text: str) -> frozenset[str]:
    """The words that say what a text is about: lower case, singular, no function words."""
    words = re.findall(r"[a-z0-9²³]+(?:[-'][a-z0-9]+)*", text.lower().replace("’", "'"))
    out = set()
    for w in words:
        w = re.sub(r"'s$", "", w)
        for part in [w, *w.split("-")] if "-" in w else [w]:
            s = singular(part)
            if s and part not in STOP and s not in STOP and not s.isdigit():
                out.add(s)
    return frozenset(out)


def unit_word(words: str) -> str:
    """The unit or thing a phrase names: "square metre" -> m², "kilogram" -> kg, "loaves" -> loaf."""
    low = " ".join(words.lower().replace("-", " ").split())
    tokens = low.split()
    for n in (3, 2, 1):
        if len(tokens) >= n and " ".join(tokens[:n]) in ALIASES:
            return ALIASES[" ".join(tokens[:n])]
    return singular(tokens[0]) if tokens else ""


def spelled(text: str) -> str:
    """Small numbers written as words as digits: "Six engineers" -> "6 engineers"."""
    return _WORD_NUMBER.sub(lambda m: str(WORD_NUMBERS[m.group(1).lower()]), text)


def convert(src: str, dst: str) -> float | None:
    """How many ``dst`` make one ``src`` (years -> months: 12); None when they measure different things."""
    if src == dst:
        return 1.0
    known = factor(src, dst) if "/" not in src + dst else None
    if known is not None:
        return known
    a, b = _PERIOD_UNITS.get(src, ""), _PERIOD_UNITS.get(dst, "")
    if a and b:
        n = periods(b, a)  # how many dst periods make one src period
        return n
    if singular(src) == singular(dst):
        return 1.0
    return None


_PER = re.compile(r"\bper ((?:square |cubic )?[a-z²³]+(?:-[a-z]+)?)", re.I)
_YIELD = re.compile(
    r"\b(?:makes|serves|yields|fills|feeds|for)\s+(?:about\s+)?(\d+)\s+([a-z]+)|^\s*\W*(1|an?|each|every)\s+"
    r"([a-z]+)(?:\s+of\s+[a-z]+)?\s+(?:needs|uses|takes|requires|holds|contains|is made with)\b",
    re.I,
)
_MADE_BY = re.compile(
    r"\b1 ([a-z]+) (?:makes|fills|serves|yields|feeds|gives|holds|seats|covers) (?:about |up to )?(\d+)", re.I
)
_EACH = re.compile(r"\beach(?: of them| one)?\s+[a-z]+s?\s*$|\b(?:apiece|per head|per person)\b", re.I)
_SENTENCE_PERIOD = re.compile(
    r"\b(?:on|in|during) an? (?:typical|normal|average|usual|ordinary) (day|week|month)\b", re.I
)
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*)$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])|\n(?=\s*[-*•]\s)")


def _pers(region: str) -> tuple[str, ...]:
    out: list[str] = []
    for m in _PER.finditer(region):
        phrase = m.group(1)
        if "-" in phrase and phrase.lower().replace("-", " ") not in ALIASES:  # "engineer-hour"
            out += [unit_word(p) for p in phrase.split("-")]
        else:
            out.append(unit_word(phrase))
    return tuple(u for u in out if u)


def _noun_after(text: str, end: int) -> str:
    m = re.match(r"\s*(?:x\s+)?([A-Za-z][A-Za-z-]*)", text[end:])
    if not m:
        return ""
    word = m.group(1)
    return "mah" if word.lower() == "mah" else unit_word(word)


def _numbers(text: str) -> list[tuple[int, int, float, str, tuple[str, ...]]]:
    """(start, end, number, unit, per) of each number in ``text``."""
    out: list[tuple[int, int, float, str, tuple[str, ...]]] = []
    for f in numbers_in(text):
        unit, per = f.unit, cast(tuple[str, ...], ())
        if "/" in unit:
            unit, bottom = unit.split("/", 1)
            per = (bottom,)
        if not unit:
            unit = _noun_after(text, f.end)
        out.append((f.start, f.end, f.number, unit, per))
    return out


def _sentence_facts(sentence: str, heading: frozenset[str]) -> list[Quantity]:
    found = _numbers(sentence)
    context = content_words(sentence) | heading
    out = []
    made = _MADE_BY.search(sentence)  # "One batch fills 6 jars": 6 jars per batch
    daily = _SENTENCE_PERIOD.search(sentence)  # "On a typical day 40 staff ...": 40 staff a day
    for i, (start, end, number, unit, per) in enumerate(found):
        if made and start == made.start(2) and not per:
            per = (unit_word(made.group(1)),)
        elif i and not per and _EACH.search(sentence[found[i - 1][1] : start]):
            per = (found[i - 1][3],)  # "40 staff ... and each drinks 3 cups": 3 cups per staff
        elif daily and not per and unit and unit not in _UNIT_NAMES:
            per = (ALIASES[daily.group(1).lower()],)
        after = found[i + 1][0] if i + 1 < len(found) else len(sentence)
        before = found[i - 1][1] if i > 0 else 0
        region = sentence[end:after]
        per = per + tuple(p for p in _pers(region) if p not in per)
        sized = _SIZED.match(sentence[end:]) if unit and unit in _UNIT_NAMES and not per else None
        if sized:  # "60 kg jute bags", "250 g tins": the size of each of them
            per = (unit_word(sized.group(1)),)
        words = content_words(sentence[before:after])
        out.append(Quantity(number, unit, per, words, context, sentence.strip()[:200], at=start))
    return out


_SIZED = re.compile(r"\s+(?:[a-z]+\s+)??([a-z]{3,}s)\b(?!\s+(?:of|per|for|in|on)\b)")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_facts(rows: list[str], heading: frozenset[str]) -> list[Quantity]:
    header = _cells(rows[0])
    out = []
    for row in rows[1:]:
        if re.fullmatch(r"[\s|:\-]+", row):
            continue
        cells = _cells(row)
        label = content_words(cells[0]) if cells else frozenset()
        label |= frozenset(w for c in cells[1:] if not numbers_in(c) for w in content_words(c))  # its origin
        names = re.findall(r"[A-Za-z][\w-]*", cells[0]) if cells else []
        item = unit_word(names[-1]) if names else ""  # a row's values are per one of its thing ("K2")
        for n, (col, cell) in enumerate(zip(header[1:], cells[1:], strict=False)):
            for _, _, number, unit, per in _numbers(cell):
                named_unit, named_per = _header_unit(col, cell)
                unit = unit or unit_in_header(col, ALIASES) or named_unit
                per = per or _pers(col) or named_per
                words = label | content_words(col)
                text = f"{cells[0]}: {col} {cell}"
                out.append(Quantity(number, unit, per, words, heading | label, text, at=n))
                if item and not per and unit and unit != item:
                    ctx = heading | label
                    out.append(Quantity(number, unit, (item,), words, ctx, text, at=n, per_item=True))
    return out


def _header_unit(col: str, cell: str) -> tuple[str, tuple[str, ...]]:
    """The unit and the per a header names outside parentheses: "Cost EUR/kg" -> (EUR, (kg,)), "Kg per
    bag" -> (kg, (bag,)); a count column named by a plural noun ("Bags") over a whole number -> (bag, ())."""
    slash = re.search(r"([A-Za-z€$%²³]+)\s*/\s*([A-Za-z²³]+)\s*$", col)
    if slash and slash.group(1).lower() in ALIASES:
        return ALIASES[slash.group(1).lower()], (unit_word(slash.group(2)),)
    first = col.split()[0].lower() if col.split() else ""
    if first in ALIASES and _pers(col):  # "Kg per bag" (not "Days of annual leave": what is counted)
        return ALIASES[first], ()
    words = re.findall(r"[A-Za-z]+", col)
    if len(words) == 1 and words[0].lower().endswith("s") and re.fullmatch(r"[\d,]+", cell.strip()):
        return unit_word(words[0]), ()
    return "", ()


def _aligned_as_pipes(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """A space-aligned table at line i (a header of 3+ columns two or more spaces apart, a border of
    dashes or equals signs under it, then rows) as markdown rows, and the line after it; None if none."""
    header = re.split(r"\s{2,}", lines[i].strip())
    if (
        len(header) < 3
        or i + 1 >= len(lines)
        or not re.fullmatch(r"\s*[-=]{2,}(?:\s+[-=]{2,})+\s*", lines[i + 1])
    ):
        return None
    rows = ["| " + " | ".join(header) + " |"]
    j = i + 2
    while j < len(lines) and lines[j].strip():
        cells = re.split(r"\s{2,}", lines[j].strip())
        if len(cells) == len(header):
            rows.append("| " + " | ".join(cells) + " |")
        j += 1
    return (rows, j) if len(rows) > 1 else None


def _yields(section: str) -> list[tuple[float, str]]:
    """What a recipe or a batch makes ("Makes 24 biscuits", "One loaf needs"); never "for 3 hours"."""
    found = [(float(m[1] or 1), unit_word(m[2] or m[4])) for m in _YIELD.finditer(section)]
    return [(n, item) for n, item in found if item not in _UNIT_NAMES and item.isalpha()]


def facts_in(text: str) -> list[Quantity]:
    """The quantities and rates a document text states (see the module docstring)."""
    out: list[Quantity] = []
    for section, heading in _sections(spelled(text)):
        facts: list[Quantity] = []
        lines = section.splitlines()
        i = 0
        while i < len(lines):
            if lines[i].lstrip().startswith("|"):
                j = i
                while j < len(lines) and lines[j].lstrip().startswith("|"):
                    j += 1
                facts += _table_facts(lines[i:j], heading)
                i = j
                continue
            aligned = _aligned_as_pipes(lines, i)
            if aligned is not None:  # "Lot  Origin  Bags  Kg per bag" over a border of dashes
                facts += _table_facts(aligned[0], heading)
                i = aligned[1]
                continue
            j = i
            while j < len(lines) and lines[j].strip() and not lines[j].lstrip().startswith("|"):
                j += 1
            block = "\n".join(lines[i:j]) if j > i else ""
            for sentence in _SENTENCE.split(block):
                sentence = re.sub(r"^\s*[-*•]\s+", "", sentence).replace("\n", " ")
                facts += _with_yield(_sentence_facts(sentence, heading), _yields_of_one(sentence))
            i = max(j, i + 1)
        out += _with_yield(facts, [y for y in _yields(section) if not _one_item(y)])
    return out[:MAX_FACTS]


def _one_item(y: tuple[float, str]) -> bool:
    return y[0] == 1


def _yields_of_one(sentence: str) -> list[tuple[float, str]]:
    return [y for y in _yields(sentence) if _one_item(y)]


def _with_yield(facts: list[Quantity], yields: list[tuple[float, str]]) -> list[Quantity]:
    """A section that makes N items: its amounts are also amounts per item."""
    if not yields:
        return facts
    n, item = yields[0]
    facts = [q for q in facts if not (q.unit == item and q.number == n)]  # "Makes 24 biscuits" itself
    out = list(facts)
    for q in facts:
        if not q.per and q.unit != item and q.unit and n > 0 and q.unit not in _UNSCALED:
            batch = n != 1  # per item of a batch: only a count the request states multiplies it
            each = q.number / n
            out.append(Quantity(each, q.unit, (item,), q.words, q.context, q.text, q.alts, q.at, batch))
    return out


def _sections(text: str) -> list[tuple[str, frozenset[str]]]:
    out: list[tuple[str, frozenset[str]]] = []
    heading: frozenset[str] = frozenset()
    current: list[str] = []
    for line in text.splitlines():
        m = _HEADING.match(line)
        if m:
            if current:
                out.append(("\n".join(current), heading))
            heading, current = content_words(m.group(1)), []
        else:
            current.append(line)
    if current:
        out.append(("\n".join(current), heading))
    return out


_PHRASE_END = frozenset(
    re.findall(
        r"\S+",
        "of over for in at to from on with per and or by during within is are was were will would can could "
        "should do does did that which who whose than then when if",
    )
)


def _phrase_things(after: str) -> tuple[str, ...]:
    """The words of the noun phrase after a number, as things it may count ("60 oat biscuits for ..." ->
    oat, biscuit): up to four, to the first word that ends the phrase."""
    out: list[str] = []
    for word in re.findall(r"[A-Za-z][\w-]*", after)[:4]:
        if word.lower() in _PHRASE_END:
            break
        out.append(unit_word(word))
    return tuple(out)


_A_YEAR = re.compile(
    r"\b(?:in|of|since|until|till|from|during|for|by|before|after|year|fy|q[1-4]|h[12]|"
    r"jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*)\W*$",
    re.I,
)


def givens_in(request: str) -> list[Quantity]:
    """The quantities a request states: numbers with their unit or the things they count, and a period
    it asks about ("for a year": 1 year)."""
    text = re.sub(r"(\d)-(?=[a-z])", r"\1 ", spelled(request))  # "a 5,000-litre pond", "a 5-day week"
    out = []
    for start, end, number, unit, per in _numbers(text):
        if per or _A_YEAR.search(text[max(0, start - 24) : start]) and not unit and 1900 <= number <= 2100:
            continue  # "trips made in 2024", "since March 2023": a year names a period, it counts nothing
        # a number in a unit of measure ("98.7 %", "20 kg") counts nothing else: not the months after it
        alts = _phrase_things(text[end:]) if unit not in _MEASURES else ()
        out.append(Quantity(number, unit, (), text=text[start:end].strip(), alts=(unit, *alts)))
    for m in re.finditer(r"\b(?:a|an)\s+(?=[A-Za-z])", text):  # "a full-kiln firing": one of it
        alts = _phrase_things(text[m.end() :])
        if alts:
            out.append(Quantity(1.0, alts[0], (), text=m.group(0).strip(), alts=alts))
    period = period_of(text, per=False)
    if period and not any(q.unit == period + "s" for q in out):
        out.append(Quantity(1.0, period + "s", text=f"a {period}"))
    return out


__all__ = [
    "Quantity",
    "content_words",
    "convert",
    "facts_in",
    "givens_in",
    "singular",
    "spelled",
    "unit_word",
]
