"""The modes ``bench_spam.py`` compares and one node's run of goals in a mode: the directory of honest and
spam cards (:func:`build`), the node's ranking, team choice and the evidence its teams leave
(:class:`Fold`), and the figures over every goal (:class:`Tally`). See ``bench_spam.py`` for what the
modes are and what is measured."""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from spam_attacks import spam_behaviour
from spam_world import NOW, Sketches, make_card

from ioa_p2p.conversation.reputation import Standing, reputation_prior
from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.identity import Identity
from ioa_p2p.matching import make_matcher
from ioa_p2p.teaming.exposure import (
    EXPOSURE_WINDOW,
    ExposurePolicy,
    TeamLog,
    ceiling_keys,
    spent_keys,
    unproven_slots_left,
)
from ioa_p2p.teaming.offline import LEAD_MARGIN, choose_team
from ioa_p2p.teaming.trust import NO_CAPS, TrustPolicy, trust_priors, unproven_keys

MATCHER = ["hybrid"]  # the node's ranker (--matcher)
#: The modes a run compares: no defences, the card and sketch defences, those with trust by age only
#: (young cards: a penalty and a cap), and with trust by evidence too (the cap on unproven members).
MODES = ("off", "on", "age", "trust", "strict", "lead", "kin", "exposure", "hard", "total")
#: ``strict``: ``max_unproven = 0`` (an unproven member only when nothing proven covers a need): a setting
#: for a node that would rather leave newcomers out, measured, not the default.
POLICIES = {
    "age": TrustPolicy(max_unproven=None),
    "trust": TrustPolicy(),
    "strict": TrustPolicy(max_unproven=0),
    "lead": TrustPolicy(),
    "kin": TrustPolicy(),
    "exposure": TrustPolicy(),
    "hard": TrustPolicy(),
    "total": TrustPolicy(),
}
#: ``lead``: ``trust`` and the lead under the caps (an unproven best card leads only when no proven card
#: comes within ``LEAD_MARGIN``: ``teaming/offline.py``); ``kin``: those and near-duplicate cards counted
#: as one in ``find`` and teams (``teaming/kin.py``). The earlier modes keep the best card as the lead.
LEADS = {
    "lead": LEAD_MARGIN,
    "kin": LEAD_MARGIN,
    "exposure": LEAD_MARGIN,
    "hard": LEAD_MARGIN,
    "total": LEAD_MARGIN,
}
KIN = {"kin", "exposure", "hard", "total"}
#: ``exposure``: ``kin`` and exposure bounded per time (``teaming/exposure.py``: an identity joins at
#: most ``per_window`` teams per window, one more per window since its first accepted task here, unless
#: nothing else can join); ``hard``: the same, ``strict`` (a spent identity never joins as a member).
#: ``total``: ``exposure`` and the total bound on unproven members over all teams per window (``[goals]
#: unproven_per_window``, off by default; here 1, or ``--unproven-per-window``).
EXPOSURE = {
    "exposure": ExposurePolicy(unproven_per_window=None),
    "hard": ExposurePolicy(strict=True, unproven_per_window=None),
    "total": ExposurePolicy(unproven_per_window=1),
}
#: The benchmark's clock: a goal every ``GOAL_SECONDS`` (120 goals in 20 minutes, a busy node: the
#: attack's goals all fall in one exposure window); with ``--warm`` the spam-free pass ended
#: ``WARM_GAP`` windows before the attack began (its evidence is that old).
GOAL_SECONDS = [10.0]
#: Whether a spent identity still under a flood's penalty is barred from joining as a member
#: (``TeamCaps.barred``; ``--bar-flooded``).
BAR_FLOODED = [True]
#: Whether a spent identity past its budget plus ``over_budget`` teams of the window is barred from joining
#: as a member (``teaming/exposure.py`` ``ceiling_keys``; ``--ceiling``; off: before 2026-11-29).
CEILING = [True]
WARM_GAP = 1.5


class World:
    """One directory: the ranker over every card, the honest cards' names, and what each spam identity is
    (``aged``: as old as the honest cards; ``delivers``: it does its tasks) and which honest ones are
    newcomers (``young_honest``: held for less than ``trust_age``, no task done yet)."""

    def __init__(self, ranker: CardRanker, names: dict[str, str]) -> None:
        self.ranker, self.names = ranker, names
        self.spam: set[str] = set()
        self.aged: set[str] = set()
        self.delivers: set[str] = set()
        self.young_honest: set[str] = set()


