"""``ioa config check [FILE]``: read a config file as a starting node would, table by table.

Exit 0 with ``FILE: ok`` (``--json``: ``{"file", "ok": true, "tables", "adapter"}``); exit 2 with the typed
error (``FILE: ConfigError: [limits].frame_timeout must be a positive number of seconds, not 0``;
``--json``: ``{"file", "ok": false, "error": {"type", "message"}}``). ``ioa init`` writes a commented
template of every table (:mod:`ioa_p2p.node.config_check`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ioa_p2p.cli._base import emit_json, get_home, main
from ioa_p2p.errors import ConfigError


@main.group("config")
def config_group() -> None:
    """The node's config.toml."""


@config_group.command("check")
@click.argument("file", required=False, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result (or the error) as JSON.")
@click.pass_context
def config_check(ctx: click.Context, file: Path | None, as_json: bool) -> None:
    """Check FILE (default: config.toml in the node home): every table and key, the adapter's options."""
    from ioa_p2p.node.config_check import check_config  # loads the node's section classes

    home = get_home(ctx)
    path = file or home / "config.toml"
    try:
        report = check_config(home, path)
    except ConfigError as exc:
        if as_json:
            error = {"type": type(exc).__name__, "message": str(exc)}
            click.echo(json.dumps({"file": str(path), "ok": False, "error": error}))
        else:
            click.echo(f"{path}: {type(exc).__name__}: {exc}", err=True)
        sys.exit(exc.exit_code)
    if as_json:
        emit_json(report.to_json())
    else:
        adapter = f", adapter {report.adapter}" if report.adapter else ""
        count = len(report.tables)
        click.echo(f"{path}: ok ({count} table{'' if count == 1 else 's'} set{adapter})")
