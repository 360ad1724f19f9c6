"""The LLM re-rank of the shortlist: IoA's team-up by a language model, over cards chosen offline.

:func:`llm_team_from_shortlist`: the shortlist is chosen offline (the offline team and the best cards of
the goal and of each of its clauses, :func:`~ioa_p2p.teaming.offline.team_shortlist`; never the whole
directory); the model re-ranks it (``search_agents``, answered by the matcher within the shortlist) and
picks (``team_up``); its choice is checked against the shortlist (:func:`check_in_shortlist`). The caller
keeps the offline team when the model fails.

:data:`TEAM_TOOLS` (``search_agents`` with several queries, then ``team_up``), :func:`merge_results` (one
ranking from several searches), :func:`render_shortlist` (what the model sees, within a token budget),
:func:`parse_team_choice` (names, peer ids or shortlist numbers back to candidates), :func:`fit_messages`
(the tool loop's history within the model's context).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any

from ioa_p2p.errors import ModelOutputError
from ioa_p2p.llm.failures import estimate_tokens, text_tokens
from ioa_p2p.llm.model import Model
from ioa_p2p.teaming.candidates import Candidate

SEARCH_TOOL: Mapping[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_agents",
        "description": "Search the network for agents by what they can do. Give several short natural "
        "language queries (skills, tasks, expertise); you get back a ranked shortlist.",
        "parameters": {
            "type": "object",
            "properties": {
                "queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5}
            },
            "required": ["queries"],
        },
    },
}


TEAM_UP_TOOL: Mapping[str, Any] = {
    "type": "function",
    "function": {
        "name": "team_up",
        "description": "Form the team that will work on the goal in a group chat. Name agents from the "
        "shortlist by their number or name (you are included automatically).",
        "parameters": {
            "type": "object",
            "properties": {"members": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
            "required": ["members"],
        },
    },
}


TEAM_TOOLS: tuple[Mapping[str, Any], ...] = (SEARCH_TOOL, TEAM_UP_TOOL)


def merge_results(results: Sequence[Sequence[Candidate]], *, limit: int = 10) -> list[Candidate]:
    """One ranked shortlist from several searches: each peer once, at its best score."""
    best: dict[str, Candidate] = {}
    for found in results:
        for c in found:
            if c.peer_id not in best or c.score > best[c.peer_id].score:
                best[c.peer_id] = c
    return sorted(best.values(), key=lambda c: (-c.score, c.peer_id))[:limit]


def render_shortlist(shortlist: Sequence[Candidate], *, budget: int = 100_000) -> str:
    """The numbered shortlist the model sees, shortened (lowest scores dropped) to ``budget`` tokens."""
    if not shortlist:
        return "No agents found."
    lines: list[str] = []
    for i, c in enumerate(shortlist, 1):
        skills = f" Skills: {', '.join(c.skills)}." if c.skills else ""
        line = f"{i}. {c.name} (score {c.score:.2f}): {c.description[:300]}{skills}"
        if lines and text_tokens("\n".join([*lines, line])) > budget:
            break
        lines.append(line)
    return "\n".join(lines)


def fit_messages(messages: Sequence[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The tool loop's messages within ``budget`` tokens: the system prompt and the goal always, then the
    newest exchanges (an assistant message with the tool answers after it), the oldest dropped first."""
    head, rest = list(messages[:2]), list(messages[2:])
    exchanges: list[list[dict[str, Any]]] = []
    for m in rest:
        if m.get("role") == "assistant" or not exchanges:
            exchanges.append([m])
        else:
            exchanges[-1].append(m)
    kept: list[list[dict[str, Any]]] = []
    used = estimate_tokens(head)
    for exchange in reversed(exchanges):
        cost = estimate_tokens(exchange)
        if kept and used + cost > budget:
            break
        kept.append(exchange)
        used += cost
    return head + [m for exchange in reversed(kept) for m in exchange]


