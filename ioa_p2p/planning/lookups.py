"""Lookups that ask for two values, and calculations that name values by what they are (pure).

:func:`split_lookup` cuts a lookup of two values into two lookups, each with the context both share:

- two items before a shared head: "Linden & Rowe's FY2023 and FY2024 total revenue" -> "Linden & Rowe's
  FY2023 total revenue", "Linden & Rowe's FY2024 total revenue";
- two qualifiers of a shared head: "the return fares for an adult and for a child" -> "the return fares for
  an adult", "the return fares for a child";
- modifiers sharing a plural head of values: "the adult and the child 1-day prices for high season" ->
  "the adult 1-day price for high season", "the child 1-day price for high season";
- two phrases: "the sugar for one batch and how many jars a batch fills", "the time the alert fired and
  the time the incident was resolved"; names the first one uses (the company, the product) and a topic
  given before a colon ("Lemon curd at Marrow Lane: find ...") go with both.

:func:`label_refs` lets a calculation name earlier values by what they are: in "calculate the ratio
FY2024 ÷ FY2023" or "the grams of sugar per jar", a word that only one earlier lookup has (FY2024; sugar,
jar) stands for that lookup's value (``v2 ÷ v1``; ``v1 per v2``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.matching.grammar import lexicon
from ioa_p2p.planning.doc_facts import singular as _singular
from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.types import LOOKUP, PlanStep

_VERB = re.compile(
    r"^(?:(?:please |then |and |also )*)(?:look up|find out|find|get|check|retrieve|fetch|take|read|give me|"
    r"tell me|search for|look for|what (?:is|are|were|was))\s+",
    re.I,
)
_SOURCE_LEAD = re.compile(
    r"^(?:from|in|according to|going by) ([^,.;:]{3,60}?),?\s+"
    r"(?=(?:take|find|get|look up|read|retrieve|fetch)\b)",
    re.I,
)
_TWO_OWNERS = re.compile(
    r"^((?:the |this |last |next )?[\w -]{2,30}?'s) and ((?:the )?[\w -]{2,30}?'s) ([a-z].+)$", re.I
)
_STARTS_PHRASE = re.compile(r"^(?:the|how|what|which|when|who|its|their|a|an)\b", re.I)
_ITEM = r"[A-Z]{1,4}[-]?\d{1,4}[A-Za-z]?|\d{4}|[A-Z][\w-]*"
_TWO_ITEMS = re.compile(rf"\b({_ITEM}) and ({_ITEM})\b(?= [a-z])")
_STOP = frozenset(
    """a an the of for in on at to by with from and or is are was were be what which how many much does do
    did it its this that these those their his her our your my per one two three each all both""".split()  # noqa: SIM905
)
_SHARED_TAIL = re.compile(r" (?:of|for|in|from) (?:the |an? )?(?=\S)")
_IRREGULAR = {"children": "child", "people": "person", "men": "man", "women": "woman", "feet": "foot"}


def split_lookup(clause: str) -> list[str] | None:
    """Two lookup questions for a lookup of two values (see the module docstring), or None."""
    trailing = re.search(r"\s*\(((?-i:[A-Z])[^()]*)\)\s*[.?]?\s*$", clause)  # "... counts (Pinefold)": both's
    if trailing is not None:
        pair = split_lookup(clause[: trailing.start()])
        return [f"{q.rstrip('?')} ({trailing.group(1)})?" for q in pair] if pair else None
    topic, _, body = clause.rpartition(":") if re.search(r":\s*\w", clause) else ("", "", clause)
    lead = _SOURCE_LEAD.match(body.strip())  # "From Varrow's grade table take ...": where both are read
    source = f" in {lead.group(1)}" if lead is not None else ""
    body = body.strip()[lead.end() :] if lead is not None else body
    verb = _VERB.match(body.strip())
    if verb is None:
        return None
    rest = re.sub(r"^both\s+(?:of\s+)?", "", body.strip()[verb.end() :].rstrip(" .?"), flags=re.I)
    three = _three_items(rest)
    if three is not None:  # "the 1st, 2nd and 3rd prizes of the Open": one lookup each
        return [_question(p + source, topic.strip()) for p in three]
    if rest.count(" and ") != 1 or re.search(r"\bbetween\b", rest):
        return None
    items = _TWO_ITEMS.search(rest)
    owners = _TWO_OWNERS.match(rest)
    if items:  # "FY2023 and FY2024 total revenue"
        head, tail = rest[: items.start()], rest[items.end() :]
        parts = [f"{head}{items.group(1)}{tail}", f"{head}{items.group(2)}{tail}"]
    else:
        left, right = rest.split(" and ", 1)
        if right.startswith(("for ", "in ", "at ", "on ", "of ", "from ", "to ", "by ", "with ", "during ")):
            word = right.split()[0]
            cut = left.rfind(f" {word} ")
            if cut == -1:
                return None
            parts = [left, left[:cut] + " " + right]
        elif (plural := _shared_plural(left, right)) is not None:
            # "the adult and the child 1-day prices for high season": one price each, "the adult 1-day price
            # for high season" and "the child 1-day price for high season"
            parts = list(plural)
        elif _STARTS_PHRASE.match(right) and (len(left.split()) >= 2 or _bare_noun(left)):
            # "the old and the new annual fee": the old one's head is the new one's ("the old annual fee");
            # "the price of the Gold plan and the Silver plan": the same attribute of the second thing
            parts = [_modifier_head(left, right) or left, _of_same(left, right)]
        elif _SHARED_TAIL.search(right) and not _SHARED_TAIL.search(left) and len(left.split()) <= 4:
            # "the probability and cost impact of risk R-03": two heads sharing what follows "of"
            tail = right[_SHARED_TAIL.search(right).start() :]  # type: ignore[union-attr]
            parts = [f"{left}{tail}", right if _STARTS_PHRASE.match(right) else f"the {right}"]
            shared = _shared_head(left, right[: len(right) - len(tail)])
            if shared is not None:  # "the baseline and forecast dates for M6": a date each
                parts = [
                    f"{left} {shared}{tail}",
                    f"{_with_determiner(right[: len(right) - len(tail)])}{tail}",
                ]
                parts[1] = re.sub(rf"\b{re.escape(shared)}s\b", shared, parts[1], count=1)
        elif _two_values(left, right):  # "the hourly rate and minimum booking length": two values
            parts = [left, f"the {right}"]
        elif owners:  # "this year's and last year's buildings sums insured": the head each
            parts = [f"{owners.group(1)} {owners.group(3)}", f"{owners.group(2)} {owners.group(3)}"]
        else:
            return None
    own = {items.group(1), items.group(2)} if items else set()
    # the second part's own names (the K1 of "the weight of the Ostra K2 and the weight of the K1") stand
    # for its subject: a name of the same shape in the first (K2) is the other subject, never carried
    second_names = [n for n in names_in(parts[1]) if n not in own]
    context = [
        n
        for n in names_in(body)
        if n not in parts[1]
        and n not in own
        and n in parts[0]
        and not any(_same_shape(n, m) for m in second_names)
    ]
    second = parts[1] + (f" ({', '.join(context)})" if context else "")
    after = re.search(r" (?:of|for|in|from|on|at) ", parts[1])  # the second's subject, not its own kind
    theirs = [n for n in names_in(parts[1]) if n not in own and n in parts[1][after.end() :]] if after else []
    if not names_in(parts[0]) and theirs:
        parts[0] += f" ({', '.join(theirs)})"  # "the length in days and the price of Youth Stage 1-2"
    about = topic.strip()
    return [_question(p + source, about) for p in (parts[0], second)]


_THREE = re.compile(
    r"(?<![\w'-])([\w'-]+(?: [\w'-]+)?), ([\w'-]+(?: [\w'-]+)?),? and ([\w'-]+(?: [\w'-]+)?)(?![\w'-])"
)


def _one_of(word: str) -> str:
    """The singular of a plural head ("prizes" -> "prize", "fees" -> "fee", "boxes" -> "box")."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


