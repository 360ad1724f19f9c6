"""Cutting a document into passages along its structure (pure): headings start a passage, paragraphs
and fenced code blocks are kept whole when they fit; every passage remembers its line range and heading
trail (the citation ``path:first-last``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Passage:
    path: str  # relative to the folder, POSIX separators
    start_line: int  # 1-based, inclusive
    end_line: int
    heading: str  # "Title > Section" or ""
    text: str

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def embedding_text(self) -> str:
        words = re.sub(r"[_\-./]+", " ", self.path)
        return f"{words}. {self.heading}\n{self.text}"


# --------------------------------------------------------------------------- chunking (pure)

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(slots=True)
class _Block:
    start: int
    lines: list[str]
    heading: str
    title_only: bool = False  # just a heading line: always kept with what follows

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1

    @property
    def size(self) -> int:
        return sum(len(line) + 1 for line in self.lines)


def chunk_document(path: str, text: str, chunk_chars: int) -> list[Passage]:
    """Cut one document into passages of about ``chunk_chars`` characters, keeping line ranges."""
    passages: list[Passage] = []
    current: list[_Block] = []
    source = text.splitlines()

    def flush() -> None:
        if current:
            # the exact source lines (blank lines between blocks included), so citations are exact
            body = "\n".join(source[current[0].start - 1 : current[-1].end]).strip()
            body = body[: chunk_chars * 4]
            if body:
                passages.append(Passage(path, current[0].start, current[-1].end, current[0].heading, body))
            current.clear()

    for block in _blocks(source, chunk_chars):
        if block.lines and block.lines[0] == "\0heading":
            flush()
            continue
        titles_only = all(b.title_only for b in current)
        if (
            current
            and not titles_only
            and (
                block.heading != current[0].heading or sum(b.size for b in current) + block.size > chunk_chars
            )
        ):
            flush()
        current.append(block)
    flush()
    return passages


def _blocks(lines: Sequence[str], chunk_chars: int) -> list[_Block]:
    """Paragraphs, fenced code blocks and heading markers; over-long blocks split by lines."""
    out: list[_Block] = []
    trail: list[tuple[int, str]] = []
    para: list[str] = []
    start = 1
    in_fence = False
    title_only = False

    def heading_text() -> str:
        return " > ".join(title for _, title in trail)

    def end_para(next_start: int) -> None:
        nonlocal para, start, title_only
        if any(line.strip() for line in para):
            out.extend(_split(_Block(start, para, heading_text(), title_only), chunk_chars))
        para, start, title_only = [], next_start, False

    i = 0
    while i < len(lines):
        line, number = lines[i], i + 1
        if _FENCE.match(line):
            if not in_fence:
                end_para(number)
            in_fence = not in_fence
            para.append(line)
            title_only = False
            i += 1
            continue
        level_title = None if in_fence else _heading(lines, i)
        if level_title is not None:
            end_para(number)
            level, title = level_title
            trail[:] = [(lv, t) for lv, t in trail if lv < level] + [(level, title)]
            out.append(_Block(number, ["\0heading"], heading_text()))
            skip = 2 if level_title[0] >= 10 else 1  # rst headings use two lines
            para, start = [line] + ([lines[i + 1]] if skip == 2 else []), number
            title_only = True
            i += skip
            continue
        if not line.strip() and not in_fence:
            end_para(number + 1)
            i += 1
            continue
        if not para:
            start = number
        para.append(line)
        title_only = False
        i += 1
    end_para(len(lines) + 1)
    return out


def _heading(lines: Sequence[str], i: int) -> tuple[int, str] | None:
    """(level, title) when line i starts a heading: markdown '#' levels 1-6, rst levels 10+."""
    m = _MD_HEADING.match(lines[i])
    if m:
        return len(m.group(1)), m.group(2)
    title = lines[i].strip()
    if (
        title
        and i + 1 < len(lines)
        and _RST_UNDERLINE.match(lines[i + 1])
        and len(lines[i + 1].strip()) >= len(title)
        and not _RST_UNDERLINE.match(lines[i])
    ):
        return 10 + "=-~^\"'`#*+".index(lines[i + 1].strip()[0]), title
    return None


def _split(block: _Block, chunk_chars: int) -> list[_Block]:
    if block.size <= chunk_chars:
        return [block]
    pieces: list[_Block] = []
    lines: list[str] = []
    start = block.start
    for offset, line in enumerate(block.lines):
        if lines and sum(len(x) + 1 for x in lines) + len(line) > chunk_chars:
            pieces.append(_Block(start, lines, block.heading))
            lines, start = [], block.start + offset
        lines.append(line)
    if lines:
        pieces.append(_Block(start, lines, block.heading))
    return pieces


MAX_BLOCK_LINES = 60
MAX_CAPTION_CHARS = 90


def whole_blocks(lines: Sequence[str], p: Passage) -> tuple[int, str]:
    """A passage widened to the blocks it cuts (a table or paragraph split over two passages is read
    whole, its header with its rows): (first line, text)."""
    start, end = p.start_line, p.end_line  # 1-based, inclusive
    while start > 1 and p.start_line - start < MAX_BLOCK_LINES and lines[start - 2].strip():
        start -= 1
    while end < len(lines) and end - p.end_line < MAX_BLOCK_LINES and lines[end].strip():
        end += 1
    if (start, end) == (p.start_line, p.end_line):
        return p.start_line, p.text
    return start, "\n".join(lines[start - 1 : end])


def is_caption(line: str) -> bool:
    """A plain-text section caption: a short line flush left, in capitals (a parenthesis after them may
    be in any case: "GREEN COFFEE (60 kg bags unless noted)"), no sentence, no row of a table."""
    s = line.strip()
    if not s or line[:1].isspace() or len(s) > MAX_CAPTION_CHARS or s[-1] in ".,;":
        return False
    if re.search(r"\S\s{2,}\S", s) or (s.startswith("|") and s.count("|") >= 3):  # cells of a table row
        return False
    letters = [c for c in re.sub(r"\([^)]*\)", "", s) if c.isalpha()]
    return len(letters) >= 4 and all(c.isupper() for c in letters)


def with_caption(heading: str, lines: Sequence[str], start: int) -> str:
    """``heading`` with the plain-text caption right above line ``start`` (1-based; one blank line may
    separate them), which the passage itself does not hold: what the block under it is about."""
    at = start - 2
    if at >= 0 and not lines[at].strip():
        at -= 1
    if at < 0 or not is_caption(lines[at]):
        return heading
    caption = lines[at].strip()
    return f"{heading} > {caption}" if heading else caption


def section_openers(
    hits: Sequence[tuple[float, Passage]], passages_of: Mapping[str, Sequence[Passage]]
) -> list[tuple[float, Passage]]:
    """For each passage found, the first passage of its section (same file, same heading trail), with
    the found passage's score, when it is not among the hits: "how is X done" is answered where the
    section about X opens, not by a sentence from its middle."""
    seen = {(p.path, p.start_line) for _, p in hits}
    out: list[tuple[float, Passage]] = []
    for score, p in hits:
        same = [q for q in passages_of.get(p.path, ()) if q.heading == p.heading and p.heading]
        first = min(same, key=lambda q: q.start_line, default=None)
        if first is not None and (first.path, first.start_line) not in seen:
            seen.add((first.path, first.start_line))
            out.append((score, first))
    return out


__all__ = ["Passage", "chunk_document", "is_caption", "section_openers", "whole_blocks", "with_caption"]
