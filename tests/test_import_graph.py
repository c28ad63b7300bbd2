"""perfkit's modules form no import cycle, counting the imports deferred inside functions.

A cycle makes the import order matter and hides one room inside another; a deferred import only
hides it from the interpreter. Imports under `if TYPE_CHECKING:` never run and are not arrows.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "perfkit"


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(tree: ast.AST, here: str, is_package: bool, known: set[str], typing_too: bool = False) -> set[str]:
    """The perfkit modules a module imports, at any depth (functions included)."""
    found: set[str] = set()
    skip: set[int] = set()
    for node in ast.walk(tree):
        if not typing_too and isinstance(node, ast.If) and _type_checking_only(node):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = here.split(".") if is_package else here.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*pkg, base] if base else pkg)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:  # `import perfkit.a.b` names the module perfkit.a.b
                name = name.rpartition(".")[0]
            if name and name != here and name != "perfkit":
                found.add(name)
    return found


def import_graph(root: Path = PACKAGE, typing_too: bool = False) -> dict[str, set[str]]:
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    known = set(files)
    return {
        name: _imported(ast.parse(path.read_text(), str(path)), name, path.name == "__init__.py", known, typing_too)
        for name, path in files.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as one cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(_path_through(graph, sorted(group)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def _path_through(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """A concrete cycle inside a strongly connected group, to name in the failure."""
    members, start = set(group), group[0]
    path, seen = [start], {start}
    while True:
        nxt = sorted(w for w in graph[path[-1]] if w in members)
        back = [w for w in nxt if w in path]
        if back:
            return path[path.index(back[0]) :] + [back[0]]
        step = next(w for w in nxt if w not in seen)
        path.append(step)
        seen.add(step)


def test_the_graph_sees_deferred_and_relative_imports(tmp_path):
    pkg = tmp_path / "perfkit"
    (pkg / "room").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "room" / "__init__.py").write_text("")
    (pkg / "room" / "a.py").write_text("def f():\n    from perfkit.room import b\n")
    (pkg / "room" / "b.py").write_text("from . import c\n")
    (pkg / "room" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from perfkit.room.a import f\nimport perfkit.room.a\n"
    )
    (pkg / "room" / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import perfkit.room.a\n"
    )
    graph = import_graph(pkg)
    assert graph["perfkit.room.a"] == {"perfkit.room.b"}
    assert graph["perfkit.room.b"] == {"perfkit.room.c"}
    assert graph["perfkit.room.c"] == {"perfkit.room.a"}
    assert graph["perfkit.room.d"] == set()
    assert cycles(graph) == [["perfkit.room.a", "perfkit.room.b", "perfkit.room.c", "perfkit.room.a"]]


def test_cycles_names_each_group_once_and_ignores_chains():
    graph = {"x": {"y"}, "y": {"x", "z"}, "z": set(), "p": {"q"}, "q": {"r"}, "r": {"p"}}
    assert sorted(cycles(graph)) == [["p", "q", "r", "p"], ["x", "y", "x"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between perfkit's packages (perfkit.lint, perfkit.publish, ...): arrows inside one are dropped."""

    def room(m: str) -> str:
        return ".".join(m.split(".")[:2])

    out: dict[str, set[str]] = {}
    for src, targets in graph.items():
        out.setdefault(room(src), set()).update(room(t) for t in targets if room(t) != room(src))
    return out


def test_rooms_collapse_modules_into_their_package():
    graph = {"perfkit.a.x": {"perfkit.a.y", "perfkit.b.z"}, "perfkit.a.y": set(), "perfkit.b.z": {"perfkit.a.y"}}
    assert rooms(graph) == {"perfkit.a": {"perfkit.b"}, "perfkit.b": {"perfkit.a"}}
    assert cycles(rooms(graph)) == [["perfkit.a", "perfkit.b", "perfkit.a"]]
    assert cycles(graph) == []


def test_perfkit_modules_have_no_import_cycle():
    graph = import_graph()
    assert len(graph) > 50 and "perfkit.benchmark.render" in graph["perfkit.benchmark.models"]  # deferred seen
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_perfkit_packages_have_no_import_cycle():
    found = cycles(rooms(import_graph()))
    named = "; ".join(" -> ".join(c) for c in found)
    assert not found, f"import cycles between packages: {named}"


def bisect_rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between the bisect package's rooms (search, command, state, engine, workers, and its top modules)."""

    def room(m: str) -> str:
        parts = m.split(".")
        return ".".join(parts[:3]) if len(parts) > 3 else m

    out: dict[str, set[str]] = {}
    for src, targets in graph.items():
        if src.startswith("perfkit.bisect."):
            inside = {room(t) for t in targets if t.startswith("perfkit.bisect.")}
            out.setdefault(room(src), set()).update(inside - {room(src)})
    return out


def test_bisect_rooms_have_no_import_cycle_even_for_type_checking():
    """A newcomer reads each room of the bisect on its own: none needs another that needs it back,
    not even for a type annotation (a Protocol in the lower room names what it needs instead)."""
    graph = import_graph(typing_too=True)
    assert {"perfkit.bisect.search", "perfkit.bisect.engine", "perfkit.bisect.workers"} <= set(bisect_rooms(graph))
    module_cycles = [c for c in cycles(graph) if c[0].startswith("perfkit.bisect")]
    assert not module_cycles, "; ".join(" -> ".join(c) for c in module_cycles)
    found = cycles(bisect_rooms(graph))
    assert not found, "import cycles between the bisect's rooms: " + "; ".join(" -> ".join(c) for c in found)
