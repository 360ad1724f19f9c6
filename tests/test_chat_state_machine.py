"""Property test (hypothesis state machine) of the chat DAG and its SQLite store, without the network.

Three members each keep a copy of one chat: a :class:`~ioa_p2p.history.ChatHistory` over a real
:class:`~ioa_p2p.node.chats.store.ChatStore` file, driven the way the chat service drives them (an own message
is stored with its outbox rows, then committed; a delivered message goes through ``ChatHistory.add`` with the
store as ``persist``; a restart rebuilds the copy from its store, as ``Chats.load`` does). Rules, in any
interleaving: a member composes (text, or the creator removing / re-adding a member); a message is
delivered to any copy in any order (orphans wait for their parents), again (duplicates); the equivocating
member signs a second message with a seq it already used (a fork); a copy restarts (closing and reopening
its SQLite file).

Invariants after every step: whatever a copy acknowledged ``stored`` (or stored while releasing orphans)
is in its store and in its DAG, across restarts; the store and the DAG hold the same messages; a copy
holds at most one message per (author, seq). After delivering everything everywhere (once, newest first, so
orphans must be released): each copy holds exactly the messages whose causal past agrees with the forks it
chose (so copies that chose alike hold the same set in the same causal order with the same heads, and
messages that depend on no fork are held by all); every copy that could evaluate both messages of a fork
recorded the equivocation, identically (as an unordered pair); once senders retried, outboxes keep only
messages the peer cannot hold; each copy's export audits as that copy.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from ioa_p2p.errors import Equivocation, HistoryViolation
from ioa_p2p.history.audit import audit_history
from ioa_p2p.history.bodies import KIND_MEMBER_ADD, KIND_MEMBER_REMOVE, make_genesis, make_message
from ioa_p2p.history.compare import compare_histories
from ioa_p2p.history.dag import ChatHistory, Entry, Ready
from ioa_p2p.history.file import export_history
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.chats.store import STATUS_MEMBER, ChatStore, MessageRow
from ioa_p2p.wire.envelope import Envelope

CREATOR, HONEST, FORKER = (Identity(bytes([i]) * 32) for i in (41, 42, 43))
MEMBERS = (CREATOR, HONEST, FORKER)
GENESIS = make_genesis(CREATOR, [HONEST.peer_id, FORKER.peer_id], "state machine", now_ms=1, nonce=bytes(16))
CHAT_ID = GENESIS.hash

Slot = tuple[PeerId, int]


def row_of(entry: Entry) -> MessageRow:
    env, msg = entry.env, entry.msg
    return MessageRow(
        entry.hash, CHAT_ID, env.author.raw, env.seq, entry.depth, env.ts, msg.kind, env.to_cbor()
    )


@dataclass
class Copy:
    """One member's copy: its DAG, its store file, and what it acknowledged."""

    owner: Identity
    path: Path
    store: ChatStore = field(init=False)
    hist: ChatHistory = field(init=False)
    acked_stored: set[bytes] = field(default_factory=set)  # answered "stored" to a delivery
    persisted: set[bytes] = field(default_factory=set)  # every entry add/commit reported stored

    def __post_init__(self) -> None:
        self.store = ChatStore(self.path)
        self.store.add_chat(CHAT_ID, GENESIS.to_cbor(), STATUS_MEMBER, 0)
        self.hist = ChatHistory(GENESIS)

    def restart(self) -> None:
        event("a copy restarts")
        """Close and reopen the SQLite file; rebuild the DAG from it as ``Chats.load`` does."""
        self.store.close()
        self.store = ChatStore(self.path)
        self.hist = ChatHistory(GENESIS, genesis_hash=CHAT_ID)
        for row in self.store.messages(CHAT_ID):
            self.hist.add(Envelope.from_cbor(row.raw, verify=False), row.hash)

    def held(self) -> set[bytes]:
        return {e.hash for e in self.hist.entries()}

    def deliver(self, env: Envelope) -> str:
        """What the chat service does with a delivered, verified message; returns the ack status."""
        try:
            result = self.hist.add(env, env.hash, persist=lambda e: self.store.insert_message(row_of(e)))
        except HistoryViolation as exc:
            self._violation(exc)
            return "rejected"
        for _, problem in result.rejected:
            self._violation(problem)
        self.persisted |= {e.hash for e in result.stored}
        if result.duplicate:
            return "duplicate"
        if result.missing:
            event("a delivered message waits for its parents (orphan)")
            return "missing"
        self.acked_stored.add(env.hash)
        return "stored"

    def _violation(self, exc: HistoryViolation) -> None:
        assert isinstance(exc, Equivocation), f"only forks are invalid in this model, got {exc}"
        event("an equivocation is detected")
        first, second = exc.first, exc.second
        assert isinstance(first, Envelope) and isinstance(second, Envelope)
        self.store.add_evidence(CHAT_ID, first.to_cbor(), second.to_cbor())

    def evidence(self) -> dict[Slot, frozenset[bytes]]:
        out = {}
        for first, second in self.store.evidence(CHAT_ID):
            a, b = Envelope.from_cbor(first, verify=False), Envelope.from_cbor(second, verify=False)
            assert (a.author, a.seq) == (b.author, b.seq) and a.hash != b.hash
            out[(a.author, a.seq)] = frozenset({a.hash, b.hash})
        return out


