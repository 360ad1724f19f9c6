"""ioa_p2p.teaming.exposure: an identity joins a few of a node's teams per window until its evidence has
aged (pure); in team formation with made-up cards and two shapes of sleeper families."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import pytest

from ioa_p2p.errors import UsageError
from ioa_p2p.matching import CardProfile, lite_matcher
from ioa_p2p.matching.base import Match
from ioa_p2p.teaming import Kinship, TeamCaps, TrustPolicy, choose_team, kin_threshold, unproven_keys
from ioa_p2p.teaming.exposure import (
    OFF,
    ExposurePolicy,
    TeamLog,
    newcomers_closed,
    spent_keys,
    unproven_slots_left,
)
from ioa_p2p.teaming.offline import PoolScores, lead_first
from ioa_p2p.teaming.trust import trim_to_caps

from .test_teaming_kin import AGENTS  # an honest population: agents that do unrelated things

HOUR = 3600.0

#: An honest newcomer (no task done for this node yet) that alone does what one goal asks.
NEWCOMER = {"birder": "Identifies bird species from recordings of their songs and calls."}
#: Sleeper family, shape 1: the plotter's card in other words, each from a new identity.
PARAPHRASES = [
    "I help with this: draws plots and charts from CSV tables with matplotlib; scatter, bar and line plots.",
    "Reliable service. Charts and plots drawn from CSV tables with matplotlib: bar, line and scatter plots.",
    "Draws line, bar and scatter plots and charts from CSV tables with matplotlib - fast and cheap.",
]
#: Sleeper family, shape 2: two honest skills joined into one card (no single honest card is its copy).
MIXTURES = [
    "Translates reports between French and English and draws bar charts of their tables.",
    "Professional assistant. Charts from CSV tables; translation of documents from French to English.",
    "Plots sales tables as bar and line charts, and translates French documents into English.",
]
#: A window of goals: single-skill ones an honest specialist leads, and one that needs two skills.
GOALS = [
    "Plot the monthly sales in this CSV file as a line chart",
    "Translate this French letter into English",
    "Make a scatter plot of height against weight from this CSV table",
    "Translate the German contract into English, keeping its layout",
    "Draw a bar chart of the survey answers in this CSV file",
    "Translate these French minutes into English and plot the budget table",
]


def test_the_budget_grows_by_one_step_per_window_of_evidence() -> None:
    policy = ExposurePolicy(window=HOUR, per_window=1)
    assert policy.budget(None, now=10 * HOUR) == 1  # no accepted work on record: one team per window
    assert policy.budget(5 * HOUR, now=5.5 * HOUR) == 1
    assert policy.budget(5 * HOUR, now=7.9 * HOUR) == 3  # two whole windows of evidence
    assert policy.budget(9 * HOUR, now=5 * HOUR) == 1  # a clock that went back gives nothing
    assert ExposurePolicy(per_window=2).budget(0.0, now=HOUR) == 4
    assert OFF.budget(None, now=0.0) is None
    for bad in ({"window": 0.0}, {"per_window": 0}):
        with pytest.raises(UsageError):
            ExposurePolicy(**bad)  # type: ignore[arg-type]


def test_the_team_log_is_bounded_and_counts_the_window() -> None:
    log = TeamLog(limit=3)
    log.record(0.0, ["a", "b", "a"])  # a member counts once per team
    log.record(10.0, ["a"])
    log.record(20.0, ["b"])
    assert log.joined(0.0) == Counter({"a": 2, "b": 2})
    assert log.joined(10.0) == Counter({"a": 1, "b": 1})
    log.record(30.0, ["c"])  # the oldest team is forgotten
    assert len(log) == 3 and log.joined(0.0) == Counter({"a": 1, "b": 1, "c": 1})
    with pytest.raises(UsageError):
        TeamLog(limit=0)


def test_spent_keys_are_those_at_their_budget() -> None:
    policy = ExposurePolicy(window=HOUR, per_window=1)
    joined = {"fresh": 1, "worker": 1, "veteran": 2, "trusted": 5}
    first_done = {"worker": 9.5 * HOUR, "veteran": 7.0 * HOUR}  # veteran: three windows on record
    spent = spent_keys(joined, first_done, now=10 * HOUR, policy=policy, exempt={"trusted"})
    assert spent == {"fresh", "worker"}
    assert spent_keys(joined, first_done, now=10 * HOUR, policy=OFF) == frozenset()


def test_a_spent_identity_is_capped_in_every_team_path() -> None:
    caps = TrustPolicy(max_unproven=None).caps((), (), spent={"sleeper"})
    assert caps.active and caps.limited("sleeper") and caps.blocks("sleeper", ["lead"])
    assert not caps.blocks("honest", ["lead"]) and not TeamCaps().active
    # the LLM team-up's pick: a spent member yields to an offline member no cap blocks
    assert trim_to_caps(["lead", "sleeper"], caps, ["lead", "honest"]) == ["lead", "honest"]

    def scored(goal: dict[str, float]) -> PoolScores:
        ranked = tuple(Match(k, 0.5, v, {}) for k, v in sorted(goal.items(), key=lambda kv: -kv[1]))
        return PoolScores(ranked, (), goal, {})

    # a spent best card leads only when nothing the caps leave alone comes within the margin
    assert lead_first(scored({"sleeper": 10.0, "honest": 9.5}), caps).ranked[0].key == "honest"
    assert lead_first(scored({"sleeper": 10.0, "honest": 5.0}), caps).ranked[0].key == "sleeper"


class Node:
    """A node forming a team for each goal, a goal every ``every`` seconds, recording what its signed
    histories would say: every member did its task (the sleepers too: they do real work). ``defended``:
    near-duplicates count as one (kin) and ``exposure`` bounds each identity's teams; else only the cap on
    unproven members holds (the defences before this rule)."""

    def __init__(
        self, sleepers: Sequence[str], exposure: ExposurePolicy, *, defended: bool, total: bool = False
    ) -> None:
        self.matcher = lite_matcher()
        cards = {name: CardProfile.make(name, text) for name, text in {**AGENTS, **NEWCOMER}.items()}
        self.sleepers = {f"sleeper-{i}": text for i, text in enumerate(sleepers)}
        cards.update({key: CardProfile.make(key, text) for key, text in self.sleepers.items()})
        self.matcher.index(cards)
        self.keys = list(cards)
        self.held = {key: float(i) for i, key in enumerate(self.keys)}  # the honest cards were held first
        self.line = kin_threshold(self.matcher.vectors(list(AGENTS))) if defended else 2.0
        self.exposure, self.policy = exposure, TrustPolicy(young_penalty=0.0, max_young=None)
        self.log, self.now = TeamLog(), 0.0
        self.first_done: dict[str, float] = {}
        self.teams: list[tuple[str, ...]] = []
        self.total = total  # the window's total of unproven members bounds the teams too

    def team(self, goal: str) -> tuple[str, ...]:
        joined = self.log.joined(self.now - self.exposure.window)
        spent = spent_keys(joined, self.first_done, now=self.now, policy=self.exposure)
        unproven = unproven_keys(self.keys, self.first_done)
        left = None
        if self.total:
            left = unproven_slots_left(self.log, self.first_done, now=self.now, policy=self.exposure)
        caps = self.policy.caps((), unproven, spent, strict=self.exposure.strict, unproven_left=left)
        kin = Kinship(self.matcher.vectors, self.line, frozenset(self.first_done), self.held)
        return choose_team(goal, self.matcher, caps=caps, kin=kin).keys

    def run(self, goals: Sequence[str], every: float) -> Counter[str]:
        for goal in goals:
            keys = self.team(goal)
            self.teams.append(keys)
            self.log.record(self.now, keys)
            for key in keys:
                self.first_done.setdefault(key, self.now)
            self.now += every
        return Counter(k for team in self.teams for k in team if k in self.sleepers)


@pytest.mark.parametrize("family", [PARAPHRASES * 4, MIXTURES * 4], ids=["paraphrases", "mixtures"])
def test_a_sleeper_family_cannot_exceed_its_budget_while_an_honest_newcomer_joins(
    family: list[str],
) -> None:
    """Twelve sleeper identities that do every task they get, 24 goals in one window (one every 2
    minutes). Without the defences the sleepers that won their first team join team after team (their
    evidence makes them proven, the honest agents they copy are not). With kin and the strict exposure
    bound no sleeper joins more than one team as a member; a spent card still leads a goal that nothing less
    limited matches within the margin (the two-skill goal a mixture was written for), as the honest
    specialists still lead theirs. An honest newcomer still joins the goal it alone covers; a window of
    evidence later the budget is one more team for those that kept delivering."""
    goals = GOALS * 4
    loose = Node(family, OFF, defended=False)
    assert max(loose.run(goals, every=120.0).values()) > 4  # the attack works without the defences
    node = Node(family, ExposurePolicy(window=HOUR, per_window=1, strict=True), defended=True)
    bound = node.run(goals, every=120.0)
    members = Counter(k for team in node.teams for k in team[1:] if k in node.sleepers)
    assert max(members.values(), default=0) <= 1
    leads = Counter(team[0] for team in node.teams)
    assert leads["plotter"] == 12 and leads["translator"] >= 8  # every single-skill goal
    assert sum(bound.values()) <= 6  # the two-skill goal's lead (4) and a member per window at most
    # an honest newcomer still joins the one goal it alone covers, while the caps are in force
    assert node.run(["Which bird is singing in this recording of a dawn chorus?"], every=120.0) == bound
    assert node.teams[-1] == ("birder",)
    # two windows later a sleeper that delivered has two windows of evidence: three teams, no more
    node.now, node.teams = 2 * HOUR, []
    node.run(goals, every=120.0)
    later = Counter(k for team in node.teams for k in team[1:] if k in node.sleepers)
    assert max(later.values(), default=0) <= 3


def test_the_honest_agents_a_window_of_evidence_frees(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent with accepted work on record for longer than a few windows is never spent by a busy
    hour: its budget exceeds the teams it is asked for."""
    policy = ExposurePolicy(window=HOUR, per_window=1)
    first: Mapping[str, float] = {"plotter": 0.0}
    assert spent_keys({"plotter": 5}, first, now=6 * HOUR, policy=policy) == frozenset()
    assert spent_keys({"plotter": 5}, first, now=2 * HOUR, policy=policy) == {"plotter"}


