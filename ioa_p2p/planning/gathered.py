"""Values gathered for a code's inputs, bound by what the inputs are called (pure; issue 23, p-three).

A request that runs code often says which values to fetch and leaves the names to speak for themselves:
"Find the day units, the night units and the number of days in the period, then run <code reading day,
night, days>", "Pull both totals from the newsletter and run `print(cedar - birch)`", "Read their gross
weight and volume off the manifest and run <code reading kg, cbm>", "with open_ and close set to the
brought-forward and carried-forward balances", "Bind premium and basic to Spindle's two prices and run the
code above". When the clause-by-clause planner leaves a code input without a value, :func:`gathered_plan`
plans the request again this way:

1. the request's one piece of code and its inputs (:func:`~ioa_p2p.planning.code_names.free_names`);
   inputs given a number in the request ("with h = 2500", "nights = 2", "a 3-night stay") are constants;
2. the values the request describes (:mod:`~ioa_p2p.planning.gather_items`): a list after a lookup verb
   ("find A, B and C"), or names listed against descriptions ("with x and y set to the A and B", "bind x
   and y to the two prices"), or a collective ("both totals", "the three prices", "the other values")
   that takes its items from the inputs' names;
3. each input matched to one description by its name (:func:`~ioa_p2p.planning.name_match.best_fit`:
   words, word starts, initials, units, one letter for the head word), or in the order the request lists
   them when it names them against descriptions;
4. one lookup per input (the subjects the request names added where a description names none, "their"
   made the thing the request is about), then the code with every input bound.

Anything else (code that is not the last thing asked, inputs that no description fits, counts that
differ) gives None: the first plan stands and names the missing input (never run with one missing).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.binding import code_comments, stated_inputs
from ioa_p2p.planning.clauses import REPORT_ONLY, meta_only, request_clauses
from ioa_p2p.planning.code import MARK_RE, inline_code
from ioa_p2p.planning.code_names import free_names
from ioa_p2p.planning.gather_items import (
    GATHER_VERB,
    collective_items,
    declared_descriptions,
    determined,
    gather_object,
    listed_against,
    owners_given,
    split_items,
)
from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.name_match import best_fit, words
from ioa_p2p.planning.types import LOOKUP, Plan, PlanStep


def constants(names: list[str], text: str) -> dict[str, str]:
    """Inputs the request gives a number ("with h = 2500", "nights = 2", "rate set to 0.25") or states as
    a quantity of their name ("a 3-night stay" for ``nights``): name -> the number."""
    out: dict[str, str] = {}
    for name in names:
        m = re.search(
            rf"(?<![\w.]){re.escape(name)}`?\s*(?:=|:=|\bis\b|\bset to\b|\bequal to\b|\bbeing\b|\bof\b)\s*"
            r"(-?\d[\d,]*(?:\.\d+)?)(?![\w%])",
            text,
        )
        if m is not None:
            out[name] = m.group(1).replace(",", "")
    stated = stated_inputs([n for n in names if n not in out], text)
    return {**out, **stated}


def _code_clause(clauses: list[str], blocks: list[str]) -> tuple[int, str] | None:
    """(index, code) of the request's one clause holding code; None when there is not exactly one."""
    held: list[tuple[int, str]] = []
    for i, clause in enumerate(clauses):
        mark = MARK_RE.search(clause)
        code = blocks[int(mark.group(1))] if mark else inline_code(clause)
        if code is not None:
            held.append((i, code))
    if len(held) != 1 or len(MARK_RE.findall(" ".join(clauses))) > 1:
        return None
    return held[0]


_ABOVE = re.compile(
    r"\b(?:the|this|that) (?:code|snippet|program|script|block)(?: above| before)?\b|\bit\b(?=\s*[.!]?$)"
)
_IN_WHAT = "\ue003"  # where a collective's descriptions take the thing the request asks about
_OWNER = (
    re.compile(  # "... of the milled oats?", "... on Saxby Audio's loudspeakers:", "in the house points?"
        r"\b(?:of|on|for|in)\s+((?:the\s+|[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*)*'s\s+)[\w' -]+?)\s*[?:.]?\s*$"
    )
)


