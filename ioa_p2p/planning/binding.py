"""Which earlier value each input of a code step holds (pure; issue 23, p-bind).

A code input is a name the code reads but never sets (:func:`~ioa_p2p.planning.code.free_names`). The code
step binds what the clause states outright ("with x set to the result", planning/code.py); this module binds
the inputs people name in other ways:

- **by the step's own words**: a name the step gives its value ("the classic bike's charge (c)", "the
  soprano count as s"), or a name made of the step's words: a word it abbreviates ("prev" for "previous",
  "rate" for "hourly rate"), a word it is part of ("chip" for "microchip"), or every part of a compound
  name (``fee_per_kg``, ``crateWeight``, ``fee_dvd``) (:func:`matched_names`);
- **by a comment of the code** that says what a name holds ("# a = adult fare, c = child fare",
  "# r: the nightly rate"): the step whose words include the comment's (:func:`commented_names`);
- **by a list of names in the sentence** ("take a and c", "using the values above as a and b", "with d and
  p bound"): the names in the order the sentence gives them take the values in the order they were found
  (:func:`listed_names`), unless every one of them is a word of one value's step;
- **by a quantity the request states**: a name like the quantity ("nights" for "a 3-night stay", "guests"
  for "40 guests") takes that number when it is the only one stated with that word (:func:`stated_inputs`);
- **by a description** ("with a set to the deposit and b to the cleaning fee"): the one earlier step whose
  words include every word of the description (:func:`named_bindings`).

A name none of these binds stays unbound: the code step reports it and the plan says which (never run).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.planning.code_names import free_names
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep


def split_name(name: str) -> list[str]:
    """The words a compound name is made of (``fee_per_kg`` -> fee, kg; ``crateWeight`` -> crate,
    weight); the name itself when it is one word."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split()
    parts = [p for p in spaced if p not in {"per", "of", "the", "a", "an", "in", "for", "to", "and"}]
    return parts or [name.lower()]


def _part_of(part: str, words: set[str]) -> bool:
    """``part`` abbreviates a word ("prev" of "previous"), is one ("rate"), is its stem ("nights" for
    "night"), or is the end of a longer word ("chip" of "microchip"); parts under three letters never."""
    if len(part) < 3:
        return False
    stem = part[:-1] if len(part) > 3 and part.endswith("s") and not part.endswith("ss") else part
    return any(
        w.startswith(stem)
        or (len(w) >= 4 and stem.startswith(w))
        or (len(stem) >= 4 and w.endswith(stem) and len(w) - len(stem) >= 3)
        for w in words
    )


def _by_words(name: str, steps: Sequence[PlanStep], taken: set[int]) -> int | None:
    parts = split_name(name)

    def fits(part: str, words: set[str]) -> bool:  # "kg" of ``fee_per_kg``: a short part, the word itself
        return _part_of(part, words) or (len(parts) > 1 and part in words)

    hits = [s.index for s in steps if s.index not in taken and all(fits(p, words_of(s.text)) for p in parts)]
    return hits[0] if len(hits) == 1 else None


def matched_names(names: list[str], recent: Sequence[PlanStep]) -> list[tuple[str, int]] | None:
    """Each of ``names`` bound to one of the steps ``recent`` by the words of the step (see the module
    docstring), one to one; a single name left over takes the single step left over. None when that does
    not bind every name or two names claim one step."""
    out: dict[str, int] = {}
    for name in names:  # a name the step states for its value: "(c)", "as s"
        hits = [s.index for s in recent if re.search(rf"\((?:`)?{name}(?:`)?\)|\bas `?{name}`?\b", s.text)]
        if len(hits) == 1:
            out[name] = hits[0]
    for name in names:
        if name not in out and (hit := _by_words(name, recent, set(out.values()))) is not None:
            out[name] = hit
    left = [n for n in names if n not in out]
    rest = [s.index for s in recent if s.index not in out.values()]
    if len(left) == 1 and len(rest) == 1:
        out[left[0]] = rest[0]
    if len(out) != len(names) or len(set(out.values())) != len(names):
        return None
    return [(n, out[n]) for n in names]


