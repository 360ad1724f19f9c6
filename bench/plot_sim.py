"""Plots (PNG) of bench_sim.py rows: lookups under churn, gossip, revocation over time, card spread.

    .venv/bin/pip install 'ioa-p2p[bench]'     # matplotlib: only the plots need it
    nice -n 10 .venv/bin/python bench/bench_sim.py ... --json rows.jsonl
    .venv/bin/python bench/plot_sim.py rows.jsonl [more.jsonl ...] --out docs/img

Each input line is one row of ``bench_sim.py --json`` (one network size and churn level). Writes what the
rows hold: ``sim-lookups.png`` (lookup p50/p95 and hops against churn, one line per N, log2 N for
reference), ``sim-gossip.png`` (time to reach 95 % of nodes and gossip messages per node per minute
against N), ``sim-revocation.png`` (share of online nodes still holding a withdrawn card, and share of
probe fetches that got it, minute by minute, one line per run), ``sim-spread.png`` (share of searches
finding a fresh card t seconds after it was published), ``sim-latency.png`` (lookup p50/p95 by how requests
and dials are costed: ``--request-rtts``, ``--dial-rtts``, ``--connected-tables``), ``sim-scale.png``
(hops beside log2 N, lookup latency and search recall@5 against N, no churn), ``sim-loss.png`` (lookups
against ``--loss``), ``sim-recall.png`` (the page search's recall@5 against the exact search, and its
time, against N), ``sim-publish.png`` (placed, round over and first store per run); ``--plots`` picks.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def load(paths: list[str]) -> list[dict[str, Any]]:
    rows = []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def label(row: dict[str, Any]) -> str:
    loss = f", loss {row['loss']:g}" if row.get("loss") else ""
    gap = "" if row.get("rejoin", True) else ", no gap rule"
    return f"N={row['N']:,}, churn {row['churn']:g}{loss}{gap}"


def plot_lookups(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    rows = [r for r in rows if "lookup_p50" in r]
    if not rows:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for n in sorted({r["N"] for r in rows}):
        mine = sorted((r for r in rows if r["N"] == n and not r.get("loss")), key=lambda r: r["churn"])
        if not mine:
            continue
        churn = [r["churn"] for r in mine]
        left.plot(churn, [r["lookup_p50"] for r in mine], "o-", label=f"N={n:,} p50")
        left.plot(churn, [r["lookup_p95"] for r in mine], "s--", label=f"N={n:,} p95")
        hops = f"N={n:,} hops (log2 N = {mine[0]['log2N']})"
        right.plot(churn, [r["hops"] for r in mine], "o-", label=hops)
        right.plot(churn, [r["success"] for r in mine], "^:", label=f"N={n:,} success")
    left.set(xlabel="share of nodes offline (churn)", ylabel="lookup latency, s (50 ms links)")
    right.set(xlabel="share of nodes offline (churn)", ylabel="hops / success rate")
    left.legend(fontsize=8)
    right.legend(fontsize=8)
    fig.suptitle("FIND_NODE lookups (simulated, the node's Lookup state machine)")
    fig.tight_layout()
    fig.savefig(out / "sim-lookups.png", dpi=100)
    plt.close(fig)
    return True


def links_label(row: dict[str, Any]) -> str:
    """How requests and dials were costed (rows from before these fields: py-libp2p's own 3 + 5)."""
    rtts, dial = row.get("request_rtts", 3), row.get("dial_rtts", 5)
    name = "py-libp2p negotiation" if (rtts, dial) == (3, 5) else "lazy negotiation"
    tables = ", tables connected" if row.get("connected") else ""
    return f"{name} ({rtts} + {dial} RTT){tables}"


def plot_latency(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    """Lookup p50/p95 by how requests and dials are costed, one group per network (N, churn, loss)."""
    rows = [r for r in rows if "lookup_p50" in r]
    if not rows:
        return False
    groups = sorted({(r["N"], r["churn"], r.get("loss", 0.0)) for r in rows})
    configs = list(dict.fromkeys(links_label(r) for r in rows))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / len(configs)
    for c, config in enumerate(configs):
        xs, p50, p95 = [], [], []
        for g, (n, churn, loss) in enumerate(groups):
            mine = [r for r in rows if (r["N"], r["churn"], r.get("loss", 0.0)) == (n, churn, loss)]
            mine = [r for r in mine if links_label(r) == config]
            if mine:
                xs.append(g + c * width)
                p50.append(mine[-1]["lookup_p50"])
                p95.append(mine[-1]["lookup_p95"] - mine[-1]["lookup_p50"])
        ax.bar(xs, p50, width, label=f"{config}: p50")
        ax.bar(xs, p95, width, bottom=p50, alpha=0.35, color=ax.patches[-1].get_facecolor())
    ax.axhline(0.5, color="grey", linestyle=":", label="target p50 0.5 s")
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    ax.set_xticklabels([f"N={n:,}\nchurn {c:g}, loss {x:g}" for n, c, x in groups], fontsize=8)
    ax.set(ylabel="FIND_NODE lookup, s (bar p50, shaded to p95)")
    ax.legend(fontsize=7)
    fig.suptitle("Lookup latency by negotiation cost (simulated, 50 ms links)")
    fig.tight_layout()
    fig.savefig(out / "sim-latency.png", dpi=100)
    plt.close(fig)
    return True


def plot_gossip(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    rows = [r for r in rows if "gossip_reach95_s" in r]
    if not rows:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    names = [label(r) for r in rows]
    left.barh(names, [r["gossip_reach95_s"] for r in rows], color="tab:blue")
    left.set(xlabel="seconds until 95 % of online nodes have an announcement")
    right.barh(names, [r["gossip_msgs_node_min"] for r in rows], color="tab:orange")
    right.set(xlabel="gossip messages sent per node per minute")
    fig.suptitle("Card gossip (GossipSub mesh 6, heartbeat 1 s; the node's validator and pacing)")
    fig.tight_layout()
    fig.savefig(out / "sim-gossip.png", dpi=100)
    plt.close(fig)
    return True


def plot_revocation(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    rows = [r for r in rows if r.get("holding_by_min")]
    if not rows:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for row in rows:
        held = {int(k): v for k, v in row["holding_by_min"].items()}
        probes = {int(k): v for k, v in row.get("probes_old_by_min", {}).items()}
        left.plot(list(held), [100 * v for v in held.values()], "o-", label=f"{label(row)}: holding")
        returning = {int(k): v for k, v in row.get("returning_by_min", {}).items()}
        if returning:
            values = [100 * v for v in returning.values()]
            left.plot(list(returning), values, "s--", label=f"{label(row)}: would return it")
        right.plot(list(probes), [100 * v for v in probes.values()], "o-", label=label(row))
    for axis in (left, right):
        axis.axvline(15, color="grey", linestyle=":")
        axis.legend(fontsize=8)
    left.set(xlabel="minutes after the withdrawal", ylabel="% of online nodes holding / returning it")
    right.set(xlabel="minutes after the withdrawal", ylabel="% of fetches (find) returning it")
    fig.suptitle("Revocation: owners withdraw and leave; gossip, DHT and revalidation (720 s)")
    fig.tight_layout()
    fig.savefig(out / "sim-revocation.png", dpi=100)
    plt.close(fig)
    return True


def plot_spread(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    rows = [r for r in rows if any(k.startswith("spread@") for k in r)]
    if not rows:
        return False
    fig, axis = plt.subplots(figsize=(6, 4))
    for row in rows:
        keys = [k for k in row if k.startswith("spread@")]
        times = [float(k[len("spread@") : -1]) for k in keys]
        axis.plot(times, [row[k] for k in keys], "o-", label=label(row))
    axis.set(xlabel="seconds after publishing started", ylabel="share of searches finding the card")
    axis.set_ylim(0, 1.05)
    axis.legend(fontsize=8)
    fig.suptitle("Card spread: a fresh card found by its own description (DHT only)")
    fig.tight_layout()
    fig.savefig(out / "sim-spread.png", dpi=100)
    plt.close(fig)
    return True


def plot_scale(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    """Against N (no churn, no loss): lookup hops (mean and p95) beside log2 N, lookup p50/p95, and the
    DHT search's recall@5 against the exact search over every card."""
    rows = [r for r in rows if "hops" in r and not r["churn"] and not r.get("loss")]
    sizes = sorted({r["N"] for r in rows})
    if len(sizes) < 2:
        return False
    last = {r["N"]: r for r in rows}  # the last row of each size
    fig, (hops, latency, recall) = plt.subplots(1, 3, figsize=(13, 4))
    hops.plot(sizes, [last[n]["hops"] for n in sizes], "o-", label="hops, mean")
    hops.plot(sizes, [last[n]["hops_p95"] for n in sizes], "s--", label="hops, p95")
    hops.plot(sizes, [last[n]["log2N"] for n in sizes], ":", color="grey", label="log2 N")
    hops.set(xscale="log", xlabel="nodes N", ylabel="hops of a FIND_NODE lookup")
    latency.plot(sizes, [last[n]["lookup_p50"] for n in sizes], "o-", label="p50")
    latency.plot(sizes, [last[n]["lookup_p95"] for n in sizes], "s--", label="p95")
    latency.axhline(0.5, color="grey", linestyle=":", label="target p50 0.5 s")
    latency.set(xscale="log", xlabel="nodes N", ylabel="lookup latency, s (50 ms links)")
    found = [n for n in sizes if any(k.endswith(":recall_exact") for k in last[n])]
    for mode in ("pages", "providers"):
        mine = [n for n in found if f"{mode}:recall_exact" in last[n]]
        if mine:
            recall.plot(
                mine, [last[n][f"{mode}:recall_exact"] for n in mine], "o-", label=f"DHT search ({mode})"
            )
    recall.axhline(0.98, color="grey", linestyle=":", label="target: exact - 0.02")
    recall.set(xscale="log", xlabel="nodes N", ylabel="recall@5 vs exact search", ylim=(0, 1.05))
    for axis in (hops, latency, recall):
        axis.legend(fontsize=8)
    fig.suptitle("Discovery against network size (simulated; no churn, no loss)")
    fig.tight_layout()
    fig.savefig(out / "sim-scale.png", dpi=100)
    plt.close(fig)
    return True


def plot_recall(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    """Against N (no churn): the page search's recall@5 against the exact search over every card (cards
    tied with the exact fifth count as exact; strict beside it) and its time to answer."""
    rows = [r for r in rows if "pages:recall_exact" in r and not r["churn"]]
    last = {r["N"]: r for r in rows}  # the last row of each size
    sizes = sorted(last)
    if not sizes:
        return False
    fig, (recall, times) = plt.subplots(1, 2, figsize=(10, 4))
    recall.plot(sizes, [last[n]["pages:recall_exact"] for n in sizes], "o-", label="recall@5 vs exact")
    strict = [n for n in sizes if "pages:recall_exact_strict" in last[n]]
    recall.plot(
        strict, [last[n]["pages:recall_exact_strict"] for n in strict], "s--", label="ties not counted"
    )
    recall.axhline(0.98, color="grey", linestyle=":", label="target: exact - 0.02")
    recall.set(xscale="log", xlabel="nodes N", ylabel="recall@5", ylim=(0.8, 1.01))
    times.plot(sizes, [last[n]["pages:find_p50"] for n in sizes], "o-", label="find p50")
    times.plot(sizes, [last[n]["pages:find_p95"] for n in sizes], "s--", label="find p95")
    times.set(xscale="log", xlabel="nodes N", ylabel="seconds (50 ms links)")
    for axis in (recall, times):
        axis.legend(fontsize=8)
    fig.suptitle("Capability search over bucket pages (simulated, the node's loop; no churn)")
    fig.tight_layout()
    fig.savefig(out / "sim-recall.png", dpi=100)
    plt.close(fig)
    return True


def plot_publish(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    """Publish times by run (N, churn, ``--early-rank``): when every key had its quorum (placed: the card
    findable) and when the rounds were over, p50 and p95, and the first store."""
    rows = [r for r in rows if "placed_p50" in r]
    if not rows:
        return False
    fig, axis = plt.subplots(figsize=(10, 4))
    names = [f"{label(r)}\nearly rank {r.get('early_rank', 0):g}" for r in rows]
    x = list(range(len(rows)))
    for shift, key, style in (
        (-0.2, "placed", "placed: every key at its quorum (the publish is done, since d-publish2)"),
        (0.0, "round", "round over"),
        (0.2, "first_store", "first store"),
    ):
        # rows before 2026-11-28 10:00 UTC: "publish" was the round's end (no "round" key)
        p50 = [r.get(f"{key}_p50", r.get("publish_p50")) if key == "round" else r[f"{key}_p50"] for r in rows]
        p95 = [r.get(f"{key}_p95", r.get("publish_p95")) if key == "round" else r[f"{key}_p95"] for r in rows]
        axis.bar([i + shift for i in x], p50, width=0.2, label=f"{style}, p50")
        axis.scatter([i + shift for i in x], p95, marker="_", s=300, color="black")
    axis.axhline(1.0, color="grey", linestyle=":", label="target at 10,000: 1 s")
    axis.set_xticks(x, names, fontsize=7)
    axis.set(ylabel="seconds (50 ms links; bar p50, dash p95)")
    axis.legend(fontsize=8)
    fig.suptitle("Publishing a card: stores during the lookup (early rank > 0) or after it")
    fig.tight_layout()
    fig.savefig(out / "sim-publish.png", dpi=100)
    plt.close(fig)
    return True


def plot_loss(plt: Any, rows: list[dict[str, Any]], out: Path) -> bool:
    """Lookup p50/p95 and success against the share of link crossings lost (retransmitted), per N and
    churn."""
    rows = [r for r in rows if "lookup_p50" in r]
    groups = sorted({(r["N"], r["churn"]) for r in rows})
    groups = [g for g in groups if len({r.get("loss", 0.0) for r in rows if (r["N"], r["churn"]) == g}) > 1]
    if not groups:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for n, churn in groups:
        mine = sorted((r for r in rows if (r["N"], r["churn"]) == (n, churn)), key=lambda r: r.get("loss", 0))
        loss = [100 * r.get("loss", 0.0) for r in mine]
        left.plot(loss, [r["lookup_p50"] for r in mine], "o-", label=f"N={n:,}, churn {churn:g}: p50")
        left.plot(loss, [r["lookup_p95"] for r in mine], "s--", label=f"N={n:,}, churn {churn:g}: p95")
        right.plot(loss, [r["success"] for r in mine], "o-", label=f"N={n:,}, churn {churn:g}")
    left.set(xlabel="% of link crossings lost (TCP retransmits after 200 ms)", ylabel="lookup latency, s")
    right.set(xlabel="% of link crossings lost", ylabel="lookup success", ylim=(0, 1.05))
    left.legend(fontsize=8)
    right.legend(fontsize=8)
    fig.suptitle("FIND_NODE lookups under message loss (simulated, 50 ms links)")
    fig.tight_layout()
    fig.savefig(out / "sim-loss.png", dpi=100)
    plt.close(fig)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--out", default="docs/img")
    parser.add_argument(
        "--plots",
        default="lookups,gossip,revocation,spread,latency,scale,loss,recall,publish",
        help="which to write",
    )
    args = parser.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_sim.py needs matplotlib: pip install 'ioa-p2p[bench]'")
    rows = load(args.rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.plots.split(","))
    for plot in (
        plot_lookups,
        plot_gossip,
        plot_revocation,
        plot_spread,
        plot_latency,
        plot_scale,
        plot_loss,
        plot_recall,
        plot_publish,
    ):
        if plot.__name__.removeprefix("plot_") in wanted and plot(plt, rows, out):
            print(f"wrote {out / ('sim-' + plot.__name__.removeprefix('plot_') + '.png')}")


if __name__ == "__main__":
    main()
