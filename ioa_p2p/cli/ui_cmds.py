"""``ioa ui [--open] [--json]``: the running node's dashboard.

Prints ``http://127.0.0.1:PORT/ui/#code=...``: a one-time login code (valid for two minutes, spent by its
first use) in the URL fragment, which browsers never send to a server; the page exchanges it for a
session cookie and takes it out of the address bar and the history at once. ``--open`` also opens it in
the default browser. The control token itself never appears in a URL (docs/dashboard.md).
"""

from __future__ import annotations

import webbrowser

import click

from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.control_client import ControlClient


@main.command()
@click.option("--open", "open_browser", is_flag=True, help="Also open the page in the default browser.")
@click.option("--json", "as_json", is_flag=True, help='Print {"url", "code", "expires_in"}.')
@click.pass_context
@handle_errors()
def ui(ctx: click.Context, open_browser: bool, as_json: bool) -> None:
    """Print (and with --open, open) the running node's dashboard URL with a one-time login code."""
    code = ControlClient(get_home(ctx)).ui_code()
    if as_json:
        emit_json(code.to_json())
    else:
        click.echo(code.url)
        click.echo(
            f"(a one-time login link, valid for {code.expires_in} s; run `ioa ui` again for another)",
            err=True,
        )
    if open_browser and not webbrowser.open(code.url):
        click.echo("could not open a browser here: open the URL above yourself", err=True)


__all__ = ["ui"]
