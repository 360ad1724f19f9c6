"""Finding code in a request that is not fenced (pure).

People paste code after a colon without a fence ("Run:\\nimport statistics\\nprint(...)\\nthen add 35 % to
whatever it prints"). :func:`fence_code` finds such code by what it is, not by wording: a run of lines,
right after a line that ends with a colon (or after the colon of the same line), or two lines or more on
their own, that parses as Python as a whole and whose every line looks like code (a call, an assignment, a
keyword statement or an indented continuation). English sentences do not parse, so the run ends at the
first line of prose. The runs found
are wrapped in a fence, so the planner handles them like any fenced block.
"""

from __future__ import annotations

import ast
import re
import textwrap

_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_KEYWORD = re.compile(r"^(?:import|from|for|while|if|elif|else|def|class|return|with|try|except|print)\b")
_CODE_LINE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*\s*\(|^[A-Za-z_][\w\[\]., ]*\s*[-+*/%]?=(?!=)|^\s*[\])}]")
MAX_CODE_LINES = 60


def looks_like_code(line: str) -> bool:
    """A line a person writes as code: a keyword statement, a call, an assignment, a closing bracket."""
    s = line.strip()
    if not s or s.endswith((".", "?", "!")) and not s.endswith(")"):
        return False
    return bool(_KEYWORD.match(s) or _CODE_LINE.search(s))


def parses(code: str) -> bool:
    try:
        ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


def _code_run(lines: list[str], start: int) -> int:
    """The end (exclusive) of the longest run of code lines from ``start`` that parses (``start``: none)."""
    best = start
    for end in range(start + 1, min(len(lines), start + MAX_CODE_LINES) + 1):
        line = lines[end - 1]
        if not (line[:1].isspace() and line.strip()) and not looks_like_code(line):
            break
        if parses("\n".join(lines[start:end])):
            best = end
    return best


_TICKED = re.compile(r"(?<!`)`([^`\n]{3,400})`(?!`)")


def _fence_ticked(text: str) -> str:
    """Inline code in backticks that is code (a call or an assignment that parses): a fenced block."""

    def fence(m: re.Match[str]) -> str:
        code = m.group(1).strip()
        return f"\n```python\n{code}\n```\n" if looks_like_code(code) and parses(code) else m.group(0)

    return _TICKED.sub(fence, text)


def fence_code(text: str) -> str:
    """``text`` with every unfenced run of code after a colon put in a fence (fenced code stays as it is)."""
    text = _fence_ticked(text)
    out: list[str] = []
    last = 0
    for m in _FENCED.finditer(text):
        out.append(_fence_plain(text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_fence_plain(text[last:]))
    return "".join(out)


_PROSE_CUT = re.compile(r"[.;]?\s+(?=(?:then|and then|after that|next)\b)|\.\s+(?=[A-Z])", re.I)


def _code_head(tail: str) -> tuple[str, str]:
    """Code that opens the rest of a line and prose after it ("a = 6; b = 7; print(a * b). Then double
    the result."): (code, prose); ("", "") when the line's rest does not start with code or is all code."""
    stripped = tail.strip()
    cuts = [m.start() for m in _PROSE_CUT.finditer(stripped)]
    for cut in reversed(cuts):
        head, rest = stripped[:cut].strip(), stripped[cut:].lstrip(" .;")
        if head and rest and looks_like_code(head) and parses(head) and not parses(rest):
            return head, rest
    return "", ""


CODE_SEMICOLON = (
    "\u2043"  # a ';' between two statements of code (no clause boundary); restored after splitting
)
_STATEMENT = re.compile(r"[^;.!?:\n`\u2043]+$")


def keep_code_semicolons(text: str) -> str:
    """``text`` with each ';' that joins two statements of code ("run a = 6; b = 7; print(a * b), then
    ...") replaced by :data:`CODE_SEMICOLON`, so that clause splitting never cuts the code in two."""
    parts = text.split(";")
    out = parts[0]
    for part in parts[1:]:
        left = _STATEMENT.search(out)
        right = re.match(r"[^;.!?\n`]*(?:\([^)]*\)[^;.!?\n`]*)*", part)
        lhs = left.group(0).strip() if left else ""
        lhs = re.sub(
            r"^(?:please\s+)?(?:run|execute|evaluate)\s+(?:this\s+|the\s+)?(?:code\s+)?", "", lhs, flags=re.I
        )
        rhs = right.group(0).strip() if right else ""
        rhs = re.split(r",?\s+(?:then|and then)\b", rhs)[0].strip()
        joined = looks_like_code(lhs) and looks_like_code(rhs) and parses(lhs) and parses(rhs)
        out += (CODE_SEMICOLON if joined else ";") + part
    return out


def _fence_plain(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        colon = line.rfind(":")
        tail = line[colon + 1 :] if colon != -1 else ""
        code, prose = _code_head(tail) if colon != -1 else ("", "")
        if code:  # "Run this: a = 6; b = 7; print(a * b). Then double it.": the code, then the prose
            out.append(line[: colon + 1])
            out.append("```python\n" + code + "\n```")
            out.append(prose)
            i += 1
            continue
        if colon != -1 and tail.strip() and looks_like_code(tail):  # "Run: print(2 ** 10)" on one line
            end = _code_run([tail.strip(), *lines[i + 1 :]], 0)
            if end:
                out.append(line[: colon + 1])
                out.append("```python\n" + "\n".join([tail.strip(), *lines[i + 1 : i + end]]) + "\n```")
                i += end
                continue
        if line.rstrip().endswith(":") and not parses(line) and not _KEYWORD.match(line.strip()):
            end = _code_run(lines, i + 1)
            if end > i + 1:
                code = textwrap.dedent("\n".join(lines[i + 1 : end]))
                out.append(line)
                out.append("```python\n" + code + "\n```")
                i = end
                continue
        if looks_like_code(line) and not (i and lines[i - 1].strip() and looks_like_code(lines[i - 1])):
            end = _code_run(lines, i)  # two code lines or more on their own: code, whatever comes before
            if end >= i + 2:
                out.append("```python\n" + textwrap.dedent("\n".join(lines[i:end])) + "\n```")
                i = end
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


__all__ = ["CODE_SEMICOLON", "fence_code", "keep_code_semicolons", "looks_like_code", "parses"]
