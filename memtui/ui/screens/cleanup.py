"""Cleanup of a Claude Code or Codex home (key `C`): what would go and why, then archive.

Left, projects → sessions, each marked keep / archive with its bytes, a size bar per
project (the share of its bytes that would go), orphans in their own group, and the
sessions already in memtui's archive. Right, why: the rule that decided the selected
session, its files and activity. `a` archives what the plan lets go (asks first), `x`
deletes it for good (typed confirmation), `p` pins or unpins the selected session (kept in
memtui's own state folder), `r` restores the selected archived session, `c` cancels a run.
Nothing is written anywhere while browsing; the plan is recomputed after every action.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Label, ProgressBar, Static, Tree
from textual.worker import Worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.cleanup import (
    CleanupPlan, CleanupProgress, CleanupResult, Manifest, ProjectPreview, apply_cleanup, archive_dir, cache_dir,
    list_archived, load_pins, plan_cleanup, preview_by_project, restore_session, set_pinned,
)
from memtui.core.homes import take_inventory
from memtui.core.display import counted, human_bytes
from memtui.core.errors import MemtuiError
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.text import EndKept, safe_text
from memtui.ui.workers import failure_reason
from memtui.ui.widgets.cleanup_tree import ArchivedGroup, CleanupTree, OrphanRow, SessionRow, size_bar
from memtui.resources import screen_css


def _when(value: datetime | None, now: datetime) -> str:
    if value is None:
        return "unknown"
    days = (now - value).days
    return f"{value:%Y-%m-%d %H:%M} UTC ({days} days ago)" if days else f"{value:%Y-%m-%d %H:%M} UTC (today)"


def _files(n: int) -> str:
    return f"{n:,} file" + ("" if n == 1 else "s")


class CleanupScreen(MemtuiScreen[None]):
    """Preview, archive, delete and restore sessions of an agent home."""

    working: reactive[bool] = reactive(False, bindings=True)
    """True while an archive, delete or restore runs."""
    restoring = False
    """True while the run is a restore: it cannot be cancelled (restore_session takes no
    cancel), so `c` is not offered for it."""

    CSS_PATH = screen_css("cleanup.tcss")

    COMMAND_SCOPE = "cleanup"
    BINDINGS = bindings("cleanup")

    @dataclass
    class PlanLoaded(Message):
        plan: CleanupPlan
        projects: list[ProjectPreview]
        archived: list[Manifest]

    @dataclass
    class Progressed(Message):
        progress: CleanupProgress

    @dataclass
    class Finished(Message):
        """An archive, delete or restore run ended (`error` set when it failed as a whole)."""

        what: str
        result: CleanupResult | None = None
        error: str | None = None

    def __init__(self, home: Path, agent: str | None = None, *, keep_days: int = 30, keep_last: int = 5,
                 archive_root: Path | None = None, now: datetime | None = None) -> None:
        super().__init__()
        self.home, self.agent = Path(home), agent
        self.keep_days, self.keep_last = keep_days, keep_last
        self.archive_root = archive_root or archive_dir()
        self.fixed_now = now
        self.plan: CleanupPlan | None = None
        self._cancel = threading.Event()

    def now(self) -> datetime:
        return self.fixed_now or self.app.now()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_cleanup" and (not self.working or self.restoring):
            return False  # `c` is in the footer while an archive or delete goes, not before
        return super().check_action(action, parameters)

    def compose(self) -> ComposeResult:
        yield Static(_title(self.home), id="cleanup-title")
        with Horizontal(id="cleanup-body"):
            yield CleanupTree(id="cleanup-tree", classes="cleanup-pane")
            with Vertical(id="cleanup-side", classes="cleanup-pane"):
                yield Static("", id="cleanup-explain")
                yield Static("", id="cleanup-summary")
        with Vertical(id="cleanup-run"):
            yield Label("", id="cleanup-run-text")
            yield ProgressBar(id="cleanup-run-bar", show_eta=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#cleanup-tree").border_title = "Projects → sessions"
        self.query_one("#cleanup-side").border_title = "Why"
        self.query_one("#cleanup-explain", Static).update(Text("reading the home…"))
        self.query_one(CleanupTree).focus()
        self.refresh_data()

    def worker_failed(self, worker: Worker) -> None:
        """Replace the waiting text with the reason; a failed run leaves its progress bar."""
        super().worker_failed(worker)
        if worker.group == "cleanup-plan":
            self.query_one("#cleanup-explain", Static).update(Text(f"could not read the home: {failure_reason(worker)}"))
        else:
            self.working = False
            self.remove_class("-working")

    # ------------------------------------------------------------------ loading
    def refresh_data(self) -> None:
        """Recompute the plan (after any action, and on ctrl+r)."""
        if not self.working:
            self.load_plan()

    @work(thread=True, exclusive=True, group="cleanup-plan", exit_on_error=False, description="read the agent home")
    def load_plan(self) -> None:
        inventory = take_inventory(self.home, self.agent, cache=cache_dir())
        plan = plan_cleanup(inventory, keep_days=self.keep_days, keep_last=self.keep_last, pins=load_pins(), now=self.now())
        archived = [m for m in list_archived(self.archive_root, inventory.agent, home=inventory.home) if m.kind == "session"]
        self.post_message(self.PlanLoaded(plan, preview_by_project(plan), archived))

    @on(PlanLoaded)
    def _plan_loaded(self, event: PlanLoaded) -> None:
        self.plan = event.plan
        tree = self.query_one(CleanupTree)
        tree.show_rows(event.projects, event.archived, home=event.plan.inventory.home)
        plan = event.plan
        going = len(plan.going()[0])
        self.query_one("#cleanup-summary", Static).update(Text(
            f"{plan.inventory.agent}: {counted(len(plan.sessions), 'session')}, {going:,} to go,"
            f" {counted(len(plan.orphans), 'orphan group')}; {human_bytes(plan.reclaimable_bytes)} reclaimable;"
            f" {len(event.archived):,} in memtui's archive"
            f"\nrules: live and pinned sessions stay; active in the last {plan.keep_days} days;"
            f" the {plan.keep_last} newest of each project"))
        self._explain(tree.current_row())

    @on(Tree.NodeHighlighted, "#cleanup-tree")
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        self._explain(event.node.data)

    def _explain(self, row) -> None:
        box = self.query_one("#cleanup-explain", Static)
        now = self.now()
        if row is None:
            box.update(Text("no sessions in this home"))
        elif isinstance(row, ProjectPreview):
            box.update(Text.assemble(
                safe_text(row.project or "orphans"), "\n", (size_bar(row.going_bytes, row.bytes, 24), ""),
                f"\n{human_bytes(row.going_bytes)} of {human_bytes(row.bytes)} would go"
                f" ({row.going} of {len(row.sessions) + len(row.orphans)})"))
        elif isinstance(row, SessionRow):
            s, d = row.session, row.decision
            files = "\n".join(f"  {f.path.relative_to(self.plan.inventory.home) if self.plan else f.path}" for f in s.files[:8])
            more = f"\n  … and {len(s.files) - 8} more" if len(s.files) > 8 else ""
            box.update(Text.assemble(
                (f"{d.action}: ", "bold"), safe_text(d.reason), "\n\n", safe_text(s.title), "\nid ", safe_text(s.id),
                f"\nlast activity {_when(s.activity, now)}\n{_files(len(s.files))}, {human_bytes(s.bytes)}\n",
                safe_text(files, multiline=True), more))
        elif isinstance(row, OrphanRow):
            o, d = row.orphan, row.decision
            box.update(Text.assemble((f"{d.action}: ", "bold"), safe_text(d.reason), "\n\n", safe_text(str(o.path)),
                                     f"\n{_files(len(o.files))}, {human_bytes(o.bytes)}"))
        elif isinstance(row, ArchivedGroup):
            box.update(Text("Sessions memtui archived: browse them from the sources (S), restore one with r."))
        elif isinstance(row, Manifest):
            box.update(Text.assemble(
                ("archived", "bold"), f" {row.archived_at[:16]} — {_files(len(row.files))}, {human_bytes(row.bytes)}"
                f" packed into {human_bytes(row.archive_bytes)}\n\n", safe_text(row.title), "\nid ", safe_text(row.id),
                "\nr puts every file back (byte-exact, with mtime and mode)"))

    # ------------------------------------------------------------------ pin
    def action_toggle_pin(self) -> None:
        row = self.query_one(CleanupTree).current_row()
        if not isinstance(row, SessionRow) or self.plan is None:
            self.notify("Select a session to pin.", markup=False)
            return
        agent = self.plan.inventory.agent
        try:
            pinned = row.session.id not in load_pins().get(agent, set())
            set_pinned(agent, row.session.id, pinned)
        except (MemtuiError, OSError) as exc:  # an unreadable pins file: said, never replaced
            self.app.notify(str(exc), title="Pin failed", severity="error", markup=False)
            return
        self.notify(f"Session {'pinned: cleanup keeps it' if pinned else 'unpinned'}.", markup=False)
        self.refresh_data()

    # ------------------------------------------------------------------ archive / delete
    def action_archive(self) -> None:
        self._ask("archive")

    def action_delete(self) -> None:
        self._ask("delete")

    def _ask(self, action: str) -> None:
        from memtui.ui.screens.confirm import ConfirmScreen

        plan = self.plan
        if plan is None or self.working:
            return
        sessions, orphans = plan.going()
        if not sessions and not orphans:
            self.notify("Nothing to clean up: every session is kept (see why on the right).", markup=False)
            return
        size = human_bytes(plan.reclaimable_bytes)
        if action == "archive":
            body = (f"Pack {counted(len(sessions), 'session')} and {counted(len(orphans), 'orphan group')} ({size}) into {self.archive_root},"
                    " check every file there, then remove them from the home. `r` here, or memtui restore, puts them back.")
            screen = ConfirmScreen("Archive old sessions?", body, yes="Archive")
        else:
            body = (f"Delete {counted(len(sessions), 'session')} and {counted(len(orphans), 'orphan group')} ({size}) from {self.home}"
                    " for good: no archive, no undo. Type delete to confirm.")
            screen = ConfirmScreen("Delete old sessions for good?", body, yes="Delete", no="Keep", typed="delete")

        def answered(yes: bool | None) -> None:
            if yes:
                self._start(action)

        self.app.push_screen(screen, answered)

    def _start(self, action: str) -> None:
        plan = self.plan
        if plan is None:
            return
        if plan.action != action:  # the same decisions, carried out the other way
            try:
                plan = plan_cleanup(plan.inventory, keep_days=plan.keep_days, keep_last=plan.keep_last, action=action,
                                    pins=load_pins(), now=self.now())
            except MemtuiError as exc:  # the pins file became unreadable: nothing goes
                self.app.notify(str(exc), title=f"{action.capitalize()} refused", severity="error", markup=False)
                return
        self.restoring = False
        self.working = True
        self._cancel.clear()
        self.add_class("-working")
        self.query_one("#cleanup-run-bar", ProgressBar).update(total=max(1, plan.reclaimable_bytes), progress=0)
        self.query_one("#cleanup-run-text", Label).update(Text(f"{action}: starting… (c cancels)"))
        self.run_cleanup(plan)

    @work(thread=True, exclusive=True, group="cleanup-write", exit_on_error=False, description="clean up the home")
    def run_cleanup(self, plan: CleanupPlan) -> None:
        try:
            result = apply_cleanup(plan, self.archive_root, progress=lambda p: self.post_message(self.Progressed(p)),
                                   cancel=self._cancel.is_set)
        except Exception as exc:  # one line; every session is whole at its path or in the archive
            self.post_message(self.Finished(plan.action, error=str(exc) or type(exc).__name__))
            return
        self.post_message(self.Finished(plan.action, result))

    @on(Progressed)
    def _progressed(self, event: Progressed) -> None:
        p = event.progress
        self.query_one("#cleanup-run-bar", ProgressBar).update(total=max(1, p.bytes_total), progress=p.bytes_done)
        self.query_one("#cleanup-run-text", Label).update(Text(
            f"{p.units_done:,} / {p.units_total:,} sessions — {human_bytes(p.bytes_done)} of {human_bytes(p.bytes_total)}"
            " (c cancels)"))

    @on(Finished)
    def _finished(self, event: Finished) -> None:
        self.working = False
        self.remove_class("-working")
        if event.error is not None:
            self.app.notify(event.error, title=f"{event.what.capitalize()} failed", severity="error", markup=False)
        elif event.result is not None:
            r = event.result
            verb = "Archived" if event.what == "archive" else "Deleted"
            done = counted(len(r.done), "session or orphan group", "sessions or orphan groups")
            text = f"{verb} {done}, {human_bytes(r.bytes_removed)} freed"
            if event.what == "archive":
                text += f" (archive {human_bytes(r.archive_bytes)})"
            if r.skipped:
                text += f"; {len(r.skipped)} skipped (in use)"
            if r.cancelled:
                text += "; cancelled: the rest is untouched"
            if r.failed:
                text += f"; {len(r.failed)} could not be {event.what}d: {r.failed[0][1]}"
            self.notify(text + ".", title="Cleanup failed" if r.failed else "Cleanup done", timeout=8,
                        severity="error" if r.failed else "information", markup=False)
        else:
            self.notify(f"Restored {event.what}.", title="Restore done", markup=False)
        self.refresh_data()

    def action_cancel_cleanup(self) -> None:
        if self.working:
            self._cancel.set()
            self.query_one("#cleanup-run-text", Label).update(Text("cancelling…"))

    # ------------------------------------------------------------------ restore
    def action_restore(self) -> None:
        row = self.query_one(CleanupTree).current_row()
        if not isinstance(row, Manifest):
            self.notify("Select an archived session (under “archived by memtui”) to restore.", markup=False)
            return
        if self.working:
            return
        self.restoring = True  # before `working`: the footer it refreshes offers no cancel
        self.working = True
        self.add_class("-working")
        self.query_one("#cleanup-run-text", Label).update(Text(f"restoring {row.id}…"))
        self.run_restore(row)

    @work(thread=True, exclusive=True, group="cleanup-write", exit_on_error=False, description="restore the session")
    def run_restore(self, manifest: Manifest) -> None:
        try:
            restore_session(manifest.id, self.archive_root, agent=manifest.agent)
        except Exception as exc:  # a refusal names the files; nothing was written
            self.post_message(self.Finished("restore", error=str(exc) or type(exc).__name__))
            return
        self.post_message(self.Finished(f"session {manifest.title!r}"))

    def action_close(self) -> None:
        if self.working:
            self.notify("A restore is running: wait for it to finish." if self.restoring
                        else "A cleanup is running: press c to cancel it first.", markup=False)
            return
        self.dismiss()


def _title(home: Path) -> Table:
    """"Clean up <home> — nothing changes until …": on a narrow terminal the home's path
    loses its start, the sentence stays whole."""
    line = Table.grid(expand=True)
    line.add_column(no_wrap=True)
    line.add_column(ratio=1, no_wrap=True)
    line.add_column(no_wrap=True)
    line.add_row("Clean up ", EndKept(safe_text(str(home))), " — nothing changes until you archive (a) or delete (x)")
    return line
