"""Adapter kind ``open_interpreter``.

open-interpreter 0.4.x cannot be installed beside ioa-p2p (its google-generativeai 0.7 pins protobuf < 5,
a2a-sdk 1.3 needs protobuf >= 5.29.5; docs/adapters.md), so in this environment the kind is listed with its
missing dependency and refuses to load with a clear error; the test against the scripted model server runs
only where the package imports, and is skipped with that reason otherwise.
"""

from __future__ import annotations

import importlib.util

import pytest

from ioa_p2p.adapters import Task, open_adapter, run_task
from ioa_p2p.adapters.registry import adapter_executes_code, list_adapters, load_adapter
from ioa_p2p.errors import AdapterLoadError

from .openai_server import Reply, serve

INSTALLED = importlib.util.find_spec("interpreter") is not None
CANNOT_INSTALL = (
    "open-interpreter is not installed: pip cannot install it beside ioa-p2p (open-interpreter 0.4.x -> "
    "google-generativeai 0.7 needs protobuf < 5, a2a-sdk 1.3 needs protobuf >= 5.29.5); see docs/adapters.md"
)


@pytest.mark.skipif(INSTALLED, reason="open-interpreter is installed: nothing is missing")
def test_without_the_package_the_kind_is_listed_and_refuses_clearly() -> None:
    info = list_adapters()["open_interpreter"]
    assert not info.available and "open-interpreter" in info.missing
    with pytest.raises(AdapterLoadError, match=r"pip install 'ioa-p2p\[open-interpreter\]'"):
        load_adapter("open_interpreter", {"model": {"base_url": "http://127.0.0.1:1/v1"}})
    assert adapter_executes_code("open_interpreter")  # declared without importing the package


@pytest.mark.skipif(not INSTALLED, reason=CANNOT_INSTALL)
async def test_it_runs_code_and_answers_against_the_scripted_server() -> None:
    with serve() as server:
        server.script(
            Reply(content="Let me compute it.\n```python\nprint(6 * 7)\n```"),
            Reply(content="The answer is 42."),
        )
        model = {"base_url": server.base_url, "api_key": "k", "model": "tiny", "max_retries": 0}
        options = {"model": model, "function_calling": False, "context_window": 8000, "max_tokens": 500}
        async with open_adapter("open_interpreter", options) as adapter:
            result = await run_task(adapter, Task.create("what is 6 times 7?", timeout=60))
    assert result.ok, result.text
    assert "42" in result.text
    assert result.data["open_interpreter"]["code_runs"] == 1
    assert result.data["usage"]["tool_calls"] == 1 and result.data["usage"]["prompt_tokens"] is None
