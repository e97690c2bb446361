"""The core asks a source or a store through typed, public interfaces — a MemorySource method,
a capability, the store's own query methods — and never probes one for an attribute; and the
store's schema is known inside memtui/core/store only.

Both are read from the syntax trees, as test_ui_probes does for the UI: a probe (`getattr`,
`hasattr`) whose subject is not on the short list of generic uses below fails, and so does the
name `schema_version` (or the blob columns of a schema) anywhere in memtui outside core/store.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import memtui

PACKAGE = Path(memtui.__file__).parent
CORE = PACKAGE / "core"
STORE = CORE / "store"

GENERIC = {
    # (module under memtui/core, the probed object as written): why a probe is right there.
    ("atomic.py", "os"): "os.getuid exists on POSIX only",
    ("memory/chain.py", "os"): "O_NONBLOCK and O_NOCTTY exist on POSIX only",
    ("atomic.py", "ctypes.CDLL(None, use_errno=True)"): "renameat2 is in glibc 2.28+ only",
    ("memory/search_file.py", "exc"): "an error SQLite raised has sqlite_errorcode, one Python raised has not",
    ("agents/agent.py", "import_module(module)"): "a registry hook is a function of an agent's module, by name",
    ("lazy_names.py", "import_module(module if '.' in module else f'{package}.{module}')"): "a package's names (memory, cleanup, usage), imported from their modules on first use",
    ("usage/tokens.py", "self"): "Tokens adds, compares and subtracts its own fields by name",
    ("usage/tokens.py", "other"): "Tokens adds, compares and subtracts its own fields by name",
    ("store/pushed.py", "peewee"): "a driver's DB-API error as peewee's class of the same DB-API name",
}

SCHEMA_NAMES = {"schema_version", "blob_cols", "blob_columns"}


@cache
def _parsed() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple((path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(PACKAGE.rglob("*.py")))


def _trees(folder: Path):
    return ((path, tree) for path, tree in _parsed() if path.is_relative_to(folder))


def core_probes() -> list[tuple[str, str, int]]:
    """(module under memtui/core, probed object, line) of every getattr/hasattr in the core."""
    found = []
    for path, tree in _trees(CORE):
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and node.args):
                found.append((path.relative_to(CORE).as_posix(), ast.unparse(node.args[0]), node.lineno))
    return found


_NAMED = {
    ast.Name: lambda n: n.id, ast.Attribute: lambda n: n.attr, ast.alias: lambda n: n.name,
    ast.FunctionDef: lambda n: n.name, ast.arg: lambda n: n.arg, ast.keyword: lambda n: n.arg,
    ast.Constant: lambda n: n.value if isinstance(n.value, str) else None,
}


def schema_names(folder: Path, outside: Path) -> list[str]:
    """Where a name of SCHEMA_NAMES is used (a name, an attribute, an import, a definition or a
    string: getattr's) in `folder`, leaving out `outside`."""
    found = []
    for path, tree in _trees(folder):
        if path.is_relative_to(outside):
            continue
        for node in ast.walk(tree):
            read = _NAMED.get(type(node))
            if read is not None and read(node) in SCHEMA_NAMES:
                found.append(f"{path.relative_to(PACKAGE).as_posix()}:{getattr(node, 'lineno', '?')}: {read(node)}")
    return found


def test_the_core_probes_no_source_or_store():
    probes = [p for p in core_probes() if p[:2] not in GENERIC]
    assert probes == [], ("ask a MemorySource method, a capability or the store's query methods instead: "
                          + ", ".join(f"{module}:{line} probes {what}" for module, what, line in probes))


def test_the_generic_probes_are_still_there():
    assert set(GENERIC) <= {p[:2] for p in core_probes()}, "a generic probe went: delete its entry"


def test_the_schema_is_known_inside_the_store_only():
    assert schema_names(PACKAGE, STORE) == [], "ask the store (memtui/core/store) a question instead"


def test_a_probe_and_a_schema_name_are_found(tmp_path):
    """The checks find what they look for (so an empty answer means something)."""
    assert ("memory/search_file.py", "exc") in {p[:2] for p in core_probes()}
    assert schema_names(STORE, tmp_path), "the store names its schema"
