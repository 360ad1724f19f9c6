"""Fixed-width reports: tables whose columns a rule line of dash runs marks, read as pipe tables (pure).

Billing runs, meter reports, bank statements and other printouts of older systems lay a table out in
fixed-width columns and mark each column by a run of dashes under its header::

    ACCT   HOLDER              USE M3  BAND     TOTAL
    ------ ------------------- ------ ----- --------
    100214 ALDRIDGE, M             57  DOM    116.54

The space-aligned reader cuts rows at the header's word starts, which fails when a header is two words
("USE M3"), a value is wider than its header or a report's title block sits above. The rule line says
exactly where each column is, so here each such table is rewritten as a pipe table line for line (the
header row, ``|---|`` for the rule line, a row per line), every other line unchanged, so citations keep
the file's line numbers. A row's words go to the column their characters overlap most (a name that runs
two characters into the next column stays in its own); the table ends at a blank line, a full-width rule
(a single run of dashes or ``=``) or a line whose words no column holds.
"""

from __future__ import annotations

import re

#: the suffixes whose text may carry such reports (markdown and RST have their own table syntax)
RULED_FORMATS = frozenset({".txt", ".text", ".rpt", ".prn", ".lst", ".out", ".log", ""})
MAX_COLUMNS = 40
_RUN = re.compile(r"-{2,}")
_RULE = re.compile(r"^\s*-{2,}(?:\s+-{2,})+\s*$")
_ANY_RULE = re.compile(r"^[ \t]*-{2,}(?:[ \t]+-{2,})+[ \t]*\r?$", re.M)
_FULL_RULE = re.compile(r"^\s*([-=_*])\1{9,}\s*$")
_WORD = re.compile(r"\S+")


def render_ruled(suffix: str, text: str) -> str | None:
    """``text`` with its ruled fixed-width tables as pipe tables; None when it has none (or the suffix is
    one this module does not read)."""
    if suffix not in RULED_FORMATS or not _ANY_RULE.search(text[:500_000]):
        return None
    lines = text.splitlines()
    out = list(lines)
    changed = False
    for i, line in enumerate(lines):
        if i == 0 or not _RULE.match(line) or not lines[i - 1].strip() or _RULE.match(lines[i - 1]):
            continue
        spans = [(m.start(), m.end()) for m in _RUN.finditer(line)][:MAX_COLUMNS]
        header = _cells(lines[i - 1], spans)
        if header is None or sum(1 for h in header if h) < 2:
            continue
        out[i - 1] = _pipe(header)
        out[i] = "|" + "---|" * len(spans)
        for j in range(i + 1, len(lines)):
            row = lines[j]
            if not row.strip() or _FULL_RULE.match(row) or _RULE.match(row):
                break
            cells = _cells(row, spans)
            if cells is None:
                break
            out[j] = _pipe(cells)
        changed = True
    return "\n".join(out) + ("\n" if text.endswith("\n") else "") if changed else None


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str] | None:
    """The line's words put in the columns they overlap most; None when a word lies beyond every column."""
    columns: list[list[str]] = [[] for _ in spans]
    for m in _WORD.finditer(line.rstrip()):
        best, overlap = -1, 0
        for n, (start, end) in enumerate(spans):
            shared = min(end, m.end()) - max(start, m.start())
            if shared > overlap:
                best, overlap = n, shared
        if best < 0:  # in a gap between columns: the nearest one
            best = min(
                range(len(spans)), key=lambda n: min(abs(spans[n][0] - m.end()), abs(spans[n][1] - m.start()))
            )
            if min(abs(spans[best][0] - m.end()), abs(spans[best][1] - m.start())) > 3:
                return None
        columns[best].append(m.group())
    return [" ".join(words).replace("|", "/") for words in columns]


def _pipe(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"
