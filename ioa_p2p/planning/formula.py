"""A formula the documents state, solved for the variable a question asks for (pure).

Documents define quantities by formulas: "RCF = 1.118 x 10^-5 x r x N^2, where r is the rotor radius in
centimetres and N the speed in revolutions per minute", "P = V x I", "E = 0.5 x m x v²". A question that
gives some of the variables and asks for another ("what speed gives 12,000 x g on the VC-24R?") is
answered by the formula solved for the one left unknown.

- **Formulas** are lines ``NAME = product`` whose right side is a product (and quotient) of numbers
  (``1.118``, ``10^-5``) and variables with powers (``N^2``, ``v²``): a monomial, so any one variable can be
  solved for: ``x_k = (y / (c * others)) ^ (1 / p_k)``.
- **What each variable is**: "where r is the rotor radius in centimetres and N the speed in ...", "the
  relative centrifugal force (RCF, in multiples of g)", "V is the voltage": its words and unit words.
- **Values**: a number of the question followed by a variable's unit words or name ("12,000 x g", "at
  230 V"), else preceded by its name or words ("a mass of 3 kg"); else the cell of a table row the question
  names ("VC-24R") under the column whose header shares the variable's words ("Rotor radius (cm)").
- **The variable asked**: the one left without a value, which the question must name (its words or
  unit); exactly one may be left. "Nearest 10 rpm" rounds the result to that step.

:func:`formula_expression` returns (calculator expression, unit) or None when the documents state no
formula whose variables the question and the documents fill but one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.doc_facts import content_words
from ioa_p2p.planning.records import DocRecords
from ioa_p2p.planning.units import unit_phrase
from ioa_p2p.planning.values import ALIASES, Found, format_number, numbers_in

MAX_FORMULAS = 20
_NAME = r"[A-Za-z][A-Za-z0-9_]{0,11}"
_FORMULA = re.compile(rf"(?:^|(?<=[\s:(]))({_NAME})\s*=\s*([^=\n;]{{3,160}})", re.M)
_NUM = r"\d+(?:\.\d+)?"
_POWERS = {"²": 2.0, "³": 3.0}
_OPERAND = re.compile(
    rf"^(?:(?P<num>{_NUM})(?:\s*\^\s*\(?(?P<nexp>[-−]?{_NUM})\)?)?|(?P<var>{_NAME})"
    rf"(?:\s*(?:\^|\*\*)\s*\(?(?P<vexp>[-−]?{_NUM})\)?|(?P<sup>[²³]))?)$"
)
_EXP = rf"\s*(?:\^|\*\*)\s*\(?[-−]?{_NUM}\)?"
_TOKEN = re.compile(rf"{_NUM}{_EXP}|{_NAME}{_EXP}|{_NAME}[²³]?|{_NUM}|[×x*·/]")


@dataclass(frozen=True, slots=True)
class Formula:
    name: str
    coefficient: str  # the numbers' product, as calculator text ("1.118 * 10^(-5)"), "" for none
    powers: tuple[tuple[str, float], ...]  # each variable of the right side and its power (-1: divided)


@dataclass(frozen=True, slots=True)
class Meaning:
    words: frozenset[str]
    units: frozenset[str]  # words a number's unit is written with ("g", "cm", "centimetres")
    unit: str = ""  # the unit's symbol ("cm"; "rpm" for "revolutions per minute"), "" when unknown


def formulas_in(text: str) -> list[Formula]:
    """The monomial formulas ``text`` states (see the module docstring)."""
    out: list[Formula] = []
    for m in _FORMULA.finditer(text):
        rhs = re.split(r",\s|\.\s|\s(?:where|with|for)\b", m.group(2) + " ")[0]  # "..., where D is ..."
        parsed = _product(m.group(1), rhs.strip().rstrip(".,"))
        if parsed is not None and parsed not in out:
            out.append(parsed)
        if len(out) >= MAX_FORMULAS:
            break
    return out


def _product(name: str, rhs: str) -> Formula | None:
    tokens = _TOKEN.findall(rhs)
    if "".join(t.replace(" ", "") for t in tokens) != re.sub(r"\s+", "", rhs):
        return None  # anything else than a product of numbers and variables (a sum, words)
    numbers: list[str] = []
    powers: dict[str, float] = {}
    sign, expect_operand = 1.0, True
    for token in tokens:
        if token in ("×", "*", "·", "/") or (token == "x" and not expect_operand):
            if expect_operand:
                return None
            sign, expect_operand = (-1.0 if token == "/" else 1.0), True
            continue
        m = _OPERAND.match(token.replace(" ", ""))
        if m is None:
            return None
        if m.group("num"):
            exp = (m.group("nexp") or "").replace("−", "-")
            text = f"{m.group('num')}^({exp})" if exp else m.group("num")
            numbers.append(text if sign > 0 else f"1 / {text}")
        else:
            var = m.group("var")
            power = float((m.group("vexp") or "").replace("−", "-") or _POWERS.get(m.group("sup") or "", 1.0))
            powers[var] = powers.get(var, 0.0) + sign * power
        sign, expect_operand = 1.0, False
    if expect_operand or not powers or name in powers or any(p == 0 for p in powers.values()):
        return None
    return Formula(name, " * ".join(numbers), tuple(powers.items()))


_WHERE = re.compile(r"\bwhere\b(.{5,300}?)(?:\.(?:\s|$)|\n\n|$)", re.I | re.S)
_IS = re.compile(
    rf"^\s*(?:and\s+)?({_NAME})\s+(?:is|=|means|stands for|denotes|:)?\s*(?:the\s+)?(.+)$", re.I | re.S
)
_PAREN = re.compile(rf"((?:[A-Za-z][\w-]*\s+){{1,5}})\(({_NAME})(?:,\s*(?:in\s+)?([^)]{{1,40}}))?\)")
_IN_UNIT = re.compile(r"\b(?:in|as)\s+(?:multiples of\s+|number of\s+)?(.{1,40})$", re.I)


def meanings(text: str, names: set[str]) -> dict[str, Meaning]:
    """What each of ``names`` is, by the document's words ("where r is the rotor radius in centimetres",
    "the relative centrifugal force (RCF, in multiples of g)")."""
    out: dict[str, Meaning] = {}
    for m in _WHERE.finditer(text):
        for part in re.split(r",|;|\band\b(?=\s+[A-Za-z]{1,12}\s)", m.group(1)):
            d = _IS.match(part)
            if d and d.group(1) in names and d.group(1) not in out:
                out[d.group(1)] = _meaning(d.group(2))
    for m in _PAREN.finditer(text):
        name = m.group(2)
        if name in names and name not in out:
            unit = m.group(3) or ""
            out[name] = _meaning(m.group(1) + (f" in {unit}" if unit else ""))
    return out


def _meaning(description: str) -> Meaning:
    description = " ".join(description.split()).strip(" .")
    unit = _IN_UNIT.search(description)
    words = description[: unit.start()] if unit else description
    units: set[str] = set()
    symbol = ""
    if unit:
        raw = unit.group(1).strip().lower()
        symbol = ALIASES.get(raw, "") or unit_phrase(raw, ALIASES)
        units |= {raw, raw.split()[-1], *([symbol] if symbol else [])}
        initials = "".join(w[0] for w in re.findall(r"[a-z]+", raw) if w not in ("per", "of"))
        if " per " in raw and len(initials) >= 2:  # "revolutions per minute": rpm
            symbol = symbol or initials[0] + "p" + initials[1:]
            units.add(initials[0] + "p" + initials[1:])
    return Meaning(content_words(words), frozenset(u for u in units if u), symbol)


def formula_expression(
    question: str, evidence: tuple[str, ...], records: DocRecords | None
) -> tuple[str, str] | None:
    """(expression, unit) of the variable the question asks for, by a formula of the documents solved for
    it; None when no formula fits (see the module docstring)."""
    text = "\n".join([*evidence, *(r.text for r in records.records)] if records else evidence)
    for formula in formulas_in(text):
        names = {formula.name, *(n for n, _ in formula.powers)}
        means = meanings(text, names)
        if len(means) < len(names) - 1:
            continue
        solved = _solve(question, formula, means, records)
        if solved is not None:
            return solved
    return None


def _solve(
    question: str, formula: Formula, means: dict[str, Meaning], records: DocRecords | None
) -> tuple[str, str] | None:
    names = [formula.name, *(n for n, _ in formula.powers)]
    known = stated_values(question, names, means)
    # the variable asked for is one the question names and gives no value; the others come from the
    # table row the question names
    for target in [n for n in names if n not in known and _asked(question, n, means.get(n))]:
        cells = {n: _cell(question, means.get(n), records) for n in names if n not in known and n != target}
        if all(v is not None for v in cells.values()):
            return _solved(question, formula, means, target, {**known, **cells})  # type: ignore[dict-item]
    return None


def _solved(
    question: str, formula: Formula, means: dict[str, Meaning], target: str, known: dict[str, float]
) -> tuple[str, str]:
    coefficient = formula.coefficient or "1"
    if target == formula.name:
        factors = [coefficient, *(_power(known[n], p) for n, p in formula.powers)]
        expr = " * ".join(factors)
    else:
        p = dict(formula.powers)[target]
        others = [coefficient, *(_power(known[n], q) for n, q in formula.powers if n != target)]
        base = f"{format_number(known[formula.name])} / ({' * '.join(others)})"
        expr = (
            f"({base})" if p == 1 else (f"sqrt({base})" if p == 2 else f"({base}) ^ (1 / {format_number(p)})")
        )
    meaning = means.get(target)
    return _rounded(question, expr), meaning.unit if meaning else ""


def _power(number: float, power: float) -> str:
    shown = format_number(number)
    return shown if power == 1 else f"{shown} ^ ({format_number(power)})"


def stated_values(question: str, names: list[str], means: dict[str, Meaning]) -> dict[str, float]:
    """The numbers the question gives the variables: first those followed by a variable's unit or name
    ("1,250 kg", "230 V", "12,000 x g", "N = 3000"), then those right after its words ("a kinetic energy
    of 62,500", "at a speed of 20"); a number is given to one variable only."""
    numbers = [f for f in numbers_in(question) if not _NEAREST.search(question[max(0, f.start - 16) : f.end])]
    out: dict[str, float] = {}
    taken: set[int] = set()
    for strong in (True, False):
        for name in names:
            if name in out:
                continue
            for i, found in enumerate(numbers):
                if i not in taken and _gives(question, found, name, means.get(name), strong):
                    out[name] = found.number
                    taken.add(i)
                    break
    return out


def _gives(question: str, found: Found, name: str, meaning: Meaning | None, strong: bool) -> bool:
    start, end, unit = found.start, found.end, found.unit
    after = re.findall(r"[a-z]+|[A-Za-z]+", re.sub(r"^\s*[x×]\s+", "", question[end : end + 30]))[:3]
    before = re.findall(r"[A-Za-z]+", question[max(0, start - 40) : start])[-4:]
    if strong:
        units = {w for u in (meaning.units if meaning else ()) for w in (u, u.lower())}
        if unit and meaning is not None and unit in units | {meaning.unit}:  # "1,250 kg"
            return True
        phrase = " ".join(after).lower()
        return bool(after) and (
            after[0] == name
            or after[0] in units
            or any(len(u) > 2 and " " in u and phrase.startswith(u) for u in units)
        )
    if before and before[-1] == name:  # "N = 3000"
        return True
    words = {w.lower() for w in before}
    return meaning is not None and bool(words & meaning.words) and bool(words & {"of", "at", "is", "to"})


def _cell(question: str, meaning: Meaning | None, records: DocRecords | None) -> float | None:
    """The number of a table row the question names, in the column whose header shares the variable's
    words."""
    if meaning is None or records is None:
        return None
    asked = question.lower()
    for record in records.records:
        if not record.cells:
            continue
        names = [v for _, v in record.cells[:2] if len(v.strip()) >= 2 and not numbers_in(v)]
        names += [v for _, v in record.cells[:1] if re.search(r"[A-Za-z]", v) and len(v.strip()) >= 2]
        if not any(re.search(rf"(?<![\w-]){re.escape(n.strip().lower())}(?![\w-])", asked) for n in names):
            continue
        best: tuple[int, float] | None = None
        for header, value in record.cells:
            fit = len(meaning.words & (content_words(header) | _unit_words(header)))
            symbol = re.search(r"\(([^()]{1,12})\)\s*$", header)  # "Voltage (V)": its unit
            known = symbol.group(1) if symbol and symbol.group(1) in ALIASES.values() else ""
            if known and meaning.unit and known != meaning.unit:  # "Power (W)" is no current in A
                continue
            found = numbers_in(value)
            if fit and len(found) == 1 and (best is None or fit > best[0]):
                best = (fit, found[0].number)
        if best is not None:
            return best[1]
    return None


def _unit_words(header: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+", header.lower()))


def _asked(question: str, name: str, meaning: Meaning | None) -> bool:
    words = content_words(question)
    if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", question):
        return True
    if meaning is None:
        return False
    lowered = set(re.findall(r"[a-z]+", question.lower()))
    for m in re.finditer(
        r"\bhow (fast|heavy|far|long|high|tall|hot|cold|deep|wide|big|strong)\b", question, re.I
    ):
        words |= _HOW[m.group(1).lower()]  # "how fast": a speed
    return bool(meaning.words & words) or bool({u for u in meaning.units if " " not in u} & lowered)


_HOW = {
    "fast": frozenset({"speed", "velocity", "rate"}),
    "heavy": frozenset({"mass", "weight"}),
    "far": frozenset({"distance", "range", "length"}),
    "long": frozenset({"length", "duration", "time", "period"}),
    "high": frozenset({"height", "altitude", "head", "level"}),
    "tall": frozenset({"height"}),
    "hot": frozenset({"temperature"}),
    "cold": frozenset({"temperature"}),
    "deep": frozenset({"depth"}),
    "wide": frozenset({"width", "breadth"}),
    "big": frozenset({"size", "area", "volume"}),
    "strong": frozenset({"force", "strength"}),
}
_HOW_WORD = re.compile(rf"\bhow ({'|'.join(_HOW)})\b", re.I)
_NEAREST = re.compile(r"\b(?:to the )?nearest (\d+(?:\.\d+)?)\b", re.I)


def _rounded(question: str, expr: str) -> str:
    """ "Nearest 10 rpm is fine": rounded to that step."""
    m = _NEAREST.search(question)
    if m is None:
        return expr
    step = format_number(float(m.group(1)))
    return f"round({expr} / {step}, 0) * {step}" if step != "1" else f"round({expr}, 0)"


__all__ = ["Formula", "Meaning", "formula_expression", "formulas_in", "meanings"]