_THREE_WORDS = re.compile(r"(?<![\w'-])([\w'-]+), ([\w'-]+),? and ([\w'-]+)(?![\w'-])")


def _three_items(rest: str) -> list[str] | None:
    """ "the 1st, 2nd and 3rd prizes of the Open", "the points for a first, a second and a third": the
    words around a list of three short items go with each (a plural head made singular); None when the
    phrase holds no such list or another "and"."""
    m = _THREE_WORDS.search(rest) or _THREE.search(rest)  # "1st, 2nd and 3rd" before "a first, a second"
    if m is None or rest.count(" and ") != 1:
        return None
    before, after = rest[: m.start()], rest[m.end() :]
    head = re.match(r"\s*([a-z]+)", after)
    one = _one_of(head.group(1)) if head is not None else ""
    if head is not None and one != head.group(1):
        after = after[: head.start(1)] + one + after[head.end(1) :]
    return [f"{before}{item}{after}" for item in m.groups()]


def _modifier_head(left: str, right: str) -> str | None:
    """ "the old" and "the new annual plot fee in the minutes": two modifiers of one head, so "the old annual
    plot fee in the minutes"; None when the left part may be a noun phrase of its own ("the deposit and
    the monthly rent"): its one word must be able to modify (an adjective or a participle), and so must the
    right part's first word."""
    own = left.split()
    words = right.split()
    if len(own) != 2 or len(words) < 3 or own[0].lower() != words[0].lower():
        return None
    if not (_modifies(own[1]) and _modifies(words[1])):
        return None
    return f"{left} {' '.join(words[2:])}"


