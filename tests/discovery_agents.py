"""The agents the discovery tests advertise (tests/test_discovery_net.py, test_discovery_processes.py)."""

from __future__ import annotations

from typing import Any

AGENTS = [
    ("web-search", "web search and browsing"),
    ("py-plotter", "python code execution and plotting charts"),
    ("sql-analyst", "SQL database analyst"),
    ("translator", "translate between languages"),
    ("summarizer", "summarize long documents"),
    ("robot-arm", "robot arm motion planning"),
    ("image-gen", "generate images from text prompts"),
    ("weather", "weather forecasts"),
]


def agent(i: int) -> dict[str, Any]:
    name, description = AGENTS[i % len(AGENTS)]
    return {"name": name, "description": description}
