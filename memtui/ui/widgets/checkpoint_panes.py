"""The bottom row of the main screen: the files one step changed, and the diff of one of them.

`CheckpointPanes.show_step(step)` loads the step's checkpoint (its files, then their +/−
line counts) in a thread worker; highlighting a file loads both of its versions and
prepares the diff in another. Results that arrive after the user moved on are dropped.
Failures go to the screen (memtui.ui.screens.base) and `failed` says so in the pane.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Sequence

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable
from textual.worker import Worker, get_current_worker

from memtui.core.model import Id, StepInfo
from memtui.core.errors import ContentUnknown
from memtui.ui import pane_reads
from memtui.ui.debounce import Debounce
from memtui.ui.read_ahead import ReadAhead
from memtui.ui.messages import EntriesLoaded, EntryContentLoaded
from memtui.ui.workers import failure_reason, forward_worker_state
from memtui.ui.text import safe_text
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.diff_pane import DiffPane
from memtui.ui.widgets.pane import Pane

if TYPE_CHECKING:
    from memtui.core.diff import FileDiff

GROUPS = ("entries", "diff")
"""The worker groups of this row (each pane loads in its own)."""
QUICK_COUNTS = 20
"""Checkpoints of up to this many files come with their +/− counts; bigger ones show the list
first and the counts once every file is read."""


def read_diff(source: Any, entry: Any) -> FileDiff:
    """Both sides of `entry`, diffed (in a worker thread). A side another agent's store did
    not keep reads as None: the pane says so (`DiffPane.show_partial`)."""
    try:
        before, after = source.read_entry(entry.id)
    except ContentUnknown:
        before, after = None, None
    return DiffPane.prepare(entry.path, before, after)


def read_entries(source: Any, step: tuple[Id, Id], cancelled: Callable[[], bool] = lambda: False,
                 quick_only: bool = False) -> EntriesLoaded | None:
    """What `load_entries` posts first for `step` (step id, checkpoint id): its files, the first
    one's diff and, up to QUICK_COUNTS files, their line counts (None: cancelled, or a bigger
    checkpoint when `quick_only`)."""
    checkpoint, entries = pane_reads.checkpoint_files(source, step[1])
    if quick_only and len(entries) > QUICK_COUNTS:
        return None
    try:
        first = None if not entries or cancelled() else EntryContentLoaded(entries[0], read_diff(source, entries[0]))
    except Exception:  # the diff pane's own read says what failed
        first = None
    stats = pane_reads.line_counts(source, entries, cancelled) if len(entries) <= QUICK_COUNTS else {}
    return None if stats is None else EntriesLoaded(step[0], checkpoint, entries, stats, first)


class CheckpointPanes(Horizontal):
    """Changed files · diff, for the step the screen shows."""

    def __init__(self, *, id: str | None = None, delay: float = 0.12) -> None:
        super().__init__(id=id)
        self.step: StepInfo | None = None
        """The step whose checkpoint is shown (or loading)."""
        self.keep_entry: tuple[Id, Id] | None = None
        """(step id, entry id) to reselect when that step's files arrive (after a reload)."""
        self.debounce = Debounce(self, delay)
        self._answered: Id | None = None
        """The step whose files (or the reason they can't be read) the files pane shows."""
        self.ahead = ReadAhead(self, "entries", partial(read_entries, quick_only=True))
        self._around: list[tuple[Id, Id]] = []
        """The steps next to the shown one that made a checkpoint: read ahead once it is shown."""

    def compose(self) -> ComposeResult:
        yield Pane(CheckpointFiles(id="files"), title="Changed files", id="files-pane")
        yield Pane(DiffPane(id="diff"), title="Diff", id="diff-pane")

    @property
    def diff(self) -> DiffPane:
        return self.query_one(DiffPane)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_state(self, event)

    def failed(self, worker: Worker) -> None:
        """A load of this row failed: the pane that waited says why."""
        reason = failure_reason(worker)
        if worker.group == "diff":
            self.diff.show_message(safe_text(f"Cannot show this file: {reason}"))
        elif worker.group == "entries":
            self._answered = None if self.step is None else self.step.id
            self.query_one("#files-pane", Pane).failed()
            self.diff.show_message(safe_text(f"Cannot read this checkpoint: {reason}"))

    def forget(self) -> None:
        """Reload everything on the next `show_step`, even for the same step."""
        self.step = None
        self.diff.entry = None
        self.ahead.clear()

    # ------------------------------------------------------------------ changed files
    def show_step(self, step: StepInfo | None, around: Sequence[StepInfo] = ()) -> None:
        """Show the files `step` changed (None: no step selected); the files of the steps
        `around` it are read ahead (memtui.ui.read_ahead) once these are shown."""
        self.step = step
        self._around = [(s.id, s.checkpoint_id) for s in around if s.checkpoint_id is not None]
        files = self.query_one(CheckpointFiles)
        pane = self.query_one("#files-pane", Pane)
        if step is None or step.checkpoint_id is None:
            self.workers.cancel_group(self, "entries")
            files.show_entries([], {})
            pane.show_title()
            pane.border_subtitle = ""
            self.diff.show_message(Text("This step changed no files." if step is not None else "No step selected."))
            self.query_one("#diff-pane", Pane).show_title()
            self.query_one("#diff-pane").border_subtitle = ""
            return
        pane.pending(f"checkpoint {step.checkpoint_id}", lambda: step is self.step and self._answered != step.id)
        self.debounce.soon("entries", lambda: self.ahead.show_or_load(
            (step.id, step.checkpoint_id), self._entries_loaded, lambda: self.load_entries(step.id, step.checkpoint_id)))

    @work(thread=True, exclusive=True, group="entries", exit_on_error=False, description="load checkpoint files")
    def load_entries(self, step_id: Id, checkpoint_id: Id) -> None:
        """The files, the diff of the first (the pane selects it) and, for a small checkpoint,
        every file's line counts: one message, one frame. A big checkpoint's counts follow."""
        worker = get_current_worker()
        with self.app.reading() as source:
            loaded = read_entries(source, (step_id, checkpoint_id), lambda: worker.is_cancelled)
            if worker.is_cancelled or loaded is None:
                return
            self.post_message(loaded)
            if len(loaded.entries) <= QUICK_COUNTS:
                return
            stats = pane_reads.line_counts(source, loaded.entries, lambda: worker.is_cancelled)
        if stats is not None and not worker.is_cancelled:
            self.post_message(EntriesLoaded(step_id, loaded.checkpoint, loaded.entries, stats))

    @on(EntriesLoaded)
    def _entries_loaded(self, event: EntriesLoaded) -> None:
        event.stop()
        if self.step is None or event.step_id != self.step.id:
            return
        files = self.query_one(CheckpointFiles)
        if event.stats and event.first is None and [r.id for r in files.records] == [e.id for e in event.entries]:
            files.update_stats(event.stats)
            return
        files.show_entries(event.entries, event.stats)
        self._answered = self.step.id
        self.ahead.around(self._around)
        self.query_one("#files-pane", Pane).show_title(f"checkpoint {self.step.checkpoint_id}")
        kept = self.keep_entry
        if kept is not None and kept[0] == event.step_id:
            self.keep_entry = None
            files.select_key(str(kept[1]))
        count = len(event.entries)
        self.query_one("#files-pane").border_subtitle = f"{count} file{'s' if count != 1 else ''}"
        if not event.entries:
            self.diff.show_message(Text("This checkpoint holds no files."))
        else:
            self._file_highlighted(first=event.first)

    # ------------------------------------------------------------------ diff
    @on(DataTable.RowHighlighted, "#files")
    def _file_highlighted(self, event: DataTable.RowHighlighted | None = None,
                          first: EntryContentLoaded | None = None) -> None:
        entry = self.query_one(CheckpointFiles).current_record()
        if entry is None:
            return
        if self.diff.entry is not None and self.diff.entry.id == entry.id:
            return
        if first is not None and first.entry.id == entry.id:  # read with the list
            self.debounce.cancel("diff")
            self.workers.cancel_group(self, "diff")
            self.diff.entry = entry
            self._content_loaded(first)
            return
        self.diff.begin(entry)
        self.query_one("#diff-pane", Pane).show_title()
        self.debounce.soon("diff", lambda: self.load_entry_content(entry))

    @on(DataTable.RowSelected, "#files")
    def _file_selected(self, event: DataTable.RowSelected) -> None:
        self.diff.focus()

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False, description="read file contents")
    def load_entry_content(self, entry: Any) -> None:
        with self.app.reading() as source:
            prepared = read_diff(source, entry)
        if not get_current_worker().is_cancelled:
            self.post_message(EntryContentLoaded(entry, prepared))

    @on(EntryContentLoaded)
    def _content_loaded(self, event: EntryContentLoaded) -> None:
        event.stop()
        diff = self.diff
        if diff.entry is None or diff.entry.id != event.entry.id:
            return
        if not diff.show_partial(event.entry):  # another agent's store may lack a side
            diff.show_content(event.entry, event.prepared)
        self.query_one("#diff-pane", Pane).show_title(event.entry.path)
        self.diff_subtitle()

    def view_diff(self, change: Callable[[], object]) -> None:
        """Change how the diff is shown (`change`: DiffPane's toggle_split, next_hunk,
        previous_hunk or cycle_mode) and say where it is."""
        change()
        self.diff_subtitle()

    def diff_subtitle(self) -> None:
        """"unified · hunk 1/3" under the diff."""
        self.query_one("#diff-pane").border_subtitle = self.diff.describe()
