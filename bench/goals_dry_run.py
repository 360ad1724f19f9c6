"""A dry run of the goal suites: the offline planner over the real adapters in one process, no network.

README
======

Run (from the repository root, with the project's venv)::

    nice -n 10 .venv/bin/python bench/goals_dry_run.py --split train|dev [--suite 1|2|3] [--only ID,...]
        [-v | --quiet]
    nice -n 10 .venv/bin/python bench/goals_dry_run.py --suite nat --split heldout

``--suite nat`` is a small held-out suite of naturally worded and three-agent goals over its own made-up
documents (``bench/goal_suite_nat/``), written before the planner work it measures. ``--suite para`` is the
wording-sensitivity set (``bench/goal_suite_para/``): ``--split train`` two paraphrases of every chained and
three-agent goal of suite 2's train split, ``old`` the same for the old suite, ``new`` new chained and
three-agent goals over the old suite's documents, ``all`` the three; each split file names its ``docs``.
``--suite probe --split heldout`` is 32 goals of the four kinds over 4 folders in styles no suite uses
(``bench/goal_suite_probe/``: CSV, an RST grid spec sheet, an incident report, a dotted price list), written
before the planner was run on them. ``--suite probe2 --split heldout`` is the second such set (56 goals over 7
folders: a YAML reference and an INI file, an FAQ, numbered terms with cross-references, a changelog, an HTML
table, a JSON feed, a markdown checklist; ``bench/goal_suite_probe2/``), six of its goals to be refused (their
value is in no document: right when a step is named missing). ``--suite probe3n --split heldout`` is 31
naturally worded goals that need several rules of their folder composed, over 5 folders in new styles (an
e-mail reply, a TOML tariff, a timetable leaflet, a rate card with footnotes, a hire board;
``bench/goal_suite_probe3n/``), six of them to be refused. ``--suite chain --split heldout`` is 20
chained and three-agent goals over suite 2's writer-a documents (``bench/goal_suite_chain/``), written before
the planner work it measures. ``--suite probe3 --split heldout`` is the third (78 goals over 8 folders: a
man page, committee minutes, a bill of materials, a league table, an API error reference, a lab protocol,
loyalty terms, a tide calendar; ``bench/goal_suite_probe3/``), 18 of them to be refused (absent values and
near misses: another year, version, product, unit or condition). ``--suite probe4 --split heldout`` is the
fourth (122 goals of the four kinds over 9 folders: an insurance schedule, a firmware changelog, a fare
matrix, warranty terms, a club tariff, an election declaration, a sowing chart, a weather log, a dosing
chart; ``bench/goal_suite_probe4/``), 25 of them to be refused. ``--suite probe5 --split heldout`` is the
fifth (161 goals of the four kinds over 11 folders: a payroll allowance appendix, a bin collection
calendar, a grant call, a boiler service manual, a lift pass grid, a tile adhesive data sheet, a council tax
leaflet, a roaming guide, a tunnel toll order, a herbicide label, angling permits and byelaws;
``bench/goal_suite_probe5/``), 43 of them to be refused. ``--suite probe6 --split heldout`` is the sixth
(142 goals of the four kinds over 11 folders: an AsciiDoc lesson price list, an XML translation rate card,
a semicolon CSV of tower hire rates with decimal commas, a livery yard's letter, an org-mode campsite
tariff, a mountain hut's recfile, a chess congress entry form, a pest control contract schedule, a
MediaWiki dive centre page, a piano tuner's TSV, a studio invoice with its terms;
``bench/goal_suite_probe6/``), 42 of them to be refused. ``--suite probe7 --split heldout`` is the seventh
(90 goals of the four kinds over 9 folders: a YAML gym membership policy, an HTML coworking plan table, a
school trip letter with a consent form, a JSON kennels price export, an INI skip hire rate sheet, a tariff
e-mail, an escape rooms FAQ, a Markdown honey show schedule, a CSV observatory programme;
``bench/goal_suite_probe7/``), 22 of them to be refused. ``--suite probe8 --split heldout`` is the eighth
(100 goals over 10 folders: AGM minutes with action items, an .ics calendar, a call transcript, a
reStructuredText charges list, a fixed-width meter report, numbered terms with exceptions, a chat export,
an OCR'd flyer, an SQL fee dump, a LaTeX fee sheet; ``bench/goal_suite_probe8/``), 20 of them to be refused.
``--suite probe9 --split heldout`` is the ninth (100 goals over 10 folders: an electricity bill, a railway
engineering notice, a school newsletter, a league rulebook with a fines schedule, a shipping manifest, an .srt
subtitle file, an auction catalogue, a unified diff of a price file, a BBCode forum thread, a bank statement;
``bench/goal_suite_probe9/``), 20 of them to be refused. ``--suite probe10 --split heldout`` is the tenth
(100 goals over 10 folders: a hotel folio with a voided line, a nursery tag sheet, a gym timetable grid, a
taxi table of fares, a quoted e-mail thread, a Jupyter notebook, a GitHub issue, a datasheet with
footnotes, a PDF-to-text leaflet, a menu with allergen columns; ``bench/goal_suite_probe10/``), 20 of them
to be refused. ``--suite probe11 --split heldout`` is the eleventh (100 goals over
10 folders: a till receipt with shelf-edge labels, a payslip with its pay handbook, a penalty charge notice
with car park tariffs, a sewing pattern envelope with a fabric counter's prices, a hill walking route card,
a booking app's ``.env`` file with prices in pence, a local paper's classified ads, an MOT history with a
garage price board, a granola pack label with a trade range sheet, a tenancy check-out report;
``bench/goal_suite_probe11/``), 20 of them to be refused. ``--suite probe12 --split heldout`` is the twelfth
(100 goals over 10 folders: a golf score card with competition conditions, an airline e-ticket receipt with
fare rules, a dental treatment plan, an irrigation controller's program report, a knitting pattern with
sizes in brackets, a bureau de change rate board with a receipt, a man page, a Markdown changelog with price
changes, a dog's vaccination record card with the clinic's fees, an agency timesheet with a rate card;
``bench/goal_suite_probe12/``), 20 of them to be refused.
``--suite cover --split all`` (or ``s2`` / ``s3`` / ``s4``) is 505 single and chained lookups over the
documents of suites 2, 3 and 4 about the facts their readable goals do not ask (``bench/goal_suite_cover/``);
each split names its suite's ``docs``.

Each goal is planned with :func:`ioa_p2p.planning.plan_request`; each step's task text is written by
:func:`~ioa_p2p.planning.describe` with the values found so far and given to the members the planner's
routing ranks first (the ``calculator``, ``python`` and ``retrieval`` adapters the bench's nodes run, the
retrieval adapter over the suite's ``docs/``), a member whose ``can_do`` is 0 being skipped, as the nodes
do; a result that does not answer its step (:func:`~ioa_p2p.planning.answers`) goes to the next member.
A step a needed value is missing for is refused (planning/refusal.py), as the nodes do.
The conclusion is the planner's and is scored like ``bench_goals_suite.py`` scores the answer; goals not
answered right are counted **refused** (the missing value named) apart from **wrong** answers. It
reproduces the network bench's answers in seconds (the network adds the chat, not the reasoning), so it is
the loop for working on the planner; the figures to report come from ``bench_goals_suite.py``.

``-v`` prints each goal's plan and every task with its result. The test split is refused: it is scored
by ``bench_goals_suite.py`` only. ``--suite 3`` is issue 23's independent held-out suite (gzipped splits,
``bench/goal_suite3/README.md``); a split its ``SEALED`` file lists is run with counts per kind only (as
``--quiet`` does for any suite), and ``-v`` is refused for it. ``--suite 4`` is the fresh blind suite
written after suite 3's dev split was tuned against (``bench/goal_suite4/README.md``), handled the same
way.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

import trio
from goals_suite_files import read_split, sealed_splits
from goals_suite_scoring import REFUSED, WRONG, goal_hit, miss_kind

from ioa_p2p.adapters.base import Task, TaskContext, estimate, run_task
from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.adapters.retrieval import typed as typed_policy
from ioa_p2p.planning import StepOutcome, conclusion, describe, plan_request, value_of
from ioa_p2p.planning.missing import MISSING
from ioa_p2p.planning.refusal import absence_refusal, dimension_refusal, refusal
from ioa_p2p.planning.routing import Candidate, rank_members
from ioa_p2p.planning.salvage import accepted_value
from ioa_p2p.planning.values import Value

HERE = Path(__file__).resolve().parent
SUITES = {
    "1": HERE / "goal_suite",
    "2": HERE / "goal_suite2",
    "3": HERE / "goal_suite3",
    "4": HERE / "goal_suite4",
    "nat": HERE / "goal_suite_nat",
    "nat2": HERE / "goal_suite_nat2",
    "times": HERE / "goal_suite_times",
    "para": HERE / "goal_suite_para",
    "chain": HERE / "goal_suite_chain",
    "single": HERE / "goal_suite_single",
    "probe": HERE / "goal_suite_probe",
    "probe2": HERE / "goal_suite_probe2",
    "probe3n": HERE / "goal_suite_probe3n",
    "probe3": HERE / "goal_suite_probe3",
    "probe4": HERE / "goal_suite_probe4",
    "probe5": HERE / "goal_suite_probe5",
    "probe6": HERE / "goal_suite_probe6",
    "probe7": HERE / "goal_suite_probe7",
    "probe8": HERE / "goal_suite_probe8",
    "probe9": HERE / "goal_suite_probe9",
    "probe10": HERE / "goal_suite_probe10",
    "probe11": HERE / "goal_suite_probe11",
    "probe12": HERE / "goal_suite_probe12",
    "cover": HERE / "goal_suite_cover",
}


async def _no_progress(_: Any) -> None:
    return None


class DryRun:
    """The bench's three working agents as adapters in this process."""

    def __init__(self, docs: Path, task_timeout: float = 30.0) -> None:
        self.task_timeout = task_timeout
        self.agents = {
            "calculator": adapter_from_config({"name": "calculator", "adapter": "calculator"}),
            "coder": adapter_from_config({"name": "coder", "adapter": "python"}),
            "librarian": adapter_from_config(
                {"name": "librarian", "adapter": "retrieval", "options": {"path": str(docs)}}
            ),
        }
        self.candidates = [Candidate(n, tuple(a.describe().task_types), True) for n, a in self.agents.items()]

    async def aclose(self) -> None:
        for adapter in self.agents.values():
            await adapter.aclose()

    async def run(self, goal: str, out: list[str]) -> tuple[str, dict[str, Any]]:
        plan = plan_request(goal)
        for s in plan.steps:
            out.append(f"   plan {s.index} {s.kind} {s.template[:150]!r} needs={s.needs} unit={s.unit!r}")
        if plan.unplanned:
            out.append(f"   unplanned: {plan.unplanned}")
        outcomes: dict[int, StepOutcome] = {}
        values: dict[int, Value] = {}
        for step in plan.steps:
            if any(n not in values for n in step.needs):
                outcomes[step.index] = StepOutcome(step, "", None, "not started")
                continue
            lacking = refusal(step, values)
            if lacking is not None:  # a value the step needs is missing: refused, never guessed
                out.append(f"   {step.index} refused: missing {lacking.shown()}")
                outcomes[step.index] = StepOutcome(step, "", None, MISSING, None, "", lacking)
                continue
            text = describe(step, values)
            outcome = StepOutcome(step, "", None, "failed")
            rejected: Value | None = None
            failures: list[dict[str, Any] | None] = []  # the failed attempts' data (absence_refusal)
            order = rank_members(step, self.candidates, [0.0] * len(self.candidates))
            for who in order[:3]:
                adapter = self.agents[who]
                task = Task(text, (), trio.current_time() + self.task_timeout, "t", "c")
                fit = estimate(adapter, task)
                if fit is not None and fit <= 0:
                    continue
                result = await run_task(adapter, task, TaskContext(_no_progress))
                if not result.ok:
                    failures.append(result.data)
                raw = value_of(result.text, result.data, step.template) if result.ok else None
                # its own answer, or a failed lookup's records a later derivation closes with (salvage.py)
                value = accepted_value(plan, step, result.text, result.data, result.ok)
                ok = value is not None
                shown = (value or raw).shown() if (value or raw) is not None else None
                sure = result.data.get("confidence") if isinstance(result.data, dict) else None
                conf = f" conf={sure:.2f}" if isinstance(sure, float) else ""
                out.append(
                    f"   {step.index} {who} {ok=}{conf} {text[:100]!r} -> {shown!r} | {result.text[:150]!r}"
                )
                rejected = raw if not ok and raw is not None else rejected  # as the nodes: the last value
                if ok and value is not None:
                    cited = result.data.get("citation")
                    citation = cited if isinstance(cited, dict) else None
                    outcome = StepOutcome(step, who, value, "completed", citation)
                    values[step.index] = value
                    break
            wrong_kind = dimension_refusal(step, rejected) if outcome.status != "completed" else None
            if outcome.status != "completed" and wrong_kind is None:
                wrong_kind = absence_refusal(step, failures)  # the documents state none (planning/refusal.py)
            if wrong_kind is not None:  # a value of another dimension: the quantity asked for is missing
                out.append(f"   {step.index} refused: missing {wrong_kind.shown()}")
                outcome = StepOutcome(step, "", None, MISSING, None, "", wrong_kind)
            outcomes[step.index] = outcome
        text, info = conclusion(plan, outcomes)
        return text, info


