"""iCalendar files (``.ics``, RFC 5545) read as the text the retrieval understands (pure).

A studio's workshop programme, a club's fixtures or a school's term dates are often kept as the calendar
file a booking system exports. Read raw, a date is ``DTSTART;TZID=Europe/London:20261107T100000``, a
description is folded over lines with ``\\n`` and ``\\;`` escapes, and a weekly course is one event with an
``RRULE``: the date a user asks for is in none of its lines. Rendered:

- the calendar's name (``X-WR-CALNAME``, else ``PRODID``'s) as the document's heading;
- each ``VEVENT`` / ``VTODO`` as a heading of its ``SUMMARY``, then ``key: value`` lines: ``date``
  (``2026-11-07``, weekday and day written out beside it), ``time`` (``10:00 to 17:00``), ``duration``
  (``7 hours``), ``location``, ``status`` (a cancelled event says so), ``repeats`` (``weekly, 6 times``)
  with the ``last date`` of a counted or bounded repetition, ``categories``, ``organizer``, ``due``;
- its ``DESCRIPTION`` unescaped, as prose under the event.

Lines are unfolded first (a line starting with a space or tab continues the previous one). A file with no
``BEGIN:VCALENDAR`` is read as it is; the rendering is new text, so citations count its lines.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

ICS_FORMATS = frozenset({".ics", ".ical", ".ifb"})
MAX_EVENTS = 5_000
MAX_OCCURRENCES = 1_000  # a repetition expanded this far at most to find its last date
_COMPONENTS = ("VEVENT", "VTODO")
_STAMP = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?Z?)?$")
_DURATION = re.compile(r"^[+-]?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")
_FREQ_WORDS = {"DAILY": "daily", "WEEKLY": "weekly", "MONTHLY": "monthly", "YEARLY": "yearly"}


def render_ics(suffix: str, text: str) -> str | None:
    """``text`` of a calendar file as headed text; None when it is not one."""
    if suffix not in ICS_FORMATS and not text.lstrip().upper().startswith("BEGIN:VCALENDAR"):
        return None
    lines = _unfolded(text)
    if not any(line.upper() == "BEGIN:VCALENDAR" for line in lines):
        return None if suffix not in ICS_FORMATS else text
    out: list[str] = []
    calendar: dict[str, str] = {}
    event: dict[str, str] | None = None
    events = 0
    for line in lines:
        name, params, value = _property(line)
        if name == "BEGIN" and value.upper() in _COMPONENTS:
            event = {"_kind": value.upper()}
        elif name == "END" and value.upper() in _COMPONENTS and event is not None:
            if events < MAX_EVENTS:
                out += _event_lines(event)
                events += 1
            event = None
        elif event is not None:
            key = name if name not in event else f"{name}+"  # a second DESCRIPTION line etc.
            event[key] = value
            if params.get("TZID"):
                event[f"{name};TZID"] = params["TZID"]
        elif name:
            calendar.setdefault(name, value)
    return "\n".join(_calendar_head(calendar) + out).strip() + "\n"


def _unfolded(text: str) -> list[str]:
    out: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if raw[:1] in (" ", "\t") and out:
            out[-1] += raw[1:]
        elif raw.strip():
            out.append(raw)
    return [line.rstrip() for line in out]


def _property(line: str) -> tuple[str, dict[str, str], str]:
    """``NAME;PARAM=x:value`` -> (NAME, {PARAM: x}, value); ("", {}, "") for a line that is not one."""
    head, sep, value = line.partition(":")
    if not sep:
        return "", {}, ""
    name, *params = head.split(";")
    found = {}
    for p in params:
        k, _, v = p.partition("=")
        found[k.upper()] = v.strip('"')
    return name.strip().upper(), found, value


def _unescape(value: str) -> str:
    return re.sub(r"\\([nN,;\\])", lambda m: "\n" if m[1] in "nN" else m[1], value)


def _calendar_head(calendar: dict[str, str]) -> list[str]:
    name = calendar.get("X-WR-CALNAME") or calendar.get("NAME")
    if not name and calendar.get("PRODID"):
        parts = [p for p in calendar["PRODID"].split("//") if p.strip("-")]
        name = " - ".join(parts[:2]) if parts else ""
    lines = [f"# {_unescape(name)}", ""] if name else []
    if calendar.get("X-WR-CALDESC"):
        lines += [_unescape(calendar["X-WR-CALDESC"]), ""]
    return lines


def _event_lines(event: dict[str, str]) -> list[str]:
    summary = _unescape(event.get("SUMMARY", "")).strip() or (
        "task" if event["_kind"] == "VTODO" else "event"
    )
    out = [f"## {summary}", ""]
    start, end = _moment(event.get("DTSTART", "")), _moment(event.get("DTEND", ""))
    if start is not None:
        out.append(f"- date: {_day(start)}")
        if isinstance(start, datetime):
            until = f" to {end:%H:%M}" if isinstance(end, datetime) and end.date() == start.date() else ""
            out.append(f"- time: {start:%H:%M}{until}")
    length = _length(start, end, event.get("DURATION", ""))
    if length is not None and length > timedelta(0):
        out.append(f"- duration: {_spoken(length)}")
    if end is not None and start is not None and _as_date(end) != _as_date(start):
        # the DTEND of a whole-day event is exclusive
        last = end - timedelta(days=1) if not isinstance(end, datetime) else end
        out.append(f"- end date: {_day(last)}")
    out += _repeats(start, event.get("RRULE", ""))
    for key, label in (("LOCATION", "location"), ("STATUS", "status"), ("CATEGORIES", "categories"),
                       ("PRIORITY", "priority"), ("URL", "url")):  # fmt: skip
        if event.get(key):
            value = _unescape(event[key]).strip()
            out.append(f"- {label}: {value.lower() if key == 'STATUS' else value}")
    if event.get("ORGANIZER"):
        out.append(f"- organizer: {re.sub(r'^mailto:', '', event['ORGANIZER'], flags=re.I)}")
    due = _moment(event.get("DUE", ""))
    if due is not None:
        out.append(f"- due: {_day(due)}")
    out.append("")
    for key in ("DESCRIPTION", "DESCRIPTION+"):
        if event.get(key):
            body = [line.strip() for line in _unescape(event[key]).split("\n")]
            out += [line for line in body if line] + [""]
    return out


def _moment(value: str) -> date | datetime | None:
    m = _STAMP.match(value.strip())
    if not m:
        return None
    y, mo, d, h, mi, s = m.groups()
    try:
        if h is None:
            return date(int(y), int(mo), int(d))
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0))
    except ValueError:
        return None


def _as_date(moment: date | datetime) -> date:
    return moment.date() if isinstance(moment, datetime) else moment


def _day(moment: date | datetime) -> str:
    d = _as_date(moment)
    return f"{d.isoformat()} ({d:%A} {d.day} {d:%B %Y})"


def _length(start: date | datetime | None, end: date | datetime | None, duration: str) -> timedelta | None:
    if start is not None and end is not None and isinstance(start, datetime) == isinstance(end, datetime):
        return end - start if isinstance(start, datetime) else None
    m = _DURATION.match(duration.strip())
    if not m or not any(m.groups()):
        return None
    w, d, h, mi, s = (int(x or 0) for x in m.groups())
    return timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s)


def _spoken(length: timedelta) -> str:
    """``2:30:00`` -> ``2.5 hours (2 h 30 min)``; whole days as days."""
    minutes = int(length.total_seconds() // 60)
    if minutes % (24 * 60) == 0:
        days = minutes // (24 * 60)
        return f"{days} day{'s' if days != 1 else ''}"
    hours, rest = divmod(minutes, 60)
    if rest == 0:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    if hours == 0:
        return f"{rest} min"
    return f"{minutes / 60:g} hours ({hours} h {rest} min)"


def _repeats(start: date | datetime | None, rrule: str) -> list[str]:
    if not rrule:
        return []
    parts = dict(p.partition("=")[::2] for p in rrule.upper().split(";") if "=" in p)
    freq = _FREQ_WORDS.get(parts.get("FREQ", ""), parts.get("FREQ", "").lower())
    interval = int(parts["INTERVAL"]) if parts.get("INTERVAL", "").isdigit() else 1
    every = freq if interval == 1 else f"every {interval} {freq.removesuffix('ly').replace('dai', 'day')}s"
    count = int(parts["COUNT"]) if parts.get("COUNT", "").isdigit() else 0
    until = _moment(parts.get("UNTIL", ""))
    text = every + (f", {count} times" if count else "") + (f", until {_day(until)}" if until else "")
    out = [f"- repeats: {text}"]
    if start is not None and (count or until) and not parts.get("BYDAY") and not parts.get("BYMONTHDAY"):
        last = _last(_as_date(start), freq, interval, count, _as_date(until) if until else None)
        if last is not None:
            out.append(f"- last date: {_day(last)}")
            out.append(f"- sessions: {_occurrences(_as_date(start), last, freq, interval)}")
    return out


def _step(day: date, freq: str, n: int) -> date | None:
    if freq == "daily":
        return day + timedelta(days=n)
    if freq == "weekly":
        return day + timedelta(weeks=n)
    if freq in ("monthly", "yearly"):
        months = n if freq == "monthly" else 12 * n
        y, m = divmod(day.month - 1 + months, 12)
        try:
            return day.replace(year=day.year + y, month=m + 1)
        except ValueError:
            return None  # the 31st of a shorter month: RFC 5545 skips it; not expanded here
    return None


def _last(start: date, freq: str, interval: int, count: int, until: date | None) -> date | None:
    last = start
    for i in range(1, min(count, MAX_OCCURRENCES) if count else MAX_OCCURRENCES):
        nxt = _step(start, freq, i * interval)
        if nxt is None or (until is not None and nxt > until):
            break
        last = nxt
    return last


def _occurrences(start: date, last: date, freq: str, interval: int) -> int:
    n, day = 1, start
    while day < last and n < MAX_OCCURRENCES:
        nxt = _step(start, freq, n * interval)
        if nxt is None:
            break
        day, n = nxt, n + 1
    return n
