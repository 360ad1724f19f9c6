"""A step that applies a rule the documents state to an earlier value (pure; issue 23, p-rule).

"Take the Brenlow single, take the Valley Railcard discount off it, then run ...": the middle step names a
rule of the documents by what it is ("the Valley Railcard discount", "the multiplier in the fare rules",
"the late-registration surcharge") and states no number of its own. It is planned as a calculation
``rule(vN)`` over the earlier value (:func:`rule_clause`); when it is described (planning/compose.py) the
sentence of the value's own document that states that rule is read by planning/rule_reader.py into a
typed rule (a factor, a discount, a surcharge, with its cap or floor) and applied to the value: ``7.7 * (1
- 1/3)``. A rule that no sentence states in a form that applies, or that two sentences state differently,
is refused naming it (:func:`rule_missing`, exit 3), never guessed as a proportion.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.rule_bands import condition_of
from ioa_p2p.planning.rule_reader import CHARGE as CHARGE_RULE
from ioa_p2p.planning.rule_reader import (
    DISCOUNT,
    FACTOR,
    SURCHARGE,
    Rule,
    apply_to_amount,
    apply_to_quantity,
    read_rule,
)
from ioa_p2p.planning.tariffs import CHARGE, charge_quantities
from ioa_p2p.planning.types import CALC, CODE, PlanStep
from ioa_p2p.planning.units import factor
from ioa_p2p.planning.values import NUMBER, Value, numbers_in

#: The template of a step that applies a documented rule to the value of step N
RULE = re.compile(r"rule\(v(\d+)\)")

_APPLY = re.compile(
    r"^\s*(?:and\s+|then\s+)?(?:apply|take|add|deduct|subtract|compute|work\s+out|calculate|use|include|"
    r"factor\s+in|put|charge)\b",
    re.I,
)
_RULE_NOUN = re.compile(
    r"\b(?P<n>discount|reduction|rebate|concession|surcharge|supplement|mark-?up|multiplier|factor)s?\b",
    re.I,
)
_KIND_OF_NOUN = {
    "discount": DISCOUNT,
    "reduction": DISCOUNT,
    "rebate": DISCOUNT,
    "concession": DISCOUNT,
    "surcharge": SURCHARGE,
    "supplement": SURCHARGE,
    "markup": SURCHARGE,
    "mark-up": SURCHARGE,
    "multiplier": FACTOR,
    "factor": FACTOR,
}
_GENERIC = frozenset(
    re.findall(
        r"\S+",
        "a an the it its that this then and or of to in on with by for from off apply take add deduct "
        "subtract compute work out calculate use include put charge price value result amount rule rules "
        "given gets get one them their there is are be as at into onto using per each",
    )
)
_CODE_TAIL = (
    re.compile(r"^(?P<rule>[^,;]+),\s+(?:and\s+)?(?:then\s+)?(?P<rest>.*⟦code\d+⟧.*)$", re.S),
    re.compile(r"^(?P<rule>[^,;]+?)\s+and\s+(?:then\s+)?(?P<rest>.*⟦code\d+⟧.*)$", re.S),
)


def _names_rule(clause: str) -> bool:
    return bool(_APPLY.search(clause) and _RULE_NOUN.search(clause) and not re.search(r"\d", clause))


def split_rule_clauses(clauses: list[str]) -> list[str]:
    """ "add the late-registration surcharge, and hand the total to this code as total ⟦code0⟧": the rule
    applied and the code are two requests (the code's clause keeps its mark)."""
    out: list[str] = []
    for clause in clauses:
        m = next((m for p in _CODE_TAIL if (m := p.match(clause.strip())) is not None), None)
        if m is not None and _names_rule(m.group("rule")) and "⟦code" not in m.group("rule"):
            out += [m.group("rule").strip(), m.group("rest").strip()]
        else:
            out.append(clause)
    return out


def rule_clause(clause: str, before: list[PlanStep]) -> PlanStep | None:
    """The step for a clause that applies a rule the documents name to the previous value (see the module
    docstring), or None when the clause is not one (a number of its own, no rule named, no value yet)."""
    if not before or before[-1].kind == CODE or not _names_rule(clause):
        return None
    n = before[-1].index
    return PlanStep(n + 1, CALC, clause.strip(), f"rule(v{n})", (n,))


def _words(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.lower().replace("-", " "))
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words}


