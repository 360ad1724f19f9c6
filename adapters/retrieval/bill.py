"""The items of a bill (pure): every charge a question's situation incurs, each read from its own line.

"The cleaner needed two hours and the oven had to be deep cleaned: how much comes off the deposit?",
"what do I pay for the removal and storage?", "650 cards with lamination, if they set up the artwork",
"220 kWh at night and 180 kWh during the day in 30 days: the bill?": what is asked is a sum of charges the
documents list separately. A document's charges are read once as **items**: the amount of a table row,
or of a sentence's or list item's segment (segments are cut at ";"), with its **label**, the words that
say what it is for (a row's words, the words of the segment and of what it continues; a row of figures
only, such as a volume band "500-999", takes its section's heading), minus what it is charged per ("per
hour", "for each colleague"), its figures and the words every price rule uses.

:func:`bill_items` chooses the items the question describes:

1. **named**: an item whose label the question mostly uses (words that merely name the company or its
   documents, and what the question leaves out, "apart from the parking ticket", "leave out delivery",
   do not count), greedily: each item chosen must name something of the question no item chosen before
   names; among alternatives naming the same (a table's bands, weekday and weekend rows), the one the
   question's situation fits best (:class:`~ioa_p2p.adapters.retrieval.facts.Scorer`);
2. **charged per a stated quantity**: a quantity the question states that no chosen item is charged per
   ("2 colleagues", "30 days") brings in the item of the same section charged per it ("a passenger
   supplement per km for each colleague", "a standing charge per day").

Only items of the first chosen item's document count, none from a superseded document or section. Fewer
than two items: None (the question asks one price; the adapter answers it as before).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.facts import Fact, Scorer, section_of, terms
from ioa_p2p.adapters.retrieval.tariff import PER_UNITS, charge_terms
from ioa_p2p.planning.quantities import Quantity, dimension_of, stated_quantities
from ioa_p2p.planning.values import ALIASES, Found, Value, numbers_in

MAX_ITEMS = 6
_MONEY = ("EUR", "USD", "cent")
#: words every price rule uses: they say nothing of what an item is for
_GENERIC = frozenset(
    """charge charg rate price fee cost pay paid amount total bill sum eur euro cent vat tax per each every
    first then free part started start minimum min maximum max cap capped only after before any other all
    plus include includ exclud option item unit hour minute week month year km kg h list apply
    come much will would what how we i our my it that this there where when which re ve ll dur
    use used need needed got get going want like owe""".split()  # noqa: SIM905
)
_PER_PHRASE = re.compile(
    r"\b(?:per|for each|for every|each|every|a|an)\s+(?:started\s+)?(?:\d+\s+)?(?:square metre|[a-z²]+)\b"
    r"|/\s*[a-z²]+\b",
    re.I,
)
_LEFT_OUT = re.compile(
    r"\b(?:apart from|except(?: for)?|excluding|other than|not counting|leave out|leaving out|without|"
    r"besides|aside from)\b[^.,;?!]*",
    re.I,
)
_ASKED_PER = re.compile(r"\b(?:per|each|every)\s+(?:square metre|[a-z²]+)\b|/\s*[a-z²]+\b", re.I)
_PER_WORD = re.compile(r"\b(?:hourly|daily|nightly|weekly|monthly|yearly|annual|annually)\b", re.I)
_PRICE_HEADER = re.compile(r"\b(?:rates?|prices?|charges?|fees?|costs?|fares?|amounts?|eur)\b|€", re.I)
_OLD_HEADER = re.compile(r"\((?:19|20)\d\d\)|\b(?:old|previous|former|was)\b", re.I)


@dataclass(frozen=True, slots=True)
class Item:
    fact: Fact
    amount: Found
    label: frozenset[str]
    from_heading: bool  # the label is its section's heading (a row of figures only)
    #: the price a class of payers pays instead of the line's price before it ("Pitch fee EUR 18;
    #: charities pay EUR 9"): chosen, it replaces that price, never adds to it
    alternative: bool = False


def items_of(fact: Fact) -> list[Item]:
    """The charges one fact states (see the module docstring); [] for a heading or a superseded fact."""
    if fact.kind == "heading" or "\0superseded" in fact.context:
        return []
    if fact.cells:
        return _row_item(fact)
    out: list[Item] = []
    carried = ""
    for segment in re.split(r";\s*", fact.text.split("\0")[0]):
        amounts = [n for n in numbers_in(segment) if _money(segment, n)]
        if not amounts:
            carried += " " + segment
            continue
        own = _label(segment)
        label = own or _label(carried)  # "Storage: the first 24 hours are free; then EUR 25 for each day"
        if label:
            instead = bool(out) and _PAYER.match(segment) is not None  # "...; members pay EUR 4"
            out.append(Item(fact, _shifted(amounts[0], fact.text, segment), frozenset(label), False, instead))
        carried = ""
    return out


#: a segment whose subject is a class of payers ("charities pay", "members are charged", "under-16s pay")
_PAYER = re.compile(
    r"^\s*(?:but\s+|while\s+|and\s+)?(?:[\w'-]+\s+){1,3}(?:pays?|are charged|is charged)\b", re.I
)


def _shifted(found: Found, text: str, segment: str) -> Found:
    at = text.find(segment)
    return Found(found.start + at, found.end + at, found.number, found.unit, found.text)


def _row_item(fact: Fact) -> list[Item]:
    prices = [
        (h, c)
        for h, c in fact.cells[1:]
        if numbers_in(c)
        and (_PRICE_HEADER.search(h) or _money(c, numbers_in(c)[0]))
        and not _OLD_HEADER.search(h)
    ]
    if not prices:
        return []
    header, cell = prices[0]
    amount = numbers_in(cell)[0]
    words = " ".join(
        c
        for n, (h, c) in enumerate(fact.cells)
        if (h, c) not in prices and (n == 0 or not _PRICE_HEADER.search(h))
    )
    label = _label(words)
    if label:
        return [Item(fact, amount, frozenset(label), False)]
    heading = section_of(fact).split(">")[-1]
    heading = re.sub(r"^\s*[\d.]+\s*", "", heading)
    label = _label(heading)
    return [Item(fact, amount, frozenset(label), True)] if label else []


def _money(text: str, n: Found) -> bool:
    if n.unit in _MONEY:
        return True
    after = text[n.end : n.end + 12].lower()
    return not n.unit and bool(re.search(r"\.\d\d$", n.text) or re.match(r"\s*(?:per|/|each)\b", after))


def _label(text: str) -> set[str]:
    plain = _PER_PHRASE.sub(" ", text.replace("**", ""))
    plain = re.sub(r"\(\s*(?:min|max)[^)]*\)", " ", plain, flags=re.I)
    return {t for t in terms(plain) if not any(ch.isdigit() for ch in t) and t not in _GENERIC}


def question_words(question: str, common: set[str], headed: str = "") -> set[str]:
    """What the question's situation names: its words without what it leaves out, its quantities, the
    names every document of the folder uses (``common``) and the words every price rule uses."""
    kept = _ASKED_PER.sub(" ", _PER_WORD.sub(" ", _LEFT_OUT.sub(" ", question)))
    for q in stated_quantities(kept):
        if q.text:
            kept = kept.replace(q.text, " ", 1)
    common = common | _named_like(kept, common, headed)
    return {t for t in terms(kept) if t not in _GENERIC and t not in common and not t.isdigit()}


#: a name of capitalised words ("Marrow Lane Hall", "Kettlewell Inn")
_NAME_RUN = re.compile(r"\b[A-Z][\w'’]*(?:\s+(?:&\s+)?[A-Z][\w'’]*)+")


def _named_like(question: str, common: set[str], headed: str) -> set[str]:
    """The words of a name the question writes that the folder's names partly state ("Marrow Lane Hall"
    over "marrow-lane-cookbook/") and a heading of its documents states whole ("HIRE CHARGES (Marrow Lane
    Hall, 2025)", lower case in ``headed``): all of it names the business, no item of its bill (not the
    "Hall"); a name after the business's possessive ("Northvale's Night Owl") is its own, and one no
    heading states ("Larkspur Great Hall") may name a room."""
    out: set[str] = set()
    for m in _NAME_RUN.finditer(question):
        for part in re.split(r"['’]s\b", m.group()):  # "Northvale's Night Owl": the tariff is an item's
            words = terms(part)
            if words & common and " ".join(part.lower().split()) in headed:
                out |= words
    return out


def _asked_for(question: str, common: set[str], items: Sequence[Item], headed: str) -> set[str]:
    """The words of the asking sentence ("... What will the tablecloth laundering come to?") when they
    name an item themselves: then only what it asks the price of counts, not every word of the scene (the
    hall the guests sit in); a sentence that asks generically ("what is the bill?"): empty."""
    sentences = [x for x in re.split(r"(?<=[.!?])\s+", question.strip()) if x]
    asking = next((x for x in reversed(sentences) if x.rstrip().endswith("?")), "")
    if not asking or asking == question.strip():
        return set()
    words = question_words(asking, common, headed)
    return words if any(_eligible(i, _named(i.label, words)) for i in items) else set()


def _eligible(item: Item, named: set[str]) -> bool:
    """An item the question names: most of its label, or its section's heading (a row of figures)."""
    return bool(named) and (item.from_heading or len(named) * 2 >= len(item.label))


