"""A document's typed records as a result's structured data (pure): ``data["records"]``, version 1.

The retrieval adapter sends the records of the document its answer came from, so that the planner
derives from the document's own typed values, rates, bands and rules instead of re-reading its text
(docs/protocol.md, "Retrieval results"). The form, compact and bounded (:data:`MAX_RECORDS` records,
:data:`MAX_BYTES` of canonical CBOR in all, less where the rest of a result leaves less room)::

    {"version": 1, "path": "rates.txt", "currency": "CHF",
     "records": [{"kind": "row", "line": 7, "text": "2 | Riverside | CHF 13 | CHF 22",
                  "section": ["..."], "key": "2", "cells": [["Zone", "2"], ...],
                  "quantities": [[13.0, "CHF", "", 1.0, null], ...],   # number, unit, per, per_amount, high
                  "conditions": [["unless", "..."]],
                  "rules": [[kind, number, unit, per, step, started, beyond, when, band, tier], ...]}]}

``band`` is ``[low, high, low_open, high_open, unit]`` (infinite ends as ``null``) or ``null``.
"""

from __future__ import annotations

import math
import re

from ioa_p2p.adapters.base import MAX_DATA_BYTES
from ioa_p2p.adapters.retrieval.docmodel.bands import Band, band_of
from ioa_p2p.adapters.retrieval.docmodel.records import ROW, Document, Record
from ioa_p2p.adapters.retrieval.docmodel.rules import Rule, rules_of, tier_of
from ioa_p2p.wire import canonical

VERSION = 1
MAX_RECORDS = 300
MAX_BYTES = 60_000
MAX_TEXT = 300


def records_data(document: Document, max_bytes: int = MAX_BYTES) -> dict[str, object]:
    """The typed records of ``document`` as a result's ``data["records"]``: at most :data:`MAX_RECORDS`
    records and ``min(max_bytes, MAX_BYTES)`` bytes of their canonical encoding (the first ones kept)."""
    out: list[dict[str, object]] = []
    data = {"version": VERSION, "path": document.path, "currency": document.currency, "records": out}
    size, limit = len(canonical.encode(data)) + 8, min(max_bytes, MAX_BYTES)  # 8: the list's length
    for record, rules in zip(document.records, document_rules(document), strict=True):
        item = _record(record, rules)
        size += len(canonical.encode(item))
        if size > limit or len(out) >= MAX_RECORDS:
            break
        out.append(item)
    return data


def with_records(document: Document | None, data: dict[str, object]) -> dict[str, object]:
    """``data`` with ``"records"``: the typed records of ``document`` in the room the rest of ``data``
    leaves within a result's bound (:data:`~ioa_p2p.adapters.base.MAX_DATA_BYTES`)."""
    room = MAX_DATA_BYTES - 64 - len(canonical.encode(data))
    if document is not None and room > 0:
        data["records"] = records_data(document, room)
    return data


def document_rules(document: Document) -> list[tuple[Rule, ...]]:
    """The rules of each record of ``document``, in order; a table whose keys are tiers ("first 8 MWh",
    "next 12 MWh") gives each row its tier, other tables each row the band its key states."""
    tiers: dict[int, bool] = {}
    for r in document.records:
        if r.kind == ROW and re.match(r"\s*(first|next)\s+\d", r.key, re.I):
            tiers[r.table] = True
    out: list[tuple[Rule, ...]] = []
    high = 0.0
    for r in document.records:
        if r.kind != ROW:
            out.append(rules_of(r.text, currency=document.currency))
            continue
        tier = tiers.get(r.table, False)
        band = tier_of(r.key, high) if tier else band_of(r.key)
        if tier and band is not None and math.isfinite(band.high):
            high = band.high
        out.append(rules_of(r.text, r.cells, band, document.currency, tier))
    return out


def _record(r: Record, rules: tuple[Rule, ...]) -> dict[str, object]:
    item: dict[str, object] = {"kind": r.kind, "line": r.line, "text": r.text[:MAX_TEXT]}
    if r.section:
        item["section"] = [s[:100] for s in r.section[-3:]]
    if r.key:
        item["key"] = r.key[:100]
    if r.cells:
        item["cells"] = [[h[:80], c[:120]] for h, c in r.cells[:12]]
    if r.quantities:
        item["quantities"] = [[q.number, q.unit, q.per, q.per_amount, q.high] for q in r.quantities[:12]]
    if r.conditions:
        item["conditions"] = [[c.kind, c.text] for c in r.conditions[:6]]
    if rules:
        item["rules"] = [_finite(rule.to_list()) for rule in rules]
    return item


def _finite(rule: list[object]) -> list[object]:
    band = rule[8]
    if isinstance(band, list):
        rule[8] = [None if isinstance(x, float) and not math.isfinite(x) else x for x in band]
    return rule


__all__ = ["MAX_BYTES", "MAX_RECORDS", "VERSION", "Band", "records_data", "with_records"]
