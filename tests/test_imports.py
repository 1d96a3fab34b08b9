"""Imports run one way, down the layers of :data:`LAYERS` (the data flow: rules -> engine ->
players -> api -> runner -> studies -> cli): no module of scopa_sim imports one of a higher
layer, none imports one that imports it back, however long the loop, and the engine never
imports the players; at module level or inside a function alike (a lazy import hides a cycle
from Python, not from the design).

The graph is built from the source with ``ast``: every ``import`` and ``from ... import`` of a
scopa_sim module anywhere in a file; ``from package import name`` counts as an import of the
submodule ``package.name`` when there is one, else of ``package``. A package's own ``__init__``
is the module named after the package. Implicit imports of parent packages are not edges (every
submodule would otherwise be in a loop with a package ``__init__`` that re-exports it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import scopa_sim

ROOT = Path(scopa_sim.__file__).resolve().parent
PACKAGE = "scopa_sim"


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The scopa_sim modules that ``name`` (at ``path``) imports, anywhere in the file."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the package holding this module
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
    return {m for m in found if m in modules and m != name}


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = module_names(root)
    return {name: imports_of(name, path, set(modules)) for name, path in modules.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
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
                    work.append((child, iter(sorted(graph.get(child, ())))))
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
                out.append(sorted(component))
    return out


def a_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One import loop inside ``component``: a path from its first module back to it."""
    members = set(component)
    start = component[0]
    previous = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if child not in previous:
                previous[child] = node
                queue.append(child)
    return component


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    pkg = tmp_path / "scopa_sim"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from scopa_sim.sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("from .b import g\n")
    (pkg / "sub" / "b.py").write_text("import scopa_sim.a\nfrom scopa_sim.sub import c\n")
    (pkg / "sub" / "c.py").write_text("from .. import z\n")
    (pkg / "z.py").write_text("")
    graph = import_graph(pkg)
    assert graph["scopa_sim.a"] == {"scopa_sim.sub.b"}  # inside a function, a submodule
    assert graph["scopa_sim.sub"] == {"scopa_sim.sub.b"}  # relative, from a package
    assert graph["scopa_sim.sub.b"] == {"scopa_sim.a", "scopa_sim.sub.c"}
    assert graph["scopa_sim.sub.c"] == {"scopa_sim.z"}  # relative, two levels
    loops = [c for c in strongly_connected(graph) if len(c) > 1]
    assert loops == [["scopa_sim.a", "scopa_sim.sub.b"]]
    assert a_cycle(graph, loops[0]) == ["scopa_sim.a", "scopa_sim.sub.b", "scopa_sim.a"]


def test_scopa_sim_has_no_import_cycle():
    graph = import_graph()
    assert len(graph) > 20 and "scopa_sim.engine.reference" in graph
    loops = [c for c in strongly_connected(graph) if len(c) > 1]
    described = [" -> ".join(a_cycle(graph, c)) + f" (loop of {len(c)}: {c})" for c in loops]
    assert not loops, "import cycles:\n" + "\n".join(described)


#: The layers of the package, low to high: a module may import its own layer and the layers below
#: it, never one above (lazy imports inside functions included). This is the one statement of
#: the order; docs/design.md explains it. A module belongs to the layer of its longest prefix.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("scopa_sim", "scopa_sim.cards", "scopa_sim.registry"),  # __init__: the version only
    ("scopa_sim.rules",),
    (
        "scopa_sim.jit",
        "scopa_sim.seeding",
        "scopa_sim.sizes",
        "scopa_sim.stats",
        "scopa_sim.text",
    ),
    ("scopa_sim.contract",),
    ("scopa_sim.engine",),
    ("scopa_sim.players",),
    ("scopa_sim.storage", "scopa_sim.integrity", "scopa_sim.lineup", "scopa_sim.position"),
    ("scopa_sim.api",),
    ("scopa_sim.testing",),
    ("scopa_sim.reporting",),
    ("scopa_sim.runner",),
    (
        "scopa_sim.compare",
        "scopa_sim.compare_page",
        "scopa_sim.precision",
        "scopa_sim.planning",
        "scopa_sim.interventions",
        "scopa_sim.tournament",
        "scopa_sim.training",
        "scopa_sim.tuning",
    ),
    ("scopa_sim.cli", "scopa_sim.launch", "scopa_sim.__main__"),
)


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the module's longest matching prefix."""
    best, found = -1, None
    for index, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, found = len(name), index
    if found is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in {__file__}")
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a higher layer, as ``a (layer i) -> b (layer j)``."""
    return [
        f"{a} (layer {layer_of(a)}) -> {b} (layer {layer_of(b)})"
        for a in sorted(graph)
        for b in sorted(graph[a])
        if layer_of(b) > layer_of(a)
    ]


def test_the_layer_check_catches_an_upward_import(tmp_path):
    pkg = tmp_path / "scopa_sim"
    (pkg / "engine").mkdir(parents=True)
    (pkg / "players").mkdir()
    for path in ("__init__.py", "engine/__init__.py", "players/__init__.py"):
        (pkg / path).write_text("")
    (pkg / "engine" / "fast.py").write_text("def f():\n    from scopa_sim.players import greedy\n")
    (pkg / "players" / "greedy.py").write_text("from scopa_sim.engine import fast\n")
    graph = import_graph(pkg)
    assert upward_imports(graph) == [
        "scopa_sim.engine.fast (layer 4) -> scopa_sim.players.greedy (layer 5)"
    ]


def test_every_module_is_in_a_layer_and_imports_only_down_the_layers():
    graph = import_graph()
    problems = upward_imports(graph)
    assert not problems, "imports up the layers:\n" + "\n".join(problems)


def test_the_engine_does_not_import_the_players():
    """The engine knows no player: a compiled player hands it its own row policy."""
    graph = import_graph()
    found = [
        f"{a} -> {b}"
        for a in sorted(graph)
        if a.startswith("scopa_sim.engine")
        for b in sorted(graph[a])
        if b.startswith("scopa_sim.players")
    ]
    assert not found, found
