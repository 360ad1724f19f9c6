"""What we know of an agent, for matching: :class:`CardProfile` (pure).

A profile holds the free text of a card (name, description) and its optional structured capability fields
(skills, task types, languages, input/output media types, tools). Networks of today's cards carry only
name and description (plus skills and task types); every matcher works from those alone and uses the
structured fields when a card has them:

- :meth:`CardProfile.dense_text` is what the sentence encoders embed: the description (the name stands in
  when there is none; names like ``py-plotter`` add noise to a sentence embedding), then one short
  sentence per structured field ("Skills: ocr, pdf.").
- :meth:`CardProfile.lexical_fields` is what the lexical index sees, field by field: the name split into
  words, the description, and each structured field (language codes as names, media types as words), so
  a goal that says "Japanese" or "PDF" matches a card listing ``ja`` or ``application/pdf`` explicitly.

Profiles are built from a card's fields by the caller (discovery), so this module does not depend on the
card wire type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.errors import UsageError

from .text import language_names, media_words

#: Longest text a profile keeps per field (characters); longer input is cut, never rejected.
MAX_FIELD_CHARS = 4096
MAX_ITEMS = 32

_FIELD_LABELS = (
    ("skills", "Skills"),
    ("task_types", "Tasks"),
    ("languages", "Languages"),
    ("input_types", "Input"),
    ("output_types", "Output"),
    ("tools", "Tools"),
)


def _items(values: Iterable[str] | str) -> tuple[str, ...]:
    if isinstance(values, str):
        values = [values]
    out = []
    for value in values:
        if not isinstance(value, str):
            raise UsageError(f"profile fields hold text, got {type(value).__name__}")
        text = value.strip()[:MAX_FIELD_CHARS]
        if text:
            out.append(text)
    return tuple(dict.fromkeys(out))[:MAX_ITEMS]


@dataclass(frozen=True, slots=True)
class CardProfile:
    """An agent as matching sees it. Build with :meth:`make` to get cleaned fields."""

    name: str
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    input_types: tuple[str, ...] = ()
    output_types: tuple[str, ...] = ()
    tools: tuple[str, ...] = field(default=())

    @classmethod
    def make(cls, name: str, description: str = "", **fields: Iterable[str] | str) -> CardProfile:
        """A profile with stripped, length-bounded, de-duplicated fields.

        Unknown keyword arguments raise :class:`~ioa_p2p.errors.UsageError` (a misspelt field would
        otherwise be silently ignored).
        """
        known = {name for name, _ in _FIELD_LABELS}
        unknown = sorted(set(fields) - known)
        if unknown:
            raise UsageError(f"unknown profile fields {unknown}; known: {sorted(known)}")
        if not isinstance(name, str) or not isinstance(description, str):
            raise UsageError("a profile's name and description are text")
        cleaned: dict[str, Any] = {key: _items(value) for key, value in fields.items()}
        return cls(name.strip()[:MAX_FIELD_CHARS], description.strip()[:MAX_FIELD_CHARS], **cleaned)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> CardProfile:
        """From a JSON-like mapping (a card summary or a data-set row); unknown keys are ignored."""
        known = {name for name, _ in _FIELD_LABELS}
        fields = {k: v for k, v in data.items() if k in known and v}
        return cls.make(str(data.get("name", "")), str(data.get("description", "") or ""), **fields)

    @property
    def structured(self) -> bool:
        """True when the card carries any structured capability field."""
        return any(getattr(self, key) for key, _ in _FIELD_LABELS)

    def dense_text(self) -> str:
        """The text sentence encoders embed for this card (deterministic)."""
        parts = [self.description or name_words(self.name)]
        for key, label in _FIELD_LABELS:
            values: tuple[str, ...] = getattr(self, key)
            if key == "languages":
                values = tuple(language_names(values))
            elif key in ("input_types", "output_types"):
                values = tuple(media_words(values))
            if values:
                parts.append(f"{label}: {', '.join(values)}.")
        return " ".join(parts)

    def lexical_fields(self) -> dict[str, str]:
        """Field name -> text, for the lexical index (empty fields left out)."""
        out = {"name": name_words(self.name), "description": self.description}
        out["skills"] = " ; ".join(self.skills + self.task_types)
        out["languages"] = " ; ".join(language_names(self.languages))
        out["media"] = " ; ".join(media_words(self.input_types + self.output_types))
        out["tools"] = " ; ".join(self.tools)
        return {k: v for k, v in out.items() if v.strip()}


def name_words(name: str) -> str:
    """An agent name as words: ``py-plotter`` -> ``py plotter``, ``CryptoTicker`` -> ``Crypto Ticker``."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return re.sub(r"[-_./:]+", " ", spaced).strip()


__all__ = ["MAX_FIELD_CHARS", "MAX_ITEMS", "CardProfile", "name_words"]
