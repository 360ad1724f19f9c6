"""Forming a goal's team: discover candidates, choose teammates, invite them, open the goal chat.

:class:`TeamFormation` (one per goals service; given the node, chats, discovery, the members' names and the
model when the service starts):

- named teammates (``team=``): peer IDs, or agent names resolved through discovery (exact name, any case);
- otherwise :meth:`~ioa_p2p.node.discovery.Discovery.find` runs on the goal and on each of its clauses
  (concurrently) so the local directory holds what the network knows: the directory first, the DHT too
  when no local card reaches the threshold (``[goals] dht_lookup = "auto"``; or ``"always"``,
  ``"never"``). Who joins is decided by :mod:`ioa_p2p.teaming` (docs/matching.md): the offline team over
  the whole directory (:meth:`~ioa_p2p.dht.ranking.CardRanker.shortlist`: the lead, and members joining
  it by the calibrated join rule), completed so it covers every step of the goal's offline plan
  (:func:`~ioa_p2p.teaming.coverage.cover_steps`). With a model, the model re-ranks and picks from the
  offline shortlist (``[goals] shortlist`` cards: the offline team first, then the best cards of the goal
  and of its clauses), never beyond it (:func:`~ioa_p2p.teaming.llm_team.llm_team_from_shortlist`), and
  the offline team stands when the model fails;
- a node just started waits (bounded) until its own card is issued: an invitee under ``invite_policy =
  "known"`` (an agent that runs code, by default) asks the inviter for its card and refuses without one;
- teammates this node is not connected to are dialled at the addresses of their signed cards;
- the chat is created with ``create_chat`` (topic ``goal: <goal>``, parent chat for sub-teams); decliners
  are removed by the chat service, agents that did not answer are removed here, so the chat's membership
  is the team's.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

import trio

from ioa_p2p.api.events import EventSink, TeamFallbackEvent
from ioa_p2p.api.goals import Teammate
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.dht.directory import Match
from ioa_p2p.errors import IoAError, NoTeam, UsageError
from ioa_p2p.identity import PeerId
from ioa_p2p.llm.failures import failure_kind
from ioa_p2p.llm.model import Model
from ioa_p2p.node.chats import Chats
from ioa_p2p.node.chats.invites import INVITE_WAIT_MOST
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.goals.members import Members
from ioa_p2p.node.goals.types import GOAL_TOPIC_PREFIX, FormedTeam, GoalsConfig
from ioa_p2p.node.net.cpu_wait import open_cpu_deadline
from ioa_p2p.node.ports import NodePort

if TYPE_CHECKING:  # the planner and the team choice load at the first goal (issue 26: an idle agent is small)
    from ioa_p2p.planning import PlanStep
    from ioa_p2p.teaming.candidates import Candidate

log = logging.getLogger("ioa_p2p.goals")

MAX_QUERIES = 6
#: The longest a goal waits for this node's own card to be issued before it invites
#: (:meth:`TeamFormation.wait_own_card`).
OWN_CARD_WAIT = 10.0


class TeamFormation:
    """Forms the teams of the goals this node launches (see the module docstring)."""

    def __init__(
        self,
        node: NodePort,
        chats: Chats,
        discovery: Discovery | None,
        config: GoalsConfig,
        members: Members,
        model: Model | None,
        *,
        context_tokens: int,
    ) -> None:
        self.node = node
        self.chats = chats
        self.discovery = discovery
        self.config = config
        self.members = members
        self.model = model
        self.context_tokens = context_tokens
        self.me = str(node.peer_id)

    async def form(
        self, request: LaunchRequest, *, deadline: float = math.inf, emit: EventSink = lambda event: None
    ) -> FormedTeam:
        """Choose (or resolve the pinned ``team`` of) the teammates of ``request``, invite them, open the
        chat; NoTeam below a sub-team's ``min_team``. ``deadline`` (wall clock) is the goal's: the LLM
        team-up gets at most a third of what is left (and ``[goals] team_up_timeout``), invitations at
        most half of what is left."""
        goal, team, sub = request.goal, request.team, request.parent
        max_team = request.max_team or self.config.max_team
        parent_chat, exclude = (sub.parent_chat, sub.exclude) if sub else (None, ())
        min_team = sub.min_team if sub else 0
        t0 = time.perf_counter()  # wall time (a RunnableClock run: trio time leaves out waits)
        fallback = ""
        marks: dict[str, float] = {}  # the parts of discovery (wall seconds), for the goal's timings
        if team:
            chosen = await self.resolve(team)
        else:
            chosen, fallback = await self.choose(goal, max_team, exclude, deadline, marks)
            if fallback:
                emit(TeamFallbackEvent(fallback))
        if len(chosen) < min_team:
            raise NoTeam(f"found {len(chosen)} candidate teammates, {min_team} needed")
        t1 = time.perf_counter()
        await self.wait_own_card(deadline)
        await self.reach([PeerId.from_string(t.peer_id) for t in chosen])
        marks["reach_s"] = time.perf_counter() - t1
        handle = await self.chats.create_chat(
            [PeerId.from_string(t.peer_id) for t in chosen],
            f"{GOAL_TOPIC_PREFIX}{goal}"[:4000],
            parent_chat,
            invite_timeout=min(self.config.invite_timeout, max(1.0, (deadline - self.node.now()) / 2)),
        )
        for peer in handle.unanswered:  # no answer: out of this round (the chat membership follows)
            await self.chats.remove_member(handle.chat_id, peer)
        if len(handle.accepted) < min_team:
            await self.chats.leave(handle.chat_id)
            raise NoTeam(f"{len(handle.accepted)} of {len(chosen)} invited agents joined, {min_team} needed")
        t2 = time.perf_counter()
        by_peer = {t.peer_id: t for t in chosen}

        def pick(peers: Sequence[PeerId]) -> tuple[Teammate, ...]:
            return tuple(by_peer.get(str(p), Teammate(str(p), self.members.name_of(str(p)))) for p in peers)

        timings = {**marks, "discovery_s": t1 - t0, "invitations_s": t2 - t1, "team_formed_s": t2 - t0}
        return FormedTeam(
            handle.chat_id,
            pick(handle.accepted),
            pick(handle.declined),
            pick(handle.unanswered),
            timings,
            fallback,
        )

    async def wait_own_card(self, deadline: float) -> None:
        """Until this node's card is issued and current, at most :data:`OWN_CARD_WAIT` s and a quarter of
        the goal's time left: an invitee whose ``invite_policy`` is ``known`` (an agent that runs code, by
        default) asks the inviter for its card, and a node just started issues it in the background."""
        discovery = self.discovery
        if discovery is None or discovery.card is not None and discovery.card_current():
            return
        with trio.move_on_after(min(OWN_CARD_WAIT, max(0.0, (deadline - self.node.now()) / 4))):
            await discovery.card_ready.wait()
            await discovery.wait_card_current()

    async def reach(self, peers: Sequence[PeerId]) -> None:
        """Connect to the teammates this node is not connected to, through the node's one dial path
        (their signed cards' addresses too: direct first, then relays), concurrently, bounded by
        ``invite_timeout`` (not counting the time this process waited for a CPU, as invitations do)."""
        node = self.node

        async def one(peer: PeerId) -> None:
            try:
                await node.connect_peer(peer)
            except IoAError as exc:
                log.debug("cannot reach %s: %s", peer, exc)

        timeout = self.config.invite_timeout
        async with (
            open_cpu_deadline(timeout, most=INVITE_WAIT_MOST * timeout),
            trio.open_nursery() as nursery,
        ):
            for peer in peers:  # an agent of this process needs no connection: its streams are in memory
                if not node.is_connected(peer) and not node.serves_locally(peer):
                    nursery.start_soon(one, peer)

    def continuation(self, chat_id: bytes, previous: Sequence[str] | None) -> FormedTeam:
        """A new round in an existing chat: the members of its last round (``previous``; None: every
        member) that are still in the chat."""
        members = {str(m) for m in self.chats.get(chat_id).members()}
        if self.me not in members:
            raise UsageError(f"this node is not a member of chat {chat_id.hex()[:16]}...; cannot continue it")
        if previous is None:
            previous = tuple(sorted(members))
        chosen = [m for m in previous if m in members and m != self.me]
        return FormedTeam(chat_id, tuple(Teammate(m, self.members.name_of(m)) for m in chosen), (), (), {})

    async def resolve(self, entries: Sequence[str]) -> list[Teammate]:
        """Peer IDs or agent names (case-insensitive, through discovery) -> teammates (this node left out)."""
        out: dict[str, Teammate] = {}
        for entry in entries:
            entry = entry.strip()
            if not entry:
                continue
            try:
                peer = str(PeerId.from_string(entry))
                found = Teammate(peer, self.members.name_of(peer), 1.0)
            except IoAError:
                found = await self.by_name(entry)
            if found.peer_id != self.me:
                out.setdefault(found.peer_id, found)
        return list(out.values())

    async def by_name(self, name: str) -> Teammate:
        discovery = self.discovery
        if discovery is None:
            raise UsageError(f"cannot resolve agent name {name!r}: discovery is off; give peer IDs instead")
        wanted = name.lower()
        now = int(self.node.now() * 1000)
        for entry in discovery.directory:
            card = entry.card
            if card.card.name.lower() == wanted and not card.is_expired(now):
                return Teammate(str(card.peer_id), card.card.name, 1.0)
        for match in await discovery.find(name, k=10, include_self=False):
            if match.card.card.name.lower() == wanted:
                return Teammate(str(match.card.peer_id), match.card.card.name, match.score)
        raise UsageError(f"no agent named {name!r} is known to this node; check `ioa find` or give a peer ID")

    async def candidates(
        self, query: str, exclude: Sequence[str] = (), marks: dict[str, float] | None = None
    ) -> list[Candidate]:
        """The shortlist for ``query``: the local directory first; the DHT too (for at most ``dht_wait``
        seconds) when ``[goals] dht_lookup`` is ``always``, or ``auto`` and no local card reaches the
        threshold, unless a census proves the directory complete
        (:meth:`~ioa_p2p.node.discovery.Discovery.directory_complete`: the DHT would name the same cards;
        100 agents in one process spent 2-9 s of each team's formation in such lookups, issue 26).
        ``marks["dht_finds"]`` counts the finds that asked the DHT."""
        cfg = self.config
        if self.discovery is None:  # no discovery: nobody to shortlist
            return []
        find = self.discovery.find
        matches: list[Match] = []
        if cfg.dht_lookup != "always":
            matches = await find(query, k=cfg.shortlist, include_self=False, use_dht=False)
        usable = [m for m in matches if str(m.card.peer_id) not in exclude]
        partial = self.discovery.directory.partial  # past [discovery] keep_all: the DHT has the rest
        wanted = cfg.dht_lookup == "always" or (
            cfg.dht_lookup == "auto"
            and (partial or not usable or usable[0].score < cfg.threshold)
            # a census proves the directory lists the whole network: the DHT would name the same cards
            and not self.discovery.directory_complete()
        )
        if wanted:  # bounded: whatever the lookup fetched meanwhile is in the directory for the retry below
            if marks is not None:
                marks["dht_finds"] = marks.get("dht_finds", 0.0) + 1
            with trio.move_on_after(cfg.dht_wait):
                matches = await find(query, k=cfg.shortlist, include_self=False, use_dht=True)
                wanted = False
        if wanted:
            matches = await find(query, k=cfg.shortlist, include_self=False, use_dht=False)
        from ioa_p2p.teaming.candidates import Candidate

        found = [Candidate.from_card(m.card.card, m.score) for m in matches]
        return [c for c in found if c.peer_id not in exclude]

    async def choose(
        self,
        goal: str,
        max_team: int,
        exclude: Sequence[str],
        deadline: float = math.inf,
        marks: dict[str, float] | None = None,
    ) -> tuple[list[Teammate], str]:
        """The teammates, and the failure kind when the LLM team-up failed ("" otherwise); ``marks``
        gets the wall seconds of its parts (``find_s``: the finds, ``rank_s``: the offline shortlist,
        ``cover_s``: the plan and its steps' coverage) and ``dht_finds``, the finds that asked the DHT.

        The offline matcher ranks the local directory (after the goal's and its clauses' finds have
        brought in what the DHT knows) and picks a team; members able to do the offline plan's step kinds
        are added when nobody chosen can. With a model, the model picks from the offline shortlist
        (never beyond it), within a third of what is left before ``deadline``."""
        from ioa_p2p.teaming.coverage import cover_steps
        from ioa_p2p.teaming.llm_team import llm_team_from_shortlist
        from ioa_p2p.teaming.trust import trim_to_caps

        discovery = self.discovery
        if discovery is None or discovery.directory.ranker is None:
            return [], ""
        marks = {} if marks is None else marks
        began = time.perf_counter()
        found = await self.find_all(goal, exclude, marks)
        marks["find_s"] = time.perf_counter() - began
        ranker = discovery.directory.ranker
        strict = self.config.exposure().strict
        caps = self.config.trust().caps(
            discovery.young,
            discovery.unproven,
            discovery.spent,
            strict=strict,
            unproven_left=discovery.unproven_left,
        )
        if caps.spent and not strict:  # under a flood's penalty or past the ceiling: never a member
            barred = discovery.search.flooded(caps.spent) | (discovery.over_ceiling & caps.spent)
            caps = dataclasses.replace(caps, barred=barred)
        offline = functools.partial(
            ranker.shortlist,
            goal,
            size=self.config.shortlist,
            exclude=[*exclude, self.me],
            max_team=max_team,
            caps=caps,
        )
        began = time.perf_counter()
        pick, keys = await self.node.run_sync(offline)
        marks["rank_s"] = time.perf_counter() - began
        scores = {m.key: m.score for m in pick.members}
        fallback = ""
        if self.model is not None and keys:
            budget = min(self.config.team_up_timeout, max(0.0, deadline - self.node.now()) / 3)
            fallback = "timeout"
            with trio.move_on_after(budget):
                try:
                    picked = await llm_team_from_shortlist(
                        self.model,
                        goal,
                        self._as_candidates(keys, scores),
                        self._search_within(keys),
                        max_team=max_team,
                        context_tokens=self.context_tokens,
                    )
                    # the model obeys the caps too: a member past them yields to an offline member
                    kept = trim_to_caps([c.peer_id for c in picked], caps, pick.keys)
                    known = {c.peer_id: c for c in (*self._as_candidates(keys, scores), *picked)}
                    return [
                        Teammate(k, known[k].name, known[k].score)
                        for k in kept
                        if k in known and k != self.me
                    ], ""
                except IoAError as exc:
                    fallback = failure_kind(exc)
            log.warning("LLM team-up failed (%s); keeping the offline choice", fallback)
        # ability coverage: every step of the offline plan has a member able to do it, and its best agent
        began = time.perf_counter()
        pool = [c for batch in found for c in batch if c.peer_id not in {*exclude, self.me}]
        steps, best = await self.node.run_sync(functools.partial(self._plan_best, goal, [*exclude, self.me]))
        members = cover_steps(
            self._as_candidates(pick.keys, scores),
            pool,
            steps,
            best,
            max_team=max_team,
            threshold=self.config.threshold,
            caps=caps,
        )
        marks["cover_s"] = time.perf_counter() - began
        return [Teammate(c.peer_id, c.name, c.score) for c in members], fallback

    async def find_all(
        self, goal: str, exclude: Sequence[str], marks: dict[str, float]
    ) -> list[list[Candidate]]:
        """The candidates of the goal and of each of its clauses (at most :data:`MAX_QUERIES` queries),
        their finds concurrent. The whole goal's find starts at once, the clauses' when the goal is
        split, in a worker thread: the first split loads the grammar's lexicon (~1 s, issue 26), which on
        the loop held up every agent of the process, this goal's find and its invitees included."""
        from ioa_p2p.matching import split_goal

        by_query: dict[str, list[Candidate]] = {}

        async def search(query: str) -> None:  # fills the directory (DHT lookups as configured)
            by_query[query] = await self.candidates(query, exclude, marks)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(search, goal[:2000])
            needs = await self.node.run_sync(functools.partial(split_goal, goal))
            queries = list(dict.fromkeys([goal[:2000], *(n.text for n in needs)]))[:MAX_QUERIES]
            for query in queries[1:]:
                nursery.start_soon(search, query)
        return [by_query.get(query, []) for query in queries]

    def _plan_best(
        self, goal: str, exclude: Sequence[str]
    ) -> tuple[Sequence[PlanStep], list[Candidate | None]]:
        """The offline plan's steps of ``goal`` and the best-ranked card for each (blocking: a worker
        thread; the plan reads the goal's grammar, the matcher embeds the steps' texts)."""
        from ioa_p2p.planning import plan_request

        steps = plan_request(goal).steps
        return steps, self._best_for(steps, exclude)

    def _best_for(self, steps: Sequence[PlanStep], exclude: Sequence[str]) -> list[Candidate | None]:
        """The best-ranked card for each step's text (blocking: the matcher runs in a worker thread)."""
        discovery = self.discovery
        assert discovery is not None and discovery.directory.ranker is not None
        out: list[Candidate | None] = []
        for step in steps[: MAX_QUERIES * 2]:
            found = [m for m in discovery.directory.ranker.rank(step.text, 3) if m.key not in exclude]
            picked = self._as_candidates([found[0].key], {found[0].key: found[0].score}) if found else []
            out.append(picked[0] if picked else None)
        return out

    def _as_candidates(self, keys: Sequence[str], scores: dict[str, float]) -> list[Candidate]:
        """The candidates of ``keys`` (peer IDs) whose cards this node holds, with their ``scores``."""
        from ioa_p2p.teaming.candidates import Candidate

        cards = [(key, self.members.card_of(key)) for key in keys]
        return [
            Candidate.from_card(card.card, scores.get(key, 0.0)) for key, card in cards if card is not None
        ]

    def _search_within(self, keys: Sequence[str]) -> Callable[[str], Awaitable[Sequence[Candidate]]]:
        """The model's ``search_agents``: the matcher re-ranks the shortlist, nothing beyond it."""
        discovery = self.discovery
        assert discovery is not None and discovery.directory.ranker is not None
        ranker = discovery.directory.ranker

        async def search(query: str) -> Sequence[Candidate]:
            rank = functools.partial(ranker.rank, query, len(keys), among=keys)
            found = await self.node.run_sync(rank)
            return self._as_candidates([m.key for m in found], {m.key: m.score for m in found})

        return search


__all__ = ["TeamFormation"]
