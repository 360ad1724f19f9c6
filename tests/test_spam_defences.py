"""The ranking defences against card spam (pure): breadth, copies, local reputation from signed histories,
and the ranker that turns them into priors (a stuffed card, a copy and a member that failed rank lower)."""

from __future__ import annotations

from ioa_p2p.card import issue_card
from ioa_p2p.conversation.messages import CONCLUSION, RESULT, TASK_ASYNC, task_id
from ioa_p2p.conversation.reputation import Standing, chat_outcomes, merge, reputation_prior
from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.history.bodies import KIND_MEMBER_REMOVE, KIND_TEXT, ChatMessage
from ioa_p2p.identity import Identity
from ioa_p2p.matching import CardProfile, make_matcher
from ioa_p2p.matching.breadth import (
    FREE_TOPICS,
    MIN_FREE,
    MIN_REFERENCE,
    breadth,
    breadth_discount,
    card_items,
    free_topics,
)
from ioa_p2p.matching.copies import CopyIndex
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import build

SPECIALIST = "Reads invoices and receipts as PDF or photo and extracts the totals, dates and vendors."
STUFFED = (
    "Expert agent: python; sql; translation; legal advice; medical questions; finance; image generation; "
    "video editing; weather; cooking; travel planning; math; charts; email; code review; security audit; "
    "marketing; music; copywriting; research."
)


def test_breadth_counts_unrelated_claims_not_words() -> None:
    matcher = make_matcher({"matcher": "lite"})
    specialist = breadth(card_items(CardProfile.make("invoices", SPECIALIST)), matcher.embed_items)
    stuffed = breadth(card_items(CardProfile.make("agent", STUFFED)), matcher.embed_items)
    assert specialist < FREE_TOPICS < stuffed
    assert breadth_discount(specialist) == 0.0 < breadth_discount(stuffed)
    assert breadth_discount(4 * FREE_TOPICS) == 2 * breadth_discount(2 * FREE_TOPICS)
    assert breadth([], matcher.embed_items) == breadth(["one"], matcher.embed_items) == 1.0


def test_what_counts_as_broad_is_measured_against_the_reference_population() -> None:
    """Generalists' network: its established cards claim ~12 things each, so 12 is not broad there; a
    specialists' network draws the line lower; too few reference cards: the dev data's line."""
    generalists = [10.0 + (i % 5) for i in range(MIN_REFERENCE)]
    assert 13.5 < free_topics(generalists) <= 14.0
    assert breadth_discount(12.0, free=free_topics(generalists)) == 0.0 < breadth_discount(12.0)
    assert free_topics([2.0] * MIN_REFERENCE) == MIN_FREE
    assert free_topics(generalists[:-1]) == FREE_TOPICS


def test_a_flood_of_fresh_broad_cards_does_not_move_the_line() -> None:
    """The ranker measures the line on its reference cards only (settled ones: the node's trust sets
    them), so spam cannot make itself look normal by its number; were every card the reference, it would."""
    topics = ["invoices", "receipts", "bank statements", "payslips", "tax forms"]
    honest = [
        _card(f"h{i}", SPECIALIST.replace("invoices", f"{topics[i % 5]} of kind {i}"))
        for i in range(MIN_REFERENCE)
    ]
    stuffed = [_card(f"s{i}", STUFFED + f" Agent number {i}.") for i in range(2 * MIN_REFERENCE)]
    ranker = CardRanker(make_matcher({"matcher": "lite"}))
    for card in honest + stuffed:
        ranker.add(card)

    def discounted(cards: list) -> int:  # type: ignore[type-arg]
        return sum(
            breadth_discount(ranker.standing(str(c.peer_id))["breadth"], free=ranker.free) > 0 for c in cards
        )

    ranker.refresh()
    assert ranker.free == FREE_TOPICS  # no reference yet: the dev data's line
    ranker.set_reference([str(c.peer_id) for c in honest])
    ranker.refresh()
    assert MIN_FREE <= ranker.free < FREE_TOPICS  # specialists: a lower line than the default
    assert discounted(stuffed) == len(stuffed) and discounted(honest) <= 1  # the top 1 % of the reference
    ranker.set_reference([str(c.peer_id) for c in honest + stuffed])  # what the node never does
    ranker.refresh()
    assert ranker.free > FREE_TOPICS and discounted(stuffed) <= 2