def split_of(path: Path) -> str:
    """``train_a.json`` / ``dev_c.json.gz`` / ``heldout.json`` -> its split name."""
    return path.name.removesuffix(".gz").removesuffix(".json").split("_")[0]


def load(suite: Path, split: str, only: set[str]) -> list[dict[str, Any]]:
    """The split's goals (gzipped files too), each with the documents folder it is asked over (``docs``).
    ``all`` is every split but test, which is scored by bench_goals_suite.py only."""
    if split == "test":
        raise SystemExit("the test split is scored by bench_goals_suite.py only")
    goals = []
    for path in sorted([*suite.glob("*.json"), *suite.glob("*.json.gz")]):
        name = split_of(path)
        if name == "test" or (split != "all" and name != split):
            continue
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        docs = (path.parent / json.loads(raw).get("docs", "docs")).resolve()
        for g in read_split(path):
            goals.append({**g, "kind": g.get("kind") or g.get("category"), "docs": docs, "split": name})
    return [g for g in goals if not only or g["id"] in only]


async def main_async(args: argparse.Namespace) -> int:
    suite = SUITES[args.suite]
    only = set(args.only.split(",")) if args.only else set()
    goals = load(suite, args.split, only)
    sealed = sealed_splits(suite) & {g["split"] for g in goals}
    if sealed and args.verbose:
        raise SystemExit(
            f"{', '.join(sorted(sealed))}: held out (SEALED): -v would show its goals; use --quiet"
        )
    quiet = args.quiet or bool(sealed)
    if sealed and not args.quiet:
        print(f"{', '.join(sorted(sealed))}: held out (SEALED): counts per kind only", flush=True)
    runs: dict[Path, DryRun] = {}
    ok: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    misses: collections.Counter[tuple[str, str]] = collections.Counter()
    must_refuse: collections.Counter[bool] = collections.Counter()
    started = time.monotonic()
    try:
        for g in goals:
            lines: list[str] = []
            run = runs.get(g["docs"]) or runs.setdefault(g["docs"], DryRun(g["docs"], args.task_timeout))
            text, info = await run.run(g["goal"], lines)
            answer = info["answer"] or text.splitlines()[0]
            hit = goal_hit(g["expected"], answer, info["steps"])
            total[g["kind"]] += 1
            ok[g["kind"]] += hit
            if g["expected"]["type"] == "refused":  # counted in its kind too
                must_refuse[hit] += 1
            miss = miss_kind(hit, answer, info["steps"])
            misses[miss, g["kind"]] += 1
            exp = g["expected"]
            if quiet:
                continue
            verdict = "ok  " if hit else ("REFU" if miss == REFUSED else "FAIL")
            print(
                f"{g['id']} {g['kind']:<11} {verdict} {answer[:110]!r}  "
                f"exp={exp.get('value', exp.get('any_of', exp.get('missing')))} {exp.get('unit', '')}",
                flush=True,
            )
            if args.verbose:
                print("   goal:", " / ".join(g["goal"].splitlines()))
                print("\n".join(lines))
    finally:
        for run in runs.values():
            await run.aclose()
    kinds = [k for k in ("single", "chained", "three_agent", "natural") if k in total]
    summary = ", ".join(f"{k} {ok[k]}/{total[k]}" for k in kinds)
    print(f"{summary}; total {sum(ok.values())}/{sum(total.values())} in {time.monotonic() - started:.1f} s")
    for label, miss in (("refused (named missing value)", REFUSED), ("wrong answer", WRONG)):
        counts = ", ".join(f"{k} {misses[miss, k]}" for k in kinds)
        print(f"{label}: {counts}; total {sum(misses[miss, k] for k in kinds)}")
    if must_refuse:
        print(f"goals that must be refused: {must_refuse[True]}/{must_refuse.total()} refused")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--suite", choices=tuple(SUITES), default="2")
    parser.add_argument(
        "--split",
        default="train",
        help=(
            "train | dev (suites 2, 3, 4); dev | check (suite 1); heldout (nat, nat2, times, chain); "
            "train | old | new | all (para)"
        ),
    )
    parser.add_argument("--only", default="", help="comma-separated goal ids")
    parser.add_argument(
        "--task-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="each task's deadline, as the nodes give it (30 s); a loaded box may need more for a folder's "
        "first question (its index is built then), or its timeouts read as misses",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print plans and tasks")
    parser.add_argument(
        "--quiet", action="store_true", help="counts per kind only (forced for a suite's SEALED splits)"
    )
    parser.add_argument(
        "--typed-policy",
        choices=("none", "misfit", "confidence", "always"),
        default=typed_policy.TYPED_POLICY,
        help="when the retrieval's typed answer replaces the fact scorer's (adapters/retrieval/typed.py)",
    )
    args = parser.parse_args()
    typed_policy.TYPED_POLICY = args.typed_policy
    return trio.run(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