def _named(label: frozenset[str], asked: set[str]) -> set[str]:
    return {t for t in label if any(_same(t, a) for a in asked)}


def _same(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 5 and (a.startswith(b) or b.startswith(a)))


def bill_items(
    question: str, rules: Sequence[Fact], common: set[str], found: Fact | None = None
) -> list[tuple[Fact, Value]] | None:
    """The charges the question's situation incurs, each with its terms (see the module docstring), or
    None when it names fewer than two. ``rules``: the facts of the folder's documents; ``common``: the
    terms of the folder's file names and titles."""
    headed = " ".join(sorted({" ".join(f.context.lower().split()) for f in rules}))
    asked = question_words(question, common, headed)
    if found is not None and found.cells:  # "what excess applies ...": the column asked is no item bought
        asked -= terms(" ".join(header for header, _ in found.cells))
    if not asked:
        return None
    scorer = Scorer(question, rules)
    items = [item for fact in rules for item in items_of(fact)]
    focus = _asked_for(question, common, items, headed)

    def weight(names: set[str]) -> float:
        return sum(scorer.idf.get(t, 1.0) for t in names)

    items = _in_named_sections(items, scorer.named - common)
    eligible = []
    for item in items:
        named = _named(item.label, asked)
        if focus and not _named(item.label, focus):
            continue  # the question asks the price of something else ("the tablecloth laundering")
        if _eligible(item, named):
            eligible.append(
                (weight(named), len(named) / len(item.label), scorer.score(item.fact), item, named)
            )
    eligible.sort(key=lambda e: (-e[0], -e[1], -e[2]))
    stated = consumed(question)
    picked: list[Item] = []
    values: list[Value] = []
    covered: set[str] = set()
    for *_, item, named in eligible:
        if picked and item.fact.path != picked[0].fact.path:
            continue
        if not any(not any(_same(t, c) for c in covered) for t in named):
            continue
        if any(p.fact is item.fact and p.amount.start == item.amount.start for p in picked):
            continue
        value = _one_unless_stated(_value(question, item, rules), stated)
        if not all(any(_fits(q, unit) for q in stated) for unit in _per_units(value)):
            continue  # charged per a measure the question states none of ("per day"): not this bill's item
        picked.append(item)
        values.append(value)
        covered |= named
        if len(picked) >= MAX_ITEMS:
            break
    if not picked:
        return None
    # a class of payers' own price replaces the price it is an alternative to ("charities pay EUR 9")
    replaced = {id(p.fact) for p in picked if p.alternative}
    kept = [n for n, p in enumerate(picked) if p.alternative or id(p.fact) not in replaced]
    picked, values = [picked[n] for n in kept], [values[n] for n in kept]
    charged = list(zip(picked, values, strict=True))
    charged += _per_stated(question, charged, items, rules, scorer)
    if len(charged) < (1 if focus or replaced else 2):  # one item: when the asking sentence names it
        return None  # itself, or it is the price a class of payers the question names pays instead
    if len(charged) == 1 and found is not None and any(_named(i.label, focus) for i in items_of(found)):
        return None  # the fact found for the question already answers what it asks: it stays the answer
    return [(item.fact, value) for item, value in charged]