def recent_bindings(names: list[str], before: Sequence[PlanStep]) -> list[tuple[str, int]] | None:
    """Each of the code's ``names`` bound to one of the last ``len(names)`` values (lookups or
    calculations, the clause naming none) by :func:`matched_names`; None when that binds not every name."""
    recent = list(before[-len(names) :]) if 1 < len(names) <= len(before) else []
    if not recent or any(s.kind not in (LOOKUP, CALC) for s in recent):
        return None
    return matched_names(names, recent)


def listed_names(text: str, free: Sequence[str]) -> list[str]:
    """The code inputs a sentence lists together, in its order ("take a and c", "as a, b and c", "with d
    and p bound"): the first run of two inputs or more joined by commas, "and" or "&"; [] when none."""
    tokens = [(m.group(1), m.start(), m.end()) for m in re.finditer(r"`?([A-Za-z_]\w*)`?", text)]
    run: list[str] = []
    i = 0
    while i < len(tokens):
        word, _, end = tokens[i]
        if word not in free or word in run:
            if len(run) > 1:
                return run
            run, i = [], i + 1
            continue
        run.append(word)
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        then = tokens[i + 2][0] if i + 2 < len(tokens) else ""
        if (
            after is not None
            and after[0] == "and"
            and then in free
            and re.fullmatch(r"\s*,?\s*", text[end : after[1]])
        ):
            i += 2  # "a and c", "a, b, and c"
        elif after is not None and re.fullmatch(r"\s*[,&]\s*", text[end : after[1]]):
            i += 1  # "a, b", "d & p"
        else:
            if len(run) > 1:
                return run
            run, i = [], i + 1
    return run if len(run) > 1 else []


NAMES_LEAD = re.compile(
    r"^(?:and\s+|then\s+)?(?:take|taking|use|using|with|bind|binding|pass|passing)\s+", re.I
)
_ONLY_TAIL = re.compile(r"\s+(?:bound|as (?:the )?inputs?|in (?:that|this) order)\b.*$|[.!]$", re.I)


def names_only(clause: str, free: Sequence[str]) -> bool:
    """The clause only lists code inputs after a verb ("take a and c", "using d and p, in that order"):
    it belongs to the code step next to it."""
    body = _ONLY_TAIL.sub("", NAMES_LEAD.sub("", clause.strip(), count=1)).strip(" ,")
    words = [w for w in re.findall(r"[A-Za-z_]\w*", body) if w != "and"]
    return bool(NAMES_LEAD.match(clause.strip())) and len(words) > 1 and listed_names(body, free) == words


def bind_listed(
    names: list[str], refs: Sequence[int], before: Sequence[PlanStep]
) -> list[tuple[str, int]] | None:
    """The listed ``names`` bound to the values the clause refers to (``refs``, as many as names), else to
    the last values found (lookups or calculations): by words when every name is a word of one of them,
    else in order. None when the counts differ."""
    values = [s for s in before if s.index in refs] if len(refs) == len(names) else []
    if not values:
        recent = list(before[-len(names) :]) if len(names) <= len(before) else []
        values = recent if recent and all(s.kind in (LOOKUP, CALC) for s in recent) else []
    if not values:
        return None
    worded = [(n, i) for n in names if (i := _by_words(n, values, set())) is not None]
    if len(worded) == len(names) and len({i for _, i in worded}) == len(names):
        return worded
    return list(zip(names, (s.index for s in sorted(values, key=lambda s: s.index)), strict=True))


_COMMENTED = re.compile(
    r"(?:^|[,;(]|\band\b)\s*`?([A-Za-z_]\w*)`?\s*(?:=|:|-|\bis\b|\bholds\b|\bfor\b)\s*([^,;=#()]+?)"
    r"(?=\s*(?:[,;)]|\band\s+`?[A-Za-z_]\w*`?\s*(?:=|:|\bis\b))|\s*$)",
    re.I,
)


