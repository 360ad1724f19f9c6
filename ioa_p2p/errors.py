"""Every error ioa-p2p raises, under one root, grouped by who is at fault.

- :class:`InputError`       the caller or a file handed to us is wrong (fix the input);
- :class:`RemotePeerError`  another peer misbehaved or is unreachable (retry, or pick another peer);
- :class:`LocalStateError`  this machine's state is wrong (fix the files, start the node, ...);
- :class:`IoATimeout`       something took longer than the caller allowed.

Third-party exceptions (libp2p, cbor2, cryptography, openai, sqlite3) are translated into these once,
at the boundary where they occur; callers never need to catch a library's own exception types.
Every message says what happened and what to do about it.
"""

from __future__ import annotations


class IoAError(Exception):
    """Root of every error this package raises on purpose."""

    #: Process exit code the CLI uses for this error (1 = failure, 2 = usage / unreadable input).
    exit_code: int = 1


# --------------------------------------------------------------------------- bad input


class InputError(IoAError):
    """The input we were given is wrong: a bad argument, config file or message."""


class UsageError(InputError):
    """A command or API was called with arguments that cannot work."""

    exit_code = 2


class InvalidField(UsageError):
    """A control API request (or a typed request built in Python) has a field that cannot work: its
    ``path`` (``max_turns``, ``members[2]``; ``body`` for the whole object) and why (``reason``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ConfigError(InputError):
    """A configuration file or value is invalid."""

    exit_code = 2


class InvalidMessage(InputError):
    """Bytes that do not decode to a valid, correctly signed ioa-p2p message."""


class MessageTooLarge(InvalidMessage):
    """A frame or message is larger than the documented limit."""


class MalformedEncoding(InvalidMessage):
    """The bytes are not well-formed CBOR, or contain trailing bytes or forbidden CBOR items."""


class NonCanonicalEncoding(InvalidMessage):
    """Well-formed CBOR that is not in the canonical (deterministic) encoding we require."""


class UnsupportedVersion(InvalidMessage):
    """A message or record of a protocol version this implementation does not speak."""


class UnknownMessageType(InvalidMessage):
    """A message type that is not registered."""


class SchemaError(InvalidMessage):
    """A missing, extra or wrongly typed field."""


class SignatureError(InvalidMessage):
    """A signature does not verify, or the signer is not the claimed author."""


class AuthorMismatch(SignatureError):
    """The signing key does not belong to the peer ID the message names as author."""


class InvalidCard(InvalidMessage):
    """An agent card that is malformed, forged, oversized, or carries a bad embedding vector."""


class ExpiredCard(InvalidCard):
    """An agent card whose expiry time has passed (its owner must republish a fresh one)."""


class ReplayedCard(InvalidCard):
    """An announced agent card older than the version we already hold (a replay): ignored."""


class ReplayedMessage(InvalidMessage):
    """A correctly signed direct message that this node must not accept again: its seq is not above the
    author's last accepted one (``code`` ``"replay"``), its ts is outside the accepted window (``"stale"``),
    or the bounded table of authors is full (``"busy"``). See docs/protocol.md §6.1."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


class HistoryViolation(InvalidMessage):
    """A correctly signed chat message that breaks the chat's rules (membership, sequence, parents).

    ``code`` names the rule (e.g. ``"non-member"``, ``"bad-seq"``, ``"unauthorized"``, ``"wrong-chat"``).
    """

    def __init__(self, message: str, *, code: str = "invalid") -> None:
        super().__init__(message)
        self.code = code


class Equivocation(HistoryViolation):
    """One author signed two different chat messages with the same sequence number (``first``, ``second``)."""

    def __init__(self, message: str, *, first: object, second: object) -> None:
        super().__init__(message, code="equivocation")
        self.first = first
        self.second = second


class UnreadableHistory(InputError):
    """A history file that cannot be read at all, or is not an ioa-p2p chat history file."""

    exit_code = 2


class InvalidContent(SchemaError):
    """A conversation (``conv.*``) message's content is missing fields, has wrong types or breaks a limit."""


class InvalidPeerId(InputError):
    """A peer ID string or byte string that is not a valid Ed25519 libp2p peer ID."""


class InvalidAddress(InputError):
    """A multiaddr that cannot be parsed or lacks a required part (such as /p2p/<peer id>)."""


class UnknownAdapter(ConfigError):
    """No installed agent adapter has the configured kind (see ``ioa_p2p.adapters.list_adapters``)."""


class AdapterOptionsError(ConfigError):
    """An agent adapter's options are missing, unknown or of the wrong type."""


class AdapterLoadError(ConfigError):
    """An adapter plugin could not be imported, or does not implement the adapter protocol."""


class TaskRejected(InputError):
    """An agent adapter cannot do this task (no code block, no arithmetic, ...); the reason says why."""


class BadAdapterOutput(InputError):
    """An agent adapter returned something that is not a valid, bounded task result."""


# --------------------------------------------------------------------------- remote peer


class RemotePeerError(IoAError):
    """Another peer misbehaved, refused, or could not be reached."""


class PeerUnreachable(RemotePeerError):
    """We could not connect to a peer or open a stream to it."""


