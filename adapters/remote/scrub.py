"""Text from a remote agent or server, made safe to put into a task result or an error message.

Servers and proxies echo request headers, URLs with credentials and tokens in error bodies; a task result is
signed and sent to every member of a chat. :func:`scrub` removes the secrets we know (header values, API
keys), URL user-info and ``Authorization``/``api_key``-style assignments, drops control characters, and cuts
the text to a length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"
#: Secrets shorter than this are not searched for (replacing "1" everywhere would wreck the text).
MIN_SECRET_CHARS = 6

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")
_ASSIGNMENT = re.compile(
    r"(?i)\b(authorization|proxy-authorization|api[-_]?key|x-api-key|access[-_]?token|token|secret|password|"
    r"cookie|set-cookie)(\"?\s*[:=]\s*\"?)(bearer\s+|basic\s+)?[^\s\",;]+"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def scrub(text: str, secrets: Iterable[str] = (), *, limit: int = 2000) -> str:
    """``text`` without known secrets, URL credentials, credential assignments and control characters,
    cut to ``limit`` characters (with a marker when cut). For error messages and server diagnostics."""
    text = hide_secrets(text, secrets)
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    text = _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _CONTROL.sub("", text)
    if len(text) > limit:
        text = text[: max(0, limit - 16)] + " ... [truncated]"
    return text


def hide_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each known secret replaced, nothing else changed (for an agent's actual answer,
    which may legitimately contain code such as ``password = input()``)."""
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def strip_userinfo(url: str) -> str:
    """``url`` without ``user:password@`` (for messages and logs)."""
    return _USERINFO.sub(lambda m: m.group(1), url)


__all__ = ["REDACTED", "hide_secrets", "scrub", "strip_userinfo"]
