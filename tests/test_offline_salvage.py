"""The offline planner with a lookup the retrieval refuses but whose result carries the best document's
typed records (planning/salvage.py): the derivation those records close is assigned and the goal is
answered; records that close nothing leave the lookup failed (no answer, nothing guessed). The document
is made up for this test (an appliance sheet with a formula)."""

from __future__ import annotations

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import Concluded
from ioa_p2p.embedding import WordLlamaEmbedder

from .conv_sim import Sim
from .test_offline_brain import MEMBERS, TEAM, real_runner
from .test_planning_formula import WORKSHOP


def refusing_docs(member: str, task):
    """D refuses every question but sends the workshop sheet's typed records, as the retrieval does; C
    (python) rejects what is no code, as the python adapter does; B is the real calculator."""
    if member == "C" and "python" not in task.description.lower():
        return 0.5, TaskOutcome(task.task_id, False, "not code", None, None, "rejected")
    if member != "D":
        return real_runner(member, task)
    data = {"records": records_data(read_document("workshop.md", WORKSHOP)), "confidence": 0.05}
    return 1.0, TaskOutcome(task.task_id, False, "nothing in docs answers this", data, None, "task_error")


def conclude(goal: str) -> str:
    brain = OfflineBrain(WordLlamaEmbedder())
    spec = ConvStart.create(
        goal, initiator="A", members=MEMBERS, now=0.0, timeout=600.0, speaker_timeout=10.0
    )
    sim = Sim(spec, {m: (lambda v, s: brain.decide(v, s, TEAM)) for m in MEMBERS}, runner=refusing_docs)
    sim.run(until=2000)
    final = sim.final("A")
    assert isinstance(final, Concluded)
    return final.text


def test_a_refused_lookup_s_records_close_the_derivation_and_the_goal_is_answered() -> None:
    text = conclude("How many amperes does the Heater H-40 draw?")
    assert text.startswith("The answer is 8"), text


def test_records_that_close_nothing_leave_the_lookup_failed() -> None:
    text = conclude("How many amperes does the Toaster T-9 draw?")  # no such row: nothing closes
    assert text.startswith("No answer"), text
