"""How well a code input's name fits a description of a value, and the best one-to-one fit (pure; issue 23).

People name code inputs after what they hold, shortened in the usual ways; none of these is a phrase rule:

- a word of the description, or its plural or singular ("day" for "the day units", "days" for "the number
  of days", "vans" for "how many vans are booked");
- the start of a word ("prem" for "the buyer's premium", "dep" for "the deposit"), or a word that starts
  the name ("rally" of ``rally_fee``);
- the initials of consecutive words ("rt" for "their revenue tonnes", "baf" for "bunker adjustment
  factor");
- the letters of one word in order, from its first ("pct" for "percentage", "qty" for "quantity");
- a unit of the value's dimension ("kg" for "the gross weight", "cbm" for "the volume", "mins" for "the
  time it takes");
- one letter: the first letter of the description's head word (its last word before a qualifier).

A compound name (``rally_fee``, ``nightRate``) fits when each of its parts fits. :func:`best_fit` assigns
names to descriptions one to one with the highest total, every name fitting, except one name and one
description left over, which go together.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import permutations

#: Words that carry no meaning of the value ("the", "of", ...), left out of a description's words.
_STOP = frozenset(
    """a an the of for in on at to by with from and or is are was were be what which how many much does do
    did it its this that these those their his her our your my per each all both value values figure
    figures number amount""".split()  # noqa: SIM905
)
#: A unit name (as code names a value by it) -> words that name a value of that dimension.
UNIT_WORDS: dict[str, frozenset[str]] = {
    unit: frozenset(words.split())
    for units, words in (
        ("kg kgs kilos kilo g grams lb lbs tonnes tons t", "weight mass heavy tonnage load"),
        ("cbm m3 cubic litres liters l ml cuft", "volume capacity size cubic"),
        ("km m mi miles metres meters ft feet cm mm", "distance length long far height width depth"),
        ("mins min minutes secs sec seconds hrs hr hours h", "time duration long takes minutes hours"),
        ("kwh wh mwh", "units energy consumption use usage"),
        ("pct percent perc", "percentage percent rate share"),
    )
    for unit in units.split()
}
_HEAD_END = re.compile(r"\s+(?:of|for|in|at|on|from|with|per|during|under|over|off|to|that|which)\b", re.I)


def words(text: str) -> list[str]:
    """The content words of ``text`` in order, lower case (hyphenated words split)."""
    found = re.findall(r"[a-z0-9]+", text.lower().replace("'s", " "))
    return [w for w in found if w not in _STOP]


def name_parts(name: str) -> list[str]:
    """The parts of a code name (``rally_fee`` -> rally, fee; ``nightRate`` -> night, rate; ``open_`` ->
    open)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split()
    return [p for p in spaced if p not in ("per", "of", "the", "in")] or [name.lower().strip("_")]


def _one(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _in_order(short: str, word: str) -> bool:
    """``short``'s letters occur in ``word`` in order, the first letters equal ("pct" in "percentage")."""
    if len(short) < 2 or not word.startswith(short[0]):
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in short[1:])


def head_word(description: str) -> str:
    """The last content word before a qualifier: what the description names ("the gross weight of the
    oats" -> weight; "the number of days in the period" -> days, "number" carrying no meaning)."""
    cut = _HEAD_END.search(description)
    own = words(description[: cut.start()] if cut else description)
    return own[-1] if own else (words(description) or [""])[0]


def part_fit(part: str, desc: Sequence[str], head: str) -> float:
    """How well one part of a name fits a description's words (0 when it does not)."""
    singular = [_one(w) for w in desc]
    if part in desc:
        return 3.0
    if _one(part) in singular:
        return 2.5
    if len(part) >= 3 and any(w.startswith(part) for w in desc):
        return 2.0
    if any(len(w) >= 4 and part.startswith(w) for w in desc):
        return 1.5
    if part in UNIT_WORDS and UNIT_WORDS[part] & {*desc, *singular}:
        return 2.0
    if 2 <= len(part) <= 4 and any(
        "".join(w[0] for w in desc[i : i + len(part)]) == part for i in range(len(desc))
    ):
        return 2.0
    if 3 <= len(part) <= 4 and any(_in_order(part, w) for w in desc):
        return 1.0
    if len(part) == 1 and head and head[0] == part:
        return 1.0
    if len(part) == 1 and desc and desc[0][0] == part:
        return 0.5
    return 0.0


def fit(name: str, description: str) -> float:
    """How well ``name`` fits ``description``: the mean fit of its parts, 0 when one part does not fit."""
    desc, head = words(description), head_word(description)
    scores = [part_fit(p, desc, head) for p in name_parts(name)]
    return 0.0 if not scores or min(scores) == 0 else sum(scores) / len(scores)


def best_fit(names: Sequence[str], descriptions: Sequence[str]) -> dict[str, int] | None:
    """Each name -> the index of its description, one to one, the highest total fit; every name fits its
    own, except that one name and one description left over go together (a single pair always does).
    None when the counts differ, no assignment qualifies, or two assignments tie at the best."""
    if not names or len(names) != len(descriptions) or len(names) > 6:
        return None
    if len(names) == 1:  # one value described for one input: nothing else it could be
        return {names[0]: 0}
    table = [[fit(n, d) for d in descriptions] for n in names]
    best: tuple[float, tuple[int, ...]] | None = None
    tied = False
    for order in permutations(range(len(descriptions))):
        scores = [table[i][j] for i, j in enumerate(order)]
        if sum(s == 0 for s in scores) > (1 if len(names) > 1 else 0):
            continue
        total = sum(scores)
        if best is None or total > best[0] + 1e-9:
            best, tied = (total, order), False
        elif abs(total - best[0]) <= 1e-9:
            tied = True
    if best is None or tied:
        return None
    return {name: best[1][i] for i, name in enumerate(names)}


__all__ = ["UNIT_WORDS", "best_fit", "fit", "head_word", "name_parts", "part_fit", "words"]
