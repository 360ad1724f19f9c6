"""The inputs of a piece of Python (pure): the names it reads but never sets.

A function's parameters are set inside that function only: ``print(cost(rate, deposit))`` after ``def
cost(rate, deposit): ...`` reads ``rate`` and ``deposit`` as inputs.

What a block prints is its step's value, so a block is made to print what it computes
(:func:`runnable`): a block that only defines one function and never calls it is given the call (each
parameter without a default an input); a last line that is a bare expression (``rate * 4 + 10``) is
printed; a placeholder for a value to fill in (``rate = ...``, ``rate = ?``, ``rate = <the hourly rate>``)
makes its name an input, a comment or description beside it kept as a comment that names the value
(``# rate: the hourly rate``).
"""

from __future__ import annotations

import ast
import builtins
import re


def free_names(code: str) -> list[str]:
    """Names the code reads but never sets (not builtins): its inputs."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    defined = {
        a.asname or a.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }  # imports, functions, classes and their arguments are set where they are written
    defined |= {
        n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    scoped = _parameter_uses(tree)
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in scoped]
    stored = defined | {n.id for n in names if isinstance(n.ctx, ast.Store)}
    loaded = [n.id for n in names if isinstance(n.ctx, ast.Load)]
    never_set = [n for n in loaded if n not in stored and not hasattr(builtins, n)]
    first = _read_first(tree, scoped)
    found = list(dict.fromkeys([*never_set, *(n for n in first if n not in defined)]))
    where: dict[str, tuple[int, int]] = {}  # in the order the code reads them ("2 * a + c": a, then c)
    for n in sorted(names, key=lambda n: (n.lineno, n.col_offset)):
        where.setdefault(n.id, (n.lineno, n.col_offset))
    return sorted(found, key=lambda n: where.get(n, (0, 0)))


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = node.args
    every = [
        *a.posonlyargs,
        *a.args,
        *a.kwonlyargs,
        *([a.vararg] if a.vararg else []),
        *([a.kwarg] if a.kwarg else []),
    ]
    return {p.arg for p in every}


def _parameter_uses(tree: ast.Module) -> set[int]:
    """The ``Name`` nodes (by id) that are a function's (or lambda's) parameter used inside it."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            params = _parameters(node)
            body = node.body if isinstance(node.body, list) else [node.body]
            out |= {
                id(n) for part in body for n in ast.walk(part) if isinstance(n, ast.Name) and n.id in params
            }
    return out


_PLACEHOLDER = re.compile(
    r"^(?P<indent>[ \t]*)(?P<name>[A-Za-z_]\w*)\s*=\s*(?:\.\.\.|\?+|_{2,}|TODO|<(?P<says>[^<>\n]*)>)\s*"
    r"(?:#\s*(?P<comment>.*))?$",
    re.M,
)
#: Calls whose value a bare last line means to show (a call of anything else may print by itself).
_VALUE_CALLS = frozenset("round sum abs min max int float len sorted str format pow divmod".split())  # noqa: SIM905


def runnable(code: str) -> str:
    """``code`` made to print what it computes (see the module docstring); unchanged when it does."""

    def placeholder(m: re.Match[str]) -> str:
        said = (m.group("comment") or m.group("says") or "").strip()
        return f"{m.group('indent')}# {m.group('name')}: {said}" if said else f"{m.group('indent')}pass"

    filled = _PLACEHOLDER.sub(placeholder, code) if not _indented(code) else code
    return _printed_last(with_call(filled))


def _indented(code: str) -> bool:
    """Whether the placeholders sit inside a block (left as they are)."""
    return any(m.group("indent") for m in _PLACEHOLDER.finditer(code))


def _printed_last(code: str) -> str:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or isinstance(last.value, ast.Constant):
        return code
    value = last.value
    if isinstance(value, ast.Call) and not (
        isinstance(value.func, ast.Name) and value.func.id in _VALUE_CALLS
    ):
        return code  # print(...), main(): it shows what it means to
    lines = code.rstrip().split("\n")
    start, end = last.lineno - 1, (last.end_lineno or last.lineno)
    if end != len(lines) or last.col_offset != 0:
        return code
    expression = "\n".join(lines[start:end])
    return "\n".join([*lines[:start], f"print({expression})"])


def with_call(code: str) -> str:
    """``code`` with ``print(f(a, b))`` added when it only defines one function ``f`` and never calls it
    (imports, constants and a docstring aside); unchanged otherwise."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    others = [
        n for n in tree.body if not isinstance(n, ast.FunctionDef | ast.Import | ast.ImportFrom | ast.Assign)
    ]
    others = [n for n in others if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    if len(functions) != 1 or others:
        return code
    f = functions[0]
    called = any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == f.name
        for n in ast.walk(tree)
    )
    if called:
        return code
    a = f.args
    required = [*a.posonlyargs, *a.args][: len(a.posonlyargs) + len(a.args) - len(a.defaults)]
    return f"{code.rstrip()}\nprint({f.name}({', '.join(p.arg for p in required)}))"


def _read_first(tree: ast.Module, scoped: set[int]) -> list[str]:
    """Top-level names read (or updated, ``x -= 1``) before anything sets them: inputs too
    ("while needed > 0: ... needed -= step"). Comprehension variables are set where they are used."""
    local = {n.id for c in ast.walk(tree) if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
             if isinstance(n, ast.Name)}  # fmt: skip
    first: dict[str, bool] = {}  # name -> first occurrence reads it
    events: list[tuple[int, int, str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            events.append((node.lineno, node.col_offset, node.target.id, True))
        elif isinstance(node, ast.Name) and id(node) not in scoped:
            events.append((node.lineno, node.col_offset, node.id, isinstance(node.ctx, ast.Load)))
    for _, _, name, reads in sorted(events):
        first.setdefault(name, reads)
    return [n for n, reads in first.items() if reads and n not in local and not hasattr(builtins, n)]


__all__ = ["free_names", "runnable", "with_call"]
