"""Text to expression trees: normalising words and symbols, tokens, runs, a small Pratt parser (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ioa_p2p.adapters.calculator.values import MAX_DEPTH, MAX_INPUT_CHARS, MAX_LITERAL_CHARS
from ioa_p2p.errors import TaskRejected

# --------------------------------------------------------------------------- normalising and tokens

_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\braised to the power of\b", " ^ "),
    (r"\bto the power of\b", " ^ "),
    (r"\bto the power\b", " ^ "),
    (r"\braised to\b", " ^ "),
    (r"\bmultiplied by\b", " * "),
    (r"\btimes\b", " * "),
    (r"\bdivided by\b", " / "),
    (r"\bplus\b", " + "),
    (r"\bminus\b", " - "),
    (r"\bsquared\b", " ^ 2 "),
    (r"\bcubed\b", " ^ 3 "),
    (r"\bper ?cent\b", " % "),
    (r"\bsquare root( of)?\b", " sqrt "),
    (r"\bcube root( of)?\b", " cbrt "),
    (r"\bmodulo\b", " mod "),
    (r"(?<=[\d)])\s*factorial\b", " ! "),
    (r"\bfactorial( of)?\b", " fact "),
    (r"\babsolute value( of)?\b", " abs "),
    (r"\bround(?:ed)? up\b", " ceil "),
    (r"\bround(?:ed)? down\b", " floor "),
    (r"\b(?:sum|total)( of)?\b", " sum "),
    (r"\bproduct( of)?\b", " product "),
    (r"\b(?:average|mean)( of)?\b", " avg "),
    (r"\bdifference (?:between|of)\b", " diff "),
)
_PHRASE_RES = tuple((re.compile(p), r) for p, r in _PHRASES)
_UNICODE = str.maketrans(
    {
        "×": "*",
        "·": "*",
        "∗": "*",
        "÷": "/",
        "−": "-",
        "–": "-",
        "√": " sqrt ",
        "²": "^2",
        "³": "^3",
    }
)
#: "the 2024-25 season", "the 2023/24 tax year": a span of years named by what follows, not 2024 - 25
_SEASON = re.compile(
    r"(?<![\d.])(?:19|20)\d{2}\s?[-/]\s?(?:\d{2}|(?:19|20)\d{2})(?![\d.])"
    r"(?=\s+(?!(?:plus|minus|times|divided|multiplied|over|and|mod|to|of|is|equals)\b)[a-z])"
)
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d]|,\d)")
_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b")
_TIMES_X = re.compile(r"(?<=[\d)])\s*x\s*(?=[\d(])")
_TOKEN = re.compile(
    r"(?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d{1,4}(?![\d.]))?)"
    r"|(?P<op>\*\*|[-+*/^%!(),])"
    r"|(?P<word>[a-z_]+)"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.DOTALL,
)
_MIN_MAX = re.compile(r"\b(min|max)\s*\(")
FUNCTIONS = frozenset({"sqrt", "cbrt", "abs", "fact", "ceil", "floor", "round"})
#: ``min(...)`` / ``max(...)`` are read as ``minimum(`` / ``maximum(`` (a bare "min" is minutes)
AGGREGATES = frozenset({"sum", "product", "avg", "diff", "minimum", "maximum"})
_KEEP_WORDS = FUNCTIONS | AGGREGATES | {"mod", "of", "and"}
_DROP_WORDS = frozenset({"the", "numbers", "number", "values", "value", "between"})


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # "num" | "op" | "word"
    text: str


def normalise(text: str) -> str:
    text = text.lower().translate(_UNICODE).replace("**", "^")
    text = _DATE.sub(" date ", text)  # 2024-01-05 is a date, not 2024 - 1 - 5
    text = _SEASON.sub(" season ", text)
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    for pattern, repl in _PHRASE_RES:
        text = pattern.sub(repl, text)
    text = _MIN_MAX.sub(lambda m: ("minimum" if m.group(1) == "min" else "maximum") + "(", text)
    return _TIMES_X.sub(" * ", text)


def runs(text: str) -> list[list[Tok]]:
    """Maximal runs of arithmetic tokens; other words and punctuation end a run."""
    out: list[list[Tok]] = []
    current: list[Tok] = []
    for m in _TOKEN.finditer(normalise(text)):
        kind = m.lastgroup or ""
        value = m.group()
        if kind == "space" or (kind == "word" and value in _DROP_WORDS):
            continue
        if kind in ("num", "op") or (kind == "word" and value in _KEEP_WORDS):
            current.append(Tok(kind, value))
            continue
        if current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


# --------------------------------------------------------------------------- parser

Node = tuple[Any, ...]


class _ParseError(Exception):
    pass


class _Parser:
    """Pratt parser over one run of tokens. Binding powers: + - 10, * / mod 20, unary - 25, ^ 30,
    postfix ! and % 40."""

    def __init__(self, tokens: list[Tok]) -> None:
        self.toks = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.text in texts

    def take(self) -> Tok:
        tok = self.peek()
        if tok is None:
            raise _ParseError("the expression ends too early")
        self.pos += 1
        return tok

    def expect(self, text: str) -> None:
        if not self.at(text):
            raise _ParseError(f"expected {text!r}")
        self.pos += 1

    def expr(self, min_bp: int = 0) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TaskRejected(f"the expression is nested more than {MAX_DEPTH} levels deep")
        try:
            left = self.prefix()
            while True:
                tok = self.peek()
                if tok is None:
                    break
                step = self.infix(tok, left, min_bp)
                if step is None:
                    break
                left = step
            return left
        finally:
            self.depth -= 1

    def prefix(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            return ("num", _literal(tok.text))
        if tok.text in ("-", "+"):
            operand = self.expr(25)
            return ("neg", operand) if tok.text == "-" else operand
        if tok.text == "(":
            inner = self.expr(0)
            self.expect(")")
            return inner
        if tok.text == "round" and self.at("("):  # round(x) or round(x, digits)
            self.pos += 1
            inner = self.expr(0)
            digits: Node = ("num", Fraction(0))
            if self.at(","):
                self.pos += 1
                digits = self.expr(0)
            self.expect(")")
            return ("round", inner, digits)
        if tok.text in FUNCTIONS:
            if self.at("of"):
                self.pos += 1
            return ("fn", tok.text, self.expr(25))
        if tok.text in AGGREGATES:
            return self.aggregate(tok.text)
        raise _ParseError(f"unexpected {tok.text!r}")

    def aggregate(self, name: str) -> Node:
        if self.at("of"):
            self.pos += 1
        if self.at("("):  # min(a, b, c): a list in parentheses
            self.pos += 1
            items = [self.expr(0)]
            while self.at(","):
                self.pos += 1
                items.append(self.expr(0))
            self.expect(")")
            return self._aggregated(name, items)
        items = [self.expr(10)]
        while self.at(",", "and"):
            self.pos += 1
            if self.at("and"):
                self.pos += 1
            items.append(self.expr(10))
        return self._aggregated(name, items)

    def _aggregated(self, name: str, items: list[Node]) -> Node:
        if len(items) < 2 or (name == "diff" and len(items) != 2):
            want = "two numbers" if name == "diff" else "at least two numbers"
            raise _ParseError(f"{name} needs {want}")
        return ("agg", name, tuple(items))

    def infix(self, tok: Tok, left: Node, min_bp: int) -> Node | None:
        op = tok.text
        if op == "%" and min_bp < 40:
            self.pos += 1
            nxt = self.peek()
            if nxt is not None and nxt.text == "of":
                self.pos += 1
                return ("pctof", left, self.expr(20))
            if nxt is not None and (nxt.kind == "num" or nxt.text == "(") and min_bp < 20:
                return ("bin", "mod", left, self.expr(20))
            return ("pct", left)
        if op == "!" and min_bp < 40:
            self.pos += 1
            return ("fn", "fact", left)
        if op == "^" and min_bp < 30:
            self.pos += 1
            return ("bin", "^", left, self.expr(29))
        if op in ("*", "/", "mod") and min_bp < 20:
            self.pos += 1
            return _chain(20, op, left, self.expr(20))
        if op == "(" and min_bp < 20:  # implicit multiplication: 2(3+4)
            return _chain(20, "*", left, self.expr(20))
        if op in ("+", "-") and min_bp < 10:
            self.pos += 1
            return _chain(10, op, left, self.expr(10))
        return None


def _chain(level: int, op: str, left: Node, right: Node) -> Node:
    """Left-associative runs of one precedence level as one flat node: 1+2-3+... has depth 1."""
    if left[0] == "chain" and left[1] == level:
        left[3].append((op, right))
        return left
    return ("chain", level, left, [(op, right)])


def _literal(text: str) -> Fraction:
    if len(text) > MAX_LITERAL_CHARS:
        raise TaskRejected(f"a number has more than {MAX_LITERAL_CHARS} characters")
    if text.endswith("."):
        text = text[:-1]
    return Fraction(text)


_CANNOT_START = frozenset({"*", "/", "^", "%", "!", ")", ",", "and", "of", "mod"})


def parse(text: str) -> list[Node]:
    """Every arithmetic expression found in ``text``, in order (bare numbers included)."""
    if len(text) > MAX_INPUT_CHARS:
        raise TaskRejected(f"the task is longer than {MAX_INPUT_CHARS} characters")
    found: list[Node] = []
    problems: list[str] = []
    for tokens in runs(text):
        parser = _Parser(tokens)
        while parser.peek() is not None:
            if parser.at(*_CANNOT_START):
                parser.pos += 1
                continue
            start = parser.pos
            try:
                node = parser.expr(0)
            except _ParseError as exc:
                problems.append(str(exc))
                # Not arithmetic here: look further on, past what was consumed (keeps this linear).
                parser.pos = max(start + 1, parser.pos)
                continue
            if _tree_depth(node) > MAX_DEPTH:
                raise TaskRejected(f"an expression has more than {MAX_DEPTH} levels of operations")
            found.append(node)
    if not any(is_operation(n) for n in found) and problems:
        raise TaskRejected(f"no complete arithmetic expression found: {problems[0]}")
    return found


def _tree_depth(node: Node) -> int:
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in _children(current))
    return deepest


def _children(node: Node) -> tuple[Node, ...]:
    kind = node[0]
    if kind in ("neg", "pct"):
        return (node[1],)
    if kind == "pctof":
        return (node[1], node[2])
    if kind == "fn":
        return (node[2],)
    if kind == "round":
        return (node[1], node[2])
    if kind == "agg":
        return tuple(node[2])
    if kind == "bin":
        return (node[2], node[3])
    if kind == "chain":
        return (node[2], *(operand for _, operand in node[3]))
    return ()


def is_operation(node: Node) -> bool:
    while node[0] == "neg":
        node = node[1]
    return bool(node[0] != "num")
