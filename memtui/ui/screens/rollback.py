"""The rollback confirmation: every file it will write, create or delete, conflicts highlighted.

`RollbackScreen(plan, title)` is modal and dismisses with the force flag the user chose
(True / False) or None when cancelled. Highlighting a file shows why: for a conflict the
diff of what the last rolled-back edit recorded against what is on disk now, otherwise the
change the rollback will make (memtui's DiffView). `start_rollback` (the main screen's r) and
`undo_last_rollback` (key u) start the flow: plan in a thread worker, confirm here, apply in a
thread worker; the result comes back as a notification and a reload.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, Label, ListItem, ListView, Static

from memtui.core.display import counted
from memtui.core.memory_source import Capability, MemorySource
from memtui.core.model import Id
from memtui.core.rollback import FilePlan, RollbackPlan, RollbackResult
from memtui.ui.commands import bindings
from memtui.ui.text import sanitize
from memtui.ui.widgets.diff_view import DiffView
from memtui.ui.screens.base import MemtuiModal
from memtui.resources import screen_css

STATUS_WORDS = {"ready": "will restore", "done": "already restored", "conflict": "conflict",
                "refused": "refused", "error": "error"}


def file_row(f: FilePlan) -> Content:
    """One line of the file list: action, status, path (shown literally)."""
    parts: list[Any] = [f"{f.action:<6} ", (f"{STATUS_WORDS.get(f.status, f.status):<16} ", "bold"),
                        sanitize(f.path)]
    if f.conflict and f.force:
        parts.append(("  (overwrites changes)", "italic"))
    return Content.assemble(*parts)


def why_text(f: FilePlan) -> str:
    """The line above a file's diff: what the diff shows, or why there is none."""
    if f.status in ("refused", "error"):
        return f.reason
    if f.conflict:
        return f"{f.reason}\nRemoved lines: as the last rolled-back edit recorded it; added lines: on disk now."
    if f.restored:
        return "On disk already as it will be restored: nothing to do."
    return f"What the rollback changes ({f.action}): removed lines are on disk now, added lines come back."


def diff_sides(f: FilePlan) -> tuple[bytes | None, bytes | None] | None:
    """(old, new) for the file's diff: recorded vs disk for a conflict, disk vs restored else."""
    if f.status in ("refused", "error") or f.restored:
        return None
    return (f.recorded, f.disk) if f.conflict else (f.disk, f.target)