def test_copies_of_a_card_are_found_whatever_is_added_or_left_out() -> None:
    index = CopyIndex()
    index.add("honest", [SPECIALIST])
    index.add("other", ["Translates letters between German and French, keeping the tone."])
    index.add("clone", [SPECIALIST])
    index.add("superset", [SPECIALIST + " Also books flights and writes poems about the sea."])
    dropped = " ".join(w for i, w in enumerate(SPECIALIST.split()) if i % 8 != 3)
    index.add("reworded", [dropped, "Plans weddings."])
    assert index.copies() == {"clone", "superset", "reworded"}
    index.remove("honest")  # the first copy now stands for the text; the others copy it
    assert "clone" not in index.copies() and "superset" in index.copies()


def _message(author: Identity, chat: bytes, kind: str, content: dict, seq: int) -> Envelope:  # type: ignore[type-arg]
    body = build(ChatMessage, chat_id=chat, parents=(bytes(32),), kind=kind, content=content)
    return Envelope.create(author, body, seq=seq, ts=1000 + seq)


CONCLUDED = {
    "prev": "",
    "height": 2,
    "level": 0,
    "reason": "",
    "fail_tasks": [],
    "text": "done",
    "forced": False,
}


def _turn(tasks: list[dict], fail: tuple[str, ...] = ()) -> dict:  # type: ignore[type-arg]
    return {"prev": "", "height": 1, "level": 0, "reason": "", "fail_tasks": list(fail), "text": "go",
            "tasks": tasks, "next": []}  # fmt: skip


def test_reputation_counts_only_evidence_the_subject_or_this_node_signed() -> None:
    me, good, bad, silent, kicked, absent = (Identity.generate() for _ in range(6))
    chat = bytes([7]) * 32
    assign = _message(
        me,
        chat,
        TASK_ASYNC,
        _turn([{"assignee": str(p.peer_id), "title": "t", "description": "d"} for p in (good, bad, silent)]),
        1,
    )
    tid = [task_id(assign.hash.hex(), i) for i in range(3)]
    result = {"text": "", "data": {}, "files": {}, "failure": None}
    history = [
        assign,
        _message(good, chat, RESULT, {**result, "task_id": tid[0], "ok": True}, 2),
        _message(bad, chat, RESULT, {**result, "task_id": tid[1], "ok": False, "failure": "error"}, 3),
        _message(good, chat, RESULT, {**result, "task_id": tid[2], "ok": False}, 4),  # not its task
        _message(kicked, chat, KIND_TEXT, {"text": "buy my course"}, 5),
        _message(me, chat, KIND_MEMBER_REMOVE, {"member": kicked.peer_id.raw}, 5),
        _message(me, chat, KIND_MEMBER_REMOVE, {"member": absent.peer_id.raw}, 5),  # declined or silent
        _message(bad, chat, KIND_MEMBER_REMOVE, {"member": good.peer_id.raw}, 6),  # another's word: ignored
        _message(me, chat, CONCLUSION, CONCLUDED, 7),
    ]  # fmt: skip
    out = chat_outcomes(history, me.peer_id)
    assert out[str(good.peer_id)] == Standing(done=1)
    assert out[str(bad.peer_id)] == Standing(failed=1)
    assert out[str(silent.peer_id)] == Standing(unanswered=1)
    assert out[str(kicked.peer_id)] == Standing(rejected=1)  # removed after it took part
    assert out[str(absent.peer_id)] == Standing(absent=1)  # removed before: a decline or no answer
    # being busy is no failure: an absence is weak evidence, a quarter of a failed task
    assert reputation_prior(Standing(failed=1)) < reputation_prior(Standing(absent=1)) < 0.0
    assert reputation_prior(Standing(done=1, absent=1)) > 0.0
    # a chat strangers created: one sybil assigns another a task and reports it done; nothing is earned
    stranger = Identity.generate()
    fake = _message(stranger, chat, TASK_ASYNC, _turn([{"assignee": str(good.peer_id), "title": "t",
                                                         "description": "d"}]), 1)  # fmt: skip
    claimed = _message(good, chat, RESULT, {**result, "task_id": task_id(fake.hash.hex(), 0), "ok": True}, 2)
    assert chat_outcomes([fake, claimed], me.peer_id, creator=stranger.peer_id) == {
        str(good.peer_id): Standing()
    }
    # in a chat this node created, a member's task done for another member counts (this node chose both)
    assert chat_outcomes([fake, claimed], me.peer_id, creator=me.peer_id)[str(good.peer_id)] == Standing(
        done=1
    )
    # a result after this node gave the task up is no task done
    late = [assign, _message(me, chat, TASK_ASYNC, _turn([], fail=(tid[0],)), 2),
            _message(good, chat, RESULT, {**result, "task_id": tid[0], "ok": True}, 3)]  # fmt: skip
    assert chat_outcomes(late, me.peer_id)[str(good.peer_id)] == Standing(unanswered=1)
    total = merge([out, out])
    assert total[str(bad.peer_id)].failed == 2
    assert reputation_prior(Standing()) == 0.0
    assert (
        reputation_prior(Standing(failed=2))
        < reputation_prior(Standing(failed=1))
        < 0
        < reputation_prior(Standing(done=3))
        <= 0.5
    )


