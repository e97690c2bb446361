"""Several agents' stores searched as one: every agent's sessions the app lists for the user's
home folder (memtui.core.sources.every_agent), each agent's through its own search index.

Each store is indexed by `SearchIndex(root, store)` as `memtui search ~` indexes it (the same
index file in memtui's cache folder: one built by either is the other's too; a second store of
one kind, as Aider keeps a history in each repository, has an index of its own). Its hits come
store after store, as the CLI lists them: the memory documents of `root` once (from the
first index), then each store's tasks, messages and steps, each task named by its agent in
`SearchPage.origins`. A page goes on from where the last one ended, in whichever store that was.

`search_index(root, source)` is what a search over a source opens: this when the source names
the agents of its stores (`MemorySource.searched_stores`), else the one `SearchIndex`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, cast

from memtui.core.memory.search import Progress, SearchIndex
from memtui.core.memory.search_location import default_index_path
from memtui.core.memory.search_query import KINDS, AgentsPosition, Position, SearchHit, SearchPage
from memtui.core.memory_source import MemorySource

__all__ = ["AgentsIndex", "search_index"]


class AgentsIndex:
    """The search indexes of the stores a source lists several agents' sessions from."""

    def __init__(self, root: Path, source: MemorySource) -> None:
        self.root = root
        self.indexes: list[tuple[str, SearchIndex]] = []
        self._store: MemorySource | None = None
        self.store = source

    @property
    def store(self) -> MemorySource | None:
        return self._store

    @store.setter
    def store(self, source: MemorySource | None) -> None:
        """The source as it is now (a reload may open its stores anew): each agent's index is
        kept (by agent), its store replaced; an agent gone takes its index with it."""
        self._store = source
        kept = {_key(index.store): index for _, index in self.indexes if index.store is not None}
        parts = list(source.searched_stores()) if source is not None else []
        self.indexes, kinds = [], set()
        for label, store in parts:
            index = kept.pop(_key(store), None)
            if index is None:
                # The index `memtui search ROOT` keeps for the store; a further store of a kind
                # (Aider's history in each repository) keeps its own, named by its path.
                path = None if store.kind not in kinds else default_index_path(Path(store.path), store)
                index = SearchIndex(self.root, store, path)
            index.store = store
            kinds.add(store.kind)
            self.indexes.append((label, index))
        for index in kept.values():
            index.close()

    def close(self) -> None:
        for _, index in self.indexes:
            index.close()
        self.indexes = []

    def refresh(self, cancelled: Callable[[], bool] = lambda: False, progress: Progress | None = None) -> None:
        """Bring each agent's index up to date (a cancelled refresh stops at the store it is in);
        `progress` is told each one's as SearchIndex.refresh tells it."""
        for _, index in self.indexes:
            if cancelled():
                return
            index.refresh(cancelled, progress)

    def page(self, query: str, shown: int | None, cap: int, kinds: Iterable[str] = KINDS,
             after: AgentsPosition | None = None, cancelled: Callable[[], bool] | None = None) -> SearchPage:
        """`shown` hits after `after` (None: from the first), store after store, and the matches
        after them counted up to `cap`; `origins` names the agent of each hit's task. Once
        `cancelled()`, an empty page."""
        kinds = list(kinds)
        hits: list[SearchHit] = []
        origins: dict[str, str] = {}
        more, last = 0, after
        first, at = after if after is not None else (0, None)
        for n in range(first, len(self.indexes)):
            label, index = self.indexes[n]
            wanted = [k for k in kinds if n == 0 or k != "file"]  # memory documents: in every index
            room = None if shown is None else shown - len(hits)
            if room == 0:  # the page is full: this store's matches are only counted
                if more >= cap:
                    break
                counted = index.page(query, 1, max(0, cap - more - 1), wanted, at, cancelled)
                more += len(counted.hits) + counted.more
            else:
                page = index.page(query, room, max(0, cap - more), wanted, at, cancelled)
                hits += page.hits
                origins.update((hit.task, label) for hit in page.hits if hit.task is not None and hit.kind != "file")
                more += page.more
                if page.hits and page.after is not None:
                    last = (n, cast(Position, page.after))  # one index's: where in it
            if cancelled is not None and cancelled():
                return SearchPage(after=after)
            at = None
        return SearchPage(hits, min(more, cap), last, origins)


def _key(store: MemorySource) -> tuple[str, str]:
    return store.kind, str(store.path)


def search_index(root: Path, source: MemorySource | None) -> SearchIndex | AgentsIndex:
    """The index a search of `root` (and `source`) reads: each agent's, for a source listing
    several agents' sessions; else one (memory documents alone for no source)."""
    if source is not None and any(label for label, _ in source.searched_stores()):
        return AgentsIndex(root, source)
    return SearchIndex(root, source)
