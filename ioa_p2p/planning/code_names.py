"""The inputs of a piece of Python (pure): the names it reads but never sets."""

from __future__ import annotations

import ast
import builtins


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
    defined |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    defined |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    stored = defined | {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    loaded = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    never_set = [n for n in loaded if n not in stored and not hasattr(builtins, n)]
    return list(dict.fromkeys([*never_set, *(n for n in _read_first(tree) if n not in defined)]))


def _read_first(tree: ast.Module) -> list[str]:
    """Top-level names read (or updated, ``x -= 1``) before anything sets them: inputs too
    ("while needed > 0: ... needed -= step"). Comprehension variables are set where they are used."""
    local = {n.id for c in ast.walk(tree) if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
             if isinstance(n, ast.Name)}  # fmt: skip
    first: dict[str, bool] = {}  # name -> first occurrence reads it
    events: list[tuple[int, int, str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            events.append((node.lineno, node.col_offset, node.target.id, True))
        elif isinstance(node, ast.Name):
            events.append((node.lineno, node.col_offset, node.id, isinstance(node.ctx, ast.Load)))
    for _, _, name, reads in sorted(events):
        first.setdefault(name, reads)
    return [n for n, reads in first.items() if reads and n not in local and not hasattr(builtins, n)]


__all__ = ["free_names"]