def _shared_plural(left: str, right: str) -> tuple[str, str] | None:
    """ "the member" and "the non-member overnight prices for an adult": bare modifiers and modifiers with a
    plural head share that head and what follows it, one each ("the member overnight price for an adult",
    "the non-member overnight price for an adult"); so are the words before the one that tells the two
    apart ("the motorcycle peak" and "off-peak tolls": "the motorcycle off-peak toll") and those after it
    ("the junior season" and "the junior day permit prices": "the junior season permit price"). None when
    the left part is a noun phrase of its own ("the deposit and the monthly fees") or the right part has no
    plural head of values."""
    det = re.match(r"(?:the|its|their)\s+|(?-i:[A-Z][\w&.-]*(?: [A-Z0-9][\w&-]*)*)'s\s+", left, re.I)
    own = left[det.end() :].split() if det else []
    cut = _NP_END.search(right)
    phrase, tail = (right[: cut.start()], right[cut.start() :]) if cut else (right, "")
    words = phrase.split()
    own_det = bool(words) and re.fullmatch(r"the|its|their", words[0], re.I) is not None
    words = words[1:] if own_det else words
    if not own or len(own) > 3 or not words or re.search(r"[,;:]", left + phrase):
        return None
    head = _singular(words[-1])
    if head == words[-1].lower() or head not in _VALUE_HEADS or not words[-1].islower():
        return None  # no plural head of values ("the Band A charge" is one already; "the opening hours")
    last = own[-1].lower().removesuffix("'s")
    if last in _OWN_VALUES or _singular(last) != last:
        return None  # "the deposit", "the fees": a value of its own
    mods = words[:-1]
    same = 0  # a prefix both state ("the junior season" and "the junior day permit prices")
    while same < min(len(own), len(mods)) - 1 and own[same].lower() == mods[same].lower():
        same += 1
    prefix, own, mods = own[:same], own[same:], mods[same:]
    # one word tells the two apart (season, day): the left's words before it and the right's after it are
    # shared ("the family winter" and "summer berth rates": "the family summer berth rate")
    if not mods:
        return None
    first = [*prefix, *own, *mods[1:], head]
    second = [*prefix, *([] if own_det else own[:-1]), *mods, head]  # "the microchip fees": its own words
    said = next((i for i, w in enumerate(mods) if w.endswith("'s")), None)
    if own[-1].endswith("'s") and said is not None:  # "the forklift driver's", "the warehouse operative's"
        first, second = [*prefix, *own, *mods[said + 1 :], head], [*prefix, *mods, head]
    the = det.group(0) if det else "the "
    return f"{the}{' '.join(first)}{tail}", f"{the}{' '.join(second)}{tail}"


