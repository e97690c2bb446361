"""Each module of memtui.core.store, and the GC engine over it, imports when it is the first of
memtui imported: the package loads AgentStore lazily (its __getattr__), so a module that asks
the package for a sibling (`from memtui.core.store import packs`) while AgentStore's own imports
are under way fails with ImportError — only when it comes first, as in a library user's
`from memtui.core.gc import apply_gc`."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import memtui.core.store

FIRST_OF_ALL = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "memtui" or m.startswith("memtui.")]:
        del sys.modules[loaded]  # each one first, as in a fresh interpreter
    try:
        importlib.import_module(name)
    except ImportError as exc:
        failed.append(f"{name}: {exc}")
print("\\n".join(failed))
"""


def test_each_store_module_and_the_gc_engine_import_first():
    names = [f"memtui.core.store.{m.name}" for m in pkgutil.iter_modules(memtui.core.store.__path__)]
    done = subprocess.run([sys.executable, "-c", FIRST_OF_ALL, *names, "memtui.core.gc"], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == ""