class RollbackScreen(MemtuiModal[bool | None]):
    """Confirm a rollback. Dismisses with the force flag chosen, or None."""

    CSS_PATH = screen_css("rollback.tcss")

    COMMAND_SCOPE = "rollback"
    ASKS = True
    BINDINGS = bindings("rollback")

    def __init__(self, plan: RollbackPlan, title: str, warning: str = "", *, undo: str = "store") -> None:
        super().__init__()
        self.plan = plan
        self.title_text = title
        self.warning = warning
        self.undo = undo  # where the undo is recorded: "store" (memtui's), "state" (memtui's state folder), ""

    def compose(self) -> ComposeResult:
        with Vertical(id="rollback-dialog"):
            yield Static(Content(sanitize(self.title_text)), id="rollback-title")
            yield Static(id="rollback-summary")
            yield ListView(*[self._item(f) for f in self.plan.files], id="rollback-files")
            with Vertical(id="rollback-detail"):
                yield Static(Content(""), id="rollback-why")
                yield DiffView(id="rollback-diff")
            yield Static(self._notes(), id="rollback-notes")
            with Horizontal(id="rollback-buttons"):
                yield Checkbox("Overwrite conflicts (f)", self.plan.force, id="rollback-force",
                               disabled=not any(f.conflict for f in self.plan.files))
                yield Button("Roll back (y)", variant="error", id="rollback-confirm")
                yield Button("Cancel (esc)", id="rollback-cancel")

    def on_mount(self) -> None:
        self._refresh_plan()
        files = self.query_one("#rollback-files", ListView)
        files.focus()
        if self.plan.files:
            first = next((i for i, f in enumerate(self.plan.files) if f.conflict or f.status in ("refused", "error")),
                         0)
            files.index = first
            self._show(first)

    def _item(self, f: FilePlan) -> ListItem:
        return ListItem(Label(file_row(f)), classes=f"-{f.status}" + (" -conflict" if f.conflict else ""))

    def _notes(self) -> Content:
        lines = list(self.plan.notes) + ([self.warning] if self.warning else [])
        # Where the undo is kept, said only when something can be written (not for "nothing to change").
        writable = not self.plan.refused and any(f.status == "ready" or f.conflict for f in self.plan.files)
        if writable and self.undo == "store":
            lines.append("The rollback is recorded as a checkpoint you can undo (u); its task is pinned "
                         "so GC keeps it.")
        elif writable and self.undo == "state":
            lines.append("The rollback is recorded in memtui's state folder (never in the agent's home); "
                         "you can undo it (u).")
        elif writable:
            lines.append("This store records no undo: what is on disk now is replaced for good.")
        return Content(sanitize("\n".join(lines), multiline=True))

    def _refresh_plan(self) -> None:
        """Row texts, the summary and the confirm button after the force flag changed."""
        for item, f in zip(self.query("#rollback-files ListItem"), self.plan.files):
            item.set_class(f.status == "conflict", "-conflict-kept")
            item.set_class(f.conflict, "-conflict")
            for status in STATUS_WORDS:
                item.set_class(f.status == status, f"-{status}")
            item.query_one(Label).update(file_row(f))
        changing = [f for f in self.plan.files if f.status == "ready"]
        counts: dict[str, int] = {}
        for f in changing:
            counts[f.action] = counts.get(f.action, 0) + 1
        parts = [f"{counts[action]} to {action}" for action in ("write", "create", "delete") if action in counts]
        parts = parts or ["nothing to change"]
        conflicts = sum(f.conflict for f in self.plan.files)
        if conflicts:
            parts.append(f"{conflicts} conflict{'s' if conflicts != 1 else ''}"
                         + (" (overwritten)" if self.plan.force else " (left alone)"))
        if self.plan.refused:
            parts = [f"refused: {counted(len(self.plan.escapes), 'path')} {'leads' if len(self.plan.escapes) == 1 else 'lead'} outside {sanitize(str(self.plan.root))} —"
                     " roll back the files inside it one at a time (r on a changed file)"]
        self.query_one("#rollback-summary", Static).update(Content(" · ".join(parts)))
        confirm = self.query_one("#rollback-confirm", Button)
        confirm.disabled = self.plan.refused or not changing
        # Never offer to roll back a plan in which nothing can be written, forced or not.
        confirm.display = not self.plan.refused and any(f.status == "ready" or f.conflict for f in self.plan.files)

    def _show(self, index: int | None) -> None:
        if index is None or not 0 <= index < len(self.plan.files):
            return
        f = self.plan.files[index]
        self.query_one("#rollback-detail").border_title = (
            "recorded vs on disk" if f.conflict else "why" if f.status in ("refused", "error") else
            "what the rollback changes")
        self.query_one("#rollback-why", Static).update(Content(sanitize(why_text(f), multiline=True)))
        view = self.query_one("#rollback-diff", DiffView)
        sides = diff_sides(f)
        view.display = sides is not None
        if sides is not None:
            view.load(f.path, *sides)

    @on(ListView.Highlighted, "#rollback-files")
    def _highlighted(self, event: ListView.Highlighted) -> None:
        self._show(event.list_view.index)

    @on(Checkbox.Changed, "#rollback-force")
    def _force_changed(self, event: Checkbox.Changed) -> None:
        self.plan = self.plan.with_force(event.value)
        self._refresh_plan()
        self._show(self.query_one("#rollback-files", ListView).index)

    @on(Button.Pressed, "#rollback-confirm")
    def _confirm_pressed(self) -> None:
        self.action_confirm()

    @on(Button.Pressed, "#rollback-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def action_confirm(self) -> None:
        """Roll back as listed."""
        if not self.query_one("#rollback-confirm", Button).disabled:
            self.dismiss(self.plan.force)

    def action_cancel(self) -> None:
        """Close without writing anything."""
        self.dismiss(None)

    def action_toggle_force(self) -> None:
        """Overwrite conflicting files, or leave them alone."""
        box = self.query_one("#rollback-force", Checkbox)
        if not box.disabled:
            box.toggle()


# ------------------------------------------------------------------ the flow (app side)
def _undo_kept_in(source: MemorySource) -> str:
    """Where the source's rollbacks record their undo ("" for nowhere: no rollback hooks)."""
    return source.part(Capability.ROLLBACK).undo_kept_in if source.has_part(Capability.ROLLBACK) else ""


def undo_last_rollback(app: Any) -> None:
    """`u`: undo the most recent rollback (or undo) of the store, whatever is selected; the
    dialog says which. A Claude Code or Codex store's rollbacks are kept in memtui's state folder;
    another agent's store records none."""
    if app.source is None:
        return
    if not _undo_kept_in(app.source):
        app.notify("This source records no rollbacks: nothing to undo.", severity="warning", markup=False)
        return

    def find() -> None:
        with app.reading() as store:
            newest = store.part(Capability.ROLLBACK).rollback_checkpoints(1)
            task = store.task(newest[0].task_id) if newest else None
        if not newest:
            app.call_from_thread(app.notify, "No rollback to undo in this store.", severity="warning")
            return
        cp = newest[0]
        what = "undo" if cp.label == "undo" else "rollback"
        title = f"Undo the {what} of task {cp.task_id} · {task.title[:40]} (checkpoint {cp.id})"
        app.call_from_thread(start_rollback, app, title, undo=cp.id)

    app.run_worker(find, thread=True, exclusive=True, group="rollback", exit_on_error=False,
                   description="find the last rollback")


def start_rollback(app: Any, title: str, **scope: Id) -> None:
    """Plan in a worker, confirm in the dialog, apply in a worker, report, reload."""
    _plan_worker(app, title, scope)


def _plan_worker(app: Any, title: str, scope: dict[str, Id]) -> None:
    from memtui.core.rollback import plan_rollback

    def plan() -> None:
        with app.reading() as source:
            result = plan_rollback(source, **scope)  # under the source's workspace, or the task's folder
        app.call_from_thread(_confirm, app, result, title)

    app.run_worker(plan, thread=True, exclusive=True, group="rollback", exit_on_error=False,
                   description="plan the rollback")


def _confirm(app: Any, plan: RollbackPlan, title: str) -> None:
    if not plan.files:
        app.notify("Nothing to roll back." + (" " + " ".join(plan.notes) if plan.notes else ""),
                   title=title, markup=False)
        return

    def chosen(force: bool | None) -> None:
        if force is not None:
            _apply_worker(app, plan.with_force(force), title)

    warning = ""
    if app.store is not None and app.store.needs_upgrade:
        warning = "This store has an older schema: recording the undo upgrades it to the current one."
    app.push_screen(RollbackScreen(plan, title, warning, undo=_undo_kept_in(app.source)), chosen)


def _apply_worker(app: Any, plan: RollbackPlan, title: str) -> None:
    from memtui.core.rollback import apply_rollback

    def apply() -> None:
        with app.reading() as source:
            result = apply_rollback(source, plan)
        app.call_from_thread(_done, app, result, title)

    app.run_worker(apply, thread=True, exclusive=True, group="rollback", exit_on_error=False,
                   description="roll back")


def _done(app: Any, result: RollbackResult, title: str) -> None:
    counts = result.counts()
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing to do"
    lines = [summary]
    if result.undo_checkpoint is not None:
        pinned = (f"; task {result.pinned_task} is pinned so GC keeps it" if result.pinned_task is not None else "")
        lines.append(f"Undo with u (checkpoint {result.undo_checkpoint}){pinned}.")
    trouble = [f for f in result.files if f.status not in ("done",)]
    for f in trouble[:5]:
        lines.append(f"{f.path}: {f.status} — {f.reason}")
    app.notify("\n".join(lines), title=f"{title}: {'done' if result.ok else 'incomplete'}",
               severity="information" if result.ok else "warning", timeout=10, markup=False)
    app.reopen_source()
