"""``ioa chats``, ``ioa history CHAT``, ``ioa history export CHAT -o FILE``, ``ioa audit``.

``ioa audit FILE`` needs nothing but the file (no node, no network). ``ioa audit CHAT`` (a chat ID
or unique prefix, when no such file exists) exports the chat from the running node and audits it
locally. ``ioa audit A B`` audits both copies and compares them (the only way to show truncation).

Exit codes of ``ioa audit``: 0 valid (and, with two copies, identical), 1 invalid or different
(findings printed), 2 unreadable input (missing file, not a history file, no node for a chat ID).

JSON (``--json``): one report is ``{"source", "valid", "chat_id", "records", "topic", "creator",
"parent", "messages", "authors": {peer: count}, "first_ts", "last_ts", "heads", "members",
"findings": [{"code", "message", "index", "offset", "hash", "author", "seq", "proof"}],
"timings"}``; two copies give ``{"valid", "identical", "a", "b", "only_a", "only_b",
"findings"}``. ``ioa chats --json`` lists ``{"chat_id", "topic", "creator", "parent", "members",
"status", "messages", "heads", "created_ms"}``; ``ioa history CHAT --json`` gives ``{"chat",
"messages": [{"hash", "author", "seq", "ts", "kind", "content", "parents"}]}``. ``ioa history CHAT --costs``
prints the cost per agent computed from the chat's signed task results (``--json``: ``{"chat", "costs"}``).
"""

from __future__ import annotations

import base64
import datetime
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from ioa_p2p.api.chats import ChatMessageView, HistoryReply
from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.control_client import ControlClient
from ioa_p2p.conversation.costs import cost_table, peer_lines, render_costs
from ioa_p2p.conversation.plan import PLAN, PlanUpdate, render_plan
from ioa_p2p.errors import IoAError, NodeNotRunning, UnreadableHistory, UsageError
from ioa_p2p.history.audit import AuditReport, audit_history
from ioa_p2p.history.compare import Comparison, compare_histories
from ioa_p2p.history.file import read_history_file, write_history_file

_CHAT_REF = re.compile(r"[0-9a-fA-F]{6,64}")


# --------------------------------------------------------------------------- ioa chats


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the chats as JSON.")
@click.pass_context
@handle_errors()
def chats(ctx: click.Context, as_json: bool) -> None:
    """List the chats this node takes part in."""
    result = ControlClient(get_home(ctx)).chats()
    if as_json:
        emit_json([c.to_json() for c in result])
        return
    if not result:
        click.echo("no chats")
    for chat in result:
        click.echo(
            f"{chat.chat_id[:16]}  {chat.status:<8} {chat.messages:>6} msgs  "
            f"{len(chat.members)} members  {chat.topic[:60]}"
        )


# --------------------------------------------------------------------------- ioa history


class _DefaultShowGroup(click.Group):
    """``ioa history CHAT`` means ``ioa history show CHAT``; subcommands keep their names."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["show", *args]
        return super().parse_args(ctx, args)


@main.group(cls=_DefaultShowGroup)
def history() -> None:
    """Show a chat's history (`ioa history CHAT`) or export it (`ioa history export`)."""


@history.command("show")
@click.argument("chat")
@click.option("--json", "as_json", is_flag=True, help="Print the messages as JSON.")
@click.option("--plan", "plan", is_flag=True, help="Print the evolution of the goal's shared plan.")
@click.option("--costs", is_flag=True, help="Print the cost per agent, from the signed task results.")
@click.pass_context
@handle_errors()
def history_show(ctx: click.Context, chat: str, as_json: bool, plan: bool, costs: bool) -> None:
    """Print CHAT's transcript in causal order (CHAT: chat ID or a unique prefix)."""
    client = ControlClient(get_home(ctx))
    result = client.history(_chat_ref(chat))
    if plan:
        print_plans(result.messages, click.echo, as_json=as_json)
        return
    if costs:
        _print_costs(client, result, as_json)
        return
    if as_json:
        emit_json(result.to_json())
        return
    info = result.chat
    click.echo(f"chat {info.chat_id}")
    click.echo(f"topic: {info.topic}")
    click.echo(f"created by {info.creator} at {_when(info.created_ms)}")
    for msg in result.messages:
        click.echo(f"[{_when(msg.ts)}] {msg.author[-6:]} #{msg.seq:<4} {_render(msg)}")


def print_plans(
    messages: Sequence[ChatMessageView], echo: Callable[[str], None], *, as_json: bool = False
) -> None:
    """Every ``conv.plan`` update of a chat in causal order: version, author, steps."""
    updates = []
    for msg in messages:
        if msg.kind != PLAN:
            continue
        try:
            update = PlanUpdate.from_content(msg.content)
        except IoAError:
            continue
        updates.append((msg, update))
    if as_json:
        emit_json([{"hash": m.hash, "author": m.author, "ts": m.ts, **u.to_content()} for m, u in updates])
        return
    if not updates:
        echo("no plan updates in this chat")
    for msg, update in updates:
        who, when = msg.author[-6:], _when(msg.ts)
        echo(f"plan v{update.version} (round {update.round[:12]}) by {who} at {when}")
        for line in render_plan(update.steps, lambda peer: peer[-6:]):
            echo(f"  {line}")