def test_the_reputation_book_counts_the_teams_of_the_chats_this_node_created() -> None:
    """The goals service's book: the teams are the chats this node created (their start, their members),
    an identity's first accepted work is the start of the first chat it earned ``done`` in; a peer at its
    budget is spent (and handed to discovery), a trusted one never, and teams older than the window no
    longer count."""
    from types import SimpleNamespace

    from ioa_p2p.conversation.messages import RESULT, TASK_ASYNC, task_id
    from ioa_p2p.history.bodies import ChatMessage
    from ioa_p2p.identity import Identity
    from ioa_p2p.node.goals.reputation import ReputationBook
    from ioa_p2p.teaming.trust import OFF as NO_TRUST
    from ioa_p2p.wire.envelope import Envelope
    from ioa_p2p.wire.schema import build

    me, worker, idle, partner, stranger = (Identity.generate() for _ in range(5))

    def message(author: Identity, chat: bytes, kind: str, content: dict[str, object], seq: int) -> Envelope:
        body = build(ChatMessage, chat_id=chat, parents=(bytes(32),), kind=kind, content=content)
        return Envelope.create(author, body, seq=seq, ts=1000 + seq)

    def done_by(agent: Identity, chat: bytes) -> list[Envelope]:
        task = {"assignee": str(agent.peer_id), "title": "t", "description": "d"}
        turn = {"prev": "", "height": 1, "level": 0, "reason": "", "fail_tasks": [], "text": "go",
                "tasks": [task], "next": []}  # fmt: skip
        assign = message(me, chat, TASK_ASYNC, turn, 1)
        result = {"text": "", "data": {}, "files": {}, "failure": None, "ok": True}
        return [assign, message(agent, chat, RESULT, {**result, "task_id": task_id(assign.hash.hex(), 0)}, 2)]

    chats: dict[bytes, tuple[Identity, float, list[Identity], list[Envelope]]] = {}
    now = 100_000.0
    for i, (creator, started, members) in enumerate(
        [
            (me, now - 7200, [worker]),  # two hours ago: the worker's first accepted work
            (me, now - 600, [worker, idle, partner]),
            (me, now - 300, [worker, partner]),
            (stranger, now - 200, [idle]),  # not a team this node formed; its start is the stranger's word
            (me, now - 100, [worker, idle]),  # not a goal (a chat the operator opened): not a team
        ]
    ):
        chat = bytes([i + 1]) * 32
        doer = worker if creator is me else idle  # in the stranger's chat: a task this node assigned
        history = done_by(doer, chat) if creator is not me or worker in members else []
        chats[chat] = (creator, started, [creator, *members], history)
    store = SimpleNamespace(
        member_chats=lambda: list(chats),
        history=lambda c: chats[c][3],
        get=lambda c: SimpleNamespace(
            creator=chats[c][0].peer_id,
            topic="goal: chart and translate" if c != bytes([5]) * 32 else "a chat about lunch",
            genesis=SimpleNamespace(ts=int(chats[c][1] * 1000)),
            members=lambda: frozenset(p.peer_id for p in chats[c][2]),
        ),
    )
    directory = SimpleNamespace(pin=lambda members: None, ranker=None, __iter__=lambda: iter(()))
    discovery = SimpleNamespace(
        node=SimpleNamespace(now=lambda: now, peer_id=me.peer_id), directory=directory
    )
    policy = ExposurePolicy(window=HOUR, per_window=1, unproven_per_window=1)
    book = ReputationBook(store, discovery, NO_TRUST, (str(partner.peer_id),), exposure=policy)  # type: ignore[arg-type]
    assert book.update() and book.first_done == {str(worker.peer_id): now - 7200}
    assert book.expose()
    # the worker: two teams this hour, a budget of three (two windows of evidence); the idle member: one
    # team with nothing accepted on record, its budget; the partner is trusted
    assert book.spent == {str(idle.peer_id)}
    # and the idle member took the window's one slot for unproven identities (unproven_per_window = 1)
    assert book.left == 0
    assert not book.expose()  # unchanged
    now += 2 * HOUR  # an hour later no team of the last window is left
    assert book.expose() and book.spent == frozenset() and book.left == 1
    off = ReputationBook(store, discovery, NO_TRUST, exposure=OFF)  # type: ignore[arg-type]
    off.update()
    assert not off.expose() and off.spent == frozenset()


