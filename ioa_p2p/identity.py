"""Self-certifying identity: one Ed25519 key per node, and the libp2p peer ID derived from it.

A libp2p peer ID of an Ed25519 key is the *identity multihash* of the protobuf-encoded public key, so the
public key can be read back out of the peer ID: anyone holding a peer ID can check that peer's signatures
with no registry and no network. Peer ID bytes are::

    0x00 0x24 | 0x08 0x01 0x12 0x20 | <32-byte Ed25519 public key>
    identity   KeyType=Ed25519  Data

and its text form is base58btc of those bytes (``12D3KooW...``).

The private key is stored in ``$IOA_HOME/node.key`` as an unencrypted PKCS#8 PEM, file mode 0600.
Pure module apart from :func:`load_key_file` / :func:`create_key_file`, which do file I/O.
"""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from ioa_p2p.errors import AlreadyExists, InvalidPeerId, KeyFileError

_PEER_ID_PREFIX = bytes([0x00, 0x24, 0x08, 0x01, 0x12, 0x20])
PEER_ID_BYTES_LEN = len(_PEER_ID_PREFIX) + 32
KEY_FILE_NAME = "node.key"

_B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_B58_ALPHABET)}


def b58encode(data: bytes) -> str:
    """Bitcoin-alphabet base58 (the multibase ``z`` alphabet, without the prefix)."""
    n = int.from_bytes(data, "big")
    out = []
    while n:
        n, rem = divmod(n, 58)
        out.append(_B58_ALPHABET[rem])
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + "".join(reversed(out))


def b58decode(text: str) -> bytes:
    n = 0
    for char in text:
        try:
            n = n * 58 + _B58_INDEX[char]
        except KeyError:
            raise InvalidPeerId(f"{char!r} is not a base58 character") from None
    pad = len(text) - len(text.lstrip("1"))
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return b"\0" * pad + body


#: How many peers' text forms and verifying keys :class:`PeerId` keeps (least recently used out): a node
#: names the same few dozen peers in every stream timeout and log line, and verifies their messages.
PEER_CACHE = 1024


@functools.lru_cache(maxsize=PEER_CACHE)
def _peer_text(raw: bytes) -> str:
    return b58encode(raw)


@functools.lru_cache(maxsize=PEER_CACHE)
def _verifying_key(public_key: bytes) -> ed25519.Ed25519PublicKey:
    return ed25519.Ed25519PublicKey.from_public_bytes(public_key)


@dataclass(frozen=True, slots=True, order=True)
class PeerId:
    """An Ed25519 libp2p peer ID.

    Construct with :meth:`from_bytes`, :meth:`from_string` or :meth:`from_public_key`.
    """

    raw: bytes

    def __post_init__(self) -> None:
        if len(self.raw) != PEER_ID_BYTES_LEN or not self.raw.startswith(_PEER_ID_PREFIX):
            raise InvalidPeerId(
                "not an Ed25519 libp2p peer ID (expected the 38-byte identity multihash of an Ed25519 key)"
            )

    @classmethod
    def from_bytes(cls, raw: bytes) -> PeerId:
        if not isinstance(raw, bytes):
            raise InvalidPeerId(f"peer ID must be bytes, got {type(raw).__name__}")
        return cls(raw)

    @classmethod
    def from_string(cls, text: str) -> PeerId:
        if not isinstance(text, str) or not text:
            raise InvalidPeerId("peer ID must be a non-empty base58 string such as 12D3KooW...")
        try:
            return cls(b58decode(text.strip()))
        except InvalidPeerId as exc:
            raise InvalidPeerId(f"{text!r} is not an Ed25519 libp2p peer ID: {exc}") from None

    @classmethod
    def from_public_key(cls, public_key: bytes) -> PeerId:
        if len(public_key) != 32:
            raise InvalidPeerId("an Ed25519 public key has 32 bytes")
        return cls(_PEER_ID_PREFIX + public_key)

    @property
    def public_key(self) -> bytes:
        return self.raw[len(_PEER_ID_PREFIX) :]

    def verify(self, signature: bytes, data: bytes) -> bool:
        """True when ``signature`` is this peer's Ed25519 signature of ``data``."""
        if len(signature) != 64:
            return False
        try:
            _verifying_key(self.public_key).verify(signature, data)
        except (InvalidSignature, ValueError):
            return False
        return True

    def __str__(self) -> str:
        """The base58 text form (made once per peer: :data:`PEER_CACHE`; a chat author named each member
        in two stream timeouts per message, ~0.1 ms of base58 each)."""
        return _peer_text(self.raw)

    def __repr__(self) -> str:
        return f"PeerId({self})"

    def short(self) -> str:
        """The last 6 characters, for human-readable transcripts."""
        return str(self)[-6:]


class Identity:
    """A node's private key and the peer ID it implies."""

    __slots__ = ("_key", "peer_id", "seed")

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 32:
            raise KeyFileError("an Ed25519 private key seed has 32 bytes")
        self.seed = seed
        self._key = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
        public = self._key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.peer_id = PeerId.from_public_key(public)

    @classmethod
    def generate(cls) -> Identity:
        key = ed25519.Ed25519PrivateKey.generate()
        return cls(
            key.private_bytes(
                serialization.Encoding.Raw,
                serialization.PrivateFormat.Raw,
                serialization.NoEncryption(),
            )
        )

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)

    def to_pem(self) -> bytes:
        return self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def __repr__(self) -> str:
        return f"Identity({self.peer_id})"


def load_key_file(path: Path) -> Identity:
    """Load an identity, refusing (with :class:`KeyFileError` naming the file) anything doubtful."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise KeyFileError(f"no key file at {path}; create one with `ioa init`") from None
    except OSError as exc:
        raise KeyFileError(f"cannot read key file {path}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise KeyFileError(f"key file {path} is not a regular file")
    if os.name == "posix" and st.st_mode & 0o077:
        raise KeyFileError(
            f"key file {path} has mode {stat.S_IMODE(st.st_mode):04o}, readable by others; "
            f"run `chmod 600 {path}` if it is yours and uncompromised, or `ioa init --force` for a new key"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"cannot read key file {path}: {exc.strerror}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise KeyFileError(
            f"key file {path} is password-protected; ioa-p2p needs an unencrypted key"
        ) from None
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise KeyFileError(
            f"key file {path} is corrupt or truncated (not a PEM private key: {exc}); "
            "restore it from a backup, or create a new identity with `ioa init --force`"
        ) from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise KeyFileError(
            f"key file {path} holds a {type(key).__name__.removeprefix('_')} key, not Ed25519; "
            "ioa-p2p identities are Ed25519 only"
        )
    seed = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return Identity(seed)


def create_key_file(path: Path, *, force: bool = False, identity: Identity | None = None) -> Identity:
    """Write a new key file with mode 0600 (atomically). Refuses to replace one unless ``force``."""
    if path.exists() and not force:
        raise AlreadyExists(f"a key file already exists at {path}; pass --force to replace it")
    identity = identity or Identity.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, identity.to_pem())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return identity
