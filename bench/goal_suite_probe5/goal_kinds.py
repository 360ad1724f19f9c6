"""Answer kinds and document paths shared by the probe5 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

PA = "u-varrow-payroll-allowances/agreement-appendix-c-2026.txt"
KB = "u-kelby-bin-collections/round-7-calendar-apr-sep-2026.txt"
AG = "u-ardent-arts-grant-call/call-2026-1.md"
TB = "u-thermaline-boiler-manual/cx-service-manual-issue4.txt"
BL = "u-brannock-lift-passes/lift-pass-prices-winter-2026-27.txt"
GT = "u-grivel-tile-adhesive/tds-grivel-flex-s1-v3.2.txt"
DC = "u-dunmere-council-tax/council-tax-leaflet-2026-27.md"
PR = "u-pelorus-mobile-roaming/roaming-guide-may-2026.md"
ST = "u-skelder-tunnel-tolls/toll-order-2026.txt"
CH = "u-corrin-herbicide-label/corrin-480-sl-label.txt"
LA = "u-loweth-angling-permits/permits-and-rules-2026.md"


def num(value, unit="", tol=0.01):
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value, *accept):
    return {"type": "text", "value": value, "accept": list(accept)}


def day(iso):
    return {"type": "date", "value": iso}


def refused(missing):
    """The documents do not answer: the planner must name the value missing (exit 3)."""
    return {"type": "refused", "missing": missing}