def _heading_names(fact: Fact) -> set[str]:
    """The names a fact's own section heading uses (capitalised words after its first word: "Northvale
    Business Flex" -> business, flex), in terms."""
    leaf = section_of(fact).split(">")[-1]
    words = re.findall(r"[A-Za-z][\w'-]*", leaf)
    return {t for w in words[1:] if w[:1].isupper() for t in terms(w)}


def _in_named_sections(items: list[Item], named: set[str]) -> list[Item]:
    """When the question names a section of a document ("on Business Flex"), that document's sections
    named otherwise ("Tiered Saver") hold none of its items; sections that name nothing (a "Fees" table)
    still do."""
    chosen = {i.fact.path for i in items if _heading_names(i.fact) & named}
    return [
        i
        for i in items
        if i.fact.path not in chosen or not _heading_names(i.fact) or _heading_names(i.fact) & named
    ]


def _value(question: str, item: Item, rules: Sequence[Fact]) -> Value:
    unit = item.amount.unit or "EUR"
    value = Value.of_number(item.amount.number, unit, item.amount.text)
    label = ("label", " ".join(sorted(item.label))[:60])
    found = charge_terms(question, item.fact, value, rules)
    if item.fact.cells and not any(name == "per" for name, _ in found):  # "Vaccination, per dose | 22.00"
        words = " ".join(c for _, c in item.fact.cells if not numbers_in(c) or c != item.amount.text)
        found = tuple(("per", _per_word(m.group(1))) for m in _ROW_PER.finditer(words)) + found
    return value.with_terms((*found, label))