class DialFailed(PeerUnreachable):
    """No address of the peer answered: its message names every address and relay tried and why each
    failed, and the addresses left out. ``attempts``: ``(address, reason)`` pairs, in the order tried.
    The peer may be offline, or behind NAT without a relay reservation (check its ``ioa relay status``)."""

    def __init__(self, message: str, attempts: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.attempts = attempts


class ProtocolViolation(RemotePeerError):
    """A peer sent something our protocol does not allow (bad frame, bad message, wrong reply)."""


class PeerRejected(RemotePeerError):
    """A peer answered, but refused the request."""


class NoTeam(PeerRejected):
    """Fewer agents than a goal needs joined its team (none matched, or they declined or did not answer)."""


class PeerClosed(RemotePeerError):
    """The peer closed or reset the stream (or the connection) before the exchange was complete."""


class OverBudget(RemotePeerError):
    """A peer's work would pass one of this node's resource budgets (bytes of partial frames, open
    streams, pending chat messages, sync work per period): it was refused or evicted, and the node
    keeps serving everyone else (budgets: ``[limits]`` in config.toml, docs/security.md)."""


class ModelError(RemotePeerError):
    """The language model server failed or refused a request (check its URL, key, model name and logs)."""


class ModelOutputError(ModelError):
    """The language model kept answering something unusable after the allowed retries."""


class ModelRateLimited(ModelError):
    """The model server asked to slow down (HTTP 429); ``retry_after``: the seconds it asked to wait,
    when it said (the caller waits only when that fits the time it has left)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


# --------------------------------------------------------------------------- local state


class LocalStateError(IoAError):
    """The local machine's state stops us: files, keys, a node that is not running."""


class KeyFileError(LocalStateError):
    """The identity key file is missing, unreadable, corrupt, foreign or has unsafe permissions."""


class AlreadyExists(LocalStateError):
    """Refusing to overwrite something that exists (pass --force / force=True to replace it)."""


class NodeNotRunning(LocalStateError):
    """No local node answers on the control API (start one with `ioa node start`)."""


class ControlAPIError(LocalStateError):
    """The local node's control API answered with an error: the HTTP ``status`` and the node's error
    ``type`` (``UsageError``, ``IoATimeout``...) when it sent one."""

    def __init__(self, message: str, *, status: int = 0, error_type: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type


class UnexpectedReply(ControlAPIError):
    """The node answered with JSON that does not have the documented shape (docs/protocol.md §7): a node
    of another version, or a bug; the message names the field."""


class StoreError(LocalStateError):
    """The local durable store cannot be opened or written."""


class StorageFull(StoreError):
    """The disk holding the local store is full: nothing was written; free space and try again
    (the control API answers 507, insufficient storage)."""


class NodeProcessError(LocalStateError):
    """A node process (testnet / bootstrap launcher) exited or never became ready; see its log file."""


class UnknownChat(LocalStateError):
    """This node holds no chat with the given ID (list known chats with `ioa chats`)."""


# --------------------------------------------------------------------------- timeouts


class IoATimeout(IoAError, TimeoutError):
    """An operation did not finish within the time the caller allowed."""


class GoalAborted(IoAError):
    """A goal ended before its round could start (its deadline passed or it was cancelled while its team
    was being formed). ``ioa goal`` exits 4, like any aborted goal."""

    exit_code = 4


class AgentFailed(IoAError):
    """One agent of a process that runs several (``ioa node start --agents``) could not start, or stopped
    with an error; the process's other agents go on. ``cause`` is the agent's own error (its type says who
    is at fault); the exit code is the cause's."""

    def __init__(self, name: str, cause: BaseException, *, started: bool = False) -> None:
        what = "stopped" if started else "could not start"
        super().__init__(f"agent {name!r} {what}: {type(cause).__name__}: {cause}")
        self.name = name
        self.cause = cause
        self.started = started
        self.exit_code = cause.exit_code if isinstance(cause, IoAError) else 1

    @property
    def cause_type(self) -> str:
        return type(self.cause).__name__


__all__ = [
    "AgentFailed",
    "UnreadableHistory",
    "UnknownChat",
    "HistoryViolation",
    "Equivocation",
    "UnknownAdapter",
    "TaskRejected",
    "BadAdapterOutput",
    "AdapterOptionsError",
    "AdapterLoadError",
    "AlreadyExists",
    "AuthorMismatch",
    "ConfigError",
    "ControlAPIError",
    "DialFailed",
    "UnexpectedReply",
    "InvalidField",
    "ExpiredCard",
    "InputError",
    "InvalidAddress",
    "InvalidCard",
    "InvalidContent",
    "InvalidMessage",
    "InvalidPeerId",
    "IoAError",
    "IoATimeout",
    "GoalAborted",
    "KeyFileError",
    "LocalStateError",
    "MalformedEncoding",
    "MessageTooLarge",
    "ModelError",
    "ModelOutputError",
    "ModelRateLimited",
    "NoTeam",
    "NodeNotRunning",
    "NodeProcessError",
    "NonCanonicalEncoding",
    "OverBudget",
    "PeerClosed",
    "PeerRejected",
    "PeerUnreachable",
    "ProtocolViolation",
    "RemotePeerError",
    "ReplayedCard",
    "ReplayedMessage",
    "SchemaError",
    "SignatureError",
    "StorageFull",
    "StoreError",
    "UnknownMessageType",
    "UnsupportedVersion",
    "UsageError",
]
