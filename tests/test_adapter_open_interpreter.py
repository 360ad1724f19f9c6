"""Adapter kind ``open_interpreter``: Open Interpreter in its own environment, driven as a subprocess.

open-interpreter cannot be installed beside ioa-p2p (protobuf pins, docs/adapters.md), so the adapter runs
its worker with another environment's Python. Here that environment is a real venv (made by the tests, no
pip) holding a stand-in ``interpreter`` package (tests/oi_standin): real processes, the real JSON-lines
protocol, real timeouts, cancellation and output bounds. ``test_with_the_real_open_interpreter`` creates a
venv with the real package from the registry (minutes): it runs with ``IOA_TEST_OPEN_INTERPRETER=1``
(``IOA_OI_PYTHON`` may name an environment made before).
"""

from __future__ import annotations

import json
import os
import shutil
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters import Task, TaskContext, open_adapter, run_task
from ioa_p2p.adapters.registry import adapter_executes_code, adapter_needs, list_adapters, load_adapter
from ioa_p2p.errors import AdapterLoadError

from .openai_server import Reply, serve

STANDIN = Path(__file__).with_name("oi_standin")
MODEL = {"base_url": "http://127.0.0.1:9/v1", "api_key": "sk-standin-secret-123", "model": "tiny"}


def make_env(folder: Path, *, standin: bool) -> Path:
    venv.EnvBuilder(with_pip=False).create(folder)
    if standin:
        site = next((folder / "lib").glob("python*/site-packages"))
        shutil.copytree(STANDIN / "interpreter", site / "interpreter")
    return folder / "bin" / "python"


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield make_env(tmp_path_factory.mktemp(f"oi-env-{os.getpid()}"), standin=True)


def options(python: Path, **more: object) -> dict[str, object]:
    return {"python": str(python), "model": MODEL, **more}


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_kind_is_listed_available_and_says_where_its_environment_goes(tmp_path: Path) -> None:
    info = list_adapters()["open_interpreter"]
    assert info.available and not info.missing and info.extras == ()  # nothing to install beside ioa-p2p
    assert adapter_executes_code("open_interpreter")
    needs = adapter_needs("open_interpreter")
    assert needs.model and needs.home_paths == ("python",)  # its environment: under the node home
    missing = tmp_path / "open-interpreter" / "bin" / "python"
    with pytest.raises(AdapterLoadError, match=r"python -m ioa_p2p\.adapters\.open_interpreter\.setup"):
        load_adapter("open_interpreter", options(missing))


async def test_a_task_runs_in_the_other_environment_and_answers(python: Path) -> None:
    async with open_adapter("open_interpreter", options(python)) as adapter:
        assert "Open Interpreter 0.4.3-standin on tiny" in adapter.describe().description  # the probe ran
        ctx = TaskContext()
        result = await run_task(adapter, Task.create("compute six times seven", timeout=60), ctx)
        settings = await run_task(adapter, Task.create("show your settings", timeout=60))
    assert result.ok and result.text == "The answer is 42.", result.text
    assert result.data["open_interpreter"] == {"code_runs": 1, "version": "0.4.3-standin"}
    assert result.data["usage"]["tool_calls"] == 1 and result.data["usage"]["prompt_tokens"] is None
    assert [p.text for p in ctx.reports][:1] == ["step 1: running python"]
    said = json.loads(settings.text)
    assert said["llm"]["model"] == "openai/tiny" and said["llm"]["api_base"] == MODEL["base_url"]
    assert said["settings"]["auto_run"] is True and said["settings"]["offline"] is True
    assert "sk-standin" not in settings.text


async def test_the_limits_hold_steps_output_timeout_and_stray_output(python: Path) -> None:
    limited = options(python, max_steps=3, max_output_kb=64, timeout=4)
    async with open_adapter("open_interpreter", limited) as adapter:
        loop = await run_task(adapter, Task.create("loop forever", timeout=60))
        flood = await run_task(adapter, Task.create("flood me", timeout=60))
        noise = await run_task(adapter, Task.create("make some noise", timeout=60))
        boom = await run_task(adapter, Task.create("boom", timeout=60))
        slow = await run_task(adapter, Task.create("hang there", timeout=60))
    assert loop.failure == "task_error" and "more than max_steps = 3" in loop.text, loop.text
    assert loop.data["open_interpreter"]["code_runs"] == 3
    assert flood.failure == "bad_output" and "more than 65536 bytes" in flood.text, flood.text
    assert noise.ok and noise.text == "quiet", noise.text  # stdout junk went to stderr, not the protocol
    assert boom.failure == "crash" and "RuntimeError" in boom.text and "sk-standin" not in boom.text
    assert slow.failure == "timeout" and "within 4 s" in slow.text


async def test_cancellation_stops_the_worker_and_its_code_runners(python: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    async with open_adapter("open_interpreter", options(python)) as adapter:
        with trio.fail_after(60):
            result = await run_task(adapter, Task.create(f"hang pidfile={pidfile}", timeout=8))
    assert result.failure == "timeout"  # the task deadline cancelled the run
    worker, child = (int(p) for p in pidfile.read_text().split())
    assert not alive(worker) and not alive(child)


async def test_an_environment_without_open_interpreter_stops_the_start_clearly(tmp_path: Path) -> None:
    bare = make_env(tmp_path / "bare", standin=False)
    with trio.fail_after(60), pytest.raises(AdapterLoadError, match="ImportError.*install open-interpreter"):
        async with open_adapter("open_interpreter", options(bare)):
            pass
    adapter = load_adapter("open_interpreter", options(bare))  # never started: each task says it
    result = await run_task(adapter, Task.create("compute", timeout=60))
    assert result.failure == "crash" and "install open-interpreter there" in result.text
    await adapter.aclose()


@pytest.mark.install
@pytest.mark.skipif(
    not os.environ.get("IOA_TEST_OPEN_INTERPRETER"),
    reason="creates a venv with open-interpreter from the registry (minutes); IOA_TEST_OPEN_INTERPRETER=1",
)
async def test_with_the_real_open_interpreter(tmp_path: Path) -> None:
    from ioa_p2p.adapters.open_interpreter.setup import create_environment

    given = os.environ.get("IOA_OI_PYTHON")
    folder = tmp_path / "oi"
    python = (
        Path(given)
        if given
        else await trio.to_thread.run_sync(lambda: create_environment(folder, timeout=900))
    )
    with serve() as server:
        server.script(
            Reply(content="Let me compute it.\n```python\nprint(6 * 7)\n```"),
            Reply(content="The answer is 42."),
        )
        model = {"base_url": server.base_url, "api_key": "k", "model": "tiny", "max_retries": 0}
        more = {"model": model, "function_calling": False, "context_window": 8000, "max_tokens": 500}
        with trio.fail_after(600):
            async with open_adapter("open_interpreter", {"python": str(python), **more}) as adapter:
                assert adapter.describe().description.startswith("Open Interpreter 0.4.3 on tiny")
                result = await run_task(adapter, Task.create("what is 6 times 7?", timeout=240))
    assert result.ok, result.text
    assert "42" in result.text and result.data["open_interpreter"]["code_runs"] == 1
