"""Answer kinds and document paths shared by the probe4 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

HP = "s-harrowgate-home-policy/policy-schedule.txt"
VF = "s-vexa-r7-firmware/CHANGELOG.md"
CF = "s-caldmoor-fare-matrix/anytime-singles-2026.txt"
KW = "s-korvane-warranty/warranty-terms.md"
WR = "s-wyndle-rowing-tariff/membership-tariff.md"
PE = "s-pellam-election/declaration-of-result.txt"
TS = "s-tollerby-sowing-chart/sowing-chart.md"
BW = "s-brackley-weather-log/daily-log-may-2026.txt"
CD = "s-calmadol-dosing/dosing-chart-children.md"


def num(value, unit="", tol=0.01):
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value, *accept):
    return {"type": "text", "value": value, "accept": list(accept)}


def day(iso):
    return {"type": "date", "value": iso}


def refused(missing):
    """The documents do not answer: the planner must name the value missing (exit 3)."""
    return {"type": "refused", "missing": missing}