def _card(name: str, description: str):  # type: ignore[no-untyped-def]
    return issue_card(
        Identity.generate(),
        name=name,
        description=description,
        model="other/1",
        vector=[1.0],
        version=1,
        now_ms=1,
    )


def test_the_ranker_puts_stuffed_copied_and_failing_cards_below_honest_ones() -> None:
    honest = [
        _card("invoices", SPECIALIST),
        _card("translator", "Translates letters between German and French, keeping the tone."),
        _card("weather", "Weather forecasts for any city, with rain and wind warnings."),
    ]
    spam = [
        _card("agent", STUFFED + " Also reads invoices and receipts and extracts totals."),
        _card("copy", SPECIALIST),
    ]
    scores = {}
    for defences in (False, True):
        ranker = CardRanker(make_matcher({"matcher": "lite"}), defences=defences)
        for card in honest + spam:
            ranker.add(card)
        found = ranker.rank("extract the totals from these invoices and receipts", 5)
        scores[defences] = {m.key: m.score for m in found}
    specialist, stuffed, copy = (str(c.peer_id) for c in (honest[0], *spam))
    # undefended: the copy matches as well as the specialist, the stuffed card fairly well
    assert scores[False][copy] > 0.99 and scores[False][stuffed] > 0.1
    # defended: the specialist keeps its score, both spam cards fall to the level of unrelated cards
    assert scores[True][specialist] == scores[False][specialist]
    assert max(scores[True][stuffed], scores[True][copy]) < 0.05
    # A member that failed ranks lower next time; one this node knows nothing of is unchanged.
    ranker = CardRanker(make_matcher({"matcher": "lite"}))
    for card in honest:
        ranker.add(card)
    query = "extract the totals from these invoices"
    before = {m.key: m.score for m in ranker.rank(query, 3)}
    ranker.set_reputation({str(honest[0].peer_id): reputation_prior(Standing(failed=2))})
    after = {m.key: m.score for m in ranker.rank(query, 3)}
    assert after[str(honest[0].peer_id)] < before[str(honest[0].peer_id)]
    assert ranker.standing(str(honest[0].peer_id))["reputation"] < 0


def test_the_ranker_hands_its_standing_of_each_card_to_the_page_search() -> None:
    honest = [
        _card("invoices", SPECIALIST),
        _card("translator", "Translates letters between German and French, keeping the tone."),
    ]
    stuffed, copy = _card("agent", STUFFED), _card("copy", SPECIALIST)
    ranker = CardRanker(make_matcher({"matcher": "lite"}))
    assert ranker.priors() == {}
    for card in [*honest, stuffed, copy]:
        ranker.add(card)
    ranker.refresh()
    priors = ranker.priors()
    key = {c.card.name: str(c.peer_id) for c in [*honest, stuffed, copy]}
    assert key["invoices"] not in priors and key["translator"] not in priors  # honest cards: nothing
    assert priors[key["agent"]] < -1.0  # its breadth
    # the copy penalty stays in the ranker (it depends on arrival order: not carried back to sketches)
    assert key["copy"] not in priors and ranker.standing(key["copy"])["prior"] <= -8.0
    # reputation counts at once (before the next refresh), added to what the card says
    failed = reputation_prior(Standing(failed=1))
    ranker.set_reputation({key["translator"]: failed, key["agent"]: failed, "12D3Koo-unknown": failed})
    now = ranker.priors()
    assert now[key["translator"]] == failed and now[key["agent"]] == priors[key["agent"]] + failed
    assert now["12D3Koo-unknown"] == failed  # a peer whose card is not held: its reputation alone
    # without the defences the cards say nothing
    plain = CardRanker(make_matcher({"matcher": "lite"}), defences=False)
    for card in [*honest, stuffed, copy]:
        plain.add(card)
    plain.refresh()
    assert plain.priors() == {}
