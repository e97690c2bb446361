"""The memtui application: opens a workspace read-only and hosts the screens.

`make_app()` builds the app for the CLI and for the tests alike; `run_app()` is what
`memtui [PATH]` calls. Extension points other screens use:

* `app.source` (the open `MemorySource`), `app.store` (the `AgentStore`, else None),
  `app.workspace`, `app.now()` (the injectable clock), `app.reading()` (for workers).
* `app.refresh_data()` — reload everything shown; `app.reload_source()` after an agent wrote.
* `app.notify_error(error)` — the one place errors become a notification (failed workers
  arrive through `app.report_worker`, from memtui.ui.screens.base.MemtuiScreen).
* a new screen: a module under memtui/ui/screens/, one row in memtui/ui/commands.py and
  an `action_<name>` here (scope "app") or on the screen of its scope.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from textual import on, work
from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from memtui.core.display import sanitize
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import WRITING, Capability, MemorySource, Unsupported
from memtui.resources import app_css
from memtui.ui.collector import resume_after
from memtui.ui.commands import CommandTable, action_offered, bindings
from memtui.ui.follow import Follower, describe_changes
from memtui.ui.kept_page import keep_page, read_kept
from memtui.ui.settings import load_settings, remember
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.measure import measure
from memtui.ui.messages import IndexProgress, SessionsLoaded, SourceFailed, SourceOpened, WorkspaceMeasured
from memtui.ui.opening import is_store, open_workspace, opening_failure, tidy_workspace
from memtui.ui import pane_reads, terminal_driver, web_driver

if TYPE_CHECKING:
    from memtui.core.store import AgentStore

Clock = Callable[[], datetime]
ERROR_SECONDS = 10  # how long an error toast stays up


class MemtuiApp(App[int]):
    """Browse (and, through explicit actions, curate) an agent's external memory."""

    TITLE = "memtui"
    BINDINGS = bindings("app")
    COMMANDS = App.COMMANDS | {CommandTable}

    def __init__(self, path: Path | str, *, root: Path | None = None,
                 clock: Clock | None = None, source: Any | None = None,
                 opener: Callable[[], Any] | None = None, shown_path: str | None = None,
                 browse_only: bool = False, kept: Path | str | None = None, kept_page: Any | None = None) -> None:
        """`path`: a workspace directory or an agent.db, always opened through a read-only
        connection (a write opens its own writer). `source`: an already-open source (tests,
        foreign sources); `opener`: a callable that opens one (run in a worker); `shown_path`:
        how the header names the workspace (default: its path, ~ for home); `browse_only`:
        `memtui open/serve --read-only`, every writing capability withheld; `kept`: what the
        newest sessions listed are kept for the next run under (memtui.ui.kept_page; default:
        `path`, when the app opens it itself); `kept_page`: the page kept under `kept`, read
        already (`memtui open` reads a team store's to decide when to connect)."""
        super().__init__(css_path=app_css(), driver_class=web_driver.web_driver_class()
                         or terminal_driver.terminal_driver_class())
        self.shown_path = shown_path
        self.path = Path(path)
        self.root = root
        self.browse_only = browse_only
        """`memtui open/serve --read-only`: every writing capability is off, not just hidden."""
        self.now: Clock = clock or (lambda: datetime.now(timezone.utc))
        self.source: MemorySource | None = None
        """The open MemorySource, once the opening worker reported back."""
        self.store: AgentStore | None = None
        """The AgentStore when the source is a native store (None for foreign sources)."""
        self.workspace: Path | None = None
        """The workspace root of the source."""
        self._given_source = source
        self._opener = opener
        self._kept = kept if kept is not None else path if source is None and opener is None else None
        self._kept_page = kept_page
        self._errors_shown: dict[tuple[str, str], float] = {}
        self.follower = Follower(self, lambda: self.source, self.reload_source)
        """Follow mode: reloads when the store's files change (memtui.ui.follow)."""
        self._announce: dict[str, int] | None = None
        self.settings: dict[str, Any] = {}
        """The user's settings (memtui.ui.settings), loaded when the app starts."""
        self.measured: WorkspaceMeasured | None = None
        """The latest header facts (database size, counts, GC figures)."""
        self.first_paint = threading.Event()
        """Set once the sessions are drawn: the header's figures wait for it (never compete)."""
        self.sessions_fit: tuple[int, int, int] | None = None
        """(terminal columns, rows, the sessions table's row width) as the sessions were first
        drawn: kept with the page for the next run's first frame (memtui.ui.kept_page)."""
        self.source_entry: Any | None = None
        """The `memtui.core.sources.Source` shown, when it is another agent's store."""
        self.indexing: tuple[int, int] | None = None
        """(transcripts read, to read) while the index of an agent's home is built from nothing."""
        self.indexed: MemorySource | None = None
        """The source whose index is being built (or was last): it lists the sessions read so far."""
        self._index_told = 0.0
        self._index_landed: object = None

    # ------------------------------------------------------------------ startup
    def on_mount(self) -> None:
        self.settings = load_settings()
        if self.settings["theme"] in self.available_themes:
            self.theme = self.settings["theme"]
        self.theme_changed_signal.subscribe(self, lambda theme: remember(self, theme=theme.name))
        self.follower.start()
        if self._given_source is not None:
            self._hear_index_builds()
            self._show_main()
            self._adopt(self._given_source)
            return
        kept, self._kept_page = self._kept_page, None
        if kept is None and self._kept is not None:
            kept = read_kept(self._kept)
        if kept is not None:  # the newest sessions as listed last time, at once; the opening checks behind them
            # Once Textual's start-up is over: a frame drawn during it (as the app mounts) is not
            # written to the terminal, so the main screen's first frame would be drawn twice.
            self.call_later(self._show_main, SessionsLoaded(
                kept.sessions, kept.titles, kept.orphans, 0, kept.complete, kept_at=kept.kept_at,
                origin=kept.origin), fit=kept.fit)
        else:  # the main screen comes with the newest sessions (or, if slow, without them)
            self.set_timer(pane_reads.MAIN_HOLD, self._show_main)
        self.open_source(after_frame=kept is not None)

    def _hear_index_builds(self) -> None:
        """From now on an index build tells `_index_read` its progress and the sessions read so far
        (kept_parts and its worker pool are imported here, by the opening worker: not before the
        first frame)."""
        from memtui.core.sources.kept_parts import watch_builds

        watch_builds(self._index_read, sessions=True)

    def _index_read(self, _home: Path, read: int, to_read: int, source: Any = None) -> None:
        """Told by an index build (in a worker): a few times a second, the sessions pane says so."""
        now = monotonic()
        landed = source.sessions_so_far() if source is not None else None  # a batch of sessions: always told
        if read < to_read and now - self._index_told < 0.1 and landed is self._index_landed:
            return
        self._index_told, self._index_landed = now, landed
        self.post_message(IndexProgress(read, to_read, source))

    @on(IndexProgress)
    def _index_progress(self, event: IndexProgress) -> None:
        self.indexing = None if event.read >= event.to_read else (event.read, event.to_read)
        self.indexed = event.source
        from memtui.ui.screens.main import MainScreen

        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.show_indexing()

    def _show_main(self, first: SessionsLoaded | None = None, fit: tuple[int, int, int] | None = None) -> None:
        """The main screen, with the newest sessions when the opening read them; when it came
        up before them (an opening slower than MAIN_HOLD), they are handed to it. `fit`: the
        sessions table's width as a kept page was drawn (MainScreen)."""
        from memtui.ui.screens.main import MainScreen

        shown = next((screen for screen in self.screen_stack if isinstance(screen, MainScreen)), None)
        if shown is not None:
            if first is not None:
                shown.opened(first)
        elif not any(isinstance(screen, MemtuiScreen) for screen in self.screen_stack):
            self.push_screen(MainScreen(first, fit=fit))

    @work(thread=True, exclusive=True, group="open", exit_on_error=False, description="open the store")
    def open_source(self, after_frame: bool = False) -> None:
        """Open the store read-only (or run the given opener); report success or a clear failure.
        `after_frame`: a kept page is on screen; the opening waits for its frame (it would
        hold the interpreter while the frame is built)."""
        if after_frame:
            self.first_paint.wait(pane_reads.FIRST_PAINT_WAIT)
        self._hear_index_builds()
        try:
            source, self.source_entry = open_workspace(self.path, root=self.root,
                                                       opener=self._opener)
        except (MemtuiError, OSError) as exc:
            self.post_message(SourceFailed(*opening_failure(self.path, exc)))
            return
        self.follower.opened(source)
        try:  # the main screen's first frame lists them (its own load says why it can't)
            first = SessionsLoaded(*pane_reads.first_sessions(source))
        except Exception:
            first = None
        self.post_message(SourceOpened(source, source if is_store(source) else None, first))
        self.first_paint.wait(pane_reads.FIRST_PAINT_WAIT)
        if first is not None and self._kept is not None:  # the next run's first frame
            keep_page(self._kept, *first.part[:3], first.complete, origin=source.can(Capability.ORIGIN),
                      fit=self.sessions_fit)
        tidy_workspace(source)

    @on(SourceOpened)
    def _source_opened(self, event: SourceOpened) -> None:
        self._show_main(event.first)
        self._adopt(event.source)

    def _adopt(self, source: MemorySource) -> None:
        if self.browse_only:
            source.withhold(WRITING, "memtui was started with --read-only")
        self.source = source
        self.store = source if is_store(source) else None
        self.workspace = source.workspace or (self.path if self.path.is_dir() else self.path.parent)
        for screen in self.screen_stack:
            screen.refresh_bindings()  # the footer offers what this source can do
        if self.store is not None and self.store.needs_upgrade:
            self.notify("This store has an older schema: browsing read-only. The first write action "
                        "upgrades it after asking.", title="Older store", timeout=8, markup=False)
        self.refresh_data()

    @on(SourceFailed)
    def _source_failed(self, event: SourceFailed) -> None:
        from memtui.ui.screens.notice import NoticeScreen

        notice = NoticeScreen(event.title, event.message, event.hint)
        self.switch_screen(notice) if isinstance(self.screen, MemtuiScreen) else self.push_screen(notice)

    # ------------------------------------------------------------------ extension points
    @contextmanager
    def reading(self) -> Iterator[Any]:
        """For worker threads: the source, with this thread's database connection closed after."""
        with self.source.reading() as source:  # AgentStore: a connection of this thread's own
            yield source

    def refresh_data(self) -> None:
        """Reload what every screen shows, and the header facts."""
        if self.source is None:
            return
        self.measure_workspace()
        for screen in self.screen_stack:
            if isinstance(screen, MemtuiScreen):
                screen.refresh_data()

    def reload_source(self, announce: bool = False) -> None:
        """Read the store again as it is now (an agent wrote to it); every pane keeps its
        selection. `announce`: say what changed once the new counts are in (ctrl+r)."""
        if self.source is not None and announce:
            self._announce = dict(self.measured.counts) if self.measured is not None else {}
        if self.store is not None:
            self.reopen_source()
        elif self.source is not None:
            self.source.reload()
            self.refresh_data()

    def reopen_source(self) -> None:
        """After a write through a connection of its own (rollback, GC): open the read-only store
        again and reload (a read-only connection a pooled worker thread kept reads stale pages)."""
        store = self.store
        if store is None or not store.readonly:
            self.refresh_data()
            return
        from memtui.core.store import AgentStore

        seen = self.follower.seen(store)  # before the fresh connection: it reads at least this
        fresh = AgentStore.open(store.db_path, readonly=True, content_limit=store.content_limit)
        fresh = fresh.with_root(store.workspace)
        self._close_source()
        self.follower.reloaded(seen)
        self._adopt(fresh)

    def notify_error(self, error: BaseException | str, title: str = "Error") -> None:
        """One line for the user; never a traceback, never markup from the error text. The
        same error again while its toast is still up (each pane retrying) is not repeated."""
        if isinstance(error, BaseException):
            text = str(error) or type(error).__name__
            if not isinstance(error, (MemtuiError, KeyError, OSError)):
                text = f"{type(error).__name__}: {text}"
        else:
            text = error
        now = monotonic()
        if now - self._errors_shown.get((title, text), -ERROR_SECONDS) < ERROR_SECONDS:
            return
        self._errors_shown[(title, text)] = now
        self.notify(text, title=title, severity="error", timeout=ERROR_SECONDS, markup=False)

    def notify(self, message: str, *, title: str = "", **kw: Any) -> None:
        """Every toast, whoever raises it, shows its text literally: a path or reason in it shows ESC as ␛."""
        super().notify(sanitize(message, multiline=True), title=sanitize(title), **kw)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's own workers and the rollback flow's (screens report theirs)."""
        if event.state == WorkerState.ERROR:
            self.report_worker(event.worker)

    def report_worker(self, worker: Worker) -> None:
        """A failed worker (they run with exit_on_error=False) becomes one notification
        naming what failed: "Failed: read database statistics" and the reason."""
        if worker.error is not None:
            description = worker.description or worker.name or "background work"
            self.notify_error(worker.error, title=f"Failed: {description}")

    @work(thread=True, exclusive=True, group="measure", exit_on_error=False, description="measure the workspace")
    def measure_workspace(self) -> None:
        """Database size, row counts, then live/reclaimable tasks (the GC figures, without a
        plan: `g` builds that) — once the sessions are on screen (or after a few seconds)."""
        self.first_paint.wait(pane_reads.FIRST_PAINT_WAIT)
        with self.reading() as source:
            measure(source, self.post_message, lambda exc: self.call_from_thread(
                self.notify_error, exc, "GC figures not computed"))

    @on(WorkspaceMeasured)
    def _measured(self, event: WorkspaceMeasured) -> None:
        self.measured = event
        if self._announce is not None and event.counts:
            self.notify(describe_changes(self._announce, event.counts), title="Reloaded", markup=False)
            self._announce = None
        from memtui.ui.widgets.workspace_bar import WorkspaceBar

        for bar in [*self.query(WorkspaceBar), *(b for s in self.screen_stack for b in s.query(WorkspaceBar))]:
            bar.show(self, event)

    # ------------------------------------------------------------------ actions
    NEEDS_SOURCE = frozenset({"gc", "stats", "refresh_data", "usage"})
    """App actions that need an open store: hidden while none is (missing or unreadable)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not isinstance(self.screen, MemtuiScreen) and action != "quit":  # keys before the first screen is up
            return False
        if action in self.NEEDS_SOURCE and self.source is None:
            return False
        return action_offered(action, parameters, "app", self.source)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own palette commands, less the two the command table already offers:
        Quit (q), and Keys, whose place `?` (Keys and commands) takes."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):
                yield command

    def action_help(self) -> None:
        """Open the keys-and-commands screen (not over itself)."""
        from memtui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_switch_source(self) -> None:
        """Choose which store of the workspace the panes show (memtui, RA.Aid, Claude Code …)."""
        from memtui.ui.screens.sources import SourcesScreen

        entry = self.source_entry
        current = (entry.kind, str(entry.path)) if entry is not None else (
            ("memtui", str(self.store.db_path)) if self.store is not None else None)
        self.push_screen(SourcesScreen(self.path, current), self._switch_to)

    def _switch_to(self, entry: Any | None) -> None:
        if entry is not None and entry is not self.source_entry:
            self.open_chosen_source(entry)

    @work(thread=True, exclusive=True, group="open", exit_on_error=False, description="open the source")
    def open_chosen_source(self, entry: Any) -> None:
        """Open (and index) the chosen source off the UI thread, then show it."""
        source = entry.open()
        source.counts()
        self.call_from_thread(self._close_source)
        self.source_entry = entry if entry.kind != "memtui" else None
        self.post_message(SourceOpened(source, source if is_store(source) else None))

    def action_memory_items(self) -> None:
        """Show the memory items of the source (RA.Aid facts, snippets and notes; history rows)."""
        from memtui.ui.screens.memory_items import MemoryItemsScreen

        if self._offered(Capability.ITEMS):
            self.push_screen(MemoryItemsScreen())

    def _offered(self, capability: Capability) -> bool:
        """Whether the open source can do `capability`; if not, the user is told what it can't
        do and what instead (a command reached without its key: the palette hides it too)."""
        if self.source is not None and self.source.can(capability):
            return True
        self.notify_error(Unsupported(self.source, capability) if self.source is not None
                          else "No store is open.", title="Not available")
        return False

    def action_gc(self) -> None:
        """Open the GC preview (native stores, read-only ones too; not over itself)."""
        from memtui.ui.screens.gc import GcScreen

        if self._offered(Capability.STATS) and self.store is not None and not isinstance(self.screen, GcScreen):
            self.push_screen(GcScreen())

    def action_cleanup(self) -> None:
        """Open the cleanup preview of the agent home the source reads (Claude Code, Codex, Gemini CLI)."""
        from memtui.core.homes import agent_home
        from memtui.ui.screens.cleanup import CleanupScreen

        source = self.source
        home = agent_home(source.kind, source.path) if source is not None and source.can(Capability.CLEANUP) else None
        if home is None:
            self.notify("Cleanup works on a Claude Code, Codex or Gemini CLI home: open ~/.claude, ~/.codex or"
                        " ~/.gemini, or one of their projects.", title="Cleanup", markup=False)
        elif not isinstance(self.screen, CleanupScreen):
            self.push_screen(CleanupScreen(home, source.kind))

    def action_stats(self) -> None:
        """Open the database statistics: memtui's store, or the SQLite files another agent keeps
        (read-only: OpenCode's opencode.db, a Codex home's *.sqlite); not over itself."""
        from memtui.ui.screens.stats import StatsScreen

        if isinstance(self.screen, StatsScreen):
            return
        if self.source is not None and self.source.can(Capability.SQLITE_STATS):
            self.push_screen(StatsScreen(files=list(self.source.sqlite_files())))
        elif self._offered(Capability.STATS) and self.store is not None:
            self.push_screen(StatsScreen())

    def action_usage(self) -> None:
        """Open usage and cost (any store with sessions; not over itself)."""
        from memtui.ui.screens.usage import UsageScreen

        if self.source is not None and not isinstance(self.screen, UsageScreen):
            self.push_screen(UsageScreen())

    def _memory_root(self) -> Path:  # the workspace, or the folder of what was opened
        return self.workspace or (self.path if self.path.is_dir() else self.path.parent)

    def action_memory(self) -> None:
        """Open the memory documents pane (not over itself)."""
        from memtui.ui.screens.memory import MemoryScreen

        if not isinstance(self.screen, MemoryScreen):
            self.push_screen(MemoryScreen(self._memory_root()))

    def action_decisions(self) -> None:
        """Open the decision log (not over itself)."""
        from memtui.ui.screens.decisions import DecisionsScreen

        if not isinstance(self.screen, DecisionsScreen):
            self.push_screen(DecisionsScreen(self._memory_root()))

    def action_search(self) -> None:
        """Search memory documents (and the store when the app reads one); Enter shows the hit."""
        from memtui.ui.screens.search import open_search

        open_search(self, self._memory_root())

    def action_refresh_data(self) -> None:
        """Reload from the store and say what changed."""
        self.reload_source(announce=True)

    def action_quit(self, return_code: int = 0) -> None:  # type: ignore[override]
        """Close the store and leave (129: the terminal went away); once leaving, a second call changes nothing."""
        if self.return_code is None:  # not leaving yet (the terminal may close just after q)
            self.follower.close()
            self._close_source()
            self.exit(0, return_code=return_code)

    def on_unmount(self) -> None:
        kept_parts = sys.modules.get("memtui.core.sources.kept_parts")
        if kept_parts is not None:
            kept_parts.watch_builds(None)

    def _close_source(self) -> None:
        if self.source is not None:
            with suppress(Exception):  # closing on exit must never raise over the user's terminal
                self.source.close()


