"""The python adapter's options (``[agent.options]``) and their checks."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field

from ioa_p2p.adapters.base import MAX_FILES, MAX_FILES_BYTES
from ioa_p2p.errors import AdapterOptionsError

ISOLATIONS = ("auto", "namespace", "audit-hook")


@dataclass(frozen=True, slots=True)
class PythonOptions:
    timeout: float = 10.0
    memory_mb: int = 512
    max_file_mb: int = 16
    network: bool = False
    isolation: str = "auto"
    allow_subprocess: bool = False
    hide_paths: tuple[str, ...] | None = None  # None: the node home
    max_output: int = 16_000
    max_files: int = MAX_FILES
    max_files_kb: int = MAX_FILES_BYTES // 1024
    max_code_chars: int = 100_000
    max_concurrent: int = 2
    python: str = ""  # default: the interpreter running the node
    scratch_root: str = ""  # default: the system temporary directory
    name: str = "python-runner"
    skills: tuple[str, ...] = field(
        default=("python", "run code", "data processing", "computation", "simulation")
    )


def validate_options(o: PythonOptions) -> None:
    if o.isolation not in ISOLATIONS:
        raise AdapterOptionsError(f"python option isolation must be one of {ISOLATIONS}")
    positive = {
        "timeout": o.timeout,
        "memory_mb": o.memory_mb,
        "max_file_mb": o.max_file_mb,
        "max_output": o.max_output,
        "max_code_chars": o.max_code_chars,
        "max_concurrent": o.max_concurrent,
    }
    for name, value in positive.items():
        if value <= 0:
            raise AdapterOptionsError(f"python option {name} must be positive, not {value}")
    if o.memory_mb < 64:
        raise AdapterOptionsError("python option memory_mb must be at least 64 (Python needs it)")
    if not 0 <= o.max_files <= MAX_FILES or not 0 <= o.max_files_kb * 1024 <= MAX_FILES_BYTES:
        raise AdapterOptionsError(
            f"python options max_files <= {MAX_FILES} and max_files_kb <= {MAX_FILES_BYTES // 1024}"
        )
    if o.python and shutil.which(o.python) is None:
        raise AdapterOptionsError(f"python option python: {o.python!r} is not an executable")
