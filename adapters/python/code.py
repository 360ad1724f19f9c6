"""Finding the Python code in a task text: fenced blocks first, else the whole text when it compiles."""

from __future__ import annotations

import ast
import re

from ioa_p2p.errors import TaskRejected

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(text: str, *, max_chars: int = 100_000) -> str:
    """The Python code of a task (see the module docstring); raises TaskRejected if there is none."""
    if len(text) > max_chars * 2:
        raise TaskRejected(f"the task is longer than {max_chars * 2} characters")
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    tagged = [body for tag, body in blocks if tag in ("python", "python3", "py")]
    candidates = tagged[:1] or [body for tag, body in blocks if not tag and _compiles(body)][:1]
    if not candidates and not blocks and _looks_like_code(text):
        candidates = [text]
    if not candidates:
        raise TaskRejected("no Python code found: put the code in a fenced block (```python ... ```)")
    code = candidates[0]
    if len(code) > max_chars:
        raise TaskRejected(f"the code is longer than {max_chars} characters")
    if not code.strip():
        raise TaskRejected("the Python code block is empty")
    return code


def _compiles(code: str) -> bool:
    try:
        compile(code, "<task>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return False
    return True


def _looks_like_code(text: str) -> bool:
    """Compiles as Python and is more than a bare name or constant ("hello" compiles too)."""
    try:
        tree = compile(text, "<task>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return False
    body = getattr(tree, "body", [])
    trivial = (ast.Name, ast.Constant)
    return bool(body) and not (
        len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, trivial)
    )
