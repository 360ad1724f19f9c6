"""The network of bench/bench_goals_suite.py: a bootstrap node and four agents as ``ioa`` processes.

Every process on 127.0.0.1, each node with its own ``IOA_HOME`` under the bench's root, created with ``ioa
init`` and started with ``ioa bootstrap start`` / ``ioa node start --config F`` (:class:`Network`); the
agents (:data:`AGENTS`) and their config files (:func:`toml_text`). Only the CLI, config files and JSON
outputs are used: nothing is imported from ``ioa_p2p``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

START_TIMEOUT = 90.0
CARDS_TIMEOUT = 90.0
STOP_TIMEOUT = 10.0
#: Invitations a node accepts from one inviter before its rate limit (docs/security.md): the bench's
#: coordinator invites the same agents once per goal, hundreds of times in a few minutes; with the default
#: (a burst of 20, then 0.5 per second) later goals would run without the teammates that were rate-limited.
BENCH_CHATS = {"invite_burst": 100_000, "invite_rate": 1000.0}

AGENTS: dict[str, dict[str, Any]] = {
    "coordinator": {
        "description": "Coordinates a team of agents: splits a goal into steps and assigns them.",
        "skills": ["planning", "coordination"],
    },
    "calculator": {
        "adapter": "calculator",
        "description": "Exact arithmetic from plain language: sums, products, powers, percentages and "
        "fractions.",
        "skills": ["math", "arithmetic", "percentages"],
    },
    "coder": {
        "adapter": "python",
        "description": "Runs Python code in a sandbox and returns what it prints.",
        "skills": ["python", "code"],
    },
    "librarian": {
        "adapter": "retrieval",
        "description": "Searches the company's documents (spec sheets, price lists, policies, reports, "
        "timetables) and answers with cited passages.",
        "skills": ["documents", "search", "citations"],
    },
}


def toml_text(tables: dict[str, dict[str, Any]]) -> str:
    """A config.toml for plain tables of str/number/bool/list values and one level of sub-tables."""
    out: list[str] = []
    for name, table in tables.items():
        subs = {k: v for k, v in table.items() if isinstance(v, dict)}
        out.append(f"[{name}]")
        out += [f"{k} = {json.dumps(v)}" for k, v in table.items() if k not in subs]
        for sub, values in subs.items():
            out.append(f"[{name}.{sub}]")
            out += [f"{k} = {json.dumps(v)}" for k, v in values.items()]
        out.append("")
    return "\n".join(out)


class Network:
    """The bootstrap node and the four agents as ``ioa`` processes under ``root``; the librarian's
    retrieval adapter reads ``docs``."""

    def __init__(
        self,
        root: Path,
        ioa: list[str],
        brain: str,
        log: Any,
        docs: Path,
        model_url: str = "",
        model_name: str = "",
    ) -> None:
        self.root, self.ioa, self.brain, self.log, self.docs = root, ioa, brain, log, docs
        self.model_url, self.model_name = model_url, model_name
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.env = {k: v for k, v in os.environ.items() if brain != "offline" or not k.startswith("OPENAI_")}
        self.env.update(PYTHONUNBUFFERED="1", IOA_PARENT_PID=str(os.getpid()))

    def home(self, name: str) -> Path:
        return self.root / name

    def run(self, name: str, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        env = dict(self.env, IOA_HOME=str(self.home(name)))
        return subprocess.run([*self.ioa, *args], env=env, capture_output=True, text=True, timeout=timeout)

    def start(self) -> None:
        self._spawn("bootstrap", self._config("bootstrap", []), "bootstrap")
        boot = self._wait_ready("bootstrap")
        for name in AGENTS:
            self._spawn(name, self._config(name, boot), "node")
        for name in AGENTS:
            self._wait_ready(name)

    def _config(self, name: str, bootstrap: list[str]) -> Path:
        init = self.run(name, "init", "--json", "--name", name)
        if init.returncode != 0:
            raise RuntimeError(f"ioa init for {name} failed ({init.returncode}): {init.stderr.strip()}")
        tables: dict[str, dict[str, Any]] = {
            "node": {"listen": ["/ip4/127.0.0.1/tcp/0"], "bootstrap": bootstrap}
        }
        if name in AGENTS:
            agent = {"name": name, **AGENTS[name]}
            if agent.get("adapter") == "retrieval":
                agent["options"] = {"path": str(self.docs)}
            tables["agent"] = agent
            tables["chats"] = dict(BENCH_CHATS)
            if self.brain == "offline":
                tables["goals"] = {"brain": "offline"}
            elif self.model_url:
                tables["goals"] = {"brain": "llm"}
                tables["model"] = {"base_url": self.model_url, "model": self.model_name, "api_key": "bench"}
        path = self.root / f"{name}.toml"
        path.write_text(toml_text(tables), encoding="utf-8")
        return path

    def _spawn(self, name: str, config: Path, command: str) -> None:
        log = open(self.root / f"{name}.log", "wb")  # noqa: SIM115 - handed to the child, closed here
        try:
            self.procs[name] = subprocess.Popen(
                [*self.ioa, command, "start", "--config", str(config)],
                env=dict(self.env, IOA_HOME=str(self.home(name))),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches the bench, which stops the nodes in order
            )
        finally:
            log.close()

    def _wait_ready(self, name: str) -> list[str]:
        """Until the node printed its ``listening on`` and ``peer id`` lines; returns its addresses."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            text = (self.root / f"{name}.log").read_text(encoding="utf-8", errors="replace")
            if any(line.startswith("peer id ") for line in text.splitlines()):
                return [
                    ln.removeprefix("listening on ").strip()
                    for ln in text.splitlines()
                    if ln.startswith("listening on ")
                ]
            if self.procs[name].poll() is not None:
                raise RuntimeError(f"node {name} exited ({self.procs[name].returncode}):\n{text[-2000:]}")
            time.sleep(0.2)
        raise RuntimeError(
            f"node {name} did not start within {START_TIMEOUT:.0f} s; see {self.root}/{name}.log"
        )

    def cards(self, on: str) -> dict[str, dict[str, Any]]:
        """The cards node ``on`` holds (its own included), by agent name, from ``ioa find --json``."""
        out = self.run(on, "find", "agent", "--json", "--no-dht", "-k", "50")
        results = json.loads(out.stdout).get("results", []) if out.returncode == 0 else []
        return {r["name"]: r for r in results}

    def wait_cards(self) -> float:
        """Until every agent holds the current card of every other one (the coordinator to choose its team;
        the coder, whose python adapter accepts invitations only from peers whose card it holds, to accept
        it and the sub-teams other members form); returns the seconds taken."""
        started = time.monotonic()
        missing: list[str] = []
        while time.monotonic() - started < CARDS_TIMEOUT:
            held = {name: self.cards(name) for name in AGENTS}
            own = {name: cards.get(name, {}) for name, cards in held.items()}
            missing = [
                f"{other} at {name}"
                for name, cards in held.items()
                for other in AGENTS
                if cards.get(other, {}).get("version") != own[other].get("version") or not own[other]
            ]
            if not missing:
                return time.monotonic() - started
            time.sleep(1.0)
        raise RuntimeError(f"cards missing after {CARDS_TIMEOUT:.0f} s: {', '.join(missing)}")

    def stop(self) -> None:
        """SIGTERM every node, SIGKILL the process group of any that has not exited after STOP_TIMEOUT."""
        live = [p for p in self.procs.values() if p.poll() is None]
        for p in live:
            p.terminate()
        deadline = time.monotonic() + STOP_TIMEOUT
        for p in live:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(max(0.1, deadline - time.monotonic()))
        for p in self.procs.values():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p.pid, signal.SIGKILL)  # stragglers, and whatever an adapter left in the group
            if p.poll() is None:
                p.wait(5)


# --------------------------------------------------------------------------- running and reporting
