"""The causal DAG of one chat's messages (pure: no I/O, no clock).

:class:`ChatHistory` holds the genesis and every accepted ``chat.msg`` of one chat. A message is
accepted only when all its parents are held (messages whose parents are missing wait, bounded, in a
pending set and are released when the parents arrive) and when it keeps these rules, each decided
from the message's **causal past only** (so every holder of the same messages decides the same):

- **sequence**: its ``seq`` is exactly one more than the highest seq of the same author in its
  causal past (each author's messages form one chain 1, 2, 3, ... with no gap and no fork);
- **equivocation**: no other held message has the same author and seq (a fork is kept as proof,
  see :class:`ioa_p2p.errors.Equivocation`);
- **membership**: its author is a member at its parents, where membership is the genesis member
  list with the membership messages of the causal past applied in (depth, hash) order; membership
  messages must also obey :func:`ioa_p2p.history.membership.check_membership_change`.

Signatures are *not* checked here: callers hand in verified envelopes (``Envelope.from_cbor``).
Pending messages live in a :class:`ioa_p2p.history.pending.PendingSet`, bounded in count and bytes per
chat and against a node-wide ledger; a message it refuses or evicts was never accepted.

The **causal order** used for transcripts and exports sorts by (depth, ts, hash), where depth is
the longest path from the genesis: a deterministic topological order every copy agrees on.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from ioa_p2p.budget import Ledger
from ioa_p2p.errors import Equivocation, HistoryViolation
from ioa_p2p.history.bodies import (
    KIND_MEMBER_ADD,
    MAX_PARENTS,
    MEMBERSHIP_KINDS,
    ChatGenesis,
    ChatMessage,
    check_genesis,
    make_message,
    member_of,
    message_body,
)
from ioa_p2p.history.membership import apply_membership, check_membership_change
from ioa_p2p.history.pending import DEFAULT_MAX_PENDING, PendingSet
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire.envelope import Envelope


@dataclass(frozen=True, slots=True)
class Entry:
    """An accepted message with what the DAG knows about it."""

    env: Envelope
    hash: bytes
    depth: int
    #: per author index (see ChatHistory.author_index): highest seq of that author in the causal
    #: past, this message included
    clock: tuple[int, ...]
    #: hashes of the membership messages in the causal past, this message included
    mevents: frozenset[bytes]

    @property
    def msg(self) -> ChatMessage:
        return message_body(self.env)

    def sort_key(self) -> tuple[int, int, bytes]:
        return (self.depth, self.env.ts, self.hash)


@dataclass(frozen=True, slots=True)
class Ready:
    entry: Entry


@dataclass(frozen=True, slots=True)
class Missing:
    hashes: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Duplicate:
    pass


Classified = Ready | Missing | Duplicate


@dataclass
class AddResult:
    """What :meth:`ChatHistory.add` did: the entries it accepted (the message, then any pending
    messages it released), the parents the message still misses, and released messages that broke
    a rule."""

    stored: list[Entry] = field(default_factory=list)
    missing: tuple[bytes, ...] = ()
    duplicate: bool = False
    rejected: list[tuple[Envelope, HistoryViolation]] = field(default_factory=list)


class ChatHistory:
    """One chat's messages. Build from a verified genesis envelope."""

    def __init__(
        self,
        genesis: Envelope,
        *,
        genesis_hash: bytes | None = None,
        max_pending: int = DEFAULT_MAX_PENDING,
        max_pending_bytes: int | None = None,
        pending_budget: Ledger | None = None,
        pending_trust: Callable[[Hashable], int] | None = None,
    ) -> None:
        self.genesis_body: ChatGenesis = check_genesis(genesis)
        self.genesis = genesis
        self.chat_id: bytes = genesis_hash or genesis.hash
        self.creator: PeerId = genesis.author
        self.max_pending = max_pending
        root = Entry(genesis, self.chat_id, 0, (), frozenset())
        self._entries: dict[bytes, Entry] = {self.chat_id: root}
        self._heads: set[bytes] = {self.chat_id}
        self._by_author: dict[PeerId, list[Entry]] = {}
        self.author_index: dict[PeerId, int] = {}
        self._members_cache: dict[frozenset[bytes], frozenset[PeerId]] = {
            frozenset(): frozenset(self.genesis_body.members)
        }
        self.pending = PendingSet(
            max_count=max_pending, max_bytes=max_pending_bytes, shared=pending_budget, trust=pending_trust
        )
        self.equivocations: list[tuple[Envelope, Envelope]] = []
        self._ever: set[PeerId] = set(self.genesis_body.members)

    # ------------------------------------------------------------------ queries

    @property
    def topic(self) -> str:
        return self.genesis_body.topic

    def __len__(self) -> int:
        """Number of accepted messages (the genesis not counted)."""
        return len(self._entries) - 1

    def __contains__(self, digest: object) -> bool:
        return digest in self._entries

    def get(self, digest: bytes) -> Entry | None:
        return self._entries.get(digest)

    def heads(self) -> list[bytes]:
        """Hashes of the messages no held message names as parent, sorted."""
        return sorted(self._heads)

    def members(self) -> frozenset[PeerId]:
        """Membership at the current heads."""
        return self.members_at(self._heads)

    def members_at(self, parents: Iterable[bytes]) -> frozenset[PeerId]:
        events: frozenset[bytes] = frozenset()
        for digest in parents:
            events = events | self._entries[digest].mevents
        return self._members_for(events)

    def ever_members(self) -> frozenset[PeerId]:
        """Everyone who was a member at some point (genesis members and every added peer)."""
        return frozenset(self._ever)

    def version(self) -> dict[PeerId, int]:
        """Highest seq held per author; all lower seqs are held too (histories are closed)."""
        return {author: len(chain) for author, chain in self._by_author.items()}

    def next_seq(self, author: PeerId) -> int:
        return len(self._by_author.get(author, ())) + 1

    def entries(self) -> list[Entry]:
        """Every accepted message in causal order (depth, ts, hash); genesis not included."""
        items = [e for e in self._entries.values() if e.depth]
        items.sort(key=Entry.sort_key)
        return items

    def envelopes(self) -> list[Envelope]:
        return [e.env for e in self.entries()]

    def arrived(self, start: int = 0) -> list[Entry]:
        """The accepted messages in the order they were accepted here (a causal order too: a message is
        accepted only after its parents), from the ``start``-th (0: the first); the genesis not
        included. New messages only ever come after these."""
        items = itertools.islice(self._entries.values(), start + 1, None)
        return list(items)

    def messages_after(self, version: dict[PeerId, int], limit: int) -> tuple[list[Entry], bool]:
        """Messages a peer at ``version`` lacks, in causal order, at most ``limit``; and whether
        more remain. Any prefix of the answer is closed under parents for that peer."""
        wanted: list[Entry] = []
        for author, chain in self._by_author.items():
            wanted.extend(chain[version.get(author, 0) :])
        wanted.sort(key=Entry.sort_key)
        return wanted[:limit], len(wanted) > limit

    def missing(self) -> set[bytes]:
        """Parents named by pending messages that are not held."""
        return {d for d in self.pending.waiting_on() if d not in self._entries}

    @property
    def pending_count(self) -> int:
        return len(self.pending)

    @property
    def pending_bytes(self) -> int:
        return self.pending.bytes_held

    def pending_envelopes(self) -> list[Envelope]:
        return self.pending.envelopes()

    # ------------------------------------------------------------------ composing

    def parents_for(self, author: PeerId) -> tuple[bytes, ...]:
        """Parents for a new message of ``author``: the heads (at most MAX_PARENTS, always
        including one that descends from the author's own latest message)."""
        heads = sorted(self._heads, key=lambda d: self._entries[d].sort_key(), reverse=True)
        if len(heads) <= MAX_PARENTS:
            return tuple(sorted(heads))
        chosen = heads[:MAX_PARENTS]
        last = len(self._by_author.get(author, ()))
        idx = self.author_index.get(author)
        if last and idx is not None and not any(self._clock_of(d, idx) == last for d in chosen):
            chosen[-1] = next(d for d in heads if self._clock_of(d, idx) == last)
        return tuple(sorted(chosen))

    def compose(self, identity: Identity, kind: str, content: dict[str, object], *, now_ms: int) -> Envelope:
        """Sign the next message of ``identity`` on top of the current heads (not added here)."""
        me = identity.peer_id
        return make_message(
            identity,
            self.chat_id,
            self.parents_for(me),
            kind,
            dict(content),
            seq=self.next_seq(me),
            now_ms=now_ms,
        )

    # ------------------------------------------------------------------ adding

    def classify(self, env: Envelope, digest: bytes | None = None) -> Classified:
        """Decide about one verified envelope without changing anything.

        Returns Duplicate, Missing(parents not held) or Ready(entry to commit); raises
        :class:`HistoryViolation` (``.code``: wrong-type, wrong-chat, bad-seq, non-member,
        unauthorized) or :class:`Equivocation` when the message breaks a rule."""
        msg = message_body(env)
        if msg.chat_id != self.chat_id:
            raise HistoryViolation(
                f"message belongs to chat {msg.chat_id.hex()[:16]}..., not to this chat "
                f"{self.chat_id.hex()[:16]}...",
                code="wrong-chat",
            )
        digest = digest or env.hash
        if digest in self._entries:
            return Duplicate()
        missing = tuple(p for p in msg.parents if p not in self._entries)
        if missing:
            return Missing(missing)
        return Ready(self._evaluate(env, digest, msg))

    def _evaluate(self, env: Envelope, digest: bytes, msg: ChatMessage) -> Entry:
        parents = [self._entries[p] for p in msg.parents]
        author = env.author
        chain = self._by_author.get(author, [])
        if 1 <= env.seq <= len(chain):
            first = chain[env.seq - 1].env
            raise Equivocation(
                f"{author} signed two different messages with seq {env.seq} "
                f"({chain[env.seq - 1].hash.hex()[:16]}... and {digest.hex()[:16]}...)",
                first=first,
                second=env,
            )
        idx = self.author_index.get(author, len(self.author_index))
        clock = _merge_clocks(parents, idx + 1)
        if env.seq != clock[idx] + 1:
            raise HistoryViolation(
                f"{author} seq {env.seq} does not follow its seq {clock[idx]} in the message's "
                "causal past (each author's messages must chain 1, 2, 3, ...)",
                code="bad-seq",
            )
        clock[idx] = env.seq
        events = _union(p.mevents for p in parents)
        members = self._members_for(events)
        if author not in members:
            raise HistoryViolation(
                f"{author} is not a member of the chat at this message's parents", code="non-member"
            )
        if msg.kind in MEMBERSHIP_KINDS:
            check_membership_change(members, self.creator, author, msg.kind, msg.content)
            events = events | {digest}
        depth = 1 + max(p.depth for p in parents)
        return Entry(env, digest, depth, tuple(clock), events)

    def commit(self, entry: Entry) -> list[tuple[Envelope, bytes]]:
        """Accept a Ready entry; returns pending messages whose parents are now all held."""
        author = entry.env.author
        self.author_index.setdefault(author, len(self.author_index))
        self._entries[entry.hash] = entry
        self._by_author.setdefault(author, []).append(entry)
        self._heads.difference_update(entry.msg.parents)
        self._heads.add(entry.hash)
        if entry.msg.kind == KIND_MEMBER_ADD:
            self._ever.add(member_of(entry.msg.content))
        return self.pending.release(entry.hash, self._entries.__contains__)

    def hold(
        self,
        env: Envelope,
        digest: bytes,
        missing: tuple[bytes, ...],
        *,
        source: Hashable | None = None,
        size: int | None = None,
    ) -> bool:
        """Keep a message whose parents are missing, charged to ``source`` (default: its author)
        for ``size`` bytes (default: its encoded size); False when the budgets refused it."""
        if size is None:
            size = len(env.to_cbor())
        return self.pending.hold(env, digest, missing, env.author if source is None else source, size)

    def add(
        self,
        env: Envelope,
        digest: bytes | None = None,
        *,
        persist: Callable[[Entry], None] | None = None,
        source: Hashable | None = None,
        size: int | None = None,
    ) -> AddResult:
        """Classify, persist (through ``persist``, before anything changes here) and commit a
        message, then every pending message it releases. A rule broken by ``env`` itself is raised;
        rules broken by released messages are reported in ``rejected``. A message whose parents
        are missing is held for them (charged to ``source``, ``size`` bytes; see :meth:`hold`)."""
        result = AddResult()
        queue: deque[tuple[Envelope, bytes]] = deque([(env, digest or env.hash)])
        first = True
        while queue:
            item, item_hash = queue.popleft()
            try:
                verdict = self.classify(item, item_hash)
            except HistoryViolation as exc:
                if isinstance(exc, Equivocation):
                    self.equivocations.append((exc.first, exc.second))  # type: ignore[arg-type]
                if first:
                    raise
                result.rejected.append((item, exc))
                continue
            if isinstance(verdict, Duplicate):
                result.duplicate = result.duplicate or first
            elif isinstance(verdict, Missing):
                self.hold(item, item_hash, verdict.hashes, source=source, size=size if first else None)
                if first:
                    result.missing = verdict.hashes
            else:
                if persist is not None:
                    persist(verdict.entry)
                queue.extend(self.commit(verdict.entry))
                result.stored.append(verdict.entry)
            first = False
        return result

    # ------------------------------------------------------------------ internals

    def _clock_of(self, digest: bytes, idx: int) -> int:
        clock = self._entries[digest].clock
        return clock[idx] if idx < len(clock) else 0

    def _members_for(self, events: frozenset[bytes]) -> frozenset[PeerId]:
        cached = self._members_cache.get(events)
        if cached is not None:
            return cached
        members = frozenset(self.genesis_body.members)
        ordered = sorted(events, key=lambda d: (self._entries[d].depth, d))
        for digest in ordered:
            entry = self._entries[digest]
            members = apply_membership(members, entry.env.author, entry.msg.kind, entry.msg.content)
        self._members_cache[events] = members
        return members


def _merge_clocks(parents: list[Entry], size: int) -> list[int]:
    if len(parents) == 1:
        clock = list(parents[0].clock)
    else:
        clock = [0] * max(len(p.clock) for p in parents)
        for parent in parents:
            for i, value in enumerate(parent.clock):
                if value > clock[i]:
                    clock[i] = value
    if len(clock) < size:
        clock.extend([0] * (size - len(clock)))
    return clock


def _union(sets: Iterable[frozenset[bytes]]) -> frozenset[bytes]:
    out: frozenset[bytes] | None = None
    for item in sets:
        out = item if out is None or out is item else out | item
    return out or frozenset()


__all__ = ["AddResult", "ChatHistory", "Classified", "Duplicate", "Entry", "Missing", "Ready"]
