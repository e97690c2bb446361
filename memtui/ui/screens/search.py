"""Search across memory documents and the store, or an agent's sessions, or every agent's (ctrl+f):
results by file and line or by task (each naming its agent where several agents' are searched);
Enter dismisses with the chosen hit, and `open_search_hit` shows it."""

from __future__ import annotations

import threading
import time
from contextlib import nullcontext
from pathlib import Path
from weakref import WeakKeyDictionary

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static
from textual.worker import Worker, get_current_worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.memory.search import SearchHit, SearchIndex, SearchPage
from memtui.core.memory.search_agents import AgentsIndex, search_index
from memtui.core.memory.search_query import AgentsPosition, Position
from memtui.core.memory_source import Capability
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.widgets.search_results import SearchResults, describe_location
from memtui.ui.workers import failure_reason
from memtui.resources import screen_css


PAGE = 200
"""Hits read at a time: the first page, then the next as the cursor nears the last hit listed."""
COUNT_CAP = 1_000
"""Matches counted with the first page: above it the count says "1,000+" (each further page
counts as far again beyond itself)."""
COUNT_AHEAD = COUNT_CAP - PAGE + 1
"""Matches counted after a page's last hit: one more than a count of COUNT_CAP leaves."""
SEARCHING_AFTER = 0.15
"""Seconds a query may take before the status says it is still searching."""
NOT_INDEXED = "this agent's sessions are not indexed"
MERGED_NOT_INDEXED = "S picks one agent's sessions to search"
LAST_QUERY: WeakKeyDictionary = WeakKeyDictionary()
"""The query last typed in each app: the next search starts from it."""
INDEX_LOCKS: WeakKeyDictionary = WeakKeyDictionary()
"""One lock per app over its search index file: a search screen opened again waits (in its
worker) for the previous one's refresh to stop, instead of for SQLite's lock, which reads as
another process's."""


