"""Answer kinds and document paths shared by the probe3 goal lists (make_goals.py, goals_first.py)."""

TS = "r-tarnsync-manual/tarnsync.1.txt"
OG = "r-ostler-garden-minutes/committee-minutes.md"
KB = "r-kestrel-kd4-bom/kd4-bom-rev7.txt"
FL = "r-fenmoor-league/division-one-table.txt"
QE = "r-quayside-api-errors/error-reference.md"
MB = "r-mb014-gel-protocol/SOP-MB-014.md"
BR = "r-brightlane-rewards/programme-terms.md"
SH = "r-saltery-holm-tides/calendar-april.txt"


def num(value, unit="", tol=0.01):
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value, *accept):
    return {"type": "text", "value": value, "accept": list(accept)}


def day(iso):
    return {"type": "date", "value": iso}


def refused(missing):
    """The documents do not answer: the planner must name the value missing (exit 3)."""
    return {"type": "refused", "missing": missing}