def test_a_spent_member_yields_to_any_unspent_candidate_able_to_join_else_joins() -> None:
    """The default (not strict): the exposure bound is stronger than the unproven cap, and weaker than
    need: a spent member joins when no other candidate reaches the join threshold."""
    from ioa_p2p.teaming.join import stand_in

    caps = TeamCaps(unproven=frozenset({"new"}), max_unproven=0, spent=frozenset({"busy"}))
    assert stand_in((0.9, "busy"), None, (0.5, "new"), caps, 0.4) == (0.5, "new")
    assert stand_in((0.9, "busy"), (0.45, "ok"), (0.5, "new"), caps, 0.4) == (0.45, "ok")
    assert stand_in((0.9, "busy"), None, (0.3, "new"), caps, 0.4) == (0.9, "busy")  # nothing else can
    assert stand_in((0.9, "new"), None, (0.5, "other"), caps, 0.4) == (0.9, "new")  # the unproven cap's rule


def test_a_small_network_keeps_its_only_agents_for_every_goal() -> None:
    """No crowd: twenty agents, one for each skill, 24 goals in an hour. The bound (not strict) leaves
    every team as it was without it: nothing else can do what the spent plotter and translator do."""
    goals = GOALS * 4
    free = Node([], OFF, defended=True)
    free.run(goals, every=120.0)
    bound = Node([], ExposurePolicy(window=HOUR, per_window=1), defended=True)
    bound.run(goals, every=120.0)
    assert bound.teams == free.teams
    assert all("plotter" in team for goal, team in zip(goals, bound.teams, strict=True) if "plot" in goal)


