"""The layer rule, checked on the source: imports point inward, libp2p stays in node/net, no import cycles.

Every module of the five packages (the ``package-dir`` map of pyproject.toml applied) is parsed with ``ast``;
every ``import`` counts, at module level, inside functions or under ``TYPE_CHECKING``. docs/architecture.md
explains the layers; :data:`LAYERS` is the same list, lowest first. A module may import its own layer and
the layers below it, never one above. The one exception is :data:`LAZY_REEXPORT`: ``ioa_p2p/__init__.py``
re-exports ``open_node`` and ``Node`` lazily (inside ``__getattr__``), so ``import ioa_p2p`` never loads
py-libp2p.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Lowest first. A module belongs to the layer of its longest matching prefix (a package and all in it).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("errors", ("ioa_p2p.errors",)),
    (
        "core basics",
        (
            "ioa_p2p.logs",
            "ioa_p2p.identity",
            "ioa_p2p.budget",
            "ioa_p2p.faults",
            "ioa_p2p.memory",
            "ioa_p2p.lazy",
        ),
    ),
    ("wire", ("ioa_p2p.wire",)),
    ("config", ("ioa_p2p.config", "ioa_p2p.telemetry")),
    ("records and models", ("ioa_p2p.card", "ioa_p2p.embedding", "ioa_p2p.llm", "ioa_p2p.matching")),
    ("history", ("ioa_p2p.history",)),
    ("planning", ("ioa_p2p.planning",)),
    ("teaming", ("ioa_p2p.teaming",)),
    ("conversation", ("ioa_p2p.conversation",)),
    ("control API", ("ioa_p2p.api",)),
    ("core surface", ("ioa_p2p.control_client", "ioa_p2p")),
    ("adapters", ("ioa_p2p.adapters",)),
    ("dht", ("ioa_p2p.dht",)),
    ("node.net", ("ioa_p2p.node.net",)),
    (
        "node.control and ports",
        ("ioa_p2p.node.control", "ioa_p2p.node.ports", "ioa_p2p.node.telemetry", "ioa_p2p.node.sqlite_files"),
    ),
    ("node services", ("ioa_p2p.node.messaging", "ioa_p2p.node.relay", "ioa_p2p.node.chats")),
    ("node discovery", ("ioa_p2p.node.discovery",)),
    ("node goals", ("ioa_p2p.node.goals",)),
    (
        "node",
        (
            "ioa_p2p.node.services",
            "ioa_p2p.node.node",
            "ioa_p2p.node.lifecycle",
            "ioa_p2p.node.status",
            "ioa_p2p.node.agents",
            "ioa_p2p.node",
        ),
    ),
    ("bootstrap", ("ioa_p2p.bootstrap",)),
    (
        "entry points and test doubles",
        ("ioa_p2p.cli", "ioa_p2p.gateways", "ioa_p2p.testing", "ioa_p2p.__main__"),
    ),
)
#: (importer, imported): the documented lazy re-export of ``open_node`` / ``Node`` by the core's __init__.
LAZY_REEXPORT = ("ioa_p2p", "ioa_p2p.node")
#: Third-party packages only the listed layers may import.
CONFINED = {
    "libp2p": ("ioa_p2p.node.net",),
    "multiaddr": ("ioa_p2p.node.net",),
    "varint": ("ioa_p2p.node.net",),
    "ifaddr": ("ioa_p2p.node.net",),
    "hypercorn": ("ioa_p2p.node.control", "ioa_p2p.gateways"),
    "opentelemetry": ("ioa_p2p.node.telemetry",),
}
#: The core (every layer below ``adapters``) does no network I/O: none of these.
CORE_BANNED = ("trio", "libp2p", "multiaddr", "hypercorn", "socket", "sqlite3")


@dataclass
class Module:
    name: str
    path: Path  # relative to the repository
    is_package: bool
    imports: list[tuple[str, int]] = field(default_factory=list)  # internal: (module, line)
    external: list[tuple[str, int]] = field(default_factory=list)  # third-party / stdlib top-level names


def package_dirs(root: Path) -> dict[str, str]:
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return mapping


def collect(root: Path) -> dict[str, Module]:
    """Every module of the five packages, by dotted name, with what it imports."""
    mapping = package_dirs(root)
    modules: dict[str, Module] = {}
    for package, folder in mapping.items():
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            parts = [p for p in path.relative_to(base).with_suffix("").parts if p != "__init__"]
            name = ".".join([package, *parts])
            owner = max((p for p in mapping if name == p or name.startswith(p + ".")), key=len)
            if owner == package:  # not a folder that another package-dir entry installs
                modules[name] = Module(name, path.relative_to(root), path.name == "__init__.py")
    for module in modules.values():
        _parse_imports(module, modules, root)
    return modules


def _parse_imports(module: Module, modules: dict[str, Module], root: Path) -> None:
    tree = ast.parse((root / module.path).read_text(encoding="utf-8"))
    seen: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            targets = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            found = target
            while found and found not in modules:
                found = found.rpartition(".")[0]
            if not found:
                top = target.split(".")[0]
                if not target.startswith("ioa_p2p") and top not in seen:
                    seen.add(top)
                    module.external.append((top, node.lineno))
                continue
            # a package's own parents run first anyway: they are not dependencies
            if found != module.name and not module.name.startswith(found + ".") and found not in seen:
                seen.add(found)
                module.imports.append((found, node.lineno))


def layer_of(name: str) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, layer index)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def layer_violations(modules: dict[str, Module]) -> list[str]:
    out = []
    for module in modules.values():
        mine = layer_of(module.name)
        if mine is None:
            out.append(f"{module.name}: in no layer (add it to LAYERS and docs/architecture.md)")
            continue
        for target, line in module.imports:
            theirs = layer_of(target)
            if theirs is not None and theirs > mine and (module.name, target) != LAZY_REEXPORT:
                out.append(
                    f"{_where(module, line)}: {module.name} ({LAYERS[mine][0]}) imports {target} "
                    f"({LAYERS[theirs][0]}), a higher layer"
                )
    return out


def confinement_violations(modules: dict[str, Module]) -> list[str]:
    out = []
    core_top = next(i for i, (name, _) in enumerate(LAYERS) if name == "adapters")
    for module in modules.values():
        mine = layer_of(module.name)
        for package, line in module.external:
            allowed = CONFINED.get(package)
            if allowed is not None and not any(
                module.name == p or module.name.startswith(p + ".") for p in allowed
            ):
                out.append(f"{_where(module, line)}: {module.name} imports {package} (only {allowed} may)")
            if mine is not None and mine < core_top and package in CORE_BANNED:
                out.append(f"{_where(module, line)}: the core module {module.name} imports {package}")
    return out


def cycles(modules: dict[str, Module]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    graph = {name: sorted({t for t, _ in m.imports}) for name, m in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def package_list_problems(root: Path, modules: dict[str, Module]) -> list[str]:
    """pyproject's ``packages`` must list exactly the packages on disk (else a wheel misses some)."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {m.name for m in modules.values() if m.is_package}
    problems = [
        f"package {p} is not listed in pyproject [tool.setuptools] packages" for p in on_disk - listed
    ]
    problems += [f"pyproject lists {p}, which has no __init__.py" for p in listed - on_disk]
    return sorted(problems)


