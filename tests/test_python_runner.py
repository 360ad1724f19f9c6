"""The python adapter with real subprocesses: limits, no network, files, crashes, cleanup."""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters import REJECTED, TASK_ERROR, TIMEOUT, Task, TaskResult, load_adapter, run_task
from ioa_p2p.adapters.python.adapter import PythonAdapter, extract_code
from ioa_p2p.adapters.python.sandbox import namespaces_work as _namespaces_work
from ioa_p2p.errors import AdapterOptionsError, TaskRejected

NAMESPACES = trio.run(_namespaces_work)
ISOLATIONS = [
    "audit-hook",
    pytest.param(
        "namespace",
        marks=pytest.mark.skipif(
            not NAMESPACES, reason="unprivileged user namespaces are not available here"
        ),
    ),
]


def adapter(tmp_path: Path, **options: object) -> PythonAdapter:
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    made = load_adapter("python", {"scratch_root": str(scratch), "timeout": 5, **options})
    assert isinstance(made, PythonAdapter)
    return made


async def run(a: PythonAdapter, code: str, *, fence: bool = True) -> TaskResult:
    text = f"Please run this:\n```python\n{code}\n```\n" if fence else code
    with trio.fail_after(30):
        return await run_task(a, Task.create(text, timeout=25))


def test_extract_code() -> None:
    assert extract_code("x\n```python\nprint(1)\n```\n```python\nprint(2)\n```") == "print(1)\n"
    assert extract_code("```py\nprint(3)\n```") == "print(3)\n"
    assert extract_code("```\nprint(4)\n```") == "print(4)\n"
    assert extract_code("```text\nnot code\n``` and ```python\nok()\n```") == "ok()\n"
    assert extract_code("print('plain code')") == "print('plain code')"
    assert extract_code("```python\nunterminated()") == "unterminated()"
    for text in ("hello", "Summarise the report, please.", "42", "```\nnot python at all\n```", ""):
        with pytest.raises(TaskRejected):
            extract_code(text)
    with pytest.raises(TaskRejected, match="longer"):
        extract_code("```python\n" + "x = 1\n" * 100 + "```", max_chars=50)


@pytest.mark.parametrize("isolation", ISOLATIONS)
async def test_output_and_files(tmp_path: Path, isolation: str) -> None:
    a = adapter(tmp_path, isolation=isolation)
    code = """
import os, pathlib
print("sum", sum(range(10)))
pathlib.Path("out.txt").write_text("hello")
os.makedirs("sub", exist_ok=True)
pathlib.Path("sub/data.csv").write_bytes(b"a,b\\n1,2\\n")
os.symlink("/etc/passwd", "leak")
print("home", os.environ["HOME"] == os.getcwd())
"""
    result = await run(a, code)
    assert result.ok, result.text
    assert result.text.startswith("sum 45\nhome True")
    assert result.files == {"out.txt": b"hello", "sub/data.csv": b"a,b\n1,2\n"}
    assert any(s.startswith("leak") for s in result.data["files_skipped"])
    assert result.data["sandbox"]["isolation"] == isolation
    assert list((tmp_path / "scratch").iterdir()) == []  # scratch directory removed


async def test_plain_code_task_and_rejection(tmp_path: Path) -> None:
    a = adapter(tmp_path)
    result = await run(a, "print(6 * 7)", fence=False)
    assert result.ok and result.text == "42\n"
    refused = await run(a, "Please tell me a story about dragons.", fence=False)
    assert refused.failure == REJECTED and "no Python code" in refused.text


