"""Database statistics (key `s`): file, WAL, pages, freelist; bytes and rows per table and
index; file contents raw vs stored; and the explicit actions that give space back. For another
agent's store, the same figures of the SQLite files it keeps (read-only, no actions: several
files are listed one after another, their tables named by file).

`v` VACUUM (asks first, with an estimate of what it returns and the temporary space it
needs; progress and `c` to cancel), `i` incremental vacuum, `w` WAL checkpoint. Each opens
its own short write connection; the app then reopens its read-only source. The screen
refreshes after GC like every other screen.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.message import Message
from textual.worker import Worker
from textual.widgets import Label, ProgressBar, Static

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.stats import DbStats, db_stats, sqlite_file_stats
from memtui.core.vacuum import VacuumResult, incremental_vacuum, vacuum, vacuum_estimate, wal_checkpoint
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.confirm import ConfirmScreen
from memtui.core.display import percent
from memtui.ui.text import human_bytes, safe_text
from memtui.ui.widgets.stats_table import StatsTable
from memtui.ui.workers import failure_reason
from memtui.resources import screen_css


class StatsScreen(MemtuiScreen[None]):
    """Size and freelist statistics of the open store."""

    CSS_PATH = screen_css("gc.tcss")

    COMMAND_SCOPE = "stats"
    BINDINGS = bindings("stats")

    @dataclass
    class StatsLoaded(Message):
        stats: DbStats

    @dataclass
    class Progressed(Message):
        fraction: float

    @dataclass
    class Done(Message):
        result: VacuumResult | None
        error: str | None = None

    def __init__(self, files: list[Path] | None = None) -> None:
        super().__init__()
        self.files = files
        """Another agent's SQLite files to measure (None: memtui's own store)."""
        self.stats: DbStats | None = None
        self.working = False
        self._cancel = threading.Event()

    def compose(self) -> ComposeResult:
        title = "Database statistics" if not self.files else (
            f"Database statistics · {', '.join(f.name for f in self.files)} (read-only)")
        yield Static(safe_text(title), id="stats-title")
        with Horizontal(id="stats-body"):
            with Vertical(id="stats-figures", classes="gc-pane"):
                yield Static("", id="stats-facts")
                with Grid(id="stats-bars"):
                    yield Label("free pages", classes="bar-label")
                    yield ProgressBar(id="bar-free", show_eta=False, show_percentage=False)
                    yield Label("", id="bar-free-text", classes="bar-text")
                    yield Label("stored / raw", classes="bar-label contents")
                    yield ProgressBar(id="bar-ratio", show_eta=False, show_percentage=False, classes="contents")
                    yield Label("", id="bar-ratio-text", classes="bar-text contents")
                yield Static("", id="stats-hint")
            with Vertical(id="stats-tables-pane", classes="gc-pane"):
                yield StatsTable(id="stats-tables")
        with Vertical(id="stats-progress"):
            yield Label("", id="stats-progress-text")
            yield ProgressBar(id="stats-progress-bar", show_eta=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#stats-figures").border_title = "Figures"
        self.query_one("#stats-tables-pane").border_title = "Tables and indexes"
        table = self.query_one(StatsTable)
        self.query_one("#stats-facts", Static).update(Text("reading the database…"))
        table.focus()
        self.refresh_data()

    # ------------------------------------------------------------------ loading
    def worker_failed(self, worker: Worker) -> None:
        super().worker_failed(worker)
        if worker.group == "stats":
            self.query_one("#stats-facts", Static).update(safe_text(f"Cannot read the statistics: "
                                                                    f"{failure_reason(worker)}"))

    def refresh_data(self) -> None:
        if not self.working:
            self.load_stats()

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False, description="read database statistics")
    def load_stats(self) -> None:
        if self.files is not None:
            each = [sqlite_file_stats(f) for f in self.files]
            self.post_message(self.StatsLoaded(each[0] if len(each) == 1 else merged_stats(each)))
            return
        with self.app.reading() as store:
            stats = db_stats(store)
        self.post_message(self.StatsLoaded(stats))

    @on(StatsLoaded)
    def _loaded(self, event: StatsLoaded) -> None:
        self.stats = s = event.stats
        lines = [
            f"file        {human_bytes(s.file_bytes)}",
            f"WAL         {human_bytes(s.wal_bytes)}",
            f"pages       {s.page_count:,} × {s.page_size:,} B",
            f"freelist    {s.freelist_count:,} pages = {human_bytes(s.freelist_bytes)} ({percent(s.freelist_share)})",
            f"auto_vacuum {s.auto_vacuum} · journal {s.journal_mode}",
        ]
        if s.content is not None:
            c = s.content
            lines += [
                "",
                f"contents    {c.entries:,} entries describe {human_bytes(c.raw_bytes)}",
                f"distinct    {human_bytes(c.unique_bytes)} (dedup saves {human_bytes(max(0, c.dedup_saved))})",
                f"stored      {human_bytes(c.stored_bytes)} in {c.blobs:,} blobs ({percent(c.ratio)} of raw)",
            ]
        if not s.dbstat:
            lines += ["", "this SQLite lacks dbstat: bytes per table are unknown"]
        self.query_one("#stats-facts", Static).update(Text("\n".join(lines)))
        self._bar("free", s.freelist_count, max(1, s.page_count), percent(s.freelist_share))
        ratio = s.content.ratio if s.content is not None and s.content.raw_bytes else 0.0
        self._bar("ratio", round(ratio * 1000), 1000, percent(ratio))
        for widget in self.query(".contents"):  # another agent's database stores no contents of memtui's
            widget.display = s.content is not None
        hint = self.query_one("#stats-hint", Static)
        est = vacuum_estimate(s)
        text = s.vacuum_hint or (f"VACUUM would return about {human_bytes(est['returns_bytes'])}: not worth it now."
                                 if s.freelist_count else "No free pages: VACUUM would return nothing.")
        hint.update(safe_text(text, multiline=True))
        hint.set_class(s.vacuum_hint is None, "-none")
        self.query_one(StatsTable).show(s)

    def _bar(self, name: str, value: int, total: int, text: str) -> None:
        self.query_one(f"#bar-{name}", ProgressBar).update(total=total, progress=value)
        self.query_one(f"#bar-{name}-text", Label).update(Text(text))

    # ------------------------------------------------------------------ actions
    def _busy(self) -> bool:
        if self.files is not None:  # its keys are not offered; reached another way, say why
            self.notify("memtui vacuums its own store only: another agent's database is measured, never written.",
                        markup=False)
            return True
        if self.working:
            self.notify("Another database action is running.", markup=False)
        return self.working or self.stats is None

    def action_vacuum(self) -> None:
        if self._busy():
            return
        est = vacuum_estimate(self.stats)
        body = (f"VACUUM rewrites the whole database: it returns about {human_bytes(est['returns_bytes'])}"
                f" (free pages; partly empty pages add to it) and needs about {human_bytes(est['temporary_bytes'])}"
                " of temporary space meanwhile. An agent writing to this store waits until it is done.")

        def answered(yes: bool | None) -> None:
            if yes:
                self._start("VACUUM…")
                self.run_vacuum()

        self.app.push_screen(ConfirmScreen("VACUUM the database?", body, yes="VACUUM"), answered)

    def action_incremental_vacuum(self) -> None:
        if self._busy():
            return
        if self.stats.auto_vacuum != "incremental":
            self.notify("This database was not created with auto_vacuum=incremental: use VACUUM (v).", markup=False)
            return
        self._start("incremental vacuum…")
        self.run_simple("incremental")

    def action_wal_checkpoint(self) -> None:
        if self._busy():
            return
        self._start("WAL checkpoint…")
        self.run_simple("checkpoint")

    def action_cancel_vacuum(self) -> None:
        if self.working:
            self._cancel.set()

    def action_close(self) -> None:
        if self.working:
            self.notify("A database action is running (c cancels VACUUM).", markup=False)
            return
        self.dismiss()

    def _start(self, text: str) -> None:
        self.working = True
        self._cancel.clear()
        self.add_class("-working")
        self.query_one("#stats-progress-bar", ProgressBar).update(total=100, progress=0)
        self.query_one("#stats-progress-text", Label).update(Text(text))

    @work(thread=True, exclusive=True, group="stats-write", exit_on_error=False, description="VACUUM")
    def run_vacuum(self) -> None:
        try:  # through the store's writer: the app itself stays read-only
            result = vacuum(self.app.store, progress=lambda f: self.post_message(self.Progressed(f)),
                            cancel=self._cancel.is_set)
        except Exception as exc:
            self.post_message(self.Done(None, str(exc) or type(exc).__name__))
            return
        self.post_message(self.Done(result))

    @work(thread=True, exclusive=True, group="stats-write", exit_on_error=False, description="database maintenance")
    def run_simple(self, kind: str) -> None:
        try:
            store = self.app.store
            result = incremental_vacuum(store) if kind == "incremental" else wal_checkpoint(store)
        except Exception as exc:
            self.post_message(self.Done(None, str(exc) or type(exc).__name__))
            return
        self.post_message(self.Done(result))

    @on(Progressed)
    def _progressed(self, event: Progressed) -> None:
        self.query_one("#stats-progress-bar", ProgressBar).update(total=100, progress=round(event.fraction * 100))
        self.query_one("#stats-progress-text", Label).update(Text("VACUUM… (c cancels; nothing changes then)"))

    @on(Done)
    def _done(self, event: Done) -> None:
        self.working = False
        self.remove_class("-working")
        if event.error is not None:
            self.app.notify_error(event.error, title="Database action failed")
        else:
            self.notify(event.result.summary() + ".", title="Done", timeout=8, markup=False)
        self.app.reopen_source()



def merged_stats(each: list[DbStats]) -> DbStats:
    """Several SQLite files' statistics as one (a Codex home's *.sqlite): sizes and pages summed,
    each table and index named by its file."""
    def named(stats: DbStats, name: str) -> str:
        return f"{Path(stats.path).stem} · {name}"

    return replace(
        each[0], path=", ".join(s.path for s in each), file_bytes=sum(s.file_bytes for s in each),
        wal_bytes=sum(s.wal_bytes for s in each), page_count=sum(s.page_count for s in each),
        freelist_count=sum(s.freelist_count for s in each), dbstat=all(s.dbstat for s in each),
        tables=tuple(replace(t, name=named(s, t.name)) for s in each for t in s.tables),
        indexes=tuple(replace(i, name=named(s, i.name), table=named(s, i.table)) for s in each for i in s.indexes),
        overhead_bytes=sum(s.overhead_bytes for s in each))
