"""The root click group, shared options and the one place errors become exit codes."""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import trio

from ioa_p2p.cli.lazy_group import LazyGroup
from ioa_p2p.config.node_config import ioa_home
from ioa_p2p.errors import IoAError
from ioa_p2p.logs import setup_logging

F = TypeVar("F", bound=Callable[..., Any])


class Context:
    def __init__(self, home: Path, verbosity: int) -> None:
        self.home = home
        self.verbosity = verbosity


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(path_type=Path),
    default=None,
    help="Node home (default $IOA_HOME or ~/.ioa).",
)
@click.option("-v", "--verbose", count=True, help="More logging (-vv: debug, including libp2p).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors.")
@click.version_option(package_name="ioa-p2p")
@click.pass_context
def main(ctx: click.Context, home: Path | None, verbose: int, quiet: bool) -> None:
    """ioa-p2p: the Internet of Agents as a peer-to-peer network."""
    verbosity = -1 if quiet else verbose
    setup_logging(verbosity)
    ctx.obj = Context(ioa_home(home), verbosity)


def handle_errors(json_flag: str | None = "as_json") -> Callable[[F], F]:
    """Turn our errors into ``error: ...`` (or JSON) and the error's exit code."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except IoAError as exc:
                if json_flag and kwargs.get(json_flag):
                    click.echo(json.dumps({"error": {"type": type(exc).__name__, "message": str(exc)}}))
                else:
                    click.echo(f"error: {exc}", err=True)
                sys.exit(exc.exit_code)

        return inner  # type: ignore[return-value]

    return wrap


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, sort_keys=True))


def get_home(ctx: click.Context) -> Path:
    obj = ctx.find_object(Context)
    return obj.home if obj else ioa_home(None)


#: Set by a launcher (``open_testnet``) to its own PID: the node stops when that process is gone, so a
#: launcher killed without a chance to clean up (SIGKILL, or SIGTERM before its handlers run) leaves
#: no orphaned nodes behind.
PARENT_PID_ENV = "IOA_PARENT_PID"
PARENT_POLL_SECONDS = 1.0


async def wait_stop_request(signals: Any) -> str:
    """Wait for a signal from ``signals`` (a ``trio.open_signal_receiver``), or for the launcher named by
    ``$IOA_PARENT_PID`` to exit; says which."""
    parent = os.environ.get(PARENT_PID_ENV, "")
    reason = ""
    async with trio.open_nursery() as nursery:

        async def on_signal() -> None:
            nonlocal reason
            async for signum in signals:
                reason = f"received {signal.Signals(signum).name}"
                nursery.cancel_scope.cancel()
                return

        async def watch_parent(pid: int) -> None:
            nonlocal reason
            while os.getppid() == pid:  # noqa: ASYNC110 - no event tells us the parent exited
                await trio.sleep(PARENT_POLL_SECONDS)
            reason = f"launcher process {pid} is gone"
            nursery.cancel_scope.cancel()

        nursery.start_soon(on_signal)
        if parent.isdigit():
            nursery.start_soon(watch_parent, int(parent))
    return reason