def make_app(path: Path | str, **kw: Any) -> MemtuiApp:
    """The app on a workspace directory or agent.db (shared by the CLI and the tests);
    `kw`: MemtuiApp's keyword arguments (root, clock, source, opener, shown_path, browse_only, kept)."""
    return MemtuiApp(path, **kw)


def run_app(path: Path | str, root: Path | None = None, browse_only: bool = False, opened: Any | None = None,
            shown_path: str | None = None, opener: Callable[[], Any] | None = None,
            kept: Path | str | None = None, kept_page: Any | None = None) -> int:
    """Run the app in the terminal (or, under textual-serve, in a browser); the exit code.

    `browse_only` (--read-only): besides withholding the source's writing capabilities, this whole process
    refuses every write (memtui.core.atomic.forbid_writes): a path that forgot to ask still
    writes nothing. `opener`: opens the source in the app's opening worker (a team store whose
    page is kept: after the first frame); `kept`, `kept_page`: see MemtuiApp."""
    if browse_only:
        from memtui.core.atomic import forbid_writes

        forbid_writes("memtui was started with --read-only")
    app = make_app(path, root=root, browse_only=browse_only, shown_path=shown_path, kept=kept, kept_page=kept_page,
                   opener=opener if opened is None else lambda: opened)
    resume_after(app.first_paint, pane_reads.FIRST_PAINT_WAIT)  # the collector, paused by `memtui open`
    result = app.run()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code or 1)
