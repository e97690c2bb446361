"""Verbs ask a source for a capability; a store that lacks it is refused in one line.

`check_capability(path, capability)` runs before a verb that works on memtui's own store
(gc, stats, vacuum): pointed at another agent's store, the verb says what that store can't
do and what to do instead, rather than "no memtui store here". `open_capable` opens the
first store at PATH that can do what a verb needs (curate, rollback).
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from memtui.core.memory_source import Capability, MemorySource, Unsupported

if TYPE_CHECKING:
    from memtui.core.discovery import Source


def _holds_memtui_store(path: Path) -> bool:
    """PATH is, or holds, memtui's own store (a look at its tables, no discovery of others)."""
    from memtui.core.errors import MemtuiError
    from memtui.core.store import locate
    from memtui.core.store.schema import probe_file

    try:
        db, _ = locate(path, create=False)
        return bool(probe_file(db)[1])
    except MemtuiError:
        return False


def check_capability(path: str | Path, capability: Capability) -> None:
    """Unsupported when PATH holds only other agents' stores and none of them can do it."""
    from memtui.core.discovery import discover_given

    if _holds_memtui_store(Path(path).expanduser()):
        return  # the usual case, answered without importing every adapter
    found = discover_given(Path(path).expanduser())
    if not found or any(s.kind == "memtui" for s in found):
        return  # memtui's own store (or none): the verb words its own errors
    with _first_capable(found, capability):
        pass


@contextmanager
def open_capable(path: str | Path, capability: Capability) -> Iterator[MemorySource]:
    """The first store at PATH that can do `capability` (closed after); Unsupported naming
    what the store there can't do, or StoreNotFound when PATH holds none."""
    from memtui.core.discovery import discover_given, no_store

    path = Path(path).expanduser()
    found = discover_given(path)
    if not found:
        raise no_store(path)
    with _first_capable(found, capability) as source:
        yield source


@contextmanager
def _first_capable(found: list[Source], capability: Capability) -> Iterator[MemorySource]:
    """The first of `found` that can do `capability`, opened (every store opened is closed
    after); Unsupported naming the first that is not a folder of memory files."""
    with ExitStack() as opened:
        sources = []
        for entry in found:
            opened.callback(entry.close)
            source = entry.open()
            if source.can(capability):
                yield source
                return
            sources.append(source)
        stores = [s for s in sources if s.kind != "memory-files"] or sources
        raise Unsupported(stores[0], capability)


@contextmanager
def open_first(path: str | Path) -> Iterator[MemorySource]:
    """The store `memtui PATH` shows (memtui's own before other agents'; `open_source`),
    closed after; StoreNotFound when PATH holds none."""
    from memtui.core.discovery import open_source

    with open_source(path) as source:
        yield source


def parse_id(text: str) -> int | str:
    """An id as given on the command line: a number for memtui and RA.Aid, else the store's string."""
    return int(text) if text.isdigit() else text
