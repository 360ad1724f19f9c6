"""Forum threads written in BBCode read as the text the rest understands (pure).

A forum export keeps its markup: ``[b]...[/b]``, ``[list]`` with ``[*]`` items, ``[quote="dave"]...
[/quote]``, ``[size=4]``, ``[url=...]``. Read as plain text, a post's list runs into one sentence with its
opening line ("Brackenside Farm ... [*]Pitch: £18 per van per night [*]Extra adults £4 ..."), so every
figure of the list is one fact's, and a quoted earlier post reads as the poster's own words. Rendered here
line for line (a citation's line numbers stay the file's):

- ``[*]`` items as list items ``- ...``; ``[list]`` / ``[/list]`` lines blank;
- a quote as ``>`` lines, the first naming who wrote it (``> dave wrote: ...``): :mod:`.quoting` reads
  them as a thread's earlier message (weighed down, as a quoted e-mail is);
- every other tag dropped (``[b]``, ``[i]``, ``[size=4]``, ``[url=...]``), its text kept.

A text is BBCode when it holds at least :data:`MIN_TAGS` tags of the usual set (a single "[b]" in prose is
not).
"""

from __future__ import annotations

import re

MIN_TAGS = 4
_TAG = re.compile(
    r"\[/?(?:b|i|u|s|size|color|colour|font|url|img|center|code|list|quote|spoiler|email)(?:=[^\]\n]*)?\]|"
    r"\[\*\]",
    re.IGNORECASE,
)
_QUOTE_OPEN = re.compile(r"\[quote(?:=\"?([^\]\"]*)\"?)?\]", re.IGNORECASE)
_QUOTE_CLOSE = re.compile(r"\[/quote\]", re.IGNORECASE)
_LIST = re.compile(r"^\s*\[/?list(?:=[^\]]*)?\]\s*$", re.IGNORECASE)
_ITEM = re.compile(r"\[\*\]\s*")
_FORMATS = frozenset({".txt", ".text", ".bbcode", ".bb", ".forum", ".md", ""})


def is_bbcode(text: str) -> bool:
    """Whether ``text`` is marked up in BBCode (at least :data:`MIN_TAGS` of its usual tags)."""
    return len(_TAG.findall(text[:200_000])) >= MIN_TAGS and bool(
        re.search(r"\[/(?:b|quote|list|i)\]", text, re.I)
    )


def render_bbcode(suffix: str, text: str) -> str | None:
    """``text`` rendered (see the module docstring); None when it is no BBCode."""
    if suffix not in _FORMATS or not is_bbcode(text):
        return None
    out: list[str] = []
    depth = 0
    for line in text.splitlines():
        if _LIST.match(line):
            out.append("")
            continue
        rest = line
        while True:  # a quote opened or closed inside a line: each part a line at its own level
            opened, closed = _QUOTE_OPEN.search(rest), _QUOTE_CLOSE.search(rest)
            if opened and (closed is None or opened.start() < closed.start()):
                _emit(out, rest[: opened.start()], depth)
                who = (opened.group(1) or "").strip()
                depth += 1
                rest = (f"{who} wrote: " if who else "") + rest[opened.end() :]
            elif closed:
                _emit(out, rest[: closed.start()], depth)
                depth = max(0, depth - 1)
                rest = rest[closed.end() :]
            else:
                _emit(out, rest, depth, keep_blank=True)
                break
    return "\n".join(out)


def _emit(out: list[str], text: str, depth: int, keep_blank: bool = False) -> None:
    """One rendered line: its item mark as a list item's, its tags dropped, its quote level as ``>``."""
    item = _ITEM.match(text.strip())
    body = _TAG.sub("", _ITEM.sub("- ", text.strip(), count=1) if item else text).rstrip()
    if body.strip():
        out.append(">" * depth + " " + body.strip() if depth else body)
    elif keep_blank:
        out.append(">" * depth if depth else "")


__all__ = ["MIN_TAGS", "is_bbcode", "render_bbcode"]