def build(
    honest: list[tuple[str, str]],
    spam: list[tuple[str, tuple[str, ...]]],
    defences: bool,
    sketches: Sketches | None = None,
    *,
    attack: str = "",
    newcomers: int = 0,
    kin: bool = False,
) -> World:
    """Every card indexed, the honest ones first; every ``newcomers``-th honest card (0: none) is young;
    ``kin``: the ranker counts near-duplicates as one."""
    ranker = CardRanker(make_matcher({"matcher": MATCHER[0]}), defences=defences, kin=kin)
    world = World(ranker, {})
    for i, (name, description) in enumerate(honest):
        identity = Identity.generate()
        card = make_card(identity, name, description)
        world.ranker.add(card)
        world.names[str(card.peer_id)] = name
        if newcomers and i % newcomers == 0:
            world.young_honest.add(str(card.peer_id))
        if sketches is not None:
            sketches.add(identity, card)
            sketches.honest.add(str(card.peer_id))
    world.ranker.refresh()  # the honest cards were there first
    for i, (description, skills) in enumerate(spam):
        identity = Identity.generate()
        card = make_card(identity, f"agent-{i}", description, skills)
        world.ranker.add(card)
        key = str(card.peer_id)
        world.spam.add(key)
        aged, delivers = spam_behaviour(attack, i)
        if aged:
            world.aged.add(key)
        if delivers:
            world.delivers.add(key)
        if sketches is not None:
            sketches.add(identity, card)
    if sketches is not None:  # when the node first saw each card (spam_world.ARRIVAL)
        sketches.schedule(attack, random.Random(f"arrival-{attack}"), recent=world.young_honest)
    return world


def run(
    world: World,
    goals: list[dict[str, Any]],
    passes: int,
    mode: str,
    sketches: Sketches | None = None,
    *,
    warm: bool = False,
) -> dict[str, Any]:
    """Every goal ``passes`` times in ``mode`` (:data:`MODES`): recall@5 of ``find``, the teams chosen,
    and what each team's signed history tells the node afterwards (with the defences on).

    ``warm``: the node worked before the attack: a spam-free pass over every other goal (its teams'
    signed outcomes are this node's evidence: every honest member did its task), then every goal is
    measured with spam; recall@5 is also given over the goals of the other half alone
    (``recall@5_new_goals``: goals the node had not met before)."""
    tally = Tally()
    tally.delivers = world.delivers
    before = goals[0::2] if warm else []
    tally.new = {id(g) for g in goals[1::2]} if warm else set()
    Fold(world, mode, sketches, tally).run(goals, before, passes)
    return tally.figures()


class Tally:
    """What the measured goals gave, over every fold."""

    def __init__(self) -> None:
        self.recalls: list[float] = []
        self.slots = self.teams_with_spam = self.teams = self.spam_leads = self.only_spam = 0
        self.joined: Counter[str] = Counter()
        self.sleeper_teams = 0  # teams with a sleeper (a spam identity that does its tasks)
        self.delivers: set[str] = set()
        self.team_recalls: list[float] = []  # share of a goal's gold agents in its team (what caps cost)
        self.new: set[int] = set()  # goals (by id) the node had not met before the attack
        self.new_recalls: list[float] = []
        self.rank_ms: list[float] = []
        self.honest_fetched: list[float] = []
        self.gold_fetched: list[float] = []  # share of a goal's gold agents among the cards fetched
        self.led: Counter[str] = Counter()  # teams each spam identity led
        self.while_spent: Counter[str] = Counter()  # teams each identity joined with its budget spent
        self.fetched_n: list[int] = []
        self.team_cpu_ms: list[float] = []  # CPU of choose_team per team (the defences' cost)
        #: honest agents first needed (in a goal's gold team) with no accepted work on record yet: when
        #: (the benchmark's clock), and when each first joined a team after that
        self.newcomer_needed: dict[str, float] = {}
        self.newcomer_joined: dict[str, float] = {}
        self.end = 0.0  # the benchmark's clock after the last measured goal

    def figures(self) -> dict[str, Any]:
        teams = max(1, self.teams)
        out = {
            "recall@5": round(statistics.mean(self.recalls), 4),
            "team_recall": round(statistics.mean(self.team_recalls), 4),
            "teams": self.teams,
            "teams_with_spam": round(self.teams_with_spam / teams, 4),
            "max_share_one_spam_identity": round(max(self.joined.values(), default=0) / teams, 4),
            "teams_led_by_spam": round(self.spam_leads / teams, 4),
            "teams_with_sleeper": round(self.sleeper_teams / teams, 4),
            "max_share_one_non_sleeper": round(
                max((n for k, n in self.joined.items() if k not in self.delivers), default=0) / teams, 4
            ),
            "teams_of_spam_only": round(self.only_spam / teams, 4),
            "spam_top5_slots": round(self.slots / (5 * teams), 4),
            "rank_ms_p50": round(statistics.median(self.rank_ms), 2),
            "team_cpu_ms_p50": round(statistics.median(self.team_cpu_ms), 2),
        }
        if self.joined:  # the spam identity in most teams: of them, how many it led
            key, count = self.joined.most_common(1)[0]
            out["top_spam_identity"] = {
                "teams": count, "led": self.led[key], "while_spent": self.while_spent[key],
                "sleeper": key in self.delivers,
            }  # fmt: skip
        out.update(self.newcomer_figures())
        if self.new_recalls:
            out["recall@5_new_goals"] = round(statistics.mean(self.new_recalls), 4)
        if self.honest_fetched:
            out["honest_share_of_fetched"] = round(statistics.mean(self.honest_fetched), 3)
            out["gold_fetched"] = round(statistics.mean(self.gold_fetched), 4)
            out["cards_fetched"] = round(statistics.mean(self.fetched_n), 1)
        return out

    def newcomer_figures(self) -> dict[str, Any]:
        """How long an honest newcomer waited for its first team after a goal first needed it (the
        benchmark's clock, seconds; one that never joined waited until the run's end at least)."""
        needed, joined = self.newcomer_needed, self.newcomer_joined
        if not needed:
            return {}
        waits = sorted(joined.get(k, self.end) - t for k, t in needed.items())
        return {
            "newcomers_needed": len(needed),
            "newcomers_joined": round(len(joined) / len(needed), 4),
            "newcomer_wait_s_p50": round(statistics.median(waits), 1),
            "newcomer_wait_s_p90": round(waits[int(0.9 * (len(waits) - 1))], 1),
            "newcomer_wait_s_max": round(waits[-1], 1),
        }