def _alike(a: str, b: str) -> bool:
    """One word a form of the other ("late" / "later", "registration" / "registering")."""
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long_.startswith(short)) or (len(short) >= 6 and a[:6] == b[:6])


def _overlap(wanted: set[str], words: set[str]) -> int:
    return sum(1 for w in wanted if any(_alike(w, x) for x in words))


def word_overlap(wanted: set[str], words: set[str]) -> int:
    """How many of ``wanted`` have a form among ``words`` ("late" / "later", "receive" / "receiving")."""
    return _overlap(wanted, words)


def sentences_of(value: Value) -> list[str]:
    """The sentences, table rows, headings and list items of a value's evidence and document."""
    return _sentences(value)


def _sentences(value: Value) -> list[str]:
    texts = [*value.evidence]
    if value.records is not None:
        texts += [r.text for r in value.records.records]
    out: list[str] = []
    for text in texts:
        for block in _paragraphs(text):
            cut = re.split(r"(?<=[.;])\s+(?=[A-Z(])", block.strip(" |#-*"))
            out += [s for s in cut if s and s not in out]
    return out


def _paragraphs(text: str) -> list[str]:
    """A document's table rows, headings and list items each alone; its prose lines joined into paragraphs
    (a sentence wrapped over two lines is one)."""
    out: list[str] = []
    prose: list[str] = []
    for line in [*text.splitlines(), ""]:
        bare = line.strip()
        if bare and not re.match(r"[|#>*-]|\d+[.)]\s", bare):
            prose.append(bare)
            continue
        if prose:
            out.append(" ".join(prose))
            prose = []
        if bare:
            out.append(bare)
    return out


def _chosen(step: PlanStep, value: Value) -> tuple[Rule, str] | None:
    """The rule the step names, read from the one sentence of the value's document that fits it best."""
    if value.kind != NUMBER or value.number is None:
        return None
    wanted = _words(step.text) - _GENERIC
    noun = _RULE_NOUN.search(step.text)
    kind = _KIND_OF_NOUN.get(noun.group("n").lower().replace("markup", "mark-up")) if noun else None
    scored: list[tuple[int, str, Rule]] = []
    for sentence in _sentences(value):
        rule = read_rule(sentence)
        expression = apply_to_amount(rule, value.number) if rule is not None else None
        if rule is None or expression is None:
            continue
        overlap = _overlap(wanted, _words(sentence))
        score = overlap * 2 + (1 if rule.kind == kind else 0)
        if overlap:
            scored.append((score, expression, rule))
    if not scored:
        return None
    best = max(s for s, _, _ in scored)
    top = {e for s, e, _ in scored if s == best}
    if len(top) != 1:
        return None  # two sentences state the rule differently: not read with confidence
    expression = top.pop()
    rule = next(r for s, e, r in scored if s == best and e == expression)
    return rule, expression


def rule_expression(step: PlanStep, values: Mapping[int, Value]) -> str | None:
    """The calculation ``step`` (``rule(vN)``) asks for, with the rule read and applied, or None."""
    m = RULE.fullmatch(step.template.strip())
    value = values.get(int(m.group(1))) if m else None
    chosen = _chosen(step, value) if value is not None else None
    return chosen[1] if chosen is not None else None


def rule_missing(step: PlanStep, values: Mapping[int, Value]) -> Missing | None:
    """The rule ``step`` names, when no sentence of its value's document states it in a form that applies
    to that value (the step is refused, exit 3); None when it is read, or the step is no rule step."""
    m = RULE.fullmatch(step.template.strip())
    if m is None or int(m.group(1)) not in values:
        return None
    if rule_expression(step, values) is not None:
        return None
    noun = _RULE_NOUN.search(step.text)
    name = step.text.strip().rstrip(".")
    what = f"the {noun.group('n').lower()} rule of '{name}'" if noun else f"the rule of '{name}'"
    return Missing(
        what, "", "no sentence of the document the value came from states it in a form that applies"
    )