def test_a_spent_member_pays_one_standard_deviation_of_score() -> None:
    """The default bound: a spent member's goal and need scores lose SPENT_PENALTY (the lead is left
    alone), so it joins only when it is still needed after that."""
    from ioa_p2p.teaming.offline import SPENT_PENALTY, lowered

    scored = PoolScores((), (), {"lead": 9.0, "busy": 8.0, "other": 7.5}, {0: {"busy": 6.0, "other": 5.8}})
    low = lowered(scored, {"busy"}, SPENT_PENALTY)
    assert SPENT_PENALTY == 1.0
    assert low.goal == {"lead": 9.0, "busy": 7.0, "other": 7.5} and low.alone[0] == {
        "busy": 5.0,
        "other": 5.8,
    }
    assert lowered(scored, (), SPENT_PENALTY) is scored


def test_the_unproven_members_of_a_window_are_counted_over_every_team() -> None:
    """A member slot counts when its identity had no accepted work on record before that team (the team
    that brought its first accepted work counts it), trusted identities never, and a team formed while
    the node had evidence for nobody counts none (nobody was unproven then)."""
    log = TeamLog()
    log.record(0.0, ["a", "b"])  # the node's first team: no evidence yet
    log.record(10.0, ["a", "c", "d"])  # a proven by then; c earns its first accepted work here; d trusted
    log.record(20.0, ["c", "e"])  # c proven by then; e never delivers
    first_done = {"a": 0.0, "b": 0.0, "c": 10.0, "d": 10.0}
    assert log.unproven_joins(0.0, first_done, exempt={"d"}) == 2  # c at 10, e at 20
    assert log.unproven_joins(15.0, first_done, exempt={"d"}) == 1  # the window's teams only
    assert log.unproven_joins(0.0, first_done) == 3
    assert log.unproven_joins(0.0, {}) == 0  # no evidence at all: nobody unproven
    policy = ExposurePolicy(window=HOUR, per_window=1, unproven_per_window=2)
    assert newcomers_closed(log, first_done, now=30.0, policy=policy, exempt={"d"})
    assert unproven_slots_left(log, first_done, now=30.0, policy=policy) == 0  # 3 given, never below 0
    assert unproven_slots_left(log, first_done, now=30.0, policy=OFF) is None
    assert not newcomers_closed(log, first_done, now=HOUR + 15.0, policy=policy)  # the window moved on
    assert not newcomers_closed(log, first_done, now=30.0, policy=OFF)
    with pytest.raises(UsageError):
        ExposurePolicy(unproven_per_window=0)