@pytest.mark.parametrize("isolation", ISOLATIONS)
async def test_crash_is_a_failed_result_with_traceback(tmp_path: Path, isolation: str) -> None:
    a = adapter(tmp_path, isolation=isolation)
    result = await run(a, "print('before')\nraise ValueError('bad input 17')")
    assert not result.ok and result.failure == TASK_ERROR
    assert "ValueError: bad input 17" in result.text and 'File "task.py", line 2' in result.text
    assert "sandbox.py" not in result.text
    assert result.data["exit_code"] == 1 and result.data["stdout"] == "before\n"
    syntax = await run(a, "def broken(:\n    pass")
    assert syntax.failure == TASK_ERROR and "SyntaxError" in syntax.text
    exited = await run(a, "import sys\nsys.exit(3)")
    assert exited.failure == TASK_ERROR and exited.data["exit_code"] == 3


@pytest.mark.parametrize("isolation", ISOLATIONS)
async def test_timeout_kills_the_code(tmp_path: Path, isolation: str) -> None:
    # 3 s leaves room for interpreter start-up on a loaded machine before the first print
    a = adapter(tmp_path, isolation=isolation, timeout=3.0)
    started = trio.current_time()
    result = await run(a, "print('spinning', flush=True)\nwhile True:\n    pass")
    assert result.failure == TIMEOUT and "3 s" in result.text, result.text
    assert result.data["stdout"] == "spinning\n"
    assert trio.current_time() - started < 30  # killed, not left spinning


async def test_task_deadline_cancels_and_cleans_up(tmp_path: Path) -> None:
    a = adapter(tmp_path, timeout=30)
    with trio.fail_after(10):
        result = await run_task(a, Task.create("```python\nimport time\ntime.sleep(60)\n```", timeout=0.5))
    assert result.failure == TIMEOUT
    assert list((tmp_path / "scratch").iterdir()) == []


@pytest.mark.parametrize("isolation", ISOLATIONS)
async def test_memory_limit(tmp_path: Path, isolation: str) -> None:
    a = adapter(tmp_path, isolation=isolation, memory_mb=128)
    result = await run(a, "x = bytearray(400 * 1024 * 1024)\nprint(len(x))")
    assert result.failure == TASK_ERROR and "out of memory (limit 128 MB)" in result.text
    # the limit cannot be raised from inside
    raised = await run(a, "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))")
    assert raised.failure == TASK_ERROR
    assert "ValueError: not allowed to raise maximum limit" in raised.text


@pytest.fixture
def listener() -> object:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


@pytest.mark.parametrize("isolation", ISOLATIONS)
async def test_network_blocked(tmp_path: Path, isolation: str, listener: int) -> None:
    a = adapter(tmp_path, isolation=isolation)
    code = (
        f"import socket\nsocket.create_connection(('127.0.0.1', {listener}), timeout=2)\nprint('connected')"
    )
    result = await run(a, code)
    assert result.failure == TASK_ERROR and "connected" not in result.data["stdout"]
    assert "network access is disabled" in result.text
    # the same code connects when the network is allowed
    allowed = adapter(tmp_path, isolation=isolation, network=True)
    ok = await run(allowed, code)
    assert ok.ok and ok.text == "connected\n", ok.text


@pytest.mark.skipif(not NAMESPACES, reason="unprivileged user namespaces are not available here")
async def test_namespace_blocks_network_below_python(tmp_path: Path, listener: int) -> None:
    """Bypass the audit hook with raw libc calls: the kernel namespace still has no route."""
    a = adapter(tmp_path, isolation="namespace")
    code = f"""
import ctypes, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
addr = struct.pack("<H", socket.AF_INET) + struct.pack(">H", {listener}) + bytes([127, 0, 0, 1]) + bytes(8)
rc = libc.connect(fd, ctypes.c_char_p(addr), len(addr))
print("rc", rc, "errno", ctypes.get_errno())
"""
    result = await run(a, code)
    assert result.ok, result.text
    assert result.text.startswith("rc -1 errno"), result.text


async def test_audit_hook_mode_blocks_native_socket_calls(tmp_path: Path) -> None:
    a = adapter(tmp_path, isolation="audit-hook")
    result = await run(a, "import ctypes\nctypes.CDLL(None).connect")
    assert result.failure == TASK_ERROR and "native call connect is disabled" in result.text


