"""ioa_p2p.matching: profiles, text, BM25, goal needs, late index, calibration (no model weights needed)."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import threading

import numpy as np
import pytest

from ioa_p2p.errors import ConfigError, UsageError
from ioa_p2p.matching import HYBRID, CardProfile, Need, make_matcher, split_goal, text
from ioa_p2p.matching.encoders import TokenStates, is_content_token
from ioa_p2p.matching.goals import MAX_NEEDS
from ioa_p2p.matching.late import LateIndex
from ioa_p2p.matching.lexical import BM25Index
from ioa_p2p.matching.text import language_names, media_words, terms


def test_terms_stem_and_drop_function_words() -> None:
    assert terms("Translates the reports; translating a report") == [
        "translat",
        "report",
        "translat",
        "report",
    ]
    assert terms("C++ and node.js in S3") == ["c++", "node.js", "s3"]
    assert language_names(["ja", "pt-BR", "Klingon"]) == ["japanese", "portuguese", "Klingon"]
    assert media_words(["image/png", "application/pdf"]) == ["image png", "pdf"]


def test_profile_texts_use_structured_fields_when_present() -> None:
    plain = CardProfile.make("py-plotter", "")
    assert plain.dense_text() == "py plotter" and not plain.structured
    card = CardProfile.make(
        "reader", "Reads scans.", skills=["ocr"], languages=["de"], input_types=["application/pdf"]
    )
    assert card.structured
    assert card.dense_text() == "Reads scans. Skills: ocr. Languages: german. Input: pdf."
    fields = card.lexical_fields()
    assert fields["languages"] == "german" and fields["media"] == "pdf" and fields["name"] == "reader"
    with pytest.raises(UsageError, match="unknown profile fields"):
        CardProfile.make("x", "y", skils=["typo"])
    assert CardProfile.make("x", "y", skills=["a", " a ", ""]).skills == ("a",)


def test_bm25_ranks_by_rare_shared_terms_and_updates() -> None:
    index = BM25Index()
    index.add("tokyo", {"description": "Share prices on the Tokyo Stock Exchange"})
    index.add("crypto", {"description": "Prices of Bitcoin and Ether tokens"})
    index.add("weather", {"description": "Weather forecasts"})
    scores = index.scores("What did Keyence shares do in Tokyo?")
    assert max(scores, key=lambda k: scores[k]) == "tokyo" and scores["tokyo"] > 0.0
    assert "weather" not in scores
    index.add("tokyo", {"description": "Weather in Tokyo"})  # re-indexing replaces the document
    index.remove("weather")
    assert len(index) == 2 and index.scores("forecasts") == {}
    assert index.scores("tokyo", among={"crypto"}) == {}


def _texts(goal: str) -> list[str]:
    return [n.text for n in split_goal(goal)]


@pytest.mark.parametrize(
    ("goal", "needs"),
    [
        ("Sum the sales figures and plot them as a chart", ["Sum the sales figures", "plot them as a chart"]),
        ("add 2 and 3", ["add 2 and 3"]),  # a noun list stays whole
        ("1. compute 2+2\n2. write a haiku", ["compute 2+2", "write a haiku"]),
        ("Compute the total, and then summarize the docs", ["Compute the total", "summarize the docs"]),
        ("   ", []),
    ],
)  # fmt: skip
def test_split_goal_on_sequencing_words_lists_and_verbs(goal: str, needs: list[str]) -> None:
    assert _texts(goal) == needs


def test_split_goal_cuts_where_a_verb_starts_a_clause() -> None:
    assert _texts("Transcribe my lecture recording and turn it into 30 flashcards.") == [
        "Transcribe my lecture recording",
        "turn it into 30 flashcards",
    ]
    # verbs the old fixed list missed, found in the lexicon: email, put, turn
    assert _texts("Find the Spanish articles, put them into English and email them to Ana") == [
        "Find the Spanish articles",
        "put them into English",
        "email them to Ana",
    ]
    # noun lists, numbers and proper nouns after "and"/"or" stay inside their clause
    assert _texts("I've got a lamb shoulder, rosemary and a bag of potatoes") == [
        "I've got a lamb shoulder, rosemary and a bag of potatoes"
    ]
    assert _texts("Is it on Netflix or Prime?") == ["Is it on Netflix or Prime?"]
    assert _texts("add 2 and 3") == ["add 2 and 3"]
    assert _texts("How many cars passed between 8 and 9 am?") == ["How many cars passed between 8 and 9 am?"]
    # a noun that can be a verb counts as one only with an object: "and email marketing" is a noun
    assert _texts("Plan the launch and email marketing") == ["Plan the launch and email marketing"]
    # questions and subject + verb clauses after a connective are clauses too
    assert _texts("What was reported this week, and how has NVDA traded since?") == [
        "What was reported this week",
        "how has NVDA traded since?",
    ]


def test_split_goal_tells_requests_from_context() -> None:
    needs = split_goal(
        "Someone in accounts clicked a 'DocuSign' email. Was it a scam? Set up paging if a server misbehaves."
    )
    assert [(n.kind, n.asks) for n in needs] == [
        ("statement", False),
        ("question", True),
        ("imperative", True),
    ]
    heading = split_goal("Three days in Kyoto in November: plan our sightseeing.")
    assert [n.asks for n in heading] == [False, True]
    wants = split_goal("I need a holder for my router; our robot has to lift the tote")
    assert [n.kind for n in wants] == ["request", "request"]
    only = split_goal("Our GitHub Actions pipeline fails at the deploy step.")
    assert len(only) == 1 and only[0].asks  # nothing else asks: the statement is the need


def test_split_goal_bounds() -> None:
    assert [n.index for n in split_goal("Find the articles, put them into English, then rewrite them")] == [
        0,
        1,
        2,
    ]
    assert split_goal("   ") == ()
    assert split_goal("...") == (Need("...", 0),)
    many = split_goal("; ".join(f"check number {i} here" for i in range(10)), max_needs=4)
    assert len(many) == 4 and "number 9" in many[-1].text
    long = split_goal("Translate " + ", then translate ".join(f"file {i}" for i in range(3000)))
    assert len(long) == MAX_NEEDS and long[-1].text.endswith("file 2999")


def _states(tokens: list[str], seed: int) -> TokenStates:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((len(tokens), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return TokenStates(tuple(tokens), vectors.astype(np.float16))


def test_late_index_scores_max_similarity_and_bounds_its_cache() -> None:
    late = LateIndex(capacity=2)
    a, b, c = _states(["gpu", "notebook"], 1), _states(["plot"], 2), _states(["tide"], 3)
    late.add("a", a.tokens, a)
    late.add("b", b.tokens, b)
    late.add("c", c.tokens, c)  # evicts "a" (least recently used)
    assert late.missing(["a", "b", "c", "unknown"]) == ["a"]
    late.put("a", a)
    scores = late.scores(TokenStates(a.tokens[:1], a.vectors[:1]), ["a", "b", "c"])
    assert set(scores) == {"a", "c"}  # "b" was evicted by putting "a" back
    assert scores["a"] == pytest.approx(1.0, abs=1e-2) and scores["c"] < 0.5
    assert late.remove("a") and not late.remove("a") and len(late) == 2
    with pytest.raises(UsageError):
        LateIndex(capacity=0)


def test_content_tokens_and_calibration() -> None:
    assert is_content_token("##ing") and is_content_token("gpu")
    assert not is_content_token("[CLS]") and not is_content_token("the") and not is_content_token(",")
    assert 0.0 < HYBRID.probability(0.0) < HYBRID.probability(10.0) < 1.0
    p = 0.35  # probability is the logistic of offset + slope * fused: its inverse gives p back
    fused = (math.log(p / (1.0 - p)) - HYBRID.offset) / HYBRID.slope
    assert HYBRID.probability(fused) == pytest.approx(p)
    assert HYBRID.probability(-1e6) == 0.0


def test_make_matcher_rejects_bad_settings() -> None:
    with pytest.raises(ConfigError, match="unknown matcher"):
        make_matcher({"matcher": "bert"})
    with pytest.raises(ConfigError, match="unknown matcher options"):
        make_matcher({"shortlst": 3})
    with pytest.raises(ConfigError, match="positive integer"):
        make_matcher({"shortlist": 0})
    assert make_matcher({"matcher": "lite"}).model_id == "wordllama/l2_supercat/256"


def test_split_goal_keeps_code_blocks_out_and_never_fails_on_odd_text() -> None:
    goal = "Run this Python code:\n```python\ntotal = sum(x)\nprint(total)\n```"
    assert [n.text for n in split_goal(goal)] == ["Run this Python code"]
    assert split_goal("```python\nprint(1)\n```")[0].text.startswith("```")  # only code: the whole goal
    # one-word clauses after a cut, a lone word, punctuation only, an unclosed fence
    for odd in ["Total", "do it; total", "a, b; c", "?!", ":", "Plot it:\n```\nx", "x y: z\n\n- w"]:
        for need in split_goal(odd):
            assert need.text


def test_threads_stemming_at_once_get_the_stems_one_thread_gets() -> None:
    """The nodes of one process embed cards in worker threads: one Snowball stemmer shared by them raised
    IndexError or returned another word's stem (then cached for good), e.g. while eight nodes warmed up in
    tests/test_discovery_net.py. Uncached stems of 6,000 words, four threads, a thread switch every 1 µs."""
    words = [
        "".join(letters) + ending
        for letters in itertools.product("abcdefghij", repeat=3)
        for ending in ("ational", "izations", "fulness", "ements", "iveness", "ing")
    ]
    stem_uncached = text.stem.__wrapped__
    expected = [stem_uncached(w) for w in words]
    failures: list[str] = []

    def stem_all() -> None:
        try:
            if [stem_uncached(w) for w in words] != expected:
                failures.append("a stem differs from the one a single thread got")
        except Exception as exc:  # the shared stemmer's IndexError
            failures.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=stem_all) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []


STEMMER_RACE = """
import importlib
import sys
import threading
import types

from ioa_p2p.matching import text

real_import = importlib.import_module
stems, errors, others = [], [], []


def second_thread():
    try:
        stems.append(text.new_english_stemmer().stemWord("running"))
    except Exception as exc:  # the module seen half imported
        errors.append(repr(exc))


def importing(name, *args):
    if name.endswith(".english_stemmer") and not others:  # the module is in sys.modules, not yet run
        sys.modules[name] = types.ModuleType(name)
        other = threading.Thread(target=second_thread)
        others.append(other)
        other.start()
        other.join(0.5)
        del sys.modules[name]
    return real_import(name, *args)


importlib.import_module = importing
stems.append(text.new_english_stemmer().stemWord("running"))
others[0].join(10)
print(errors or stems)
"""


def test_threads_that_stem_first_at_once_each_get_a_whole_stemmer() -> None:
    """The first stemmers of a process (agents' cards stemmed in worker threads) are made at once: none
    sees the English module half imported (AttributeError: partially initialized module)."""
    out = subprocess.run(  # a fresh process: the race is in the first import
        [sys.executable, "-c", STEMMER_RACE], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0 and out.stdout.strip() == "['run', 'run']", out.stdout + out.stderr[-2000:]
