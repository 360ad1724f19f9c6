"""A request's text -> its clauses (pure): code blocks cut out, sentences and sequencing words split.

1. Fenced code blocks are cut out first and stay whole (a marker ``⟦N⟧`` stands in their place); a
   clause that asks to run code gets the next block (:mod:`~ioa_p2p.planning.code`).
2. The rest is split into clauses: numbered items, sentences, ``;``, sequencing words ("then", "after
   that", "finally") and ", and" / "and" before an action verb; abbreviations ("No. 7") end no sentence.
3. Pieces of one or two words join the next; a clause that only says where to look ("From the
   handbook") is the topic of the next clause.
"""

from __future__ import annotations

import re

from ioa_p2p.planning import described
from ioa_p2p.planning.answer_types import QUESTION_START, request_act
from ioa_p2p.planning.code import MARK, MARK_RE, attach_blocks, join_bindings
from ioa_p2p.planning.code_names import runnable
from ioa_p2p.planning.literal import format_only
from ioa_p2p.planning.segment import CODE_SEMICOLON, fence_code, keep_code_semicolons

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
ACTION_WORDS = """
    add calculate compute convert count divide multiply subtract take find get look search check run
    execute write use print tell give determine work figure sum deduct retrieve fetch read double
    triple halve evaluate round translate encode decode reverse sort summarise summarize spell list express
    plug pass feed insert substitute store save bind assign supply apply turn split share increase decrease
    reduce raise average hand
"""
ACTION = ACTION_WORDS.split()
_SEQ = r"(?:and then|then|after that|afterwards|and finally|finally|next(?=,))"  # "the next ferry" is no step
_SPLIT = re.compile(
    rf"(?<=[.!?])\s+(?=[A-Z0-9(\u27e6])|\n+|;\s*|,?\s+(?<!\band )(?={_SEQ}\b[\s,]+\w)"
    rf"|,\s*(?:and\s+)?(?=(?:{'|'.join(ACTION)})\b)"
    # "..., multiply it by 4, and with t set to that run <code>": a code step led by its binding
    rf"|,\s*(?:and\s+)?(?=(?:with|using|setting|letting|binding)\s+`?\w+`?\s+(?:set|bound|equal)\b)"
    # "..., and let <code> round it", "and have <code> report ...": the code's own step
    rf"|,\s*(?:and\s+)?(?=(?:let|have|make)\s+\u27e6)"
    rf"|\s+and\s+(?=(?:{'|'.join(ACTION)})\b)|(?:(?<=[.!?:])\s+|\n)(?=\d[.)]\s)",
    re.IGNORECASE,
)
_LEAD = re.compile(
    rf"^(?:{_SEQ}\b|\d[.)]|(?:step|part|task) (?:\d+|one|two|three|four)\s*[:.)-]|first\b|second\b|third\b|"
    rf"lastly\b|please\b|could you\b|can you\b|,|\s)+",
    re.I,
)
REPORT_ONLY = re.compile(
    r"^(?:and )?(?:tell|show|give) me(?: (?:what (?:it|that|this|the (?:code|program|script|snippet)|you get)"
    r"(?: (?:prints|printed|outputs|returns|gives|shows|is|was))?|the (?:final )?(?:answer|result|output)s?"
    r"|it|that|the (?:printed )?number(?: it prints)?))?[.!]?$"
    r"|^(?:and )?(?:tell|show|give|state|report)(?: me| us)? (?:the |your |an? )?(?:final )?"
    r"(?:answer|result|total|sum|figure|amount|value|number|product|outcome)s?[.!]?$",
    re.I,
)
INLINE_CODE = re.compile(r"\b(?:print|len|sum|sorted|max|min|int|str)\(")
WANTS_CODE = re.compile(r"\b(python|code|script|program)\b", re.I)
_DOT = "\u2024"
_ABBREVIATION = re.compile(
    r"\b(?:No|Nr|Nos|St|Dr|Mr|Mrs|Ms|Fig|Vol|approx|incl|excl|e\.g|i\.e|vs|cf|ca|Co|Ltd|Inc|Jr|Sr|p|pp)"
    r"\.(?= \S)"
    r"|(?<![\w.])[A-Z]\.(?= [A-Z][a-z]+(?:'|\u2019)s\b)"  # an initial: "M. Aldridge's readings"
)
#: Clauses after a natural question that only say how to work it out ("Look up both figures and give the
#: percentage to two decimals."): the question's own steps do that.
_META = re.compile(
    r"^(?:(?:look up|find|get|use|check) (?:both|the two|all|the|these|those) (?:figures|values|numbers|"
    r"amounts)\b|(?:give|show|state|report|express) (?:it|the (?:percentage|share|result|answer|ratio|value|"
    r"difference))\b|and\b)",
    re.I,
)
_CONTEXT = re.compile(
    r"^(?:from|in|for|under|according to|on|at|within|regarding|about|using|based on|going by|as per|"
    r"following)\b",
    re.I,
)