def parse_search_queries(arguments: Mapping[str, Any], *, limit: int = 5) -> tuple[str, ...]:
    queries = arguments.get("queries")
    if isinstance(queries, str):
        queries = [queries]
    if not isinstance(queries, list) or not queries:
        raise ModelOutputError('search_agents needs {"queries": [at least one string]}')
    cleaned = [q.strip()[:300] for q in queries if isinstance(q, str) and q.strip()]
    if not cleaned:
        raise ModelOutputError("search_agents got no usable query")
    return tuple(dict.fromkeys(cleaned))[:limit]


def parse_team_choice(
    arguments: Mapping[str, Any], shortlist: Sequence[Candidate], *, max_team: int = 4
) -> tuple[Candidate, ...]:
    """The candidates the model named (by shortlist number, name or peer id); unknown entries dropped.

    Raises :class:`ModelOutputError` when none of the entries names a shortlisted agent.
    """
    raw = arguments.get("members", arguments.get("team_members"))
    if isinstance(raw, str | int):
        raw = [raw]
    if not isinstance(raw, list):
        raise ModelOutputError('team_up needs {"members": [numbers or names from the shortlist]}')
    by_name: dict[str, Candidate] = {}
    for c in shortlist:
        by_name.setdefault(c.name.strip().lower(), c)
    by_peer = {c.peer_id: c for c in shortlist}
    chosen: dict[str, Candidate] = {}
    for entry in raw:
        found = _lookup(entry, shortlist, by_name, by_peer)
        if found is not None:
            chosen.setdefault(found.peer_id, found)
    if not chosen:
        raise ModelOutputError(
            f"team_up named no agent from the shortlist ({raw!r}); use the numbers 1..{len(shortlist)}"
        )
    return tuple(chosen.values())[:max_team]


def _lookup(
    entry: object,
    shortlist: Sequence[Candidate],
    by_name: Mapping[str, Candidate],
    by_peer: Mapping[str, Candidate],
) -> Candidate | None:
    if isinstance(entry, bool):
        return None
    if isinstance(entry, int):
        return shortlist[entry - 1] if 1 <= entry <= len(shortlist) else None
    if not isinstance(entry, str):
        return None
    text = entry.strip()
    number = re.fullmatch(r"#?(\d+)\.?", text)
    if number:
        return _lookup(int(number.group(1)), shortlist, by_name, by_peer)
    if text in by_peer:
        return by_peer[text]
    text = re.sub(r"^\d+\.\s*", "", text)  # "2. calculator"
    text = re.sub(r"\s*\(.*\)$", "", text).strip().lower()  # "calculator (score 0.8)"
    return by_name.get(text)


Search = Callable[[str], Awaitable[Sequence[Candidate]]]


#: Tokens each team-up answer may use.
TEAM_MAX_TOKENS = 512


class _TeamUpLoop:
    """The team-up's tool loop: the model calls ``search_agents`` (answered by ``on_search``) until it
    calls ``team_up`` (parsed by ``on_team_up``); a bad call is answered with the error."""

    def __init__(
        self,
        model: Model,
        budget: int,
        on_search: Callable[[Mapping[str, Any]], Awaitable[str]],
        on_team_up: Callable[[Mapping[str, Any]], tuple[Candidate, ...]],
        tools_hint: str,
    ) -> None:
        self.model, self.budget, self.tools_hint = model, budget, tools_hint
        self.on_search, self.on_team_up = on_search, on_team_up

    async def run(self, messages: list[dict[str, Any]], max_rounds: int) -> tuple[Candidate, ...] | None:
        """The team the model chose, or None when it did not call ``team_up`` within ``max_rounds``."""
        for _ in range(max_rounds):
            reply = await self.model.complete(
                fit_messages(messages, self.budget), tools=TEAM_TOOLS, max_tokens=TEAM_MAX_TOKENS
            )
            messages.append(reply.as_message())
            if not reply.tool_calls:
                messages.append({"role": "user", "content": f"Call {self.tools_hint}."})
                continue
            for call in reply.tool_calls:
                try:
                    args = call.parsed()
                    if call.name == "search_agents":
                        answer = await self.on_search(args)
                    elif call.name == "team_up":
                        return self.on_team_up(args)
                    else:
                        answer = f"unknown tool {call.name!r}; use {self.tools_hint}"
                except ModelOutputError as exc:
                    answer = f"error: {exc}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": answer})
        return None