class ChatCopies(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="ioa-chat-sm-"))
        self.copies = {m.peer_id: Copy(m, self.tmp / f"{m.peer_id.short()}.sqlite3") for m in MEMBERS}
        self.pool: dict[bytes, Envelope] = {}  # every message signed so far, forks included
        self.forks: dict[Slot, set[bytes]] = {}
        self.clock = 1000

    def teardown(self) -> None:
        for copy in self.copies.values():
            copy.store.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def now(self) -> int:
        self.clock += 1
        return self.clock

    # ------------------------------------------------------------------ rules

    def _post(self, author: Identity, kind: str, content: dict[str, object]) -> None:
        """``Chats.post``: compose on the author's copy, store with outbox rows, commit."""
        copy = self.copies[author.peer_id]
        hist = copy.hist
        if author.peer_id not in hist.members():
            return
        env = hist.compose(author, kind, content, now_ms=self.now())
        try:
            verdict = hist.classify(env)
        except HistoryViolation:  # e.g. adding a member who is one already: the service refuses
            return
        assert isinstance(verdict, Ready)
        members = hist.members()
        if kind == KIND_MEMBER_ADD:
            members = members | {PeerId.from_bytes(content["member"])}  # type: ignore[arg-type]
        copy.store.insert_own(row_of(verdict.entry), sorted(members - {author.peer_id}), self.clock)
        copy.hist.commit(verdict.entry)
        copy.persisted.add(env.hash)
        self.pool[env.hash] = env

    @rule(who=st.sampled_from(MEMBERS), text=st.text(max_size=3))
    def compose(self, who: Identity, text: str) -> None:
        self._post(who, "text", {"text": text})

    @rule(member=st.sampled_from([HONEST, FORKER]))
    def creator_removes_or_adds_back(self, member: Identity) -> None:
        members = self.copies[CREATOR.peer_id].hist.members()
        kind = KIND_MEMBER_REMOVE if member.peer_id in members else KIND_MEMBER_ADD
        self._post(CREATOR, kind, {"member": member.peer_id.raw})

    @precondition(lambda self: any(e.author == FORKER.peer_id for e in self.pool.values()))
    @rule(data=st.data())
    def fork(self, data: st.DataObject) -> None:
        """The equivocator signs another message with a seq it already used (same parents)."""
        own = [
            e
            for e in self.pool.values()
            if e.author == FORKER.peer_id and (e.author, e.seq) not in self.forks
        ]
        if not own:
            return
        original = data.draw(st.sampled_from(sorted(own, key=lambda e: e.hash)))
        body = original.body
        parents = body.parents  # type: ignore[attr-defined]
        seq, now = original.seq, self.now()
        fork = make_message(FORKER, CHAT_ID, parents, "text", {"text": "fork"}, seq=seq, now_ms=now)
        self.forks[(FORKER.peer_id, original.seq)] = {original.hash, fork.hash}
        self.pool[fork.hash] = fork

    @precondition(lambda self: bool(self.pool))
    @rule(data=st.data(), to=st.sampled_from(MEMBERS), times=st.integers(1, 2))
    def deliver(self, data: st.DataObject, to: Identity, times: int) -> None:
        env = self.pool[data.draw(st.sampled_from(sorted(self.pool)))]
        for _ in range(times):  # a retry after a lost ack delivers the same message again
            self._deliver(env, to.peer_id)

    def _deliver(self, env: Envelope, to: PeerId) -> None:
        """Deliver; the sender's outbox row goes once the answer settles it (as ``ChatDelivery`` does)."""
        status = self.copies[to].deliver(env)
        sender = self.copies.get(env.author)
        if sender is not None and status in ("stored", "duplicate", "rejected"):
            sender.store.acked([env.hash], to)

    @rule(who=st.sampled_from(MEMBERS))
    def restart(self, who: Identity) -> None:
        self.copies[who.peer_id].restart()

    # ------------------------------------------------------------------ invariants

    @invariant()
    def nothing_acknowledged_is_lost(self) -> None:
        for copy in self.copies.values():
            stored = {row.hash for row in copy.store.messages(CHAT_ID)}
            held = copy.held()
            assert copy.acked_stored <= copy.persisted <= stored
            assert stored == held, "the store and the DAG disagree"
            slots = [(self.pool[h].author, self.pool[h].seq) for h in held]
            assert len(slots) == len(set(slots)), "a copy holds two messages with one (author, seq)"

    # ------------------------------------------------------------------ the end: deliver everything

    def check_convergence(self) -> None:
        # Every message to every copy once, newest first: children arrive before their parents, so
        # convergence rests on orphans being released (and released forks being reported).
        for peer in self.copies:
            for env in reversed(list(self.pool.values())):
                self._deliver(env, peer)
        self._check_copies()
        for peer in self.copies:  # senders retry what was answered "missing": every outbox settles
            for env in self.pool.values():
                self._deliver(env, peer)
        for copy in self.copies.values():
            self._outbox_only_keeps_what_peers_cannot_hold(copy)

    def _check_copies(self) -> None:
        choices = {}
        for peer, copy in self.copies.items():
            held = copy.held()
            choices[peer] = {slot: next(iter(h & held), None) for slot, h in self.forks.items()}
            self._held_is_the_closure_of_its_choices(copy, held)
            self._equivocations_detected(copy, held)
            self._export_audits_as_the_copy(copy)
        peers = sorted(self.copies)
        for i, a in enumerate(peers):
            for b in peers[i + 1 :]:
                ca, cb = self.copies[a], self.copies[b]
                if choices[a] != choices[b]:
                    event("two copies chose different forks")
                if choices[a] == choices[b]:
                    assert ca.held() == cb.held()
                    assert [e.hash for e in ca.hist.entries()] == [e.hash for e in cb.hist.entries()]
                    assert ca.hist.heads() == cb.hist.heads()
                    assert ca.hist.members() == cb.hist.members()
                comparison = compare_histories(
                    audit_history(export_history(ca.hist)), audit_history(export_history(cb.hist))
                )
                assert comparison.identical == (ca.held() == cb.held())

    def _held_is_the_closure_of_its_choices(self, copy: Copy, held: set[bytes]) -> None:
        lost_forks = {h for pair in self.forks.values() if pair & held for h in pair - held}
        for digest, env in self.pool.items():
            parents_held = all(p in held or p == CHAT_ID for p in env.body.parents)  # type: ignore[attr-defined]
            if parents_held and digest not in lost_forks:
                assert digest in held, "a message whose parents are held, and no fork lost, is missing"

    def _equivocations_detected(self, copy: Copy, held: set[bytes]) -> None:
        evidence = copy.evidence()
        for slot, pair in self.forks.items():
            a = self.pool[next(iter(pair))]
            evaluable = all(p in held or p == CHAT_ID for p in a.body.parents)  # type: ignore[attr-defined]
            if evaluable:
                assert len(pair & held) == 1
                assert evidence.get(slot) == frozenset(pair), "an evaluable fork was not recorded"
        assert set(evidence) <= set(self.forks), "evidence of an equivocation that did not happen"

    def _outbox_only_keeps_what_peers_cannot_hold(self, copy: Copy) -> None:
        for peer in self.copies:
            for _, digest in copy.store.outbox(peer, limit=100_000):
                assert digest not in self.copies[peer].held(), "an outbox row for a message the peer holds"

    def _export_audits_as_the_copy(self, copy: Copy) -> None:
        report = audit_history(export_history(copy.hist))
        assert all(f.code == "equivocation" for f in report.findings), [f.line() for f in report.findings]
        assert report.history is not None
        assert [e.hash for e in report.history.entries()] == [e.hash for e in copy.hist.entries()]
        assert report.history.heads() == copy.hist.heads()


class ChatCopiesConverge(ChatCopies):
    def teardown(self) -> None:
        try:
            self.check_convergence()
        finally:
            super().teardown()


TestChatCopies = ChatCopiesConverge.TestCase
TestChatCopies.settings = settings(
    max_examples=80, stateful_step_count=30, deadline=None, suppress_health_check=list(HealthCheck)
)