@pytest.mark.parametrize("isolation", ISOLATIONS)
async def test_subprocesses_blocked_by_default_and_killed_when_allowed(
    tmp_path: Path, isolation: str
) -> None:
    a = adapter(tmp_path, isolation=isolation)
    blocked = await run(a, "import subprocess\nsubprocess.run(['true'])")
    assert blocked.failure == TASK_ERROR and "starting processes is disabled" in blocked.text
    token = f"ioa-test-{uuid.uuid4().hex}"
    spawn = f"""
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "{token}"])
print("spawned")
"""
    allowed = adapter(tmp_path, isolation=isolation, allow_subprocess=True)
    result = await run(allowed, spawn)
    assert result.ok, result.text
    await trio.sleep(0.2)
    assert not _processes_with(token), "a background process outlived its task"


def _processes_with(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path("/proc", entry, "cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not NAMESPACES, reason="unprivileged user namespaces are not available here")
async def test_hidden_paths(tmp_path: Path) -> None:
    secret = tmp_path / "node-home"
    secret.mkdir()
    (secret / "node.key").write_text("PRIVATE")
    a = adapter(tmp_path, isolation="namespace", hide_paths=[str(secret)])
    code = f"import os\nprint(os.listdir({str(secret)!r}))\nprint(open({str(secret / 'node.key')!r}).read())"
    result = await run(a, code)
    assert not result.ok and "PRIVATE" not in result.text
    assert result.data["stdout"] == "[]\n"


async def test_output_is_bounded(tmp_path: Path) -> None:
    a = adapter(tmp_path, max_output=1000)
    result = await run(
        a, "import sys\nfor i in range(200000):\n    print('x' * 50)\nsys.stderr.write('E' * 5000 + 'END')"
    )
    assert result.ok and result.data["stdout_truncated"] and result.data["stderr_truncated"]
    assert len(result.data["stdout"]) == 1000 and result.data["stderr"].endswith("END")
    assert "[output cut at 1000 bytes]" in result.text


async def test_file_limits(tmp_path: Path) -> None:
    a = adapter(tmp_path, max_files=2, max_files_kb=4)
    code = (
        "for i in range(5):\n    open(f'f{i}.txt', 'w').write('x' * 100)\n"
        "open('big.bin', 'wb').write(b'y' * 10000)"
    )
    result = await run(a, code)
    assert result.ok and len(result.files) == 2
    assert any("big.bin" in s for s in result.data["files_skipped"])
    big = adapter(tmp_path, max_file_mb=1)
    too_big = await run(big, "open('huge', 'wb').write(b'z' * (3 * 1024 * 1024))")
    assert too_big.failure == TASK_ERROR and "larger than 1 MB" in too_big.text


async def test_concurrent_runs_are_isolated(tmp_path: Path) -> None:
    a = adapter(tmp_path, max_concurrent=2)
    results: dict[int, TaskResult] = {}

    async def one(i: int) -> None:
        results[i] = await run(a, f"open('mine.txt', 'w').write('{i}')\nprint({i})")

    async with trio.open_nursery() as nursery:
        for i in range(4):
            nursery.start_soon(one, i)
    for i, result in results.items():
        assert result.ok and result.text.startswith(f"{i}\n")
        assert result.files == {"mine.txt": str(i).encode()}


def test_bad_options() -> None:
    for bad in (
        {"isolation": "chroot"},
        {"timeout": 0},
        {"memory_mb": 10},
        {"max_files": 1000},
        {"python": "/no/such/python"},
        {"timeout": "10"},
    ):
        with pytest.raises(AdapterOptionsError):
            load_adapter("python", bad)
    card = load_adapter("python", {}).describe()
    assert card.kind == "python" and card.task_types == ("code",) and "no network" in card.description