def _where(module: Module, line: int) -> str:
    return f"{module.path.as_posix()}:{line}"


# --------------------------------------------------------------------------- the tests

MODULES = collect(ROOT)


def test_no_module_imports_a_higher_layer() -> None:
    assert not (problems := layer_violations(MODULES)), "\n".join(problems)


def test_libp2p_is_imported_only_under_node_net_and_the_core_does_no_network_io() -> None:
    assert not (problems := confinement_violations(MODULES)), "\n".join(problems)


def test_there_is_no_import_cycle_between_modules() -> None:
    found = cycles(MODULES)
    assert not found, "\n".join("cycle: " + " <-> ".join(c) for c in found)


def test_every_package_is_installed() -> None:
    assert not (problems := package_list_problems(ROOT, MODULES)), "\n".join(problems)


def documented_layers(root: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The layer table of docs/architecture.md: (name, module prefixes in backticks) per row, in order."""
    text = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            modules = tuple(part.split(" ")[0] for part in cells[2].split("`")[1::2])
            rows.append((cells[1], tuple(m for m in modules if m.startswith("ioa_p2p"))))
    return rows


def test_docs_architecture_lists_the_same_layers() -> None:
    assert documented_layers(ROOT) == [(name, prefixes) for name, prefixes in LAYERS]
