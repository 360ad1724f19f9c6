"""ioa_p2p.wire: what goes on the wire, byte for byte (pure; docs/protocol.md).

- ``canonical.py``  canonical (deterministic) CBOR: the one encoding every signed object uses
- ``schema.py``     :class:`Body` (frozen slotted dataclasses whose annotations are the schema), the
  ``(type, version)`` registry filled by :func:`message_type`, each body's compiled decoder
- ``limits.py``     :class:`Limit` (a field's limits, in its annotation), plain-data and typed value checks
- ``envelope.py``   :class:`Envelope`: the signed, versioned envelope every application message travels in
- ``control.py``    unsigned control frames (``{"t", "tv", "b"}``) used inside authenticated streams
- ``text.py``       the ``text`` body of direct messages

Imports: :mod:`ioa_p2p.errors`, :mod:`ioa_p2p.identity` only.
"""

from ioa_p2p.wire import canonical
from ioa_p2p.wire.control import decode_control, encode_control
from ioa_p2p.wire.envelope import (
    ENVELOPE_VERSION,
    MAX_MESSAGE_SIZE,
    SIGNING_CONTEXT,
    Envelope,
    decode_envelope,
)
from ioa_p2p.wire.schema import Body, body_class, build, message_type, registered_types
from ioa_p2p.wire.text import Text

__all__ = [
    "ENVELOPE_VERSION",
    "MAX_MESSAGE_SIZE",
    "SIGNING_CONTEXT",
    "Body",
    "Envelope",
    "Text",
    "body_class",
    "build",
    "canonical",
    "decode_control",
    "decode_envelope",
    "encode_control",
    "message_type",
    "registered_types",
]
