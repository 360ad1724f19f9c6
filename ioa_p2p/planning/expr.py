"""Arithmetic instructions in words -> expressions (pure).

:func:`to_expression` turns a clause whose references to earlier values were replaced by ``v1``, ``v2``, ...
("multiply v1 by 3", "take off the 8% volume discount from v1", "add 17% to v2", "v1 percentage of 1,187,500",
"the difference between v1 and v2", "subtract seven") into a Python-syntax expression over those names
(``v1 * 3``, ``v1 * (1 - 8 / 100)``, ...). A clause with no left operand ("subtract seven", "divide by 4")
works on ``default``. :func:`normalise` spells numbers as digits ("thirty-seven" -> 37, "2,480" -> 2480).
:func:`check_expression` accepts only numbers, ``vN`` names, + - * / // % ** and a few functions.
"""

from __future__ import annotations

import ast
import re

_ONES_WORDS = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen
"""
_ONES = _ONES_WORDS.split()
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
WORD_NUMBERS = {w: i for i, w in enumerate(_ONES)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
WORD_NUMBERS |= {"a dozen": 12, "dozen": 12, "a hundred": 100, "hundred": 100, "a thousand": 1000}
_WORD_NUM = re.compile(
    r"\b("
    + "|".join(_TENS)
    + r")[- ]("
    + "|".join(_ONES[1:10])
    + r")\b|\b("
    + "|".join(sorted(WORD_NUMBERS, key=len, reverse=True))
    + r")\b"
)
#: Fractions and multiples in words ("one fifth of", "three quarters of", "twice").
FRACTIONS = {"half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "tenth": 10}
_FRACTIONS = "|".join(FRACTIONS)
MULTIPLES = {"twice": 2, "double": 2, "triple": 3, "thrice": 3}
FUNCTIONS = frozenset({"sqrt", "abs", "round", "factorial", "total", "ceil", "floor"})
_P = r"(?:[^()]|\((?:[^()]|\([^()]*\))*\))*"  # balanced parentheses, three levels
OPERAND = r"(?:the )?(v\d+|\d+(?:\.\d+)?%?|(?:sqrt|abs|factorial|total)?\(" + _P + r"\))"
_UNIT_WORDS = (
    r"kwh|wh|kw|kg|kgs|lb|lbs|eur|euros?|usd|€|\$|km|miles?|hours?|minutes?|weeks?|days?|years?|units?|"
    r"kilometres?|kilometers?|metres?|meters?|pounds?|kilograms?|cycles?"
)


_PERCENT = r"(\d+(?:\.\d+)?%)"
#: what a percentage named by these words does to the amount it is on: takes it off, or adds it
_LESS = r"discount|reduction|rebate|markdown|off"
_MORE = r"vat|tax|surcharge|mark-?up|service charge|tip|levy|interest"


def normalise(text: str) -> str:
    s = re.sub(r"\b[a-z]{2,}-\d[\w-]*", "code", text.lower())  # AL-200 names a product: no "- 200"
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)

    def word(m: re.Match[str]) -> str:
        if m.group(1):
            return str(WORD_NUMBERS[m.group(1)] + WORD_NUMBERS[m.group(2)])
        return str(WORD_NUMBERS[m.group(3)])

    s = _WORD_NUM.sub(word, s)
    s = re.sub(r"(?:eur|usd|€|\$)\s*(?=\d)", "", s)
    s = re.sub(r"(?<=\d)\s*(?:" + _UNIT_WORDS + r")\b\.?", "", s)
    s = re.sub(r"(?<![v\d.])(\d+(?:\.\d+)?)\s*(?:percent\b|per cent\b|%)", r"\1%", s)
    s = s.replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**")
    # "add 17 ** 2 to v1": a power or product of two numbers is one operand
    s = re.sub(r"(?<![\w.(])(\d+(?:\.\d+)?\s*(?:\*\*|\*|/)\s*\d+(?:\.\d+)?)(?![\w.])", r"(\1)", s)
    # "1234 is divided by 7", "80 gets increased by 5%": the verb's auxiliary says nothing
    s = re.sub(r"(?<=[\dv%)]) (?:is|are|was|were|gets?|got|has been|is then) (?=(?:divided|multiplied|"
               r"increased|decreased|reduced|raised|lowered|cut|marked)\b)", " ", s)  # fmt: skip
    s = re.sub(r"\b(\d+)(?:st|nd|rd|th) power\b", r"power of \1", s)  # "2 to the 16th power"
    return s


def _pct(operand: str) -> str:
    return f"({operand[:-1]} / 100)" if operand.endswith("%") else operand


def _change(a: str, b: str, sign: str) -> str:
    """``a`` changed by ``b``: a percentage of ``a`` when ``b`` is one, else ``b`` itself."""
    return f"({a} * (1 {sign} {_pct(b)}))" if b.endswith("%") else f"({a} {sign} {b})"


def _apply(s: str, default: str) -> str:
    """One pass of the word rules; each rule replaces its words by a parenthesised expression."""
    d = default or "v0"
    rules: list[tuple[str, object]] = [
        (rf"(?:the )?square root of {OPERAND}", lambda a: f"sqrt({a})"),
        (rf"(?:the )?square of {OPERAND}", lambda a: f"({a} ** 2)"),
        (rf"{OPERAND} squared", lambda a: f"({a} ** 2)"),
        (rf"{OPERAND} cubed", lambda a: f"({a} ** 3)"),
        (rf"{OPERAND} factorial|factorial of {OPERAND}", lambda a, b=None: f"factorial({a or b})"),
        (rf"{OPERAND} (?:raised )?to the power (?:of )?{OPERAND}", lambda a, b: f"({a} ** {b})"),
        (rf"{OPERAND}\s*(?:%|percentage|percent) of {OPERAND}", lambda a, b: f"({a} / 100 * {b})"),
        (  # "with the 12% discount", "after a 5 % rebate on v1": the amount less the share
            rf"(?:{OPERAND} )?(?:with|after|less|minus|apply|applying) (?:the |a |an )?{_PERCENT} "
            rf"(?:[a-z'-]+ ){{0,2}}?(?:{_LESS})\b(?: (?:on|to|from) {OPERAND})?",
            lambda b, p, a=None: f"({a or b or d} * (1 - {_pct(p)}))",
        ),
        (  # "with the 19% VAT", "including a 10 % service charge on v2": the amount plus the share
            rf"(?:{OPERAND} )?(?:with|plus|including|incl|apply|applying) (?:the |a |an )?{_PERCENT} "
            rf"(?:[a-z'-]+ ){{0,2}}?(?:{_MORE})\b(?: (?:on|to) {OPERAND})?",
            lambda b, p, a=None: f"({a or b or d} * (1 + {_pct(p)}))",
        ),
        (  # "the 25% deposit on v1", "a 3% commission of v2": the share the words name
            rf"(?:the |a |an )?{_PERCENT} (?:[a-z'-]+ ){{1,3}}?(?:on|of) {OPERAND}",
            lambda p, a: f"({_pct(p)} * {a})",
        ),
        (
            rf"(?:increase|raise|mark up) {OPERAND} by {OPERAND}|{OPERAND} (?:increased|raised|marked up) by "
            rf"{OPERAND}",
            lambda a, b, c=None, e=None: _change(a or c, b or e, "+"),
        ),
        (
            rf"(?:decrease|reduce|lower|cut|discount) {OPERAND} by {OPERAND}|{OPERAND} (?:decreased|reduced|"
            rf"lowered|cut|discounted) by {OPERAND}",
            lambda a, b, c=None, e=None: _change(a or c, b or e, "-"),
        ),
        (
            rf"(?:the )?(?:average|mean) of {OPERAND}"
            + rf",? (?:and )?{OPERAND}"
            + rf"(?:,? (?:and )?{OPERAND})?" * 4,
            lambda *xs: "((" + " + ".join(x for x in xs if x) + f") / {sum(1 for x in xs if x)})",
        ),
        (r"(?<![\d.])(\d+(?:\.\d+)?) (v\d+) (v\d+)\b", lambda n, a, b: f"({n} * ({a} + {b}))"),
        # "800 laminated cards": a count of things priced in two parts (the option and the base)
        (r"(?<![\d.])(\d+(?:\.\d+)?) (v\d+)\b", lambda n, v: f"({n} * {v})"),  # "2 v1": two of v1
        (
            r"\((\d+(?:\.\d+)? \* v\d+)\),? and \((\d+(?:\.\d+)? \* v\d+)\)",
            lambda a, b: f"({a} + {b})",
        ),  # "two adults and two children" (each a count of a priced thing): together
        (rf"{OPERAND} per {OPERAND}", lambda a, b: f"({a} / {b})"),
        (
            rf"(?:an? )?average (?:per [a-z]+ )?(?:over|across|for) (?:the )?(?:[a-z']+ )?{OPERAND}",
            lambda a: f"({d} / {a})",
        ),  # fmt: skip
        (rf"{OPERAND} (?:shared|split|divided) (?:among|between|by) {OPERAND}", lambda a, b: f"({a} / {b})"),
        (rf"{OPERAND} of {OPERAND}", lambda a, b: f"({_pct(a)} * {b})" if a.endswith("%") else None),
        (rf"difference (?:between|of) {OPERAND} and {OPERAND}", lambda a, b: f"abs({a} - {b})"),
        (
            rf"(?:sum|total) of {OPERAND}" + rf"(?:,? (?:and )?{OPERAND})?" * 3,
            lambda *xs: " + ".join(x for x in xs if x) if sum(1 for x in xs if x) > 1 else f"total({xs[0]})",
        ),
        (rf"product of {OPERAND},? (?:and )?{OPERAND}", lambda a, b: f"({a} * {b})"),
        (
            rf"(?:add(?: up| together)?|sum(?: up)?|total(?: up)?) {OPERAND}"
            + rf",? (?:and )?{OPERAND}" * 1
            + rf"(?:,? (?:and )?{OPERAND})?" * 2,
            lambda *xs: "(" + " + ".join(x for x in xs if x) + ")",
        ),
        (rf"(?:an? |one |1 )?({_FRACTIONS}) of {OPERAND}", lambda f, a: f"({a} / {FRACTIONS[f]})"),
        (rf"(\d+) ({_FRACTIONS})s of {OPERAND}", lambda n, f, a: f"({a} * {n} / {FRACTIONS[f]})"),
        (rf"(twice|double|triple|thrice) {OPERAND}", lambda m, a: f"({a} * {MULTIPLES[m]})"),
        (  # "multiply it by 2 adults and 5 nights": by each count in turn
            rf"multiply (?:{OPERAND} )?(?:by|with) (\d+(?:\.\d+)?)(?: [a-z]+)?,? and (?:by )?(\d+(?:\.\d+)?)"
            r"(?![\d.%]| (?:by|with)\b)",
            lambda a, b, c: f"({a or d} * {b} * {c})",
        ),
        (rf"multiply {OPERAND} (?:by|with) {OPERAND}", lambda a, b: f"({a} * {_pct(b)})"),
        (rf"{OPERAND} (?:times|multiplied by|x) {OPERAND}", lambda a, b: f"({a} * {_pct(b)})"),
        (rf"{OPERAND} (?:divided by|over) {OPERAND}", lambda a, b: f"({a} / {b})"),
        (rf"{OPERAND} plus {OPERAND}", lambda a, b: f"({a} + {b})"),
        (rf"{OPERAND} (?:minus|less) {OPERAND}", lambda a, b: f"({a} - {b})"),
        (rf"multiply (?:by|with) {OPERAND}", lambda a: f"({d} * {_pct(a)})"),
        (rf"divid(?:e|ing) {OPERAND} by {OPERAND}", lambda a, b: f"({a} / {b})"),
        (rf"divid(?:e|ing) (?:by|through) {OPERAND}", lambda a: f"({d} / {a})"),
        (
            rf"(?:add|adding) {OPERAND} (?:to|onto) {OPERAND}",
            lambda a, b: f"({b} * (1 + {_pct(a)}))" if a.endswith("%") else f"({b} + {a})",
        ),
        (  # "add a surcharge of EUR 60 to it": the amount the named thing is
            rf"(?:add|adding) (?:an? |the )?(?:[a-z'-]+ ){{1,4}}of {OPERAND} (?:to|onto) {OPERAND}",
            lambda a, b: f"({b} * (1 + {_pct(a)}))" if a.endswith("%") else f"({b} + {a})",
        ),
        (
            rf"(?:add|adding|plus) {OPERAND}",
            lambda a: f"({d} * (1 + {_pct(a)}))" if a.endswith("%") else f"({d} + {a})",
        ),
        (rf"take {OPERAND} (?:away|off) from {OPERAND}", lambda a, b: f"({b} - {a})"),
        (
            rf"(?:subtract|deduct|take (?:off|away)|remove) (?:the )?{OPERAND}"
            rf"(?: [a-z ]{{0,30}}?)? from {OPERAND}",
            lambda a, b: f"({b} * (1 - {_pct(a)}))" if a.endswith("%") else f"({b} - {a})",
        ),
        (
            rf"(?:subtract|deduct|take (?:off|away)|minus) (?:the )?{OPERAND}",
            lambda a: f"({d} * (1 - {_pct(a)}))" if a.endswith("%") else f"({d} - {a})",
        ),
        (rf"(?:double|twice) {OPERAND}", lambda a: f"({a} * 2)"),
        (rf"(?:half|halve) {OPERAND}", lambda a: f"({a} / 2)"),
    ]
    for pattern, make in rules:
        for m in re.finditer(pattern, s):
            out = make(*m.groups())  # type: ignore[operator]
            if out is not None:
                return s[: m.start()] + str(out) + s[m.end() :]
    return s


_TOKEN = re.compile(
    r"\s*((?:v\d+|\d+(?:\.\d+)?%?|sqrt|abs|factorial|total|round)(?![a-z])|\*\*|//|[-+*/%(),])"
)


def _chunks(s: str) -> list[str]:
    """Maximal runs of expression tokens (any other word ends a run)."""
    out: list[str] = []
    pos, current = 0, ""
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if m:
            current += m.group(1) + " "
            pos = m.end()
            continue
        if current.strip():
            out.append(current.strip())
        current = ""
        nxt = re.compile(r"[a-z_']+|\S|\s+").match(s, pos)
        pos = nxt.end() if nxt else pos + 1
    if current.strip():
        out.append(current.strip())
    return out


def to_expression(clause: str, default: str = "") -> str | None:
    """The arithmetic ``clause`` asks for as an expression over ``vN`` (None when it holds none)."""
    s = normalise(clause)
    for _ in range(12):
        nxt = _apply(s, default)
        if nxt == s:
            break
        s = nxt
    candidates = []
    for raw in _chunks(s):
        chunk = re.sub(r"(\d+(?:\.\d+)?)%", r"(\1 / 100)", raw.strip(" ,"))
        if check_expression(chunk) and not re.search(
            r"\b(?:sqrt|abs|factorial|total|round)\b(?!\s*\()", chunk
        ):
            candidates.append(chunk)
    operations = [c for c in candidates if re.search(r"[-+*/]|sqrt|abs|factorial|total|\*\*", c)]
    if not operations:
        return None
    with_refs = [c for c in operations if "v" in c]
    best = max(with_refs or operations, key=len)
    return best.replace("v0", default) if default else (None if "v0" in best else best)


def check_expression(expr: str) -> bool:
    """Only numbers, names v1..v99, arithmetic operators and the known functions."""
    try:
        tree = ast.parse(expr, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if not (re.fullmatch(r"v\d{1,2}", node.id) or node.id in FUNCTIONS):
                return False
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                return False
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, int | float) or isinstance(node.value, bool):
                return False
        elif not isinstance(
            node, ast.Expression | ast.BinOp | ast.UnaryOp | ast.operator | ast.unaryop | ast.Load
        ):
            return False
    return True


def names_in(expr: str) -> list[int]:
    return sorted({int(n) for n in re.findall(r"\bv(\d+)\b", expr)})


__all__ = [
    "FRACTIONS",
    "MULTIPLES",
    "WORD_NUMBERS",
    "check_expression",
    "names_in",
    "normalise",
    "to_expression",
]