SHORTLIST_PROMPT = """You assemble a team of agents for a goal. The user message lists the agents shortlisted
for it (numbered). Call team_up with the numbers of the agents the goal needs (at most {max_team}; you are
included anyway); choose only agents whose skills the goal needs. You may call search_agents first: it
re-ranks the same shortlist for your queries, it cannot bring in other agents."""


async def llm_team_from_shortlist(
    model: Model,
    goal: str,
    shortlist: Sequence[Candidate],
    search: Search,
    *,
    max_team: int = 4,
    max_rounds: int = 4,
    context_tokens: int = 4096,
) -> tuple[Candidate, ...]:
    """IoA's team-up over a shortlist chosen offline: the model re-ranks and picks, never beyond it.

    ``search`` must rank within ``shortlist`` only (the node passes the matcher restricted to it); every
    candidate it returns and every member the model names is checked against the shortlist
    (:func:`check_in_shortlist`). Raises :class:`ModelOutputError` when the model never teams up; transport
    errors (:class:`~ioa_p2p.errors.ModelError`, PeerUnreachable, IoATimeout) propagate (the caller then
    keeps the offline choice). The prompt stays within ``context_tokens`` minus :data:`TEAM_MAX_TOKENS`
    (oldest exchanges dropped, the shortlist shortened); the caller bounds the time.
    """
    if not shortlist:
        return ()
    budget = max(256, context_tokens - TEAM_MAX_TOKENS)
    allowed = {c.peer_id for c in shortlist}
    current: list[Candidate] = list(shortlist)

    async def on_search(args: Mapping[str, Any]) -> str:
        nonlocal current
        found = [await search(q) for q in parse_search_queries(args)]
        ranked = merge_results([check_in_shortlist(f, allowed) for f in found], limit=len(shortlist))
        current = ranked or list(shortlist)
        return render_shortlist(current, budget=budget // 3)

    def on_team_up(args: Mapping[str, Any]) -> tuple[Candidate, ...]:
        return check_in_shortlist(parse_team_choice(args, current, max_team=max_team), allowed)

    loop = _TeamUpLoop(model, budget, on_search, on_team_up, "team_up with numbers from the shortlist")
    listed = render_shortlist(shortlist, budget=budget // 3)
    prompt = [
        {"role": "system", "content": SHORTLIST_PROMPT.format(max_team=max_team)},
        {"role": "user", "content": f"Goal: {goal}\n\nShortlist:\n{listed}"},
    ]
    picked = await loop.run(prompt, max_rounds)
    if picked is None:
        raise ModelOutputError(f"{model.model_id} did not team up within {max_rounds} rounds")
    return picked


def check_in_shortlist(chosen: Sequence[Candidate], allowed: Collection[str]) -> tuple[Candidate, ...]:
    """``chosen`` if every candidate is in the shortlist; else :class:`ModelOutputError` naming the rest."""
    outside = [c.name or c.peer_id for c in chosen if c.peer_id not in allowed]
    if outside:
        raise ModelOutputError(f"chosen agents are not on the shortlist: {outside}")
    return tuple(chosen)


__all__ = [
    "SEARCH_TOOL",
    "TEAM_TOOLS",
    "TEAM_MAX_TOKENS",
    "TEAM_UP_TOOL",
    "check_in_shortlist",
    "fit_messages",
    "llm_team_from_shortlist",
    "merge_results",
    "parse_search_queries",
    "parse_team_choice",
    "render_shortlist",
]