def test_a_closed_window_takes_an_unproven_member_only_where_nothing_proven_can_join() -> None:
    from ioa_p2p.teaming.join import stand_in

    policy = TrustPolicy(max_unproven=1)
    open_caps, caps = policy.caps((), {"new"}, unproven_left=3), policy.caps((), {"new"}, unproven_left=0)
    assert open_caps.max_unproven == 1 and caps.max_unproven == 0
    assert not open_caps.blocks("new", ["lead"]) and caps.blocks("new", ["lead"])
    assert caps.closed_to("new") and not open_caps.closed_to("new") and caps.tier("new") == 3
    assert caps.over_total("new", ["lead"]) and not open_caps.over_total("new", ["lead", "new2"])
    assert stand_in((0.9, "new"), (0.5, "proven"), None, caps, 0.4) == (0.5, "proven")
    assert stand_in((0.9, "new"), (0.3, "proven"), None, caps, 0.4) == (0.9, "new")  # needed: it joins
    assert TrustPolicy(max_unproven=None).caps((), {"new"}, unproven_left=0).max_unproven is None
    assert policy.caps((), {"new"}).unproven_left is None  # no total bound


@pytest.mark.parametrize("family", [PARAPHRASES * 4, MIXTURES * 4], ids=["paraphrases", "mixtures"])
def test_many_sleeper_identities_share_the_windows_few_unproven_slots(family: list[str]) -> None:
    """The bound per identity does not bound how many identities there are: on a node whose honest agents
    have three windows of evidence, twelve sleepers (kin off: each its own identity) each join a team of
    the window as a newcomer and do their task. With the total bound (one unproven slot per window) one
    sleeper identity gets in; a closed window also keeps out an unproven member that covers nothing the
    team lacks. An honest newcomer that alone covers a goal still leads it."""
    goals = GOALS * 4
    policy = ExposurePolicy(window=HOUR, per_window=1, unproven_per_window=1)
    nodes = []
    for total in (False, True):
        node = Node(family, policy, defended=False, total=total)
        node.first_done, node.now = dict.fromkeys(AGENTS, 0.0), 3 * HOUR
        nodes.append((node, node.run(goals, every=120.0)))
    (per_identity, loose), (bounded, tight) = nodes
    assert len(loose) >= 9 and len(tight) <= 1  # sleeper identities in the window's teams
    assert sum(any(k in bounded.sleepers for k in team[1:]) for team in bounded.teams) <= 1
    assert newcomers_closed(bounded.log, bounded.first_done, now=bounded.now, policy=policy)
    bounded.run(["Which bird is singing in this recording of a dawn chorus?"], every=120.0)
    assert bounded.teams[-1] == ("birder",)


