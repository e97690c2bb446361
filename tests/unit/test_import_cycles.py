"""No two modules of memtui need each other: the import graph has no circle.

Every import counts — at module level, inside a function, under `if TYPE_CHECKING:` — because
each says that one module needs the other. An import moved into a function (or under
TYPE_CHECKING) only hides a circle: the two modules still cannot be understood, tested or
moved apart. A lazy import stays welcome for what it is for (a slow or optional module loaded
only when used), never to close a circle; a circle is broken by moving the shared piece into
a module both import (as memtui.core.rollback_records is for rollback and rollback_apply).

The graph is grimp's (the parser import-linter uses): an import of a package counts as an
import of its `__init__`, not of the modules inside it.
"""

from __future__ import annotations

import warnings

import grimp

KNOWN: dict[frozenset[str], str] = {
    # Circles being taken apart elsewhere, each named with what takes it apart. A circle is one
    # of these when it holds all the modules of its entry (the registry's grows and shrinks while
    # agents move into it). A new circle fails the test; one of these that is gone only warns
    # (delete its entry), so that breaking a circle never turns the suite red.
}


def circles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _described(graph: grimp.ImportGraph, circle: frozenset[str]) -> str:
    lines = []
    for importer in sorted(circle):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & circle):
            for detail in graph.get_import_details(importer=importer, imported=imported):
                lines.append(f"  {importer}:{detail['line_number']}: {detail['line_contents']}")
    return "\n".join(lines)


def test_no_module_of_memtui_imports_itself_back():
    graph = grimp.build_graph("memtui", cache_dir=None)
    found = circles(graph)
    new = [c for c in found if not any(known <= c for known in KNOWN)]
    assert not new, "import circles:\n" + "\n\n".join(_described(graph, c) for c in new)
    gone = [why for known, why in KNOWN.items() if not any(known <= c for c in found)]
    if gone:
        warnings.warn(f"these import circles are gone: delete their entries from KNOWN: {gone}", stacklevel=1)


def test_the_circle_finder_finds_a_circle():
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.d")
    assert circles(graph) == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]