class SearchScreen(MemtuiScreen[SearchHit | None]):
    """Type to search; the index (beside the store, never agent.db) is refreshed when the
    screen opens and after each reload of the source (follow mode, ctrl+r), and every query
    runs against it."""

    CSS_PATH = screen_css("memory.tcss")

    COMMAND_SCOPE = "search"
    BINDINGS = bindings("search")

    class ResultsFound(Message):
        """Hits for a query (posted from a worker)."""

        def __init__(self, query: str, page: SearchPage | None = None, listed: int = 0,
                     indexing: bool = False, origins: dict[str, str] | None = None) -> None:
            super().__init__()
            self.indexing = indexing  # no hits yet: the index is being built
            self.query = query
            self.page = page or SearchPage()
            self.listed = listed  # hits listed before this page (0: the first page)
            self.origins = origins or {}  # a team store's: "machine · agent" of the hits' tasks

    def __init__(self, workspace: Path | str, query: str = "") -> None:
        super().__init__()
        self.workspace = Path(workspace).resolve()
        self.initial_query = query
        self.hits: list[SearchHit] = []
        """Every hit listed so far (a page at a time)."""
        self.more = 0
        """Matches after the last hit listed, counted up to COUNT_AHEAD."""
        self._after: Position | AgentsPosition | None = None  # where the last page ended
        self.hits_for: str | None = None
        """The query the listed hits answer (the one typed may be newer: its search runs)."""
        self._open_first = False  # enter was pressed before the hits of the query typed came
        self._asked: str | None = None  # the query the latest search (run_search) was started for
        self._index: SearchIndex | AgentsIndex | None = None
        self._stale = False  # set when the app reloaded its source
        self._index_lock: threading.Lock | None = None  # the app's (on_mount): a cancelled worker may still be running
        self._gone = False  # unmounted: the worker holding the index closes it
        self._indexing: tuple[float, Timer] | None = None  # since when, and the timer saying so
        self._progress: tuple[int, int, str] | None = None  # the refresh's (done, to do, what), told by its worker

    @property
    def documents_only(self) -> bool:
        """True when only memory documents are indexed: the app reads no store, and no source
        that can search its sessions (Claude Code, Codex: core.memory.search_sessions; every
        agent's, each through its own index: core.memory.search_agents)."""
        source = self.app.source
        return self.app.store is None and (source is None or not source.can(Capability.SEARCH))

    def _not_indexed(self) -> str:
        """Why only memory documents are searched, as the end of the status line: nothing when
        no store is open at all (a folder holding none has no sessions to index)."""
        source = self.app.source
        if source is None:
            return ""
        return MERGED_NOT_INDEXED if source.kind == "every-agent" else NOT_INDEXED

    def compose(self) -> ComposeResult:
        placeholder = "search memory documents" if self.documents_only else "search memory, tasks, steps, messages"
        yield Input(self.initial_query, placeholder=placeholder, id="search-input")
        yield Static("", id="search-status", markup=False)
        yield SearchResults(id="search-results")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._index_lock = INDEX_LOCKS.setdefault(self.app, threading.Lock())
        self.query_one(Input).focus()
        self._asked = self.initial_query
        self._start_search(self.initial_query)

    def on_unmount(self) -> None:
        """Close the index, or leave that to the worker still refreshing it (a batch of a big
        store may take a while to notice it was cancelled: the screen never waits for it)."""
        self._gone = True
        if self._index_lock.acquire(blocking=False):
            try:
                self._close_index()
            finally:
                self._index_lock.release()

    def _close_index(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        if event.value == self._asked:  # the box's first value (the last query): searched at mount
            return
        self._asked = event.value
        self._open_first = False
        LAST_QUERY[self.app] = event.value
        self._start_search(event.value)
        self.set_timer(SEARCHING_AFTER, self._still_searching)

    def _still_searching(self) -> None:
        """Say so when the hits shown are not yet those of the query typed (no flicker for a
        search that answers at once)."""
        if self.hits_for is not None and self.hits_for != self.query_one(Input).value:
            self.query_one("#search-status", Static).update("searching…")

    @on(Input.Submitted, "#search-input")
    def _submitted(self) -> None:
        """Enter in the query box opens the first hit of the query typed, once it is found
        (down goes to the list)."""
        if self.hits_for != self.query_one(Input).value:
            self._open_first = True
        elif self.hits:
            self.dismiss(self.hits[0])

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="search")
    def run_search(self, query: str) -> None:
        worker = get_current_worker()
        if self._index is None:  # built (or opened) first, perhaps after another screen's refresh
            self.post_message(self.ResultsFound(query, indexing=True))
        with self._index_lock:
            try:
                self._search(query, worker)
            finally:
                if self._gone:
                    self._close_index()

    def _search(self, query: str, worker: Worker) -> None:
        """run_search's work, the index held."""
        if worker.is_cancelled:  # a newer query came (or the screen went) while another held the index
            return
        if self._index is None or self._stale:
            with nullcontext() if self.documents_only else self.app.reading() as source:
                if self._index is None:
                    self._index = search_index(self.workspace, source)
                self._index.store = source  # the store of now (a reload opens a new one)
                self._stale = True  # until refreshed: a failed refresh is tried again by the next search
                self._index.refresh(cancelled=lambda: worker.is_cancelled, progress=self._told)
            if worker.is_cancelled:  # still stale: the next search goes on with the refresh (not a half index)
                return
            self._stale = False
        page = SearchPage() if not query.strip() else self._index.page(
            query, PAGE, COUNT_AHEAD, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(self.ResultsFound(query, page, origins=self._origins(page)))

    def _origins(self, page: SearchPage) -> dict[str, str]:
        """Where the page's tasks came from: the agent of each (every agent's sessions searched),
        or "machine · agent" on a source that knows (a team store)."""
        if page.origins:
            return page.origins
        if self.documents_only or not any(hit.task for hit in page.hits):
            return {}
        with self.app.reading() as source:
            if not source.can(Capability.ORIGIN):
                return {}
            return source.task_origins(hit.task for hit in page.hits if hit.task)

    @on(SearchResults.NeedMore)
    def _need_more(self, event: SearchResults.NeedMore) -> None:
        if self.hits_for is not None and event.listed == len(self.hits) and self._after is not None:
            self.more_hits(self.hits_for, self._after, len(self.hits))

    @work(thread=True, exclusive=True, group="search-more", exit_on_error=False, description="search")
    def more_hits(self, query: str, after: Position | AgentsPosition, listed: int) -> None:
        """The page of hits after the `listed` ones (a newer query, or a refresh of the index,
        cancels it: its search lists everything anew)."""
        worker = get_current_worker()
        with self._index_lock:
            try:
                if worker.is_cancelled or self._index is None or self._stale:
                    return
                page = self._index.page(query, PAGE, COUNT_AHEAD, after=after, cancelled=lambda: worker.is_cancelled)
                if not worker.is_cancelled:
                    self.post_message(self.ResultsFound(query, page, listed, origins=self._origins(page)))
            finally:
                if self._gone:
                    self._close_index()

    def refresh_data(self) -> None:
        """The store or the files changed (a reload, follow mode): bring the index up to date
        and search again."""
        self._stale = True
        self._start_search(self.query_one(Input).value)

    def _start_search(self, query: str) -> None:
        """Search anew; a further page of the hits listed is no longer wanted."""
        self.workers.cancel_group(self, "search-more")
        self.run_search(query)

    def worker_failed(self, worker: Worker) -> None:
        super().worker_failed(worker)
        if worker.group in ("search", "search-more"):
            self._indexed()
            self.query_one("#search-status", Static).update(f"Search failed: {failure_reason(worker)}")

    @on(ResultsFound)
    def _found(self, event: ResultsFound) -> None:
        status = self.query_one("#search-status", Static)
        if event.indexing:
            if self._indexing is None and self.hits_for is None:
                self._progress = None  # a cancelled refresh's last word is not this one's
                self._indexing = (time.monotonic(), self.set_interval(1, self._still_indexing))
                status.update("indexing…")
            return
        if event.query != self.query_one(Input).value:
            return
        self.query_one(SearchResults).origins.update(event.origins)
        if event.listed:  # a further page: after the hits listed, if they are still those it follows
            if event.query == self.hits_for and event.listed == len(self.hits):
                self._listed(event.page)
                self.query_one(SearchResults).add_hits(event.page.hits, bool(self.more))
                status.update(self._count_line())
            return
        self._indexed()
        self.hits, self.hits_for = [], event.query
        self._listed(event.page)
        self.query_one(SearchResults).show_hits(self.hits, bool(self.more))
        if not event.query.strip():
            why = self._not_indexed()
            status.update((f"type to search memory documents only: {why}" if why else "type to search memory documents")
                          if self.documents_only
                          else "type to search memory documents and the store" if self.app.store is not None
                          else "type to search memory documents and every agent's sessions" if self._merged()
                          else "type to search memory documents and this agent's sessions")
        elif self.hits:
            status.update(self._count_line())
        else:
            why = self._not_indexed()
            status.update((f"no matches in memory documents ({why})" if why else "no matches in memory documents")
                          if self.documents_only
                          else "no matches")
        if self._open_first and self.hits_for is not None:
            self._open_first = False
            if self.hits:
                self.dismiss(self.hits[0])

    def _merged(self) -> bool:
        """True when several agents' sessions are searched (each hit names its agent)."""
        return isinstance(self._index, AgentsIndex)

    def _listed(self, page: SearchPage) -> None:
        self.hits.extend(page.hits)
        self.more, self._after = page.more, page.after

    def _count_line(self) -> str:
        return (count_line(len(self.hits), len(self.hits) + self.more, self.more >= COUNT_AHEAD)
                + " — enter opens the first, ↓ the list")

    def _told(self, done: int, total: int, what: str) -> None:
        """(The search worker.) How far its refresh is: shown by `_still_indexing`."""
        self._progress = (done, total, what)

    def _still_indexing(self) -> None:
        """A first index of a big store takes minutes: the status counts the seconds and the
        sessions (or tasks) indexed, so the screen never looks stuck."""
        if self._indexing is not None:
            seconds = int(time.monotonic() - self._indexing[0])
            told = self._progress
            counted = f"{told[0]:,}/{told[1]:,} {told[2]} · " if told is not None and told[1] else ""
            self.query_one("#search-status", Static).update(
                f"indexing… {counted}{seconds} s (a workspace's first search builds its index)")

    def _indexed(self) -> None:
        if self._indexing is not None:
            self._indexing[1].stop()
            self._indexing = None
        self._progress = None

    def action_focus_results(self) -> None:
        if self.hits:
            self.query_one(SearchResults).focus()

    @on(SearchResults.LeftAtTop)
    def _back_to_query(self) -> None:
        self.query_one(Input).focus()

    @on(DataTable.RowSelected, "#search-results")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(self.hits[int(event.row_key.value)])


def count_line(shown: int, found: int, at_least: bool = False) -> str:
    """"12 matches", or "200 of 1,000+ matches" while the list shows only the first ones
    (`at_least`: `found` is one more than were counted: there may be more still)."""
    if found <= shown:
        return f"{shown:,} match{'es' if shown != 1 else ''}"
    total = f"{found - 1:,}+" if at_least else f"{found:,}"
    return f"{shown:,} of {total} matches"


def open_search(app, root: Path) -> None:
    """Push the search screen, its query the one last typed (selected: typing replaces it);
    on the search screen already, go back to its query."""
    if isinstance(app.screen, SearchScreen):
        app.screen.query_one(Input).focus()
        return
    app.push_screen(SearchScreen(root, LAST_QUERY.get(app, "")), lambda hit: open_search_hit(app, root, hit))


def open_search_hit(app, workspace: Path, hit: SearchHit | None) -> None:
    """Show a chosen hit: a file opens in the memory pane at its line; a task, step or
    message is handed to the main screen below (`MainScreen.show_task(task_id,
    step_seq=None)`), else named in a notification."""
    if hit is None:
        return
    if hit.kind == "file" and hit.file:
        from memtui.ui.screens.memory import MemoryScreen

        app.push_screen(MemoryScreen(workspace, select=hit.file, line=hit.line))
        return
    from memtui.ui.screens.main import MainScreen

    task_id = int(hit.task) if hit.task and hit.task.isdigit() else hit.task
    if isinstance(app.screen, MainScreen):
        app.screen.show_task(task_id, step_seq=hit.line if hit.kind == "step" else None)
    else:
        app.notify(f"{describe_location(hit)}: {hit.text}", markup=False)
