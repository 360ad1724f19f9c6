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


def _fence_plain(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        colon = line.rfind(":")
        tail = line[colon + 1 :] if colon != -1 else ""
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


__all__ = ["fence_code", "looks_like_code", "parses"]
