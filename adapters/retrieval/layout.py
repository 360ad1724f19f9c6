"""Posters, flyers and notices laid out with spaces (an OCR'd scan, a text-art notice) read as captioned
lines, line for line (pure).

A flyer's text is centred and set in side-by-side columns::

       * BARBECUE *                 PIMM'S TENT
       burgers £5.50                glass £6
       veggie burger £5             jug (4 glasses) £20

Read as it is, every line is indented (markdown's code block), a line mixes two columns ("burgers £5.50
glass £6") and a price sits lines away from the caption that says what it is for. Such text is recognised
by content (most lines indented and centred, many with wide gaps inside, no pipes) and each paragraph
(a run of lines between blank ones) is rewritten:

- when at least two of its lines hold the same number of pieces (runs of text apart by three or more spaces),
  those pieces are its **columns** (a one-piece line goes to the column whose pieces it is centred
  nearest); each column becomes one line, ``CAPTION: piece; piece`` when its first piece is a caption
  (no lowercase word of three letters or more: ``DOG SHOW 2pm``, ``PIMM'S TENT``), its pieces joined
  with ``; `` (a piece that continues an open bracket or a trailing comma with a space); blank lines
  fill the rest of the paragraph so later lines keep their numbers;
- any other line is stripped of its indent and ornaments (``* ~ !!``) and its gaps become ``; ``;
- a time of day written informally (``2pm``, ``4.30pm``) a clock time (``2:00 pm``);
- every line is then a fact of its own, a list item (a flyer's lines are no sentences; read as one
  paragraph they would run together), its capitals in case when it holds a value (``Family Ticket ...
  £10`` is no section caption); a caption alone (``ENTRY``) stays as it is.
"""

from __future__ import annotations

import re
from collections import Counter

#: the suffixes whose text is tested for a laid-out notice
LAYOUT_FORMATS = frozenset({".txt", ".text", ""})
GAP = 3  # spaces that part two pieces of a line
_PIECE = re.compile(r"\S+(?: {1,2}\S+)*")
_ORNAMENT = re.compile(r"^(?:[*~!#=+•·-]+\s*)+|(?:\s*[*~!#=+•·-]+)+$")
_LOWER_WORD = re.compile(r"\b[a-z]{3,}\b")


def render_layout(suffix: str, text: str) -> str | None:
    """``text`` rewritten as captioned lines when it is a laid-out notice; None otherwise."""
    if suffix not in LAYOUT_FORMATS:
        return None
    lines = text.splitlines()
    if not looks_laid_out(lines):
        return None
    out: list[str] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            block.append(line)
            continue
        out.extend(_item(line) for line in _block(block))
        block = []
        out.append(line)
    return "\n".join(out[: len(lines)])


def looks_laid_out(lines: list[str]) -> bool:
    """Most non-blank lines indented, centred (their indents vary: five or more, one for every three lines),
    at least five (and a quarter) with a wide gap inside, no pipes or tabs of a table."""
    filled = [line for line in lines if line.strip()]
    if len(filled) < 8 or any("|" in line or "\t" in line for line in filled):
        return False
    indented = sum(1 for line in filled if line.startswith("   "))
    gapped = sum(1 for line in filled if len(_pieces(line)) >= 2)
    indents = {len(line) - len(line.lstrip(" ")) for line in filled}
    centred = len(indents) >= max(5, 0.3 * len(filled))  # a report or an aligned table keeps a few margins
    return centred and 2 * indented >= len(filled) and gapped >= 5 and 4 * gapped >= len(filled)


def _pieces(line: str) -> list[tuple[int, str]]:
    """The runs of text of a line apart by :data:`GAP` spaces or more, with their start columns."""
    return [(m.start(), m.group(0)) for m in _PIECE.finditer(line)]


def _block(block: list[str]) -> list[str]:
    if not block:
        return []
    pieced = [_pieces(line) for line in block]
    counts = Counter(len(p) for p in pieced if len(p) >= 2)
    width = max(counts, key=lambda k: (counts[k], k)) if counts else 0
    if width < 2 or counts[width] < 2 or any(len(p) not in (1, width) for p in pieced):
        return [_plain(p) for p in pieced]
    columns: list[list[tuple[int, str]]] = [[] for _ in range(width)]
    for pieces in pieced:
        if len(pieces) == width:
            for k, piece in enumerate(pieces):
                columns[k].append(piece)
    centres = [sum(_centre(p) for p in col) / len(col) for col in columns]
    columns = [[] for _ in range(width)]
    for pieces in pieced:  # again in reading order, the one-piece lines placed by their centre
        if len(pieces) == width:
            for k, piece in enumerate(pieces):
                columns[k].append(piece)
        else:
            k = min(range(width), key=lambda c: abs(centres[c] - _centre(pieces[0])))
            columns[k].append(pieces[0])
    joined = [_column([_clean(text) for _, text in col]) for col in columns]
    return (joined + [""] * len(block))[: len(block)]


def _item(line: str) -> str:
    """A rendered line as a fact of its own: a list item (a flyer's lines are no sentences: read as one
    paragraph they would run together); a caption alone (``ENTRY``) as it is."""
    if not line:
        return line
    if not re.search(r"[\d£$€]", line):
        return line if not re.search(r"[a-z]", line) else "- " + line
    # a priced line in capitals ("FAMILY TICKET (2 ad + 3 ch) £10") is no section caption: words in case
    return "- " + re.sub(r"\b[A-Z][A-Z']{2,}\b", lambda m: m.group(0).capitalize(), line)


def _centre(piece: tuple[int, str]) -> float:
    return piece[0] + len(piece[1]) / 2


def _clean(text: str) -> str:
    return clock_times(re.sub(r"\s{2,}", " ", _ORNAMENT.sub("", text)).strip())


_INFORMAL_TIME = re.compile(r"(?<![\d.:£$€])\b(1[0-2]|0?[1-9])(?:[.:]([0-5]\d))?\s?([ap])\.?m\b\.?", re.I)


def clock_times(text: str) -> str:
    """Times of day written informally ("2pm", "4.30pm", "11 a.m.") as clock times ("2:00 pm", "4:30 pm",
    "11:00 am"), the form a "what time" question is answered in."""
    return _INFORMAL_TIME.sub(lambda m: f"{m.group(1)}:{m.group(2) or '00'} {m.group(3).lower()}m", text)


def _column(texts: list[str]) -> str:
    texts = [t for t in texts if t]
    if not texts:
        return ""
    if len(texts) > 1 and not _LOWER_WORD.search(texts[0]):
        return f"{texts[0]}: {_joined(texts[1:])}"
    return _joined(texts)


def _joined(texts: list[str]) -> str:
    out = texts[0]
    for text in texts[1:]:
        open_bracket = out.count("(") > out.count(")")
        out += " " + text if open_bracket or out.endswith((",", "-", "–")) else "; " + text
    return out


def _plain(pieces: list[tuple[int, str]]) -> str:
    return "; ".join(t for t in (_clean(text) for _, text in pieces) if t)
