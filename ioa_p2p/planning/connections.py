"""Timetable connections (pure): arrive by one service, change, catch the next departure of another.

A document's timetable is read as **trips**, each a list of (place, clock time) stops in time order:

- a block of lines of one place each and the same number of clock times ("Port Ardal dep 07:10 09:40",
  "Skerra arr 08:50 11:20"): column j of every line is trip j;
- a table row whose cells hold two or more clock times under place headers (``| S1 | 06:15 | 07:55 |``
  under ``| Sailing | Colby Quay | Inchmore |``): one trip;
- a line of one place's departures alone ("Marrowby 06:50 07:35 ...") with a sentence that states the leg
  from that place and how long it takes ("TRAIN Marrowby -> Quayside ... every journey takes 38
  minutes"): each departure plus the journey is a trip.

Changing from one trip to another costs the **change time** the document states: the walk or transfer
between them ("The walk from the station to the pier takes 8 minutes", "minimum connection time ... 10
minutes") plus the shortest time a departure closes before it leaves ("The ferry gate closes 5 minutes
before each departure", "Boarding closes 15 minutes before departure").

Two questions are answered: "If I catch the 07:35 train from Marrowby, when do I get to Holm Island?" (the
earliest arrival at the place asked, starting on the trip that leaves the place named at the time named)
and "What's the latest train from Marrowby that still gets me onto the 14:00 ferry?" (the latest departure
from the place named whose trip arrives where the 14:00 departure leaves, the change time before it). The
answer is a clock expression in minutes since midnight (planning/clock.py); None whenever the question or
the timetable does not read that way, so the other derivations answer as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ioa_p2p.planning.clock import CLOCK, clock_times, durations
from ioa_p2p.planning.records import DocRecords

Stop = tuple[str, int]  # (place as written, minutes since midnight)


@dataclass(frozen=True, slots=True)
class Timetable:
    trips: tuple[tuple[Stop, ...], ...]
    change: float  # minutes between arriving by one trip and leaving on another


_TIME = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_PLACE_WORDS = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_NOT_PLACE_WORDS = "dep arr departs arrives depart arrive departures arrivals d a sailing train"
_NOT_PLACE = frozenset(_NOT_PLACE_WORDS.split())
_LEG = re.compile(
    r"(?:from\s+)?(?P<a>[A-Z][\w'\-]*(?:\s+[A-Za-z][\w'\-]*){0,2}?)\s*(?:->|→|\bto\b)\s*"
    r"(?P<b>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})"
)
_WALK = re.compile(r"\b(?:walk|transfer|change|changing|connection|connect)\w*\b", re.I)
_BEFORE = re.compile(r"\b(?:close[sd]?|board|boarding|check[- ]in)\b.*\bbefore\b", re.I)
_TAKES = re.compile(r"\b(?:takes?|lasts?)\b", re.I)
_LEG_WORDS = re.compile(r"\b(?:journey|crossing|ride|sailing|flight)\b", re.I)  # a leg, not a walk


def place_of(text: str) -> str:
    """The place a timetable line opens with: its words before the first clock time, without dep/arr."""
    head = re.sub(r"\([^)]*\)", " ", _TIME.split(text, maxsplit=1)[0])  # "(Monday to Saturday)"
    after = re.search(r"\bfrom\s+(.*)", head, re.I)  # "Departures from Ashby:"
    head = after.group(1) if after else head
    words = [w for w in _PLACE_WORDS.findall(head) if w.lower().rstrip(".") not in _NOT_PLACE]
    return " ".join(words)


def same_place(a: str, b: str) -> bool:
    """Two names of one place: the words of one are all words of the other ("Quayside", "Quayside pier")."""
    x, y = set(a.lower().split()), set(b.lower().split())
    return bool(x and y) and (x <= y or y <= x)


def timetable(lines: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]] = ()) -> Timetable:
    """The trips and the change time ``lines`` (a document's lines, in order) and its table ``rows``
    (each a row's (header, cell) pairs) state."""
    trips: list[tuple[Stop, ...]] = []
    block: list[tuple[str, list[int]]] = []
    legs = _legs(lines)
    for line in [*lines, ""]:
        times = [int(h) * 60 + int(m) for h, m in _TIME.findall(line)]
        place = place_of(line) if len(times) >= 2 else ""
        if place and (not block or len(block[0][1]) == len(times)):
            block.append((place, times))
            continue
        trips += _block_trips(block, legs)
        block = [(place, times)] if place else []
    for row in rows:
        stops = [(h.strip(), clock_times(c)[0]) for h, c in row if _TIME.fullmatch(c.strip())]
        if len(stops) >= 2 and not _departures_only(stops):
            trips.append(tuple(stops))
    return Timetable(tuple(_ordered(t) for t in trips if len(t) >= 2), _change_time(lines))


def timetable_of(records: DocRecords | None) -> Timetable:
    """The timetable of a document's typed records (lines in order; table rows by their cells)."""
    lines: list[str] = []
    rows: list[tuple[tuple[str, str], ...]] = []
    for r in sorted(records.records, key=lambda r: r.line) if records is not None else []:
        if r.cells and any(re.search(r"\d", h) for h, _ in r.cells[1:]):  # columns of sailings ("K1-01")
            lines.append(" ".join(c for _, c in r.cells))  # a place's row of times, as a leaflet's line
        elif r.cells:
            rows.append(r.cells)
        else:
            lines.append(r.text)
    return timetable(lines, rows)


_DEP = re.compile(r"\b(?:dep|departs?|departures?)\b\.?", re.I)
_ARR = re.compile(r"\b(?:arr|arrives?|arrivals?)\b\.?", re.I)


def _departures_only(stops: Sequence[Stop]) -> bool:
    """A row of departures from several places ("Port Ailin dep. | Carrick Isle dep."): each a sailing of
    its own, not one trip (a stop after the first marked "dep" is one only where it is marked "arr" too)."""
    arrived = {_ARR.sub("", p).strip().lower() for p, _ in stops if _ARR.search(p)}
    later = [_DEP.sub("", p).strip().lower() for p, _ in stops[1:] if _DEP.search(p)]
    return any(place not in arrived for place in later)


def _legs(lines: Sequence[str]) -> list[tuple[str, str, float, int]]:
    """(from, to, minutes, line) of every sentence that states how long a leg takes and names both ends."""
    out: list[tuple[str, str, float, int]] = []
    for n, line in enumerate(lines):
        for sentence in re.split(r"(?<=[.!?;])\s+", line):
            m = _LEG.search(sentence)
            spans = durations(sentence)
            if m and len(spans) == 1 and _TAKES.search(sentence) and not clock_times(sentence):
                out.append((m.group("a").strip(), m.group("b").strip(), spans[0], n))
    return out


def _block_trips(
    block: list[tuple[str, list[int]]], legs: list[tuple[str, str, float, int]]
) -> list[tuple[Stop, ...]]:
    if len(block) >= 2:
        return [tuple((place, times[j]) for place, times in block) for j in range(len(block[0][1]))]
    if len(block) == 1:  # one place's departures: the leg from it that a sentence states
        place, times = block[0]
        route = _route(place, legs)
        return [tuple((p, round(t + m)) for p, m in route) for t in times] if len(route) >= 2 else []
    return []


def _route(place: str, legs: list[tuple[str, str, float, int]]) -> list[tuple[str, float]]:
    """The stops from ``place`` along the legs the document states, one after another while exactly one
    leg leaves the last stop, each stated on the line of the one before or the next ("Ashby to Tarn
    Bridge takes 25 minutes; Tarn Bridge to Kellow takes 35": one route; a train's leg and a ferry's on
    lines of their own are two services), each with its minutes from ``place``."""
    route = [(place, 0.0)]
    line = -1  # the line of the last leg taken: the next one is stated on it or on the next line
    while len(route) <= len(legs):
        here, minutes = route[-1]
        onward = [
            (b, span, n) for a, b, span, n in legs if same_place(a, here) and (line < 0 or n - line in (0, 1))
        ]
        if len(onward) != 1 or any(same_place(onward[0][0], p) for p, _ in route):
            break
        route.append((onward[0][0], minutes + onward[0][1]))
        line = onward[0][2]
    return route


def _ordered(trip: tuple[Stop, ...]) -> tuple[Stop, ...]:
    """A trip's stops in time order, a time past midnight after the ones before it."""
    out: list[Stop] = []
    for place, t in trip:
        while out and t < out[-1][1]:
            t += 24 * 60
        out.append((place, t))
    return tuple(out)


def _change_time(lines: Sequence[str]) -> float:
    walk = 0.0
    before: list[float] = []
    for line in lines:
        for sentence in re.split(r"(?<=[.!?;])\s+", line):
            spans = durations(sentence)
            if len(spans) != 1 or clock_times(sentence):
                continue
            if _BEFORE.search(sentence):
                before.append(spans[0])
            elif _WALK.search(sentence) and not _LEG_WORDS.search(sentence):
                walk = max(walk, spans[0])
    return walk + (min(before) if before else 0.0)


# --------------------------------------------------------------------------- questions

_CATCH = re.compile(
    r"\b(?i:catch|take|taking|get on|board|on)\s+the\s+(?P<t>\d{1,2}:\d{2})\s+\w+\s+(?:from|out of)\s+"
    r"(?P<p>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})",
)
_TO = re.compile(
    r"\b(?i:get to|gets? me to|reach|arrive (?:in|at)|be (?:in|at)|get into)\s+"
    r"(?P<p>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})"
)
_LATEST = re.compile(
    r"\blatest\s+\w+\s+(?:from|out of)\s+(?P<p>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})"
    r".*?\b(?:onto|on to|for|to catch|in time for)\s+the\s+(?P<t>\d{1,2}:\d{2})\b",
    re.I,
)


_PLACE = r"[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2}"
_FIRST = re.compile(
    rf"\b(?i:first|next|earliest)\s+(?P<back>(?i:return)\s+)?\w+\s+(?i:from|out of)\s+(?P<x>{_PLACE})"
)
_LEFT = re.compile(
    rf"\b(?i:left|leaves|leaving|departed)\s+(?P<p>{_PLACE})\s+(?i:at)\s+(?P<t>\d{{1,2}}:\d{{2}})"
)


def asks_connection(question: str) -> bool:
    """Whether ``question`` asks one of the connections :func:`connection_expression` answers."""
    catch = _CATCH.search(question) is not None and _TO.search(question) is not None
    return (
        catch
        or _LATEST.search(question) is not None
        or bool(_FIRST.search(question) and _LEFT.search(question))
    )


def connection_expression(question: str, table: Timetable) -> tuple[str, str] | None:
    """(expression, CLOCK) answering a connection question over ``table`` (see the module docstring)."""
    if not table.trips:
        return None
    first, left = _FIRST.search(question), _LEFT.search(question)
    if first is not None and left is not None:
        return _next_departure(question, first, left, table)
    latest = _LATEST.search(question)
    if latest is not None:
        return _latest_departure(latest.group("p"), clock_times(latest.group("t"))[0], table)
    catch, to = _CATCH.search(question), _TO.search(question)
    if catch is None or to is None:
        return None
    start = [
        t
        for t in table.trips
        if any(same_place(p, catch.group("p")) and m == clock_times(catch.group("t"))[0] for p, m in t[:-1])
    ]
    if len(start) != 1:
        return None
    arrival = _earliest(start[0], catch.group("p"), to.group("p"), table)
    return (f"{arrival} * 1", CLOCK) if arrival is not None else None


def _next_departure(
    question: str, first: re.Match[str], left: re.Match[str], table: Timetable
) -> tuple[str, str] | None:
    """ "I arrive at X on the ferry that left P at 06:15 and stay 3 hours: the first return sailing from X
    I can catch": the arrival at X of that trip, the stay, the change time, then the first departure from X
    (of a trip back to P when a return is asked)."""
    origin, here = left.group("p"), first.group("x")
    start = clock_times(left.group("t"))[0]
    riding = [t for t in table.trips if any(same_place(p, origin) and m == start for p, m in t[:-1])]
    if len(riding) != 1:
        return None
    arrived = [m for p, m in riding[0] if same_place(p, here) and m > start]
    if len(arrived) != 1:
        return None
    stays = durations(_TIME.sub(" ", question))  # "and stay 3 hours"
    ready = arrived[0] + sum(stays) + table.change
    found = []
    for trip in table.trips:
        for i, (p, dep) in enumerate(trip[:-1]):
            back = any(same_place(q, origin) for q, _ in trip[i + 1 :])
            if same_place(p, here) and dep >= ready and (back or not first.group("back")):
                found.append(dep)
    if not found:
        return None
    parts = " + ".join(_number(x) for x in (arrived[0], *stays, table.change) if x)
    return f"max({min(found)}, {parts})", CLOCK  # the departure, after the arrival, the stay, the change


def _number(n: float) -> str:
    return str(int(n)) if n == int(n) else f"{n:.6g}"


def _earliest(trip: tuple[Stop, ...], origin: str, goal: str, table: Timetable) -> int | None:
    """The earliest arrival at ``goal`` riding ``trip`` from ``origin`` and changing at most twice."""
    best: int | None = None
    frontier = [(trip, next(i for i, (p, _) in enumerate(trip) if same_place(p, origin)))]
    for _ in range(3):
        following = []
        for current, i in frontier:
            for place, t in current[i + 1 :]:
                if same_place(place, goal):
                    best = t if best is None else min(best, t)
                    break
                for other in table.trips:
                    for j, (p, dep) in enumerate(other[:-1]):
                        if other is not current and same_place(p, place) and dep >= t + table.change:
                            following.append((other, j))
        frontier = following
    return best


def _latest_departure(origin: str, departure: int, table: Timetable) -> tuple[str, str] | None:
    """The latest departure from ``origin`` whose trip reaches the place the ``departure`` leaves from
    at least the change time before it."""
    leaving = {p for trip in table.trips for p, t in trip[:-1] if t == departure}
    found = []
    for trip in table.trips:
        starts = [t for p, t in trip[:-1] if same_place(p, origin)]
        ends = [t for p, t in trip if any(same_place(p, q) for q in leaving)]
        if (
            starts
            and ends
            and ends[-1] + table.change <= departure
            and not any(same_place(origin, q) for q in leaving)
        ):
            found.append(starts[0])
    return (f"{max(found)} * 1", CLOCK) if found else None


__all__ = [
    "Timetable",
    "asks_connection",
    "connection_expression",
    "place_of",
    "same_place",
    "timetable",
    "timetable_of",
]