_ROW_PER = re.compile(r"\b(?:per|each)\s+(?!\d)([a-z²]+)\b(?!\s+(?:of|or)\b)", re.I)


def _per_word(word: str) -> str:
    low = word.lower()
    return PER_UNITS.get(low) or PER_UNITS.get(low.rstrip("s")) or low


#: a quantity that bounds when a charge applies, not what is used: "outside 08:00-18:00", "except 2 days"
_NOT_USED = re.compile(r"\b(?:outside|except|excluding|other than|beyond|apart from)\b[^,.;:?!]{0,24}$", re.I)


def consumed(question: str) -> list[Quantity]:
    """The quantities the question's situation uses (charged per), not those bounding when a price applies
    ("outside Monday-Friday 08:00-18:00": no 10 hours of cleaning)."""
    out = []
    for q in stated_quantities(question):
        at = question.find(q.text) if q.text else -1
        if at < 0 or not _NOT_USED.search(question[max(0, at - 40) : at]):
            out.append(q)
    return out


def _per_stated(
    question: str,
    charged: list[tuple[Item, Value]],
    items: Sequence[Item],
    rules: Sequence[Fact],
    scorer: Scorer,
) -> list[tuple[Item, Value]]:
    """Items of the chosen items' sections charged per a quantity the question states and no chosen item
    is charged per ("2 colleagues": the supplement for each colleague; "30 days": the charge per day)."""
    per_used = [_per_units(v) for _, v in charged]
    sections = {(i.fact.path, section_of(i.fact)) for i, _ in charged}
    out: list[tuple[Item, Value]] = []
    for q in consumed(question):
        if any(any(_fits(q, unit) for unit in units) for units in per_used):
            continue
        if q.what and any(terms(q.what) <= i.label for i, _ in charged):
            continue  # "repainting one room": the item chosen is for it already, no charge per room added
            # (its label: "Shore power, per night" is charged per night, for no night)
        options = [
            i
            for i in items
            if (i.fact.path, section_of(i.fact)) in sections and i not in [c for c, _ in charged]
        ]
        best: tuple[float, Item, Value] | None = None
        for item in options:
            value = _value(question, item, rules)
            if any(_fits(q, unit) for unit in _per_units(value)):
                score = scorer.score(item.fact)
                if best is None or score > best[0]:
                    best = (score, item, value)
        if best is not None:
            out.append((best[1], best[2]))
            per_used.append(_per_units(best[2]))
    return out


def _one_unless_stated(value: Value, stated: Sequence[Quantity]) -> Value:
    """A charge per a thing counted ("per visit", "per dog") that the question names without a number is
    for one ("picked our dog up": one pick-up, one dog): that per-unit is dropped; a per-unit of a measure
    (hours, km, days) stays, a quantity of it is needed."""
    kept = tuple(
        (name, raw)
        for name, raw in value.terms
        if name != "per"
        or dimension_of(ALIASES.get(raw, raw)) not in ("", "count")
        or any(_fits(q, raw) for q in stated)
        or sum(1 for q in stated if q.dimension == "count") == 1
        and not any(q.what for q in stated if q.dimension == "count")
    )
    return value.with_terms(kept)


def _per_units(value: Value) -> list[str]:
    return [raw for name, raw in value.terms if name == "per"]


def _fits(q: Quantity, unit: str) -> bool:
    """A price per ``unit`` applies to quantity ``q`` (hours to a price per hour, 2 colleagues to one for
    each colleague)."""
    canonical = ALIASES.get(unit, unit)
    dim = dimension_of(canonical)
    if dim and dim != "count":
        return q.dimension == dim
    return (
        q.dimension == "count"
        and bool(q.what)
        and _same(q.what.lower().rstrip("s"), unit.lower().rstrip("s"))
    )


__all__ = ["Item", "bill_items", "items_of", "question_words"]