_NP_END = re.compile(r"\s+(?:of|for|in|at|on|from|with|per|during|under|over|off(?![\w-]))\b", re.I)
_VALUE_HEADS = frozenset(
    """price fee rate charge cost toll fare deposit tax premium amount total salary wage pay rent fine levy
    surcharge discount allowance limit date deadline tariff supplement reading count score""".split()  # noqa: SIM905
)
_OWN_VALUES = _VALUE_HEADS | frozenset(
    """weight length time duration distance number count height width depth capacity size age name address
    speed power volume area score result total minimum maximum""".split()  # noqa: SIM905
)


def _two_values(left: str, right: str) -> bool:
    """ "the hourly rate" and "minimum booking length": each part ends in a word naming a value of its own,
    the second without an article, so it is a second value, not a second modifier of the first's head."""
    own, words = left.lower().split(), right.split()
    if len(own) < 2 or not 2 <= len(words) <= 4 or not all(re.fullmatch(r"[a-z-]+", w) for w in words):
        return False
    return _singular(own[-1]) in _OWN_VALUES and _singular(words[-1]) in _OWN_VALUES


def _bare_noun(word: str) -> bool:
    """ "attendance" of "look up attendance and the quorum": one word that names a value of its own (a noun
    that modifies nothing), so the two parts are two values."""
    low = word.lower()
    return re.fullmatch(r"[a-z]{4,}", low) is not None and "NOUN" in lexicon()(low) and not _modifies(low)


def _modifies(word: str) -> bool:
    """A word that can stand before a noun as its modifier: an adjective in the lexicon, or a participle
    ("reduced", "discounted")."""
    low = word.lower()
    if not re.fullmatch(r"[a-z]{3,}", low):
        return False
    return "ADJ" in lexicon()(low) or (low.endswith("ed") and "VERB" in lexicon()(low))


def _of_same(left: str, right: str) -> str:
    """ "the price of the Gold plan" and "the Silver plan": a second thing of the kind the first names (the
    same last word), so the same attribute of it ("the price of the Silver plan"); ``right`` otherwise."""
    cut = max(left.rfind(" of "), left.rfind(" for "))  # "the charge for a classic bike" and "an e-bike"
    prep = left[cut:].split()[0] if cut > 0 else ""
    head, thing = (left[:cut], left[cut + len(prep) + 2 :]) if prep else (left, "")
    last = re.findall(r"[a-z]+", thing.lower())[-1:] if prep else []
    words = re.findall(r"[a-z]+", right.lower())
    # "for a panel van" and "a small car": two things of a kind, however named
    kinds = re.match(r"an? ", thing) and re.fullmatch(r"an? [\w-]+(?: [\w-]+)?", right)
    if not last or re.search(r" (?:of|for) ", right) or not words or (words[-1] != last[0] and not kinds):
        return right
    return right if re.match(r"(?:how|what)\b", right) else f"{head} {prep} {right}"


def _shared_head(left: str, right: str) -> str | None:
    """ "the baseline" and "forecast dates": a bare modifier and a modifier with a plural head share that
    head, one each ("date"); None when the left part is a noun phrase of its own."""
    words = right.split()
    own = [w for w in left.split() if w.lower() not in ("the", "a", "an", "its", "their")]
    plural = len(words) == 2 and re.fullmatch(r"[a-z]{3,}[^s]s", words[1]) is not None
    return words[1][:-1] if plural and len(own) == 1 and own[0].islower() else None