def _code_above(clauses: list[str]) -> list[str]:
    """A block alone before the clause that runs it ("<code>" ... "run the code above") moved into it."""
    alone = [i for i, c in enumerate(clauses) if MARK_RE.fullmatch(c.strip())]
    if len(alone) != 1:
        return clauses
    i = alone[0]
    for j in range(i + 1, len(clauses)):
        above = _ABOVE.search(clauses[j])
        if above is not None and re.search(r"\b(?:run|execute|evaluate)\b", clauses[j], re.I):
            moved = clauses[j][: above.start()] + clauses[i].strip() + clauses[j][above.end() :]
            return [*clauses[:i], *clauses[i + 1 : j], moved, *clauses[j + 1 :]]
    return clauses


_INSTRUCTION_WORDS = re.compile(
    r"\b(Let|Run|Find|Look|Take|Get|Use|Set|Then|Now|With|Where|Pull|Read|Fetch|Bind|Call|Pass|Work|Please|"
    r"Check|Compute|Calculate|Plug|Give|Assign)\b"
)


def _about(clauses: list[str]) -> tuple[list[str], str]:
    """The names the request's other clauses mention (a company, a place) and the thing they ask about
    ("the stowage density of the milled oats" -> "the milled oats"), for lookups that name neither."""
    text = " ".join(MARK_RE.sub(" ", c) for c in clauses)
    owners: list[tuple[bool, str]] = []
    for clause in clauses:
        plain = MARK_RE.sub(" ", clause).strip()
        m = _OWNER.search(plain)
        if m is not None:  # the question's own thing first
            owners.append((plain.endswith(("?", ":")), m.group(1).strip()))
    owner = max(owners, key=lambda o: o[0])[1] if owners else ""
    starts = {m.group(1) for c in clauses if (m := re.match(r"\W*([A-Z][a-z]+)\b", c.strip()))}
    starts |= set(_INSTRUCTION_WORDS.findall(text))
    found = [n for n in names_in(text) if n not in starts]  # "Work out ...", "and Let ...": no names
    return [n for n in found if not any(n != m and n in m for m in found)], owner


def _question(item: str, names: list[str], owner: str, others: set[str]) -> str:
    """The lookup question for one description, with the request's subjects where it names none."""
    phrase = " ".join(item.replace(_IN_WHAT, f"({owner})" if owner else "").split()).strip(" ,.")
    if re.match(r"(?i)(?:their|its)\b", phrase) and owner:
        phrase = re.sub(r"(?i)^(?:their|its)\b", "the", phrase) + f" of {owner}"
    own = set(words(phrase))
    context = [
        n for n in names if n not in phrase and not set(words(n)) & others and not set(words(n)) <= own
    ]
    if context and not names_in(phrase):
        phrase += f" ({', '.join(context)})"
    if re.match(r"(?i)(?:how|what|which|when|who)\b", phrase):
        return phrase[0].upper() + phrase[1:] + "?"
    return f"What is {phrase}?"


_PLUGGED = re.compile(
    r"^(?:then\s+|and\s+)?(?:plug|put|feed|insert|pass|give|use|take|substitute)\s+(?P<obj>.+?)\s+"
    r"(?:into|in|to|for|with|through)\s+(?:(?:this|the|that|my)\s+)?(?:code|script|program|snippet|function)?"
    r"\s*:?\s*\u27e6",
    re.I,
)


#: "Run <code> with the width and length of the boathouse", "using the canoe hourly rate at X"
_WITH_VALUES = re.compile(
    r"\b(?:with|using|given|for|on)\s+(?P<obj>(?:the|a|an|its|their|(?-i:[A-Z][\w&.-]*)'s)\s[^;:]+?)"
    r"\s*[.!]?\s*$",
    re.I,
)
_CALLED_THEM = re.compile(
    r"\s*,?\s+(?:and\s+)?(?:call|name|label|store|save|keep)\s+them\s+(?:as\s+)?"
    r"(?P<names>`?[A-Za-z_]\w*`?(?:\s*(?:,|\band\b)\s*`?[A-Za-z_]\w*`?)+)\s*$",
    re.I,
)


def _gathers(clause: str) -> bool:
    """A clause that asks for values (a lookup verb first) and holds no code."""
    plain = _after_topic(clause)
    return bool(GATHER_VERB.match(plain)) and not MARK_RE.search(clause) and inline_code(clause) is None


def _run_before(gathering: list[int], code_at: int) -> list[int]:
    """The gathering clauses right before the code's, one after another."""
    run: list[int] = []
    at = code_at - 1
    while at in gathering:
        run.insert(0, at)
        at -= 1
    return run


