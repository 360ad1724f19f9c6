"""The ``text`` body: a plain direct message between two peers (protocol ``/ioa/msg/1.0.0``)."""

from __future__ import annotations

from typing import Any

from ioa_p2p.wire.schema import Body, message_type


@message_type("text", 1)
class Text(Body):
    """A plain direct message between two peers (protocol ``/ioa/msg/1.0.0``)."""

    text: str
    data: dict[str, Any] | None = None


__all__ = [
    "Text",
]
