"""The LLM path under hostile model servers: wall time of ``ioa goal`` over its ``--timeout``, per mode.

Run: python bench/bench_llm_path.py [--timeout 20] [--modes stall,trickle,...] [--json]

One testnet (separate node processes: a coordinator with the LLM brain, a calculator with none) and one
:func:`~ioa_p2p.testing.hostile_model.serve_hostile` server whose mode is switched between goals. For each
mode, ``ioa goal "Calculate 17 * 23. Then calculate the result times 2" --timeout T --json`` runs as a
separate process; printed: wall time, wall / timeout (the contract: at most 1 + grace / timeout), exit
code, turns made by the model and by the fallback, the team-up's fallback kind.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.bootstrap.testnet import NodeSpec, open_testnet
from ioa_p2p.testing.hostile_model import MODES, serve_hostile

GOAL = "Calculate 17 * 23. Then calculate the result times 2"
DEFAULT_MODES = [m for m in MODES if m not in ("ok", "no_schema")] + ["ok"]


def specs(base_url: str) -> list[NodeSpec]:
    chats = {"sync_interval": 2.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 5.0}
    model = {"base_url": base_url, "api_key": "bench-key", "model": "hostile", "max_retries": 1}
    goals = {"brain": "llm", "speaker_timeout": 5.0, "team_up_timeout": 5.0}
    return [
        NodeSpec(
            "coordinator",
            {
                "agent": {"name": "coordinator", "description": "Coordinates agents."},
                "chats": chats,
                "goals": goals,
                "model": model,
            },
        ),  # fmt: skip
        NodeSpec(
            "calculator",
            {
                "agent": {
                    "name": "calculator",
                    "adapter": "calculator",
                    "description": "Exact arithmetic: sums, products, powers.",
                },
                "chats": chats,
                "goals": {"brain": "offline"},
            },
        ),  # fmt: skip
    ]


async def wait_cards(home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    for _ in range(150):
        command = [sys.executable, "-m", "ioa_p2p", "--home", str(home), "find", "arithmetic"]
        out = await trio.run_process(command, capture_stdout=True, capture_stderr=True, check=False, env=env)
        if b"calculator" in out.stdout:
            return
        await trio.sleep(0.3)
    raise RuntimeError("the coordinator never saw the calculator's card")


async def one_goal(home: Path, goal_timeout: float) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    command = [sys.executable, "-m", "ioa_p2p", "--home", str(home), "goal", GOAL, "--json",
               "--timeout", f"{goal_timeout:g}"]  # fmt: skip
    t0 = time.monotonic()
    done = await trio.run_process(command, capture_stdout=True, capture_stderr=True, check=False, env=env)
    wall = time.monotonic() - t0
    try:
        result = json.loads(done.stdout)
    except ValueError:
        result = {"error": done.stderr.decode()[-300:]}
    return {"wall_s": round(wall, 2), "ratio": round(wall / goal_timeout, 3), "exit": done.returncode,
            "model_turns": result.get("model_turns"), "fallback_turns": result.get("fallback_turns"),
            "fallbacks": result.get("fallbacks"), "team_fallback": result.get("team_fallback"),
            "status": result.get("status")}  # fmt: skip


async def main(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp, serve_hostile("ok", interval=1.0) as server:
        async with open_testnet(Path(tmp) / "net", specs(server.base_url)) as net:
            home = net["coordinator"].home
            await wait_cards(home)
            for mode in args.modes:
                server.mode = mode
                row = {"mode": mode, **await one_goal(home, args.timeout)}
                rows.append(row)
                if not args.json:
                    print(f"{mode:16} wall {row['wall_s']:6.2f} s  wall/timeout {row['ratio']:.3f}  "
                          f"exit {row['exit']}  model {row['model_turns']} fallback {row['fallback_turns']} "
                          f"{row['fallbacks']} team-up {row['team_fallback'] or 'model'}",
                          flush=True)  # fmt: skip
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--modes", type=lambda s: s.split(","), default=DEFAULT_MODES)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    out = trio.run(main, options)
    if options.json:
        print(json.dumps(out, indent=2))
