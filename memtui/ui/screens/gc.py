"""The GC preview (key `g`): what is live and why, what may go and how much, then apply.

Left, sessions → tasks, each marked root (and why) / live via a reference / reclaimable /
collected, with bytes. Right, why the selected task is live (its root and the chain of
references) or why it may go, and totals as bars: live vs reclaimable bytes, and the rows
per table that would go. `p` pins or unpins the selected task; `a` asks, then collects in a
thread worker with progress (tasks done / total, bytes freed), `c` cancels between tasks.

The app browses read-only: a write (pin, apply) opens its own write connection for the
moment it needs it, then the app reopens its read-only source and every screen refreshes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Label, ProgressBar, Static, Tree
from textual.worker import Worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.gc import (GcPlan, GcProgress, GcResult, GcSessionRow, GcTaskRow, apply_gc, heavy_rows, plan_gc,
                             preview_rows)
from memtui.core.memory_source import Capability
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.confirm import ConfirmScreen
from memtui.core.display import counted
from memtui.ui.text import human_bytes, safe_text
from memtui.ui.widgets.gc_tree import GcTree
from memtui.ui.workers import failure_reason
from memtui.ui.writes import pin_task
from memtui.resources import screen_css


class GcScreen(MemtuiScreen[None]):
    """Live-set preview and lifecycle GC."""

    CSS_PATH = screen_css("gc.tcss")

    COMMAND_SCOPE = "gc"
    BINDINGS = bindings("gc")

    @dataclass
    class PlanLoaded(Message):
        """A fresh plan and the preview rows (from a worker)."""

        plan: GcPlan
        sessions: list[GcSessionRow]
        table_rows: dict[str, int]

    @dataclass
    class Progressed(Message):
        progress: GcProgress

    @dataclass
    class Applied(Message):
        result: GcResult | None
        error: str | None = None

    applying: reactive[bool] = reactive(False, bindings=True)
    """True while a collection runs (`c` cancels it: in the footer then, not before)."""

    def __init__(self) -> None:
        super().__init__()
        self.plan: GcPlan | None = None
        self.table_rows: dict[str, int] = {}
        self._cancel = threading.Event()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_gc" and not self.applying:
            return False
        return super().check_action(action, parameters)

    def compose(self) -> ComposeResult:
        source = self.app.source
        collects = source is not None and source.can(Capability.GC)
        yield Static(Text("GC preview — nothing is deleted until you apply (a)" if collects
                          else "GC preview — read only: nothing can be collected from here"), id="gc-title")
        with Horizontal(id="gc-body"):
            yield GcTree(id="gc-tree", classes="gc-pane")
            with Vertical(id="gc-side", classes="gc-pane"):
                yield Static("", id="gc-explain")
                yield Static("", id="gc-summary")
                with Grid(id="gc-bars"):
                    yield Label("live", classes="bar-label")
                    yield ProgressBar(id="bar-live", show_eta=False, show_percentage=False)
                    yield Label("", id="bar-live-text", classes="bar-text")
                    yield Label("reclaimable", classes="bar-label")
                    yield ProgressBar(id="bar-reclaimable", show_eta=False, show_percentage=False)
                    yield Label("", id="bar-reclaimable-text", classes="bar-text")
                    for table in ("steps", "checkpoints", "entries", "blobs"):
                        yield Label(f"{table} going", classes="bar-label")
                        yield ProgressBar(id=f"bar-{table}", show_eta=False, show_percentage=False)
                        yield Label("", id=f"bar-{table}-text", classes="bar-text")
        with Vertical(id="gc-apply"):
            yield Label("", id="gc-apply-text")
            yield ProgressBar(id="gc-apply-bar", show_eta=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#gc-tree").border_title = "Sessions → tasks"
        self.query_one("#gc-side").border_title = "Why"
        self.query_one("#gc-explain", Static).update(Text("computing the live set…"))
        self.query_one(GcTree).focus()
        self.refresh_data()

    # ------------------------------------------------------------------ loading
    def worker_failed(self, worker: Worker) -> None:
        super().worker_failed(worker)
        if worker.group == "gc-plan":
            self.query_one("#gc-explain", Static).update(safe_text(f"Cannot compute the live set: "
                                                                   f"{failure_reason(worker)}"))

    def refresh_data(self) -> None:
        """Recompute the plan (called by the app after any write)."""
        if not self.applying:
            self.load_plan()

    @work(thread=True, exclusive=True, group="gc-plan", exit_on_error=False, description="compute the GC plan")
    def load_plan(self) -> None:
        with self.app.reading() as store:
            plan = plan_gc(store)
            sessions = preview_rows(store, plan)
            table_rows = heavy_rows(store)
        self.post_message(self.PlanLoaded(plan, sessions, table_rows))

    @on(PlanLoaded)
    def _plan_loaded(self, event: PlanLoaded) -> None:
        self.plan, self.table_rows = event.plan, event.table_rows
        tree = self.query_one(GcTree)
        first = event.plan.reclaimable[0].task if event.plan.reclaimable else None
        tree.show_rows(event.sessions, first_task=first)
        self._show_totals()
        self._explain(tree.current_row())

    def _show_totals(self) -> None:
        plan = self.plan
        if plan is None:
            return
        total = max(1, plan.live_bytes + plan.reclaimable_bytes)
        self._bar("live", plan.live_bytes, total, human_bytes(plan.live_bytes))
        self._bar("reclaimable", plan.reclaimable_bytes, total, human_bytes(plan.reclaimable_bytes))
        going = plan.totals()
        for table in ("steps", "checkpoints", "entries", "blobs"):
            of = self.table_rows.get(table, 0)
            self._bar(table, going[table], max(1, of), f"{going[table]:,} of {of:,}")
        self.query_one("#gc-summary", Static).update(Text(
            f"{counted(plan.tasks_total, 'task')}: {counted(len(plan.roots), 'root')}, {len(plan.live):,} live,"
            f" {len(plan.reclaimable):,} reclaimable, {plan.collected:,} already collected"))

    def _bar(self, name: str, value: int, total: int, text: str) -> None:
        self.query_one(f"#bar-{name}", ProgressBar).update(total=total, progress=value)
        self.query_one(f"#bar-{name}-text", Label).update(Text(text))

    @on(Tree.NodeHighlighted, "#gc-tree")
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        self._explain(event.node.data)

    def _explain(self, row: GcSessionRow | GcTaskRow | None) -> None:
        box = self.query_one("#gc-explain", Static)
        if row is None:
            box.update(Text("no tasks in this store"))
        elif isinstance(row, GcSessionRow):
            live = row.count("root") + row.count("live")
            box.update(Text.assemble(safe_text(row.title or f"session {row.id}"), (f"\n{row.status} session: "
                       f"{counted(len(row.tasks), 'task')}, {live} live, {row.count('reclaimable')} reclaimable"
                       f" ({human_bytes(row.reclaimable_bytes)}), {row.count('collected')} collected", "")))
        else:
            # each fact once: a pinned root's label already says "root: pinned", and a root's
            # explanation is its label
            pin = "  ⚑ pinned" if row.pinned and "pinned" not in row.label else ""
            why = "" if row.explanation == row.label else "\n" + row.explanation
            box.update(Text.assemble(
                (f"#{row.task} ", "bold"), safe_text(row.title), (f"  {row.status}{pin}\n", ""),
                (row.label, "bold"), safe_text(why, multiline=True)))

    # ------------------------------------------------------------------ pin
    def action_toggle_pin(self) -> None:
        row = self.query_one(GcTree).current_row()
        if not isinstance(row, GcTaskRow):
            self.notify("Select a task to pin.", markup=False)
            return
        if self.applying:
            self.notify("Wait for the collection to finish.", markup=False)
            return
        pin_task(self, row.task, not row.pinned)

    # ------------------------------------------------------------------ apply
    def action_apply_gc(self) -> None:
        plan = self.plan
        if plan is None or self.applying:
            return
        if not plan.reclaimable and not plan.loose_blobs:
            self.notify("Nothing to collect.", markup=False)
            return
        totals = plan.totals()
        body = (f"Delete the steps, checkpoints and entries of {counted(len(plan.reclaimable), 'task')}"
                f" ({counted(totals['steps'], 'step')}, {counted(totals['checkpoints'], 'checkpoint')},"
                f" {counted(totals['entries'], 'entry', 'entries')}, {counted(totals['blobs'], 'stored content')}):"
                f" {human_bytes(plan.reclaimable_bytes)}.\n"
                "Task rows, references, messages and summaries stay. This cannot be undone.")

        def answered(yes: bool | None) -> None:
            if yes:
                self.start_apply()

        self.app.push_screen(ConfirmScreen("Collect reclaimable tasks?", body, yes="Collect"), answered)

    def start_apply(self) -> None:
        self.applying = True
        self._cancel.clear()
        self.add_class("-applying")
        total = len(self.plan.reclaimable) if self.plan else 0
        self.query_one("#gc-apply-bar", ProgressBar).update(total=max(1, total), progress=0)
        self.query_one("#gc-apply-text", Label).update(Text(f"collecting 0 / {total:,} tasks… (c cancels)"))
        self.run_apply(self.plan)

    @work(thread=True, exclusive=True, group="gc-write", exit_on_error=False, description="collect garbage")
    def run_apply(self, plan: GcPlan | None) -> None:
        try:  # through the store's writer: the app itself stays read-only
            result = apply_gc(self.app.store, plan, progress=lambda p: self.post_message(self.Progressed(p)),
                              cancel=self._cancel.is_set)
        except Exception as exc:  # reported as one line; each task's transaction rolled back
            self.post_message(self.Applied(None, str(exc) or type(exc).__name__))
            return
        self.post_message(self.Applied(result))

    @on(Progressed)
    def _progressed(self, event: Progressed) -> None:
        p = event.progress
        self.query_one("#gc-apply-bar", ProgressBar).update(total=max(1, p.tasks_total), progress=p.tasks_done)
        what = "collecting" if p.phase == "tasks" else "deleting unused contents after"
        self.query_one("#gc-apply-text", Label).update(Text(
            f"{what} {p.tasks_done:,} / {p.tasks_total:,} tasks — {human_bytes(p.bytes_freed)} freed (c cancels)"))

    @on(Applied)
    def _applied(self, event: Applied) -> None:
        self.applying = False
        self.remove_class("-applying")
        if event.error is not None:
            self.app.notify_error(event.error, title="GC failed (the task in progress was rolled back)")
        else:
            r = event.result
            note = " (cancelled: the rest is untouched)" if r.cancelled else ""
            self.notify(f"Collected {counted(r.tasks, 'task')}, {human_bytes(r.bytes)}; {counted(r.pages_freed, 'page')} moved to the"
                        f" freelist (reused by new writes; VACUUM on the statistics screen returns them){note}.",
                        title="GC done", timeout=8, markup=False)
        self.app.reopen_source()

    def action_cancel_gc(self) -> None:
        if self.applying:
            self._cancel.set()
            self.query_one("#gc-apply-text", Label).update(Text("cancelling after the current task…"))

    def action_close(self) -> None:
        if self.applying:
            self.notify("Collection in progress: press c to cancel it first.", markup=False)
            return
        self.dismiss()