def _after_topic(clause: str) -> str:
    """ "Work out the surcharge on X: find A, B and C" -> "find A, B and C" (the topic is context)."""
    head, colon, rest = clause.strip().partition(": ")
    return rest.strip() if colon and GATHER_VERB.match(rest.strip()) else clause.strip()


Described = tuple[dict[str, str], set[int]]


def _descriptions(clauses: list[str], code_at: int, inputs: list[str], code: str) -> Described | None:
    """Each input -> the description of its value, and the clauses that said so; None when the request
    does not describe every input."""
    for i, clause in enumerate(clauses):  # "with open_ and close set to the A and B balances"
        against = listed_against(MARK_RE.sub(" ", clause), inputs)
        if against is not None:
            named, items = against
            if set(named) == set(inputs):
                return dict(zip(named, items, strict=True)), {i} if i != code_at else set()
    declared: dict[str, str] = {}
    for clause in clauses:  # each clause on its own: a name may open one ("a is the A, n is 4")
        declared = {**declared_descriptions(MARK_RE.sub(" ", clause).strip(), inputs), **declared}
    said = code_comments(code)  # "# a = adult fare, c = child fare"
    declared |= {n: determined(said[n]) for n in inputs if n not in declared and said.get(n)}
    if set(declared) == set(inputs):  # "let rate be the A and hours the B"
        return declared, set()
    gathering = [i for i, c in enumerate(clauses) if i != code_at and _gathers(c)]
    prose = MARK_RE.sub(" ", clauses[code_at])
    declares = any(  # "where ev is ...": the input is described where it is named
        re.search(rf"(?<![\w.]){re.escape(n)}`?\s*(?:=|\bis\b|\bbeing\b|\bset to\b|\bas\b|\bbe\b)", prose)
        for n in inputs
    )
    own = _PLUGGED.match(clauses[code_at].strip()) or (
        _WITH_VALUES.search(prose) if not declares and "(" not in prose else None
    )
    if not gathering and own is not None:  # "Plug the A into <code>", "Run <code> with the A and B of X"
        items = split_items(own.group("obj"))
        assigned = best_fit(inputs, items) if len(items) == len(inputs) else None
        return ({n: items[j] for n, j in assigned.items()}, set()) if assigned else None
    near = [i for i in gathering if abs(i - code_at) <= 2] or gathering
    if not near:
        return None
    run = _run_before(gathering, code_at)
    if len(run) > 1:  # "Look up A. Look up B there. Then run <code>": one value a clause
        each = [split_items(gather_object(_after_topic(clauses[i]))) for i in run]
        items = [item for found in each for item in found]
        assigned = best_fit(inputs, items) if len(items) == len(inputs) else None
        if assigned:
            return {n: items[j] for n, j in assigned.items()}, set(run)
    at = min(near, key=lambda i: (abs(i - code_at), i > code_at))
    obj = gather_object(_after_topic(clauses[at]))
    tail = _CALLED_THEM.search(obj)
    if tail is not None:  # "... and call them a and c": the names in the order of the values
        named = [
            n for n in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", tail.group("names").replace("`", "")) if n
        ]
        listed = split_items(obj[: tail.start()])
        if sorted(named) == sorted(inputs) and len(listed) == len(named):
            return dict(zip(named, listed, strict=True)), {at}
    marked = {m.group(2): m.group(1) for m in re.finditer(r"([^,;]+?)\s*\(`?([A-Za-z_]\w*)`?\)", obj)}
    items = split_items(obj) if obj else []
    collective = len(items) != len(inputs)
    if len(items) != len(inputs):
        # "nights = 2 and the other values": the one item left
        one = re.sub(r"^the\s+", "", items[0]) if len(items) == 1 else obj
        whole = " ".join(clauses)
        items = collective_items(obj, inputs, whole) or collective_items(one, inputs, whole) or items
    if len(items) != len(inputs):
        return None
    fixed = {n: i for i, item in enumerate(items) for n in inputs if re.search(rf"\(`?{n}`?\)", item)}
    if marked and len(fixed) == len(inputs):
        assigned = fixed
    else:
        assigned = best_fit(inputs, [re.sub(r"\s*\(`?\w+`?\)", "", it) for it in items]) or {}
    if len(assigned) != len(inputs):
        return None
    clean = [re.sub(r"\s*\(`?[A-Za-z_]\w*`?\)", "", it) for it in items]
    if collective:  # "both totals": the names say which, the request's question says of what
        clean = [f"{c} {_IN_WHAT}" for c in clean]
    return {n: clean[j] for n, j in assigned.items()}, {at}


#: A question about what the code gives ("What does this print?", "What's the output?", "What comes out?").
_ASKS_OUTPUT = re.compile(
    r"^\s*(?:so|and|then)?\s*what\b[^?]{0,40}?\b(?:prints?|printed|outputs?|comes? out|returns?|results?)\b"
    r"[^?]{0,30}\?\s*$",
    re.I,
)


_REFERENCE = re.compile(
    r"^(?:that|this|these|those|it|them|(?:the|your|my|our) (?:result|answer|output|product|sum|mean|average|"
    r"difference|quotient|ratio|total|figure|value|number|amount)s?)\b(?!\s+(?:of|for|on|at|in)\b)",
    re.I,
)


_COMPUTES = re.compile(
    r"^(?:then\s+|and\s+)?(?:calculate|compute|work out|add|subtract|multiply|divide|average|total|sum|"
    r"convert|round|apply|deduct|increase|reduce|take off|double|halve)\b",
    re.I,
)


def _described(found: Described | None) -> Described | None:
    """``found`` unless a description only points back at an earlier value ("that sum", "the product"):
    that is a calculation the request asks for, never a lookup."""
    if found is None or any(_REFERENCE.match(d.strip()) for d in found[0].values()):
        return None
    return found


def _order(item: str, clauses: list[str]) -> int:
    text = " ".join(clauses).lower()
    words_ = [w for w in item.lower().split() if w not in ("the", "a", "an", "their", "its")]
    at = text.find(words_[0]) if words_ else -1
    return at if at >= 0 else len(text)


#: Brackets that say how to work a value out: the value is a calculation the lookups would skip.
_HOW = re.compile(
    r"\((?:look|find|get|calculate|compute|work|take|multiply|add|divide|subtract)\b[^()]*\)", re.I
)


def gathered_plan(goal: str) -> Plan | None:
    """The request planned as lookups bound to its code's inputs by name (see the module docstring), or
    None when it does not have that shape."""
    if _HOW.search(
        goal
    ):  # "(look up the per diem; travel days at the travel-day rate)": worked out, not read
        return None
    text, clauses, blocks = request_clauses(goal)
    clauses = _code_above(clauses)
    found = _code_clause(clauses, blocks)
    if found is None:
        return None
    code_at, code = found
    inputs = free_names(code)
    after = [  # "For p use X.", "What does this print?"
        c
        for c in clauses[code_at + 1 :]
        if not declared_descriptions(c, inputs) and not _ASKS_OUTPUT.match(c)
    ]
    if after and not (meta_only(after) or all(REPORT_ONLY.match(c.strip()) for c in after)):
        return None  # work after the code: the clause-by-clause plan is the one to fix
    given = constants(inputs, MARK_RE.sub(" ", text))
    wanted = [n for n in inputs if n not in given]
    if not wanted:
        return None
    described = _described(_descriptions(clauses, code_at, wanted, code))
    if described is None:
        return None
    items, used = described
    first = min(used, default=code_at)
    if any(_COMPUTES.match(c.strip()) for c in clauses[first + 1 : code_at]):
        return None  # "find A, calculate B from it, then run <code>": a calculation the lookups would skip
    rest = [c for i, c in enumerate(clauses) if i not in used]
    rest += [c.partition(": ")[0] + ":" for i, c in enumerate(clauses) if i in used and ": " in c]
    names, owner = _about(rest)
    others = {w for n in wanted for w in words(n.replace("_", " "))}
    wanted.sort(key=lambda n: _order(items[n], clauses))
    items = dict(zip(wanted, owners_given([items[n] for n in wanted]), strict=True))
    steps: list[PlanStep] = []
    for name in wanted:
        question = _question(items[name], names, owner, others - set(words(items[name])))
        steps.append(PlanStep(len(steps) + 1, LOOKUP, question.rstrip("?"), question))
    index = {name: i + 1 for i, name in enumerate(wanted)}
    prelude = "".join(f"{n} = {v}\n" for n, v in given.items())
    bindings = tuple((n, index[n]) for n in wanted)
    text_of = re.sub(r"\s+", " ", MARK_RE.sub("[code]", clauses[code_at])).strip()
    steps.append(PlanStep(len(steps) + 1, "code", text_of, prelude + code, tuple(index.values()), bindings))
    return Plan(goal, tuple(steps), len(steps), clauses[-1])


__all__ = ["constants", "gathered_plan"]
