"""What may be said about a model failure, and how big a prompt is (pure).

A model server's answers are not ours to repeat: error bodies can echo request headers (an ``Authorization``
header through a proxy), and a ``base_url`` can carry ``user:password@``. So what reaches the terminal,
the logs and the signed chat history about a failed model call is only its **kind**
(:data:`FAILURE_KINDS`, :func:`failure_kind`) and, in error messages, the server's address without
userinfo, query or fragment (:func:`redact_url`).

:func:`estimate_tokens` is the prompt budget's measure: a deliberately pessimistic 3 characters per token
(English averages about 4 with the usual tokenizers), plus a few tokens per message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ioa_p2p.errors import (
    ConfigError,
    IoATimeout,
    ModelError,
    ModelOutputError,
    ModelRateLimited,
    PeerUnreachable,
)

#: Every kind of model failure a fallback may be marked with (docs/conversation.md, "Brains").
#: ``no_progress``: the model answered, but its turn did not advance the plan (the LLM brain's floor).
FAILURE_KINDS = (
    "timeout",
    "rate_limited",
    "server_error",
    "unreachable",
    "bad_output",
    "refused",
    "no_progress",
)
CHARS_PER_TOKEN = 3
TOKENS_PER_MESSAGE = 8


def failure_kind(exc: BaseException) -> str:
    """The :data:`FAILURE_KINDS` entry for an exception raised by a model call."""
    if isinstance(exc, ModelRateLimited):
        return "rate_limited"
    if isinstance(exc, ModelOutputError):
        return "bad_output"
    if isinstance(exc, TimeoutError):  # IoATimeout included
        return "timeout"
    if isinstance(exc, PeerUnreachable):
        return "unreachable"
    if isinstance(exc, ConfigError):
        return "refused"
    if isinstance(exc, ModelError | IoATimeout):
        return "server_error"
    return "bad_output"


def redact_url(url: str) -> str:
    """``url`` without userinfo, query and fragment (``http://u:p@h:1/v1?k=s`` -> ``http://h:1/v1``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(an unparsable URL)"
    if ":" in host:
        host = f"[{host}]"
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def url_userinfo(url: str) -> tuple[str, str] | None:
    """The ``(user, password)`` of a URL's userinfo, or None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.username is None and parts.password is None:
        return None
    return parts.username or "", parts.password or ""


def estimate_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """A pessimistic token count of chat messages (see the module docstring)."""
    total = 0
    for m in messages:
        total += TOKENS_PER_MESSAGE + len(str(m.get("content") or "")) // CHARS_PER_TOKEN
        for call in m.get("tool_calls") or ():
            total += len(str(call)) // CHARS_PER_TOKEN
    return total


def text_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


__all__ = [
    "FAILURE_KINDS",
    "estimate_tokens",
    "failure_kind",
    "redact_url",
    "text_tokens",
    "url_userinfo",
]