@history.command("export")
@click.argument("chat")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="File to write.")
@click.pass_context
@handle_errors(json_flag=None)
def history_export(ctx: click.Context, chat: str, output: Path) -> None:
    """Write CHAT's self-contained, signed history file (verify it with `ioa audit FILE`)."""
    data, count = _export(get_home(ctx), chat)
    write_history_file(output, data)
    click.echo(f"wrote {count} messages ({len(data)} bytes) to {output}")


def _export(home: Path, chat: str) -> tuple[bytes, int]:
    result = ControlClient(home).export(_chat_ref(chat))
    return base64.b64decode(result.data), result.messages


def _chat_ref(text: str) -> str:
    if not _CHAT_REF.fullmatch(text):
        raise UsageError(f"{text!r} is not a chat ID (hex, at least 6 characters; see `ioa chats`)")
    return text.lower()


def _when(ms: int) -> str:
    stamp = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return stamp.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _print_costs(client: ControlClient, result: HistoryReply, as_json: bool) -> None:
    """``--costs``: the per-agent table of every ``conv.task.result`` in the node's verified history, by
    its signer (ioa_p2p.conversation.costs); JSON ``{"chat", "costs": {"agents", "total"}}``."""
    table = cost_table((m.author, m.content) for m in result.messages if m.kind == "conv.task.result")
    try:
        names = {c.peer_id: c.name for c in client.cards().cards}
    except IoAError:  # names are a courtesy: peer IDs identify the signers
        names = {}
    if as_json:
        emit_json({"chat": result.chat.chat_id, "costs": table.to_json(names)})
        return
    click.echo(f"chat {result.chat.chat_id}")
    for line in [*render_costs(table, names), *peer_lines([r.agent for r in table.rows], names)]:
        click.echo(line)


def _render(msg: ChatMessageView) -> str:
    content = msg.content
    if msg.kind == "text":
        return str(content.get("text", ""))
    if msg.kind in ("member.add", "member.remove"):
        return f"<{msg.kind} {content.get('member')}>"
    if msg.kind == "member.leave":
        return "<left the chat>"
    return f"<{msg.kind}> {json.dumps(content, sort_keys=True)[:200]}"


# --------------------------------------------------------------------------- ioa audit


@main.command()
@click.argument("sources", nargs=-1, required=True, metavar="FILE_OR_CHAT [OTHER]")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--workers",
    type=click.IntRange(0, 64),
    default=2,
    show_default=True,
    help="Threads verifying signatures while records decode (0: inline).",
)
@click.pass_context
@handle_errors()
def audit(ctx: click.Context, sources: tuple[str, ...], as_json: bool, workers: int) -> None:
    """Verify a chat history with nothing but the file; with two copies, compare them.

    Exit 0 valid, 1 invalid (findings listed), 2 unreadable input."""
    if len(sources) > 2:
        raise UsageError("ioa audit takes one history (FILE or CHAT) or two to compare")
    reports = [_audit_one(get_home(ctx), source, workers) for source in sources]
    if len(reports) == 1:
        report = reports[0]
        emit_json(report.to_json()) if as_json else _print_report(report)
        ctx.exit(0 if report.valid else 1)
    comparison = compare_histories(reports[0], reports[1])
    emit_json(comparison.to_json()) if as_json else _print_comparison(comparison)
    ctx.exit(0 if comparison.valid and comparison.identical else 1)


def _audit_one(home: Path, source: str, workers: int) -> AuditReport:
    path = Path(source)
    if path.exists() or not _CHAT_REF.fullmatch(source):
        data = read_history_file(path)
    else:
        try:
            data, _ = _export(home, source)
        except NodeNotRunning as exc:
            raise UnreadableHistory(
                f"{source!r} is neither a file nor a chat of a running node ({exc})"
            ) from None
    return audit_history(data, source=source, workers=workers)


def _print_report(report: AuditReport, label: str = "") -> None:
    summary = report.summary()
    head = f"{label}{report.source}: "
    chat = report.chat_id.hex() if report.chat_id else "?"
    if report.valid:
        click.echo(f"{head}VALID  chat {chat}")
    else:
        click.echo(f"{head}INVALID  chat {chat}: {len(report.findings)} finding(s)")
    if report.history is not None:
        authors = summary["authors"]
        span = (summary["last_ts"] - summary["first_ts"]) / 1000
        click.echo(f"  topic: {summary['topic']}")
        click.echo(
            f"  messages: {summary['messages']} from {len(authors)} author(s): "
            + ", ".join(f"{a[-6:]}={n}" for a, n in authors.items())
        )
        click.echo(f"  time span: {_when(summary['first_ts'])} .. {_when(summary['last_ts'])} ({span:.1f} s)")
        click.echo(f"  heads: {', '.join(h[:16] for h in summary['heads'])}")
        click.echo(f"  members now: {len(summary['members'])}")
    total = report.timings.get("total_s")
    if total:
        click.echo(f"  checked {report.records} records in {total:.3f} s")
    for finding in report.findings:
        click.echo(f"  {finding.line()}")
        for proof in finding.proof:
            click.echo(f"    proof: {proof.hex()}")


def _print_comparison(comparison: Comparison) -> None:
    _print_report(comparison.a, "A ")
    _print_report(comparison.b, "B ")
    if comparison.valid and comparison.identical:
        click.echo("copies are IDENTICAL")
        return
    click.echo(f"copies DIFFER: A only {len(comparison.only_a)}, B only {len(comparison.only_b)} message(s)")
    for finding in comparison.findings:
        click.echo(f"  {finding.line()}")
        for proof in finding.proof:
            click.echo(f"    proof: {proof.hex()}")
