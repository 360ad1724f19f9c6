"""A real Model Context Protocol server for tests, built with the ``mcp`` package's ``MCPServer``.

Run as a stdio server (``python tests/mcp_server.py``) or serve over streamable HTTP from a test with
:func:`serve_mcp_http` (uvicorn on 127.0.0.1 in a thread). Tools: ``add`` (structured result), ``forecast``
(a dict), ``boom`` (raises ``ToolError``), ``crash`` (raises an unexpected exception), ``slow`` (sleeps),
``steps`` (reports progress), ``pixel`` (an image), ``pid`` (the server's process id), ``summarise``
(reports token usage in its result's ``_meta``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

server = MCPServer("weather-tools", instructions="Arithmetic and weather tools for tests.")


class Forecast(BaseModel):
    city: str
    temp_c: int


@server.tool(description="Add two integers")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Tomorrow's forecast for a city")
def forecast(city: str) -> Forecast:
    return Forecast(city=city, temp_c=len(city))


@server.tool(description="Always fails with a message")
def boom(reason: str) -> str:
    raise ToolError(f"boom: {reason}")


@server.tool(description="Fails with an unexpected exception")
def crash() -> str:
    raise RuntimeError("internal detail that must not leak")


@server.tool(description="Sleeps for some seconds")
async def slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "slept"


@server.tool(description="Works in three steps, reporting progress")
async def steps(ctx: Context) -> str:
    for n in range(3):
        await ctx.report_progress(n + 1, 3, f"step {n + 1} of 3")
    return "three steps done"


@server.tool(description="A one-pixel image")
def pixel() -> Image:
    return Image(data=PNG_1X1, format="png")


@server.tool(description="The server's process id")
def pid() -> int:
    return os.getpid()


@server.tool(description="Summarises a text with a language model, reporting the tokens it used")
def summarise(text: str) -> CallToolResult:
    words = text.split()
    usage = {"input_tokens": len(words) + 10, "output_tokens": 3, "model": "tiny-summariser"}
    return CallToolResult(
        content=[TextContent(type="text", text=" ".join(words[:3]))], _meta={"usage": usage}
    )


@contextlib.contextmanager
def serve_mcp_http() -> Iterator[str]:
    """Serve :data:`server` over streamable HTTP on 127.0.0.1; yields the endpoint URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    servers: list[uvicorn.Server] = []

    async def main() -> None:
        # Built inside the server's own asyncio loop: the app's anyio primitives bind to the loop they are
        # created in (the test itself runs under trio).
        app = server.streamable_http_app(host="127.0.0.1")
        config = uvicorn.Config(app, log_level="error", timeout_graceful_shutdown=1, lifespan="on")
        servers.append(uvicorn.Server(config))
        await servers[0].serve(sockets=[sock])

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not (servers and servers[0].started) and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield url
    finally:
        if servers:
            servers[0].should_exit = True
        thread.join(timeout=10)
        sock.close()


if __name__ == "__main__":
    server.run()
