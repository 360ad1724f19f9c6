"""``ioa init`` and ``ioa id``."""

from __future__ import annotations

import click

from ioa_p2p.cli._base import emit_json, get_home, handle_errors, main
from ioa_p2p.errors import AlreadyExists
from ioa_p2p.identity import create_key_file, load_key_file


@main.command()
@click.option("--force", is_flag=True, help="Replace an existing key (a new identity!) and config.")
@click.option("--name", default=None, help="Agent name written into the default config.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
@handle_errors()
def init(ctx: click.Context, force: bool, name: str | None, as_json: bool) -> None:
    """Create the node key (mode 0600) and a default config under the node home."""
    home = get_home(ctx)
    key_path = home / "node.key"
    if key_path.exists() and not force:
        raise AlreadyExists(f"a key file already exists at {key_path}; pass --force to replace it")
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o700)
    identity = create_key_file(key_path, force=force)
    config_path = home / "config.toml"
    if force or not config_path.exists():
        from ioa_p2p.node.config_check import write_config_template  # loads the node's section classes

        write_config_template(home, name or f"agent-{identity.peer_id.short()}")
    if as_json:
        emit_json({"peer_id": str(identity.peer_id), "home": str(home), "key": str(key_path)})
    else:
        click.echo(f"created identity {identity.peer_id}")
        click.echo(f"key: {key_path}")
        click.echo(f"config: {config_path}")


@main.command("id")
@click.option("--json", "as_json", is_flag=True, help="Print {peer_id, public_key, home} as JSON.")
@click.pass_context
@handle_errors()
def id_command(ctx: click.Context, as_json: bool) -> None:
    """Print this node's peer ID."""
    home = get_home(ctx)
    identity = load_key_file(home / "node.key")
    if as_json:
        emit_json(
            {
                "peer_id": str(identity.peer_id),
                "public_key": identity.peer_id.public_key.hex(),
                "home": str(home),
            }
        )
    else:
        click.echo(str(identity.peer_id))
