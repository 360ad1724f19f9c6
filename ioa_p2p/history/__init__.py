"""ioa_p2p.history: group-chat histories, what is signed and stored (pure, CPU only).

- ``bodies.py``      ``chat.genesis`` and ``chat.msg`` bodies, message kinds, making and checking them
- ``membership.py``  who may add, remove or leave, and the membership after a change
- ``frames.py``      bodies of the chat protocols that never enter a history: invitations, acks, sync
- ``dag.py``         :class:`ChatHistory`: the hash-linked DAG of one chat, rules applied in causal order
- ``pending.py``     messages waiting for missing parents, bounded per chat and per node
- ``file.py``        the history file format (export, parse, read and write files)
- ``audit.py``       verify a history file with nothing but its bytes
- ``compare.py``     compare two audited copies: truncation, divergence, cross-copy equivocation

Imports: :mod:`ioa_p2p.wire`, :mod:`ioa_p2p.identity`, :mod:`ioa_p2p.budget`, :mod:`ioa_p2p.errors`.
"""

from ioa_p2p.history.audit import AuditReport, Finding, audit_history, verify_batch
from ioa_p2p.history.bodies import (
    KIND_MEMBER_ADD,
    KIND_MEMBER_LEAVE,
    KIND_MEMBER_REMOVE,
    KIND_TEXT,
    MAX_CHAT_MESSAGE_SIZE,
    ChatGenesis,
    ChatMessage,
    make_genesis,
    make_message,
)
from ioa_p2p.history.dag import ChatHistory, Entry
from ioa_p2p.history.file import export_history, parse_history, read_history_file, write_history_file
from ioa_p2p.history.frames import ChatAck, ChatInvite, ChatInviteReply, SyncBatch, SyncRequest

__all__ = [
    "KIND_MEMBER_ADD",
    "KIND_MEMBER_LEAVE",
    "KIND_MEMBER_REMOVE",
    "KIND_TEXT",
    "MAX_CHAT_MESSAGE_SIZE",
    "AuditReport",
    "ChatAck",
    "ChatGenesis",
    "ChatHistory",
    "ChatInvite",
    "ChatInviteReply",
    "ChatMessage",
    "Entry",
    "Finding",
    "SyncBatch",
    "SyncRequest",
    "audit_history",
    "export_history",
    "make_genesis",
    "make_message",
    "parse_history",
    "read_history_file",
    "verify_batch",
    "write_history_file",
]
