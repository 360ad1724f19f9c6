"""Saved e-mail messages (``.eml``, ``.mbox``) read as the text the retrieval understands (pure).

People keep a supplier's price change, a booking confirmation or a tariff letter as the e-mail it came in.
Read raw, such a file opens with a dozen transport headers, its body may be quoted-printable or base64,
and its text may sit only in an HTML part: the facts the user asks about would be lost in the noise or
not there at all. Each message is rendered as:

- its ``Subject`` as a heading (the message's name: every fact of its body is read under it, so "from
  1 May 2026" in a subject dates the body's prices);
- ``From``, ``To``, ``Cc`` and ``Date`` as ``key: value`` lines (who said it and when; the transport
  headers are dropped);
- the body: every ``text/plain`` part decoded, or, for a part only sent as HTML, that part read the way an
  ``.html`` file is; attachments that are text (``.txt``, ``.csv``, ``.md``) follow under a heading of
  their file name; other attachments are named, never read.

An ``.mbox`` file holds several messages (each opening with a ``From `` line): each is rendered in turn.
A message that does not parse is read as it is. The rendering is new text, so citations count its lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage, Message

MAIL_FORMATS = frozenset({".eml", ".mbox"})
MAX_MESSAGES = 500  # messages of one mbox file rendered
MAX_PARTS = 50  # parts of one message walked
_SHOWN_HEADERS = ("From", "To", "Cc", "Date")
_TEXT_ATTACHMENTS = (".txt", ".csv", ".md", ".text", ".tsv")
_MBOX_SPLIT = re.compile(r"^From \S+.*$\n", re.M)


def render_mail(suffix: str, text: str, html_text: Callable[[str], str]) -> str | None:
    """``text`` of an e-mail file as headed text; None for a suffix this module does not read.
    ``html_text`` renders an HTML part (the retrieval's own HTML reader)."""
    if suffix not in MAIL_FORMATS:
        return None
    if suffix == ".mbox":
        messages = [m for m in _MBOX_SPLIT.split(text) if m.strip()][:MAX_MESSAGES]
    else:
        messages = [text]
    rendered = [_message_text(m, html_text) for m in messages]
    if not any(r is not None for r in rendered):
        return text  # nothing parsed as a message: read the file as it is
    return "\n\n".join(r if r is not None else m for r, m in zip(rendered, messages, strict=True))


def _message_text(raw: str, html_text: Callable[[str], str]) -> str | None:
    try:
        message = message_from_bytes(raw.encode("utf-8", "surrogateescape"), policy=policy.default)
    except (ValueError, TypeError, IndexError, LookupError):
        return None
    if not isinstance(message, EmailMessage) or not any(message.get(h) for h in ("Subject", "From", "Date")):
        return None
    lines = [f"# {_header(message, 'Subject') or '(no subject)'}", ""]
    for name in _SHOWN_HEADERS:
        value = _header(message, name)
        if value:
            lines.append(f"{name}: {value}")
    lines.append("")
    lines.extend(_body_lines(message, html_text))
    return "\n".join(lines).rstrip() + "\n"


def _header(message: Message, name: str) -> str:
    try:
        value = message.get(name)
    except (ValueError, TypeError, IndexError, LookupError):  # a malformed encoded word
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _body_lines(message: EmailMessage, html_text: Callable[[str], str]) -> list[str]:
    plain: list[str] = []
    html: list[str] = []
    attached: list[str] = []
    for n, part in enumerate(message.walk()):
        if n >= MAX_PARTS:
            break
        if part.is_multipart():
            continue
        name = part.get_filename()
        kind = part.get_content_type()
        content = _content(part)
        if name:
            if content is not None and name.lower().endswith(_TEXT_ATTACHMENTS):
                attached += ["", f"## {name}", "", content.strip()]
            else:
                attached += ["", f"Attachment: {name} ({kind}), not read."]
        elif content is not None and kind == "text/plain":
            plain.append(content.strip())
        elif content is not None and kind == "text/html":
            html.append(html_text(content).strip())
    body = plain or html  # a message's HTML part repeats its plain part: read one of them
    return [*"\n\n".join(body).splitlines(), *attached]


def _content(part: Message) -> str | None:
    """A text part's decoded text (quoted-printable, base64, its charset); None when it is not text."""
    if part.get_content_maintype() != "text":
        return None
    try:
        content = part.get_content() if isinstance(part, EmailMessage) else None
    except (ValueError, TypeError, LookupError, UnicodeError, AssertionError):
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else None
    return content if isinstance(content, str) else None


__all__ = ["MAIL_FORMATS", "render_mail"]