def request_clauses(goal: str) -> tuple[str, list[str], list[str]]:
    """``(text, clauses, blocks)``: the request's text with code blocks cut out (hints dropped), its
    clauses in order, and the code blocks the markers in them stand for."""
    blocks: list[str] = []

    def cut(m: re.Match[str]) -> str:
        blocks.append(runnable(m.group(2).rstrip("\n")))  # made to print what it computes
        return " " + MARK.format(len(blocks) - 1) + " "

    text = described.drop_hints(
        _FENCE.sub(cut, fence_code(goal.strip()))
    )  # "(look it up)" says how, not what
    # a block inside a sentence ("run <block> where value is that product") stays in it
    text = re.sub(r"(?<![.:!?\s])\s*\n\s*(?=\u27e6)", " ", text)
    text = re.sub(r"(?<=\u27e7)\s*\n\s*(?=[a-z])", " ", text)
    text = _ABBREVIATION.sub(lambda m: m.group(0)[:-1] + _DOT, text)  # "No. 7" ends no sentence
    text = keep_code_semicolons(text)  # "run a = 6; b = 7; print(a * b)": one piece of code
    pieces = [p.replace(_DOT, ".").replace(CODE_SEMICOLON, ";") for p in described.split(_SPLIT, text) if p]
    clauses = _merge_short([c for c in (_clean(p) for p in pieces) if c])
    clauses = described.join_code_parts(
        _with_topic(join_bindings(attach_blocks(clauses, blocks), blocks)), blocks
    )
    return text, described.code_first(clauses, blocks), blocks


def codeish(clause: str) -> bool:
    """Whether ``clause`` holds or asks for code (a block, inline code, "in Python")."""
    return bool(MARK_RE.search(clause) or INLINE_CODE.search(clause) or WANTS_CODE.search(clause))


def meta_only(clauses: list[str]) -> bool:
    """Whether ``clauses`` only say how to work out the question before them."""
    parts = [p for c in clauses for p in re.split(r"\s+and\s+", c) if p.strip()]
    return all(_META.match(p.strip()) or format_only(p) or REPORT_ONLY.match(p.strip()) for p in parts)


def asked_after_statements(clauses: list[str]) -> str | None:
    """Statements that set the scene, then one question: the whole as one question (None otherwise)."""
    if len(clauses) < 2 or any(codeish(c) for c in clauses):
        return None
    *scene, question = clauses
    if not (QUESTION_START.match(question) or question.rstrip().endswith("?")):
        return None
    if any(request_act(c) != "other" or c.rstrip().endswith("?") for c in scene):
        return None
    return " ".join([*scene, question])


def _with_topic(clauses: list[str]) -> list[str]:
    """A clause that only says where to look ("From Tallowmere's INC-2024-017 timeline") is the topic of
    the next clause: ``"<context>: <next clause>"``."""
    out: list[str] = []
    carry = ""
    for clause in clauses:
        words = clause.split()
        verbless = request_act(clause) == "other" and not QUESTION_START.match(clause) and len(words) <= 12
        if _CONTEXT.match(clause) and verbless and "\u27e6" not in clause:
            carry = f"{carry} {clause}".strip()
            continue
        out.append(f"{clause.rstrip(' .?')} ({carry})" if carry else clause)
        carry = ""
    if carry:
        out.append(carry)
    return out


def _merge_short(clauses: list[str]) -> list[str]:
    """A piece of one or two words without a number ("in Python", "and") joins the next piece."""
    out: list[str] = []
    carry = ""
    for clause in clauses:
        starts_with_verb = clause.split()[0].lower() in ACTION
        bare_verb = len(clause.split()) == 1 and starts_with_verb  # "write [and run ...]"
        if bare_verb or (
            len(clause.split()) <= 2
            and not re.search(r"\d|\u27e6|\(", clause)
            and not starts_with_verb
            and not format_only(clause)  # "One decimal.": how the previous result is shown
            and not re.search(
                r"['\"\u2018\u201c]\S.*['\"\u2019\u201d]", clause
            )  # "Uppercase 'abc'": a request
        ):
            carry += clause + (" and " if bare_verb else " ")
            continue
        out.append(carry + clause)
        carry = ""
    if carry.strip():
        if out:
            out[-1] += " " + carry.strip()
        else:
            out.append(carry.strip())
    return out


def _clean(part: str) -> str:
    part = _LEAD.sub("", part.strip()).strip(" ,;:")
    return part if len(part) >= 2 else ""


__all__ = [
    "ACTION",
    "INLINE_CODE",
    "REPORT_ONLY",
    "WANTS_CODE",
    "asked_after_statements",
    "codeish",
    "meta_only",
    "request_clauses",
]