def code_comments(block: str) -> dict[str, str]:
    """What the block's comments say each name holds ("# a = adult fare, c = child fare", "# r: the
    nightly rate"): name -> the words."""
    out: dict[str, str] = {}
    for comment in re.findall(r"#\s*(.+)$", block, re.M):
        for m in _COMMENTED.finditer(comment.strip()):
            out.setdefault(m.group(1), m.group(2).strip())
    return out


def commented_names(names: Sequence[str], block: str, before: Sequence[PlanStep]) -> list[tuple[str, int]]:
    """Inputs the block's comments describe, each bound to the one earlier value whose step has every
    content word of the description (or, when none has all, the one that has the most of them)."""
    said = code_comments(block)
    out: list[tuple[str, int]] = []
    values = [s for s in before if s.kind in (LOOKUP, CALC)]
    for name in names:
        wanted = words_of(said.get(name, ""))
        if not wanted:
            continue
        score = {s.index: len(wanted & words_of(s.text)) for s in values}
        best = max(score.values(), default=0)
        hits = [i for i, n in score.items() if n == best]
        if best and len(hits) == 1 and hits[0] not in {i for _, i in out}:
            out.append((name, hits[0]))
    return out


_STATED = r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s+|-)(?:more\s+|extra\s+|full\s+)?([a-z]+)"
#: a number that labels a thing ("Tariff 1 waiting", "Zone 2 nights"): no quantity of the word after it
_LABEL = re.compile(r"(?<=[\w'\u2019] )[A-Z][A-Za-z]*\s$")  # not a sentence's first word ("For 5 guests")


def stated_inputs(names: Sequence[str], request: str) -> dict[str, str]:
    """Inputs named like a quantity the request states ("nights" and "a 3-night stay", "guests" and "for
    40 guests"): name -> the number, when that word comes with one number only."""
    found: dict[str, set[str]] = {}
    for m in re.finditer(_STATED, request, re.I):
        if not _LABEL.search(request[max(0, m.start() - 30) : m.start()]):
            found.setdefault(m.group(2).lower(), set()).add(m.group(1))
    out: dict[str, str] = {}
    for name in names:
        parts = split_name(name)
        if len(parts) != 1 or len(parts[0]) < 3:
            continue
        hits = {n for word, numbers in found.items() if _same_word(parts[0], word) for n in numbers}
        if len(hits) == 1:
            out[name] = hits.pop()
    return out


def with_stated(clause: str, code: str, request: str, before: Sequence[PlanStep]) -> str:
    """``clause`` (that runs ``code``) with a constant for each input named like a quantity the request
    states (:func:`stated_inputs`) that no earlier step's words name ("... and nights = 3")."""
    free = [n for n in free_names(code) if not re.search(rf"\b{n}\b\s*(?:=|is|set to|to|be)\s", clause)]
    stated = stated_inputs(free, request)

    def looked_up(name: str, value: str) -> bool:  # a step asks for it ("how many guests fit"), not given
        return any(words_of(name) & words_of(s.text) and value not in _numbers_of(s.text) for s in before)

    extra = [f"{name} = {value}" for name, value in stated.items() if not looked_up(name, value)]
    return f"{clause.rstrip(' .')} and {' and '.join(extra)}" if extra else clause


def _same_word(name: str, word: str) -> bool:
    return name == word or name.rstrip("s") == word.rstrip("s") or (len(name) >= 4 and word.startswith(name))


_DET = r"(?:the|a|an|its|their|our|my|your|this|that)\s"
_STOP = (
    r"(?=\s*(?:[,;:\u27e6]|$|\band\s+(?:with\s+)?`?(?:{n})`?\b|\band\s+"
    + _DET
    + r"|\b(?:then|and then|run|execute)\b))"
)