def stated_charge(step: PlanStep, values: Mapping[int, Value]) -> str | None:
    """A charge ``charge(vN; 6.5 m)`` worked out on the terms the price's own sentence states beyond rate x
    quantity ("EUR 14 per metre; a boat shorter than 8 m is charged as 8 m", "EUR 2 per day after a
    3-day grace period, capped at EUR 20", "EUR 65 plus EUR 48 per hour, in half-hour steps"), read by
    planning/rule_reader.py: the one sentence of the value's document that states a charge at the price
    found, per the unit of the one quantity the question gives. None otherwise (the other readings of a
    charge decide)."""
    m = CHARGE.fullmatch(step.template.strip())
    found = values.get(int(m.group(1))) if m else None
    if m is None or found is None or found.kind != NUMBER or found.number is None:
        return None
    given = charge_quantities(m.group(2))
    if len(given) != 1:
        return None
    conditioned = conditional_rule(step.text, found)
    if conditioned is not None:  # "35 days after delivery" and "within 28 days ...; later adds EUR 20"
        return conditioned
    quantity = given[0]
    expressions = set()
    for sentence in _sentences(found):
        rule = read_rule(sentence)
        if rule is None or rule.kind != CHARGE_RULE or abs(rule.rate - found.number) > 1e-9:
            continue
        if not (rule.min_quantity or rule.allowance or rule.started or rule.add or rule.cap or rule.floor):
            continue  # rate x quantity: the other readings already do that
        number = quantity.number
        if quantity.unit and quantity.unit != rule.per:
            scale = factor(quantity.unit, rule.per)
            if scale is None:
                continue
            number *= scale
        expression = apply_to_quantity(rule, number)
        if expression is not None:
            expressions.add(expression)
    return expressions.pop() if len(expressions) == 1 else None


#: a rule about every value its document states before it ("every time given above is doubled")
_BACK = re.compile(r"\b(?:given|stated|listed|shown|quoted)\s+above\b|\b(?:all|every|each)\s+(?:of\s+)?the\s+"
                   r"(?:times|prices|values|figures|rates)\s+above\b", re.I)  # fmt: skip


def conditional_rule(question: str, found: Value | None) -> str | None:
    """The value found with the one rule of its document whose condition the question's quantity meets
    ("My allotment is 260 m up. How many days to harvest?" and "Upland gardens (above 200 m): days to
    harvest add 10 %": ``60 * (1 + 0.1)``); None when no rule, or several, apply, or the question states
    no quantity or more than one in the condition's unit."""
    if found is None or found.kind != NUMBER or found.number is None:
        return None
    stated = [q for q in numbers_in(question) if q.unit]
    wanted = _words(question) - _GENERIC
    expressions = set()
    for sentence in _sentences(found):
        band = condition_of(sentence)
        rule = read_rule(sentence) if band is not None else None
        if band is None or rule is None or rule.kind not in (FACTOR, DISCOUNT, SURCHARGE):
            continue
        measured = [q for q in stated if q.unit == band.unit]
        if len(measured) != 1 or not band.holds(measured[0].number):
            continue
        if _overlap(wanted - {band.unit.lower()}, _words(sentence)) < 1 and not _BACK.search(sentence):
            continue  # about something else, unless it is about every value stated before it
        expression = apply_to_amount(rule, found.number)
        if expression is not None:
            expressions.add(expression)
    return expressions.pop() if len(expressions) == 1 else None


_SUM_TIMES = re.compile(r"\(?\s*\(\s*v(\d+)\s*\+\s*v(\d+)\s*\)\s*\*\s*(\d+(?:\.\d+)?)\s*\)?")


def stated_combination(step: PlanStep, values: Mapping[int, Value]) -> str | None:
    """``(v1 + v2) * 3`` over a fee and a rate that one sentence of their document states together as a
    base plus a rate ("the call-out fee is EUR 65 plus EUR 48 per hour of labour, charged in half-hour
    steps"): the rule's form decides how they combine, ``65 + 48 * 3`` (its steps and bounds kept); None
    when no one sentence states the two so."""
    m = _SUM_TIMES.fullmatch(step.template.strip())
    if m is None:
        return None
    first, second = values.get(int(m.group(1))), values.get(int(m.group(2)))
    if first is None or second is None or first.number is None or second.number is None:
        return None
    expressions = set()
    for sentence in _sentences(first):
        rule = read_rule(sentence)
        if rule is None or rule.kind != CHARGE_RULE or not rule.add:
            continue
        pair = {round(rule.add, 9), round(rule.rate, 9)}
        if pair != {round(first.number, 9), round(second.number, 9)}:
            continue
        expression = apply_to_quantity(rule, float(m.group(3)))
        if expression is not None:
            expressions.add(expression)
    return expressions.pop() if len(expressions) == 1 else None
