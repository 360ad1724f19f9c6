"""``ioa adapters``: the installed adapter kinds, their options, and whether their optional dependencies
are present.

Text: one block per kind (``kind  [distribution]  ok | missing dependency X (pip install '...')``, then its
options as ``name: type = default``). ``--json``: ``[{"kind", "distribution", "target", "available",
"missing", "install", "executes_code", "uses_model", "options": [{"name", "type", "default",
"required"}] | null, "error"}]``. Exit 0 (a kind that does not import is listed with its error).
"""

from __future__ import annotations

from typing import Any

import click

from ioa_p2p.cli._base import emit_json, handle_errors, main
from ioa_p2p.errors import IoAError


def _describe(kind: str) -> dict[str, Any]:
    # The registry is imported by the commands that use it: every ``ioa`` command (``ioa bootstrap start``
    # too) imports this module, and the adapters' package is not a bootstrap node's (docs/performance.md).
    from ioa_p2p.adapters.registry import (
        adapter_executes_code,
        adapter_options,
        adapter_uses_model,
        list_adapters,
    )

    info = list_adapters()[kind]
    item: dict[str, Any] = {
        "kind": kind,
        "distribution": info.distribution,
        "target": info.target,
        "available": info.available,
        "missing": list(info.missing),
        "install": info.missing_message(),
        "executes_code": adapter_executes_code(kind),
        "uses_model": adapter_uses_model(kind),
        "options": None,
        "error": "",
    }
    if info.available:
        try:
            specs = adapter_options(kind)
        except IoAError as exc:  # a plugin that does not import: listed, with the reason
            item["available"], item["error"] = False, str(exc)
        else:
            item["options"] = None if specs is None else [
                {"name": s.name, "type": s.type, "default": _plain(s.default), "required": s.required}
                for s in specs
            ]  # fmt: skip
    return item


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return value if value is None or isinstance(value, str | int | float | bool | list | dict) else str(value)


def _line(item: dict[str, Any]) -> str:
    state = "ok" if item["available"] else (item["install"] or f"cannot load: {item['error']}")
    flags = [
        f for f, on in (("runs code", item["executes_code"]), ("uses [model]", item["uses_model"])) if on
    ]
    return f"{item['kind']}  [{item['distribution']}]  {state}" + (f"  ({', '.join(flags)})" if flags else "")


@main.command("adapters")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of the kinds.")
@click.pass_context
@handle_errors()
def adapters(ctx: click.Context, as_json: bool) -> None:
    """List the installed adapter kinds (`adapter = KIND` in [agent], or `ioa node start --adapter KIND`)."""
    from ioa_p2p.adapters.registry import list_adapters

    items = [_describe(kind) for kind in list_adapters()]
    if as_json:
        emit_json(items)
        return
    for item in items:
        click.echo(_line(item))
        for option in item["options"] or ():
            default = "(required)" if option["required"] else f"= {option['default']!r}"
            click.echo(f"    {option['name']}: {option['type']} {default}")


__all__ = ["adapters"]