def test_a_spent_identity_from_a_flood_is_barred_even_where_it_alone_covers_a_need() -> None:
    """``TeamCaps.barred`` (the spent identities still under a flood's penalty, dht/arrival.py): where a
    spent honest agent would join because nothing else covers a need, a barred one does not, in the
    offline team, in ability coverage and in the LLM team-up's pick; it may still lead."""
    from ioa_p2p.teaming.candidates import Candidate
    from ioa_p2p.teaming.coverage import add_able

    matcher = lite_matcher()
    cards = {name: CardProfile.make(name, text) for name, text in {**AGENTS, **NEWCOMER}.items()}
    matcher.index(cards)
    goal = "Draw bar and line charts of the sales table in this CSV file, and identify one bird song"
    free = choose_team(goal, matcher).keys
    assert free[0] != "birder" and "birder" in free
    spent = TrustPolicy(max_unproven=None, young_penalty=0.0).caps((), (), spent={"birder"})
    assert "birder" in choose_team(goal, matcher, caps=spent).keys  # needed: it joins
    barred = TeamCaps(spent=frozenset({"birder"}), barred=frozenset({"birder"}))
    assert "birder" not in choose_team(goal, matcher, caps=barred).keys
    birds = "Identify the bird species singing in these recordings"
    assert choose_team(birds, matcher, caps=barred).keys[0] == "birder"  # the lead is left alone
    # the LLM team-up's pick: a barred member with no stand-in is dropped, a spent one stays
    assert trim_to_caps(["lead", "birder"], barred, ["lead"]) == ["lead"]
    assert trim_to_caps(["lead", "birder"], spent, ["lead"]) == ["lead", "birder"]
    # ability coverage: a barred agent is never added for a step, a spent one when no other can
    lead = Candidate("lead", "lead", "plots", 0.9, abilities=("plot",))
    birder = Candidate("birder", "birder", "birds", 0.8, abilities=("audio",))
    assert add_able([lead], [lead, birder], [["audio"]], max_team=4, caps=spent) == [lead, birder]
    assert add_able([lead], [lead, birder], [["audio"]], max_team=4, caps=barred) == [lead]
