"""Chat messages waiting for missing parents (pure): bounded per chat and across chats.

A message whose parents are not all held is kept here until they arrive (then
:meth:`PendingSet.release` hands it back to the history), charged to the peer that sent it
(``source``: the delivering or syncing peer; the author when unknown) in three
:class:`ioa_p2p.budget.Ledger`\\ s: this chat's message count, this chat's encoded bytes, and the
node-wide bytes shared by every chat. When one is full the newest messages of the peer holding the
most go first, or the new message is refused when its sender is that peer: a flood costs its
sender its own pending messages, not other members'.

Dropping a pending message never loses anything acknowledged: it was answered ``missing``, never
``stored``, so its sender keeps it in its outbox and delivers it again (after the parents it now
pushes first), and sync fetches it from any member that holds it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from ioa_p2p.budget import TRUST_STRANGER, Claim, Ledger
from ioa_p2p.wire.envelope import Envelope

DEFAULT_MAX_PENDING = 10_000


@dataclass(slots=True)
class _Held:
    env: Envelope
    missing: tuple[bytes, ...]
    size: int
    claims: tuple[Claim, ...] = ()


class PendingSet:
    """The pending messages of one chat."""

    def __init__(
        self,
        *,
        max_count: int = DEFAULT_MAX_PENDING,
        max_bytes: int | None = None,
        shared: Ledger | None = None,
        trust: Callable[[Hashable], int] | None = None,
    ) -> None:
        """``max_bytes`` None: no byte cap of its own (e.g. an audit, bounded by its input file).
        ``trust(source)``: how much the node trusts a sender (``ioa_p2p.budget.TRUST_*``): a full
        budget sheds the least-trusted sender's newest message first."""
        self._items: dict[bytes, _Held] = {}
        self._waiting: dict[bytes, set[bytes]] = {}
        self._count = Ledger("pending_count", total=max_count)
        self._bytes = None if max_bytes is None else Ledger("pending_bytes_per_chat", total=max_bytes)
        self._shared = shared
        self._trust = trust
        self._bytes_held = 0
        self.refused = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, digest: object) -> bool:
        return digest in self._items

    @property
    def bytes_held(self) -> int:
        return self._bytes_held

    def envelopes(self) -> list[Envelope]:
        return [item.env for item in self._items.values()]

    def waiting_on(self) -> set[bytes]:
        """Every parent some pending message waits for."""
        return set(self._waiting)

    def hold(
        self, env: Envelope, digest: bytes, missing: tuple[bytes, ...], source: Hashable, size: int
    ) -> bool:
        """Keep ``env`` until ``missing`` arrive; False when a budget refused it (nothing kept)."""
        if digest in self._items:
            return True
        item = _Held(env, missing, size)
        claims: list[Claim] = []

        def evicted() -> None:
            self.drop(digest, evicted=True)

        trust = self._trust(source) if self._trust is not None else TRUST_STRANGER
        for ledger, amount in self._ledgers(size):
            claim = ledger.try_claim(source, amount, evicted, trust)
            if claim is None:
                for taken, (owner, _) in zip(claims, self._ledgers(size), strict=False):
                    owner.release(taken)
                self.refused += 1
                return False
            claims.append(claim)
        item.claims = tuple(claims)
        self._items[digest] = item
        self._bytes_held += size
        for parent in missing:
            self._waiting.setdefault(parent, set()).add(digest)
        return True

    def _ledgers(self, size: int) -> Iterable[tuple[Ledger, int]]:
        yield self._count, 1
        if self._bytes is not None:
            yield self._bytes, size
        if self._shared is not None:
            yield self._shared, size

    def release(self, parent: bytes, held: Callable[[bytes], bool]) -> list[tuple[Envelope, bytes]]:
        """``parent`` arrived: the pending messages waiting on it whose parents are now all
        ``held``, removed from the set, in hash order."""
        released = []
        for child in sorted(self._waiting.pop(parent, ())):
            item = self._items.get(child)
            if item is not None and all(held(p) for p in item.missing):
                self.drop(child)
                released.append((item.env, child))
        return released

    def drop(self, digest: bytes, *, evicted: bool = False) -> None:
        """Forget one pending message and give back its budget (no-op when not held)."""
        item = self._items.pop(digest, None)
        if item is None:
            return
        self._bytes_held -= item.size
        if evicted:
            self.dropped += 1
        for (ledger, _), claim in zip(self._ledgers(item.size), item.claims, strict=False):
            ledger.release(claim)
        for parent in item.missing:
            waiters = self._waiting.get(parent)
            if waiters is not None:
                waiters.discard(digest)
                if not waiters:
                    del self._waiting[parent]


__all__ = ["DEFAULT_MAX_PENDING", "PendingSet"]