def described_pairs(text: str, free: Sequence[str]) -> list[tuple[str, str, tuple[int, int]]]:
    """(name, description, span) for each code input the text names beside a description of its value:
    "plug the deposit into d", "assign the room rate to rate", "use the adult fare for a", "adult = the
    adult fare", "with a the adult fare", "given the adult fare a". Only names the code reads count."""
    names = "|".join(re.escape(n) for n in sorted(free, key=len, reverse=True))
    if not names:
        return []
    stop = _STOP.format(n=names)
    forms = (  # description first, then "into/to/for/as" and the name
        rf"(?:^|(?<=[,;:])|\b(?:and|plug|put|feed|assign|use|using|store|save|pass|give|take|taking|bind|set)\s)"
        rf"\s*(?P<desc>{_DET}[^,;:\u27e6]+?)\s+(?:in|into|to|for|as)\s+`?(?P<name>{names})`?\b(?!\s*[=(])",
        # the name, then "=", "is", "being", "as" or nothing, and the description
        rf"(?:^|(?<=[,;:])|\b(?:with|where|given|and|using|let)\s)\s*`?(?P<name>{names})`?\s*"
        rf"(?:=|:|\bis\b|\bbeing\b|\bas\b)?\s*(?P<desc>{_DET}[^,;:\u27e6]+?){stop}",
        # "given the adult fare a and the child fare c": the description, then the name
        rf"(?:\b(?:given|with|using|take|taking|use)\s|(?<=\band\s))\s*(?P<desc>{_DET}[^,;:\u27e6]+?)\s+"
        rf"`?(?P<name>{names})`?(?=\s*(?:[,;:\u27e6]|$|\band\b|\bthen\b|\brun\b))",
    )
    found: dict[str, tuple[str, tuple[int, int]]] = {}
    for form in forms:
        for m in re.finditer(form, text, re.I):
            desc = m.group("desc").strip()
            if m.group("name") not in found:
                found[m.group("name")] = (desc, m.span())
    return [(name, desc, span) for name, (desc, span) in found.items()]


def with_pairs(clause: str, free: Sequence[str]) -> str:
    """``clause`` with each described pair (:func:`described_pairs`) restated as "with NAME set to DESC",
    the form the code step's bindings read; unchanged when it has none or binds the names already."""
    said = [n for n in free if re.search(rf"\b{re.escape(n)}`?\s+(?:set to|bound to|equal to)\s", clause)]
    said += listed_names(clause, free)  # "the soprano and alto counts as s and a": named in order
    pairs = [p for p in described_pairs(clause, [n for n in free if n not in said])]
    if not pairs:
        return clause
    kept = clause
    for _, _, (a, b) in sorted((p for p in pairs), key=lambda p: -p[2][0]):
        kept = kept[:a] + " " + kept[b:]
    kept = re.sub(r"\s+", " ", re.sub(r"(?:\s*\band\b)+\s*(?=[,;:]|$|\u27e6)|^\s*\band\b", " ", kept))
    bound = " and ".join(f"with {name} set to {desc}" for name, desc, _ in pairs)
    return f"{kept.strip(' ,;:')} {bound}"


_BIND_NAMED = re.compile(
    r"(?:with|where|and|,)\s+`?([A-Za-z_]\w*)`?\s+(?:set to|being|=|is|equal to|as|bound to|to)\s+"
    r"(?:the |its |their )([a-z][\w -]*?)(?=\s+and\b|\s*[,.;)]|$)",
    re.I,
)


def named_bindings(text: str, before: Sequence[PlanStep]) -> list[tuple[str, int]]:
    """ "with a set to the deposit and b to the cleaning fee": each name bound to the one earlier step
    whose words include every word of what it is set to."""
    out: list[tuple[str, int]] = []
    for m in _BIND_NAMED.finditer(text):
        wanted = words_of(m.group(2))
        hits = [s.index for s in before if wanted and wanted <= words_of(s.text)]
        if len(hits) > 1:  # "the band 2 price": the step that also names its numbers, where one does
            numbers = _numbers_of(m.group(2))
            hits = [s.index for s in before if s.index in hits and numbers and numbers <= _numbers_of(s.text)]
        if len(hits) == 1:
            out.append((m.group(1), hits[0]))
    return out


def _numbers_of(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", text))


__all__ = [
    "bind_listed",
    "code_comments",
    "commented_names",
    "listed_names",
    "matched_names",
    "named_bindings",
    "names_only",
    "recent_bindings",
    "split_name",
    "stated_inputs",
    "with_stated",
    "described_pairs",
    "with_pairs",
]
