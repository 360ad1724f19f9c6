"""ioa_p2p.card: the records an agent publishes about itself (pure: no I/O, no clock).

- ``record.py``      the signed agent card (versions 1-3), parsing, selection of the newest
- ``issuing.py``     issuing this node's card: its text, vector bytes, version, stamp, signature
- ``fields.py``      checks of a card's fields (text and tag limits, the embedding vector)
- ``stamp.py``       the card stamp: a proof of work bound to the card's key and capability content
- ``schemes.py``     the model IDs of the matcher's two card vector schemes (constants only)
- ``sketch.py``      the signed card sketch (a quantised card vector) that bucket pages list
- ``withdrawal.py``  the signed withdrawal (tombstone) of a card, and choosing between cards and withdrawals;
                     ``parse_record``, which checks a record's bytes once per process (``verified.py``)
- ``verified.py``    the records this process already verified, by their bytes (bounded, least recent out)

Wire formats: ``docs/protocol.md`` section 9.1.
"""

from typing import TYPE_CHECKING, Any

from ioa_p2p.card.issuing import card_text, encode_vector, issue_card, next_version
from ioa_p2p.card.record import (
    DEFAULT_TTL_MS,
    MAX_ADDR,
    MAX_ADDRS,
    MAX_CARD_SIZE,
    MAX_CLOCK_SKEW_MS,
    MAX_DESCRIPTION,
    MAX_DIM,
    MAX_MODEL_ID,
    MAX_NAME,
    MAX_TAG,
    MAX_TAGS,
    MAX_TTL_MS,
    STRUCTURED_FIELDS,
    AgentCard,
    AgentCardV2,
    AgentCardV3,
    SignedCard,
    card_digest,
    card_stamp_bits,
    check_fresh,
    newer_than,
    parse_card,
    select_newest,
    structured_fields,
    try_parse_card,
)
from ioa_p2p.card.stamp import content_digest, mint, stamp_bits
from ioa_p2p.card.withdrawal import (
    MAX_REASON,
    CardRecord,
    CardWithdrawal,
    SignedWithdrawal,
    issue_withdrawal,
    newest_record,
    parse_record,
    try_parse_record,
)

if TYPE_CHECKING:
    from ioa_p2p.card.record import Vector


def __getattr__(name: str) -> Any:
    """``Vector`` (a numpy type: numpy is imported on first use, see :mod:`ioa_p2p.card.record`)."""
    if name == "Vector":
        import numpy as np
        import numpy.typing as npt

        return npt.NDArray[np.float32]
    raise AttributeError(f"module 'ioa_p2p.card' has no attribute {name!r}")


__all__ = [
    "DEFAULT_TTL_MS",
    "MAX_ADDR",
    "MAX_ADDRS",
    "MAX_CARD_SIZE",
    "MAX_CLOCK_SKEW_MS",
    "MAX_DESCRIPTION",
    "MAX_DIM",
    "MAX_MODEL_ID",
    "MAX_NAME",
    "MAX_REASON",
    "MAX_TAG",
    "MAX_TAGS",
    "MAX_TTL_MS",
    "STRUCTURED_FIELDS",
    "AgentCard",
    "AgentCardV2",
    "AgentCardV3",
    "CardRecord",
    "CardWithdrawal",
    "SignedCard",
    "SignedWithdrawal",
    "Vector",
    "card_digest",
    "card_stamp_bits",
    "card_text",
    "check_fresh",
    "content_digest",
    "encode_vector",
    "issue_card",
    "issue_withdrawal",
    "mint",
    "newer_than",
    "newest_record",
    "next_version",
    "parse_card",
    "parse_record",
    "select_newest",
    "stamp_bits",
    "structured_fields",
    "try_parse_card",
    "try_parse_record",
]
