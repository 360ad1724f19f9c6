"""Ranking the directory's cards for a query with the offline matcher (pure: no I/O, no clock).

:class:`CardRanker` keeps a :class:`~ioa_p2p.matching.HybridMatcher` in step with a
:class:`~ioa_p2p.dht.directory.Directory`: every stored card is indexed under its peer id with its
:class:`~ioa_p2p.matching.CardProfile` (name, description, skills, task types and, on version 2 cards, the
structured capability fields).

Mixed-version networks: a card whose vector was made under the matcher's scheme (``card.model`` equals
the matcher's :attr:`~ioa_p2p.matching.HybridMatcher.model_id` and ``card.dim`` its ``dim``) is indexed
with that vector as published; a card of any other model (an older node's ``wordllama/l2_supercat/256``,
an OpenAI embedder) is re-embedded locally from its text. Either way every card is ranked by the same
signals, so the answer does not depend on which version each peer runs.

Re-embedding costs a MiniLM pass per card (a few ms), so :meth:`CardRanker.add` only queues the card;
:meth:`CardRanker.refresh` embeds the queue in batches. The node calls ``refresh``, ``rank`` and
``shortlist`` in a worker thread; a lock serialises them, so concurrent finds are safe.

Standing (the defences against card spam; ``defences=False`` turns them off, for comparison): every card
gets a prior added to its fused score whatever the query (:meth:`~ioa_p2p.matching.HybridMatcher.set_priors`):

- minus its breadth discount (:mod:`~ioa_p2p.matching.breadth`: a card that claims many unrelated things
  matches everything, and ranks lower the more it claims than the reference population of cards,
  :meth:`CardRanker.set_reference`: those this node has evidence for);
- minus :data:`DUPLICATE_PENALTY` when it copies a card indexed before it (all that card's claims are
  among its own: :mod:`~ioa_p2p.matching.copies`), so a thousand copies of a good card are one
  candidate, not a thousand: the copies rank after every card that is not one;
- plus its reputation in the signed histories this node holds (:meth:`CardRanker.set_reputation`, from
  :mod:`ioa_p2p.conversation.reputation`).

Near-duplicates count once (:mod:`ioa_p2p.teaming.kin`, with the defences; ``kin=False`` turns it off):
cards whose vectors are closer than the population's unrelated cards ever are form a group led by its
most senior card (proven ones first, then the one this ranker indexed first); in :meth:`CardRanker.rank`
every other member of a group ranks after every leader, and in :meth:`CardRanker.shortlist` only the
leader may join a team (:meth:`CardRanker.kinship`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING

from ioa_p2p.card import AgentCard, SignedCard
from ioa_p2p.matching.copies import CopyIndex
from ioa_p2p.matching.encoders import WordLlamaEncoder

if TYPE_CHECKING:  # the matcher, numpy and teaming load at the first card indexed or ranked (issue 26)
    from ioa_p2p.matching import CardProfile, HybridMatcher, Match
    from ioa_p2p.teaming.kin import Kinship
    from ioa_p2p.teaming.offline import TeamPick
    from ioa_p2p.teaming.trust import TeamCaps

#: Cards embedded per batch by :meth:`CardRanker.refresh` (bounds one pass of the model).
BATCH = 256
#: Taken off every card that copies an earlier card: enough to rank it after every card that is not a
#: copy (fused scores span a few units).
DUPLICATE_PENALTY = 8.0
#: Breadth values remembered by card text.
BREADTH_CACHE = 65536
#: Candidates (times ``k``) :meth:`CardRanker.rank` looks at to put kin after the leaders.
KIN_WIDEN = 4
#: The kin threshold is measured again when the index grew or shrank by this share.
KIN_REMEASURE = 0.1


def card_profile(card: AgentCard) -> CardProfile:
    """What the matcher knows of a card: its text fields and its structured capability fields."""
    from ioa_p2p.matching import CardProfile

    extra = {
        name: tuple(getattr(card, name, ()) or ())
        for name in ("languages", "input_types", "output_types", "tools")
        if getattr(card, name, None)
    }
    return CardProfile.make(
        card.name, card.description, skills=card.skills, task_types=card.task_types, **extra
    )


class CardRanker:
    """The directory's cards in a matcher, keyed by peer id string (see the module docstring).

    :meth:`add` and :meth:`remove` only queue (a short lock, safe from the event loop while a worker
    thread ranks); :meth:`refresh` and :meth:`rank` apply the queue under the matcher's lock.
    :attr:`queries` counts the rankings asked of any ranker of the process (:meth:`rank`,
    :meth:`shortlist`): the node unloads the shared models when it stops growing (node/discovery/warm.py).
    """

    #: Rankings asked of every ranker of this process (the matchers' models are the process's).
    queries = 0

    def __init__(
        self,
        matcher: HybridMatcher | Callable[[], HybridMatcher],
        *,
        defences: bool = True,
        kin: bool | None = None,
    ) -> None:
        self._matcher: HybridMatcher | None = None if callable(matcher) else matcher
        self._make: Callable[[], HybridMatcher] | None = matcher if callable(matcher) else None
        self.defences = defences
        self.kin = defences if kin is None else kin  # near-duplicates count once (module docstring)
        self._held: dict[str, int] = {}  # key -> arrival number (kept across versions): seniority
        self._arrivals = 0
        self._kin_line: tuple[int, float] | None = None  # (cards measured, kin threshold)
        self._breadth: dict[str, float] = {}  # dense text -> breadth
        self._texts: dict[str, str] = {}  # key -> dense text
        self._copies = CopyIndex()
        self._reputation: dict[str, float] = {}
        self._reference: frozenset[str] = frozenset()  # keys whose breadths set what counts as broad
        self.free = 0.0  # the breadth above which cards were discounted at the last refresh
        self._card_priors: dict[str, float] = {}  # key -> its breadth discount (negative)
        self._priors_dirty = False
        self._queue_lock = threading.Lock()
        self._matcher_lock = threading.Lock()
        self._pending: dict[str, SignedCard | None] = {}  # key -> card to index, or None to remove
        self.reembedded = 0  # cards of another model embedded locally (a mixed-version network)

    @property
    def matcher(self) -> HybridMatcher:
        """The matcher; given as a factory, made at first use (a node that never indexed or ranked a
        card does not import it: its modules, numpy's linear algebra, the team choice)."""
        if self._matcher is None:
            assert self._make is not None
            with self._queue_lock:
                if self._matcher is None:
                    self._matcher = self._make()
        return self._matcher

    @property
    def model_id(self) -> str:
        return self.matcher.model_id

    def compatible(self, card: SignedCard) -> bool:
        """True when the card's published vector is in this matcher's scheme."""
        return card.model == self.matcher.model_id and card.card.dim == self.matcher.dim

    def add(self, card: SignedCard) -> None:
        """Queue ``card`` (a new card, or a new version of a card) for :meth:`refresh`."""
        with self._queue_lock:
            self._pending[str(card.peer_id)] = card

    def remove(self, key: str) -> None:
        with self._queue_lock:
            self._pending[key] = None

    def pending(self) -> int:
        return len(self._pending)

    def set_reputation(self, priors: Mapping[str, float]) -> None:
        """The reputation prior of each peer (by peer ID text), replacing the previous ones."""
        with self._queue_lock:
            self._reputation = dict(priors)
            self._priors_dirty = True

    def set_reference(self, keys: Collection[str]) -> None:
        """The peers (by peer ID text) whose cards measure what breadth is normal in this network
        (:func:`~ioa_p2p.matching.breadth.free_topics`): proven or trusted ones (the node's trust sets
        them), never cards that merely arrived or waited, so a flood cannot move the line."""
        with self._queue_lock:
            self._reference = frozenset(keys)
            self._priors_dirty = True

    def reputation(self) -> dict[str, float]:
        """The reputation priors last set (by peer ID text; a copy)."""
        with self._queue_lock:
            return dict(self._reputation)

    def priors(self) -> dict[str, float]:
        """The standing of every card this ranker indexed that has one, by peer ID text: its breadth
        discount (what the signed card says about itself) plus its reputation (as last set; also for
        peers whose card is not indexed). A page search carries it back to the peer's sketch
        (:func:`~ioa_p2p.dht.fetchchoice.choose_fetch`): a card the ranker found to claim everything
        costs no fetch slot next time. The copy penalty is left out: it depends on which card arrived
        first, and a copy fetched before its original would mark the original. Never blocks on the
        matcher (a snapshot of the last :meth:`refresh`)."""
        cards = self._card_priors
        with self._queue_lock:
            reputation = dict(self._reputation)
        out = {key: value + reputation.get(key, 0.0) for key, value in cards.items()}
        for key, value in reputation.items():
            out.setdefault(key, value)
        return {key: value for key, value in out.items() if value}

    def standing(self, key: str) -> dict[str, float]:
        """What the prior of ``key`` is made of (for views and benchmarks)."""
        text = self._texts.get(key, "")
        return {
            "breadth": self._breadth.get(text, 1.0),
            "reputation": self._reputation.get(key, 0.0),
            "prior": self.matcher.prior(key),
        }

    def refresh(self) -> int:
        """Apply the queue (embedding foreign cards); returns how many cards were indexed."""
        with self._matcher_lock:
            return self._refresh_locked()

    def refresh_some(self, count: int) -> int:
        """Apply at most ``count`` queued cards (background warming: a short hold of the lock, so a
        concurrent find waits for a few cards at most); returns how many were indexed."""
        with self._matcher_lock:
            return self._refresh_locked(limit=count)

    def rank(self, query: str, k: int, *, among: Collection[str] | None = None) -> list[Match]:
        """The ``k`` best indexed cards for ``query``, after applying the queue; with :attr:`kin`, the
        members of a near-duplicate group after every group's leader (module docstring)."""
        CardRanker.queries += 1
        with self._matcher_lock:
            self._refresh_locked()
            kin = self._kinship_locked() if k > 0 else None
            if kin is None:
                return self.matcher.rank(query, k, among=among)
            from ioa_p2p.teaming.kin import leaders_first

            wide = self.matcher.rank(query, KIN_WIDEN * k, among=among)
            by_key = {m.key: m for m in wide}
            order = leaders_first([m.key for m in wide], kin.followers(list(by_key)))
            return [by_key[key] for key in order[:k]]

    def kinship(self) -> Kinship | None:
        """How team formation counts near-duplicates as one (:class:`~ioa_p2p.teaming.kin.Kinship`:
        proven cards, then the earliest indexed, lead), or None with :attr:`kin` off."""
        with self._matcher_lock:
            self._refresh_locked()
            return self._kinship_locked()

    def shortlist(
        self,
        goal: str,
        *,
        size: int,
        exclude: Collection[str] = (),
        max_team: int = 4,
        caps: TeamCaps | None = None,
    ) -> tuple[TeamPick, tuple[str, ...]]:
        """The offline team (:func:`~ioa_p2p.teaming.offline.choose_team`; within ``caps``, the young and
        unproven members it takes, unless nothing else covers a need) and the shortlist an LLM team-up may
        choose from (offline team first, :func:`~ioa_p2p.teaming.offline.team_shortlist`)."""
        from ioa_p2p.teaming.offline import choose_team, team_shortlist
        from ioa_p2p.teaming.trust import NO_CAPS

        caps = NO_CAPS if caps is None else caps
        CardRanker.queries += 1
        with self._matcher_lock:
            self._refresh_locked()
            kin = self._kinship_locked()
            pick = choose_team(goal, self.matcher, exclude=exclude, max_team=max_team, caps=caps, kin=kin)
            keys = team_shortlist(goal, self.matcher, size=size, exclude=exclude, pick=pick)
            return pick, keys

    def loaded(self) -> bool:
        """Whether all the matcher's models are loaded (in this process)."""
        return self._matcher is not None and self._matcher.loaded()

    def holds_models(self) -> bool:
        """Whether any of the matcher's models is loaded (in this process; before the matcher is made:
        wordllama's, which embeds the node's own card)."""
        if self._matcher is None:
            return WordLlamaEncoder.loaded()
        return self._matcher.holds_models()

    def unload(self) -> None:
        """Drop the matcher's models (waits for a ranking in progress; the index stays); before the
        matcher is made, wordllama's (the card encoder)."""
        if self._matcher is None:
            WordLlamaEncoder.unload()
            return
        with self._matcher_lock:
            self.matcher.unload()

    def _refresh_locked(self, limit: int | None = None) -> int:
        import numpy as np

        done = 0
        while limit is None or done < limit:
            size = BATCH if limit is None else min(BATCH, limit - done)
            with self._queue_lock:
                batch = dict(list(self._pending.items())[:size])
                for key in batch:
                    del self._pending[key]
                dirty, self._priors_dirty = self._priors_dirty, False
            if not batch:
                if done or dirty:
                    self._update_priors()
                return done
            gone = [k for k, card in batch.items() if card is None]
            self.matcher.remove(gone)
            for key in gone:
                self._forget_text(key)
            cards = {k: card for k, card in batch.items() if card is not None}
            profiles = {key: card_profile(card.card) for key, card in cards.items()}
            vectors = {
                key: np.asarray(card.embedding(), dtype=np.float32)
                for key, card in cards.items()
                if self.compatible(card)
            }
            self.matcher.index(profiles, vectors)
            self.reembedded += len(cards) - len(vectors)
            for key, profile in profiles.items():
                self._remember_text(key, profile)
            done += len(cards)
        return done

    def _kinship_locked(self) -> Kinship | None:
        if not self.kin:
            return None
        from ioa_p2p.teaming.kin import MIN_REFERENCE, Kinship, kin_threshold

        with self._queue_lock:
            proven = self._reference
        reference = sorted(k for k in proven if k in self.matcher)
        population = reference if len(reference) >= MIN_REFERENCE else None  # None: every card
        count = len(self.matcher) if population is None else -len(population)  # what was measured
        line = self._kin_line
        moved = line is not None and abs(count - line[0]) > KIN_REMEASURE * abs(line[0])
        if line is None or (line[0] < 0) != (count < 0) or moved:
            line = self._kin_line = (count, kin_threshold(self.matcher.vectors(population)))
        held = {k: float(v) for k, v in self._held.items()}
        return Kinship(self.matcher.vectors, line[1], proven, held)

    def _remember_text(self, key: str, profile: CardProfile) -> None:
        from ioa_p2p.matching.breadth import breadth, card_items

        text = profile.dense_text()
        self._texts[key] = text
        if key not in self._held:
            self._held[key] = self._arrivals
            self._arrivals += 1
        items = card_items(profile)
        self._copies.add(key, items)
        if self.defences and text not in self._breadth:
            if len(self._breadth) >= BREADTH_CACHE:
                self._breadth.pop(next(iter(self._breadth)))
            self._breadth[text] = breadth(items, self.matcher.embed_items)

    def _forget_text(self, key: str) -> None:
        self._texts.pop(key, None)
        self._held.pop(key, None)
        self._copies.remove(key)

    def _update_priors(self) -> None:
        from ioa_p2p.matching.breadth import breadth_discount, free_topics

        if not self.defences:
            self._card_priors = {}
            self.matcher.set_priors({})
            return
        breadths: dict[str, float] = {}
        copies = self._copies.copies()
        with self._queue_lock:
            reference = self._reference
        self.free = free_topics(
            [self._breadth.get(self._texts[k], 1.0) for k in reference if k in self._texts]
        )
        for key, text in self._texts.items():
            value = -breadth_discount(self._breadth.get(text, 1.0), free=self.free)
            if value:
                breadths[key] = value
        self._card_priors = breadths
        priors = dict(breadths)
        for key in copies:
            if key in self._texts:
                priors[key] = priors.get(key, 0.0) - DUPLICATE_PENALTY
        for key, value in self._reputation.items():
            if key in self._texts:
                priors[key] = priors.get(key, 0.0) + value
        self.matcher.set_priors({key: value for key, value in priors.items() if value})


__all__ = ["BATCH", "DUPLICATE_PENALTY", "KIN_WIDEN", "CardRanker", "card_profile"]
