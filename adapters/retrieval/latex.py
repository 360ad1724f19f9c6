"""LaTeX documents read as the markdown-like text the retrieval understands, line for line (pure).

Fee sheets, handbooks and reports are often kept as LaTeX sources. The commands hide the words a question
meets (``\\section*{Powerboat}``, ``\\pounds 265``, ``1--2``) and a ``tabular`` is not a table to the
passage reader, so a LaTeX source is rendered here, keeping the file's line numbers for citations:

- ``\\title{...}`` a ``#`` heading (``\\\\`` inside it a dash), ``\\author`` / ``\\date`` as ``Author:`` /
  ``Date:`` lines; ``\\section`` / ``\\subsection`` / ``\\subsubsection`` (starred or not) ``##`` to
  ``####`` headings, ``\\paragraph{X}`` a line ``X:``.
- ``tabular`` (and ``tabularx``, ``longtable``, ``array``): rows split on ``&`` and ended by ``\\\\``
  (a row over several lines joined), the first row the header, as a pipe table; ``\\hline``,
  ``\\toprule``, ``\\midrule``, ``\\cline`` rules dropped, ``\\multicolumn{n}{spec}{text}`` its text.
- ``itemize`` / ``enumerate`` / ``description``: ``\\item`` a list item (``1.``, ``2.`` in an enumerate;
  ``\\item[term]`` ``term:``), continuation lines joined to their item's paragraph as they are.
- Comments (``%`` to the end of a line, not ``\\%``) dropped: what the author left out of the printed
  document is not in the document.
- Inline: ``\\textbf{x}``, ``\\emph{x}`` and other one-argument text commands their argument;
  ``\\pounds``, ``\\euro``, ``\\$``, ``\\%``, ``\\&`` their signs; ``--`` / ``---`` a dash, ``~`` a space,
  quotes straightened; the preamble (``\\documentclass``, ``\\usepackage``) and other commands dropped.

A ``.tex`` / ``.latex`` / ``.ltx`` file is read so; a plain-text file whose content is LaTeX (a
``\\documentclass`` or ``\\begin{document}``, or several ``\\section`` / ``\\begin{...}`` commands) too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.adapters.retrieval.markup import pipe_table

LATEX_FORMATS = frozenset({".tex", ".latex", ".ltx"})
#: plain-text suffixes whose content is tested for LaTeX
SNIFFED = frozenset({".txt", ".text", ""})
TABLES = ("tabular", "tabular*", "tabularx", "longtable", "array", "tabulary")
LISTS = ("itemize", "enumerate", "description")
_HEADINGS = {"title": 1, "part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4}

_COMMENT = re.compile(r"(?<!\\)%.*$")
_BEGIN = re.compile(r"\\begin\{([a-zA-Z*]+)\}")
_END = re.compile(r"\\end\{([a-zA-Z*]+)\}")
_HEADING = re.compile(r"^\s*\\(title|part|chapter|section|subsection|subsubsection)\*?\s*(?:\[[^\]]*\])?\{")
_META = re.compile(r"^\s*\\(author|date)\s*\{")
_PARAGRAPH = re.compile(r"^\s*\\(?:sub)?paragraph\*?\s*\{")
_ITEM = re.compile(r"^\s*\\item\b\s*(?:\[(?P<term>[^\]]*)\])?\s*")
_RULES = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|cline\{[^}]*\}|cmidrule(?:\([^)]*\))?\{[^}]*\})")
_SIGNS = {
    "pounds": "£",
    "euro": "€",
    "texteuro": "€",
    "textsterling": "£",
    "textdollar": "$",
    "yen": "¥",
    "textdegree": "°",
    "ldots": "...",
    "dots": "...",
    "times": "×",
    "pm": "±",
    "textendash": "-",
    "textemdash": "—",
    "S": "§",
    "copyright": "©",
}
_ESCAPED = re.compile(r"\\([%$&#_{}])")
_SIGN = re.compile(r"\\(" + "|".join(sorted(_SIGNS, key=len, reverse=True)) + r")(?![a-zA-Z])(?:\{\})?\s*")
_ONE_ARG = re.compile(r"\\[a-zA-Z]+\*?\s*(?:\[[^\]]*\])?\{([^{}]*)\}")
_MULTICOLUMN = re.compile(r"\\multi(?:column|row)\{[^}]*\}\{[^}]*\}\{([^{}]*)\}")
_HREF = re.compile(r"\\href\{[^}]*\}\{([^{}]*)\}")
_BARE = re.compile(r"\\[a-zA-Z]+\*?")
_SPACING = re.compile(r"\\[,;:! ]")
_PREAMBLE = re.compile(
    r"^\s*\\(?:documentclass|usepackage|newcommand|renewcommand|providecommand|setlength|geometry|pagestyle"
    r"|thispagestyle|maketitle|tableofcontents|label|centering|noindent|newpage|clearpage|vspace|hspace)\b"
)
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{[a-zA-Z*]+\}(?:\[[^\]]*\])?")
_SNIFF = re.compile(r"\\documentclass|\\begin\{document\}")
_COMMANDS = re.compile(r"^\s*\\(?:section|subsection|begin|item|textbf)\b", re.M)


def render_latex(suffix: str, text: str) -> str | None:
    """``text`` of a LaTeX source as markdown-like text, line for line; None when it is not LaTeX."""
    if suffix not in LATEX_FORMATS and not (suffix in SNIFFED and looks_like_latex(text)):
        return None
    lines = [_COMMENT.sub("", line) for line in text.splitlines()]
    return "\n".join(_render(lines))


def looks_like_latex(text: str) -> bool:
    """True when ``text`` reads as a LaTeX source: a document class or body, or several commands that
    start lines (``\\section``, ``\\begin``, ``\\item``)."""
    head = text[:200_000]
    return bool(_SNIFF.search(head)) or len(_COMMANDS.findall(head)) >= 4


def _render(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    lists: list[list[int]] = []  # open list environments: [is_enumerate, items so far]
    while i < len(lines):
        line = lines[i]
        begin = _BEGIN.search(line)
        if begin and begin.group(1) in TABLES:
            end = _table_end(lines, i)
            out.extend(_table(lines[i : end + 1]))
            i = end + 1
            continue
        if begin and begin.group(1) in LISTS:
            lists.append([int(begin.group(1) == "enumerate"), 0])
        end_match = _END.search(line)
        if end_match and end_match.group(1) in LISTS and lists:
            lists.pop()
        out.append(_line(line, lists))
        i += 1
    return out


def _line(line: str, lists: list[list[int]]) -> str:
    if _PREAMBLE.match(line):
        return ""
    line = _ENVIRONMENT.sub("", line)
    heading = _HEADING.match(line)
    if heading:
        depth = _HEADINGS[heading.group(1)]
        title = _argument(line, heading.end()).replace("\\\\", " - ")
        return "#" * depth + " " + inline(title)
    meta = _META.match(line)
    if meta:
        return (
            f"{meta.group(1).capitalize()}: {inline(_argument(line, meta.end()).replace(chr(92) * 2, ', '))}"
        )
    if _PARAGRAPH.match(line):
        start = line.index("{") + 1
        name = _argument(line, start)
        rest = line[start + len(name) + 1 :]
        return inline(name) + ": " + inline(rest)
    item = _ITEM.match(line)
    if item and lists:
        lists[-1][1] += 1
        mark = f"{lists[-1][1]}." if lists[-1][0] else "-"
        term = f"{inline(item.group('term'))}: " if item.group("term") else ""
        return f"{mark} {term}{inline(line[item.end() :])}"
    return inline(line)


def _argument(line: str, start: int) -> str:
    """The text of the brace group that opens just before ``start`` (nested braces kept)."""
    depth = 1
    for at in range(start, len(line)):
        if line[at] == "{" and line[at - 1] != "\\":
            depth += 1
        elif line[at] == "}" and line[at - 1] != "\\":
            depth -= 1
            if depth == 0:
                return line[start:at]
    return line[start:]


def inline(text: str) -> str:
    """One line of LaTeX as plain text: text commands their argument, signs their characters."""
    text = _SPACING.sub(" ", text)
    text = _SIGN.sub(lambda m: _SIGNS[m.group(1)], text)
    text = _HREF.sub(r"\1", text)
    text = _MULTICOLUMN.sub(r"\1", text)
    for _ in range(4):  # nested \textbf{\emph{x}}
        text, count = _ONE_ARG.subn(r"\1", text)
        if not count:
            break
    text = text.replace("\\\\", " ")
    text = _ESCAPED.sub(r"\1", text)
    text = _BARE.sub("", text)
    text = text.replace("---", "—").replace("--", "-").replace("``", '"').replace("''", '"')
    text = re.sub(r"(?<!\\)~", " ", text).replace("{", "").replace("}", "")
    return text.rstrip() if text.strip() else ""


def _table_end(lines: Sequence[str], i: int) -> int:
    for j in range(i, len(lines)):
        end = _END.search(lines[j])
        if end and end.group(1) in TABLES and (j > i or end.start() > lines[i].find("\\begin")):
            return j
    return len(lines) - 1


def _table(block: Sequence[str]) -> list[str]:
    """A tabular's lines as a pipe table of as many lines (blank lines fill the rest)."""
    body = " ".join(block)
    body = _BEGIN.sub("", body, count=1)
    body = re.sub(r"^\s*(?:\[[^\]]*\])?(?:\{[^{}]*\})?\s*\{(?:[^{}]|\{[^{}]*\})*\}", "", body, count=1)
    body = _END.sub("", body)
    body = _RULES.sub("", body)
    rows: list[list[str]] = []
    for raw in re.split(r"(?<!\\)\\\\(?:\[[^\]]*\])?", body):
        if not raw.strip():
            continue
        rows.append([inline(cell).strip() for cell in re.split(r"(?<!\\)&", raw)])
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    table = pipe_table(rows) if rows else []
    return table + [""] * max(0, len(block) - len(table))