def _with_determiner(phrase: str) -> str:
    return phrase if _STARTS_PHRASE.match(phrase) else f"the {phrase}"


def _same_shape(a: str, b: str) -> bool:
    """Two names of one kind: both codes with digits (K1, K2), or both one capitalised word (two places
    of a route: Vard, Eske); a company's name of several words is of no kind a subject's name rivals."""
    digits_a, digits_b = bool(re.search(r"\d", a)), bool(re.search(r"\d", b))
    if digits_a or digits_b:
        return digits_a and digits_b
    return " " not in a and " " not in b


def _question(phrase: str, topic: str) -> str:
    phrase = " ".join(phrase.split()).strip(" ,")
    if topic:
        phrase = f"{topic}: {phrase}"
    if _STARTS_PHRASE.match(phrase) and re.match(r"(?:how|what|which|when|who)\b", phrase, re.I):
        return phrase[0].upper() + phrase[1:] + "?"
    return f"What is {phrase}?"


def words_of(text: str) -> set[str]:
    """The content words of a text, lower case, plurals made singular."""
    out = set()
    for w in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower()):
        if w in _STOP or len(w) < 2:
            continue
        w = _IRREGULAR.get(w, w)
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return out


def label_refs(text: str, before: Sequence[PlanStep], taken: Sequence[int]) -> tuple[str, list[int]]:
    """``text`` with each word that only one earlier lookup (not in ``taken``) has replaced by its ``vN``,
    and those steps; unchanged when fewer than two lookups could be named."""
    lookups = [s for s in before if s.kind == LOOKUP and s.index not in taken]
    if len(lookups) < 2:
        return text, []
    labels = {s.index: words_of(s.text) for s in lookups}
    shared = set.intersection(*labels.values())
    own = {
        n: words - shared - set().union(*(v for k, v in labels.items() if k != n))
        for n, words in labels.items()
    }
    used: list[int] = []

    def swap(m: re.Match[str]) -> str:
        word = m.group(0)
        key = next(iter(words_of(word)), "")
        hits = [n for n, words in own.items() if key and key in words]
        if len(hits) != 1:
            return word
        if hits[0] not in used:
            used.append(hits[0])
        return f"v{hits[0]}"

    out = re.sub(r"\b[A-Za-z][\w-]*\b", swap, text)
    # "the v1 price by the v2 price": the words every label shares name no value of their own
    heads = "|".join(re.escape(w) for w in sorted(shared, key=len, reverse=True) if len(w) > 2)
    if heads:
        out = re.sub(rf"\b(?:the\s+)?(v\d+)(?:\s+(?:{heads})s?\b)+", r"\1", out, flags=re.I)
    return (out, used) if len(used) >= 2 else (text, [])


def label_one(text: str, before: Sequence[PlanStep], taken: Sequence[int]) -> tuple[str, list[int]]:
    """``text`` with the words only one earlier lookup has (no other earlier step's text has them) as its
    ``vN`` ("the deposit minus v1" after a code step and a lookup of the deposit); unchanged when none."""
    lookups = [s for s in before if s.kind == LOOKUP and s.index not in taken]
    if not lookups:
        return text, []
    others = set().union(*(words_of(s.text) for s in before if s.kind != LOOKUP), set())
    labels = {s.index: words_of(s.text) - others for s in lookups}
    used: list[int] = []

    def swap(m: re.Match[str]) -> str:
        key = next(iter(words_of(m.group(0))), "")
        hits = [n for n, words in labels.items() if key and key in words]
        if len(hits) != 1:
            return m.group(0)
        if hits[0] not in used:
            used.append(hits[0])
        return f"v{hits[0]}"

    out = re.sub(r"\b[A-Za-z][\w-]*\b", swap, text)
    return (re.sub(r"\b(v\d+)(?:\s+\1\b)+", r"\1", out), used) if used else (text, [])


__all__ = [
    "label_one",
    "label_refs",
    "split_lookup",
    "words_of",
]