class Fold:
    """One node's run of goals from a fresh state (no standing known, nothing fetched yet)."""

    def __init__(self, world: World, mode: str, sketches: Sketches | None, tally: Tally) -> None:
        self.world, self.mode, self.sketches, self.tally = world, mode, sketches, tally
        self.defences = mode != "off"
        self.policy = POLICIES.get(mode)
        self.lead = LEADS.get(mode)
        self.kin = mode in KIN
        self.standings: dict[str, Standing] = {}
        self.seen: set[str] = set()  # cards fetched so far: the node knows their standing (breadth, copies)
        self.young: set[str] = set()
        self.caps = NO_CAPS
        self.exposure = EXPOSURE.get(mode)
        self.now = 0.0  # the benchmark's clock (seconds): a goal every GOAL_SECONDS
        self.log = TeamLog()  # the teams this node formed, for the exposure budget
        self.first_done: dict[str, float] = {}  # when each key's first accepted task was recorded
        self.publish()

    def publish(self) -> None:
        """The ranker's priors and the team caps from what the node knows now."""
        priors = {k: reputation_prior(s) for k, s in self.standings.items()} if self.defences else {}
        if self.policy is not None:
            self.young = young_now(self.world, self.standings)
            unproven = unproven_keys(self.world.names.keys() | self.world.spam, proven_keys(self.standings))
            self.caps = self.policy.caps(self.young, unproven)
            self.world.ranker.set_reference(proven_keys(self.standings))  # as the node: proven cards
            for key, value in trust_priors(self.young, self.policy).items():
                priors[key] = priors.get(key, 0.0) + value
        self.world.ranker.set_reputation(priors)

    def record(self, keys: Sequence[str]) -> None:
        """What the team's signed history tells this node afterwards (a spam member does no work)."""
        if not self.defences:
            return
        self.log.record(self.now, keys)
        for key in keys:
            standing = self.standings.setdefault(key, Standing())
            if key in self.world.spam and key not in self.world.delivers:
                standing.unanswered += 1
            else:
                standing.done += 1
                self.first_done.setdefault(key, self.now)
        self.publish()

    def team(self, goal: str, among: list[str] | None) -> Any:
        """The node's team choice in this mode."""
        ranker = self.world.ranker
        ranker.refresh()  # the priors last published, as CardRanker.shortlist applies them
        kin = ranker.kinship() if self.kin else None
        caps = self.caps
        if self.exposure is not None:  # who reached its budget of teams in the last window, now
            joined = self.log.joined(self.now - self.exposure.window)
            spent = spent_keys(joined, self.first_done, now=self.now, policy=self.exposure)
            barred = self.flooded(spent)
            if CEILING[0]:  # spent and past the teams a spent identity may add (ExposurePolicy.over_budget)
                barred |= ceiling_keys(joined, self.first_done, now=self.now, policy=self.exposure) & spent
            caps = replace(caps, spent=spent, strict=self.exposure.strict, barred=barred)
            left = unproven_slots_left(self.log, self.first_done, now=self.now, policy=self.exposure)
            if left is not None and caps.max_unproven is not None:  # TrustPolicy.caps(unproven_left=)
                caps = replace(caps, max_unproven=min(caps.max_unproven, left), unproven_left=left)
        started = time.process_time()
        pick = choose_team(
            goal, ranker.matcher, among=among, max_team=4, caps=caps, kin=kin, lead_margin=self.lead
        )
        self.tally.team_cpu_ms.append(1000 * (time.process_time() - started))
        self.tally.while_spent.update(k for k in pick.keys if k in caps.spent)
        return pick

    def flooded(self, keys: frozenset[str]) -> frozenset[str]:
        """The ``keys`` still under a flood's penalty (``dht/arrival.py``, as the node's
        ``CardSearch.flooded``): a spent one never joins as a member (``TeamCaps.barred``)."""
        book = None if self.sketches is None else self.sketches.arrivals
        if book is None or not keys or not BAR_FLOODED[0]:
            return frozenset()
        by_peer = {self.sketches.by_key[k].peer_id: k for k in keys if k in self.sketches.by_key}
        since = {
            p: NOW - int(1000 * (self.now - self.first_done.get(k, self.now))) for p, k in by_peer.items()
        }
        return frozenset(by_peer[p] for p in book.penalties(by_peer, NOW, proven_since=since))

    def run(self, measured: list[dict[str, Any]], before: list[dict[str, Any]], passes: int) -> None:
        honest = list(self.world.names)
        for goal in before:  # before the attack: no spam card is held yet
            pick = self.team(goal["goal"], honest)
            self.record(pick.keys)
            self.now += GOAL_SECONDS[0]
        if before:
            self.now += WARM_GAP * EXPOSURE_WINDOW
        for _ in range(passes):
            for goal in measured:
                self.goal(goal)
                self.now += GOAL_SECONDS[0]
        self.tally.end = self.now

    def goal(self, goal: dict[str, Any]) -> None:
        world, tally, policy, spam = self.world, self.tally, self.policy, self.world.spam
        ranker = world.ranker
        by_name = {v: k for k, v in world.names.items()}
        gold = {by_name[n] for n in goal["team"] if n in by_name}
        started = time.perf_counter()
        known = {k: v for k, v in ranker.priors().items() if k in self.seen} if self.defences else {}
        if policy is not None:  # a peer whose card the node never held is young by definition
            known.update((k, -policy.young_penalty) for k in self.young if k not in self.seen)
        held = self.seen if self.defences else set()  # cards the node holds (the fetch's breadth line)
        among = (
            None
            if self.sketches is None
            else self.sketches.fetched(
                goal["goal"],
                known,
                self.defences,
                held=held,
                proven=proven_keys(self.standings) if self.defences else (),
                proof={k: int(1000 * (self.now - t)) for k, t in self.first_done.items()},
                young=dict.fromkeys(self.young, policy.young_penalty) if policy is not None else None,
            )  # fmt: skip
        )
        if among is not None:
            tally.honest_fetched.append(sum(k not in spam for k in among) / max(1, len(among)))
            tally.fetched_n.append(len(among))
            tally.gold_fetched.append(len(gold & set(among)) / len(gold) if gold else 0.0)
            self.seen.update(among)
        top = [m.key for m in ranker.rank(goal["goal"], 5, among=among)]
        tally.rank_ms.append((time.perf_counter() - started) * 1000)
        tally.recalls.append(len(gold & set(top)) / len(gold) if gold else 0.0)
        if id(goal) in tally.new:
            tally.new_recalls.append(tally.recalls[-1])
        tally.slots += sum(k in spam for k in top)
        for key in gold - spam:  # an honest agent this goal needs, with no accepted work here yet
            if key not in self.first_done and key not in tally.newcomer_needed:
                tally.newcomer_needed[key] = self.now
        pick = self.team(goal["goal"], among)
        for key in pick.keys:
            if key in tally.newcomer_needed:
                tally.newcomer_joined.setdefault(key, self.now)
        tally.teams += 1
        tally.team_recalls.append(len(gold & set(pick.keys)) / len(gold) if gold else 0.0)
        bad = [k for k in pick.keys if k in spam]
        tally.teams_with_spam += bool(bad)
        tally.spam_leads += bool(pick.keys) and pick.keys[0] in spam
        if pick.keys and pick.keys[0] in spam:
            tally.led[pick.keys[0]] += 1
        tally.only_spam += bool(bad) and len(bad) == len(pick.keys)
        tally.joined.update(bad)
        tally.sleeper_teams += any(k in world.delivers for k in bad)
        self.record(pick.keys)


def proven_keys(standings: dict[str, Standing]) -> set[str]:
    return {k for k, s in standings.items() if s.done}


def young_now(world: World, standings: dict[str, Standing]) -> set[str]:
    """The young keys (:func:`~ioa_p2p.teaming.trust.young_keys`): spam that is not aged and honest
    newcomers, unless a task done is on record (every other card was held for longer than ``trust_age``)."""
    proven = proven_keys(standings)
    return {k for k in (world.spam - world.aged) | world.young_honest if k not in proven}
