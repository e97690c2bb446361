"""The decision log: entries as a table with a detail view, a filter, and a form that
appends a well-formed entry in the log's own format. Entries without a "why" are flagged."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Label, Static
from textual.worker import Worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.ui.widgets.record_table import FittedTable
from memtui.core.errors import MemtuiError, SaveConflict
from memtui.core.display import counted
from memtui.core.memory.decisions import Decision, add_decision, default_decision_log, read_decisions
from memtui.ui.commands import action_offered, bindings
from memtui.ui.screens.base import MemtuiModal, MemtuiScreen
from memtui.ui.text import safe_text, sanitize
from memtui.ui.workers import failure_reason
from memtui.resources import screen_css

NO_WHY = "⚠ no why"


class DecisionsScreen(MemtuiScreen[None]):
    """Decisions of the workspace's decision log, newest last, as the file has them."""

    CSS_PATH = screen_css("memory.tcss")

    COMMAND_SCOPE = "decisions"
    BINDINGS = bindings("decisions")

    class DecisionsLoaded(Message):
        """The log was parsed (posted from a worker)."""

        def __init__(self, path: Path, decisions: list[Decision]) -> None:
            super().__init__()
            self.path = path
            self.decisions = decisions

    def __init__(self, workspace: Path | str, log: Path | str | None = None) -> None:
        """`log`: the decision log to show (default: the workspace's, see default_decision_log)."""
        super().__init__()
        self.workspace = Path(workspace).resolve()
        self.log_path = Path(log) if log is not None else default_decision_log(self.workspace)
        self.decisions: list[Decision] = []
        self.only_missing_why = False

    def compose(self) -> ComposeResult:
        yield Static(id="decisions-title", markup=False)
        with Horizontal(id="decisions-body"):
            with Vertical(id="decisions-side"):
                yield Input(placeholder="filter decisions", id="decisions-filter")
                yield FittedTable(id="decisions-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="decisions-detail"):
                yield Static(id="decisions-entry")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("date", key="date", width=10)
        table.add_column("why", key="why", width=9)  # before the title: visible however long it is
        table.add_column("decision", key="title")
        self.query_one("#decisions-filter").display = False
        table.focus()
        self.refresh_data()

    def refresh_data(self) -> None:
        """Read the log again (the app calls this after any write)."""
        self.load_decisions()

    def worker_failed(self, worker: Worker) -> None:
        super().worker_failed(worker)
        if worker.group == "decisions":
            self.query_one("#decisions-title", Static).update(
                f"Cannot read {self._rel()}: {failure_reason(worker)}")

    @work(thread=True, exclusive=True, group="decisions", exit_on_error=False, description="read the decision log")
    def load_decisions(self) -> None:
        decisions = read_decisions(self.log_path) if self.log_path.is_file() else []
        self.post_message(self.DecisionsLoaded(self.log_path, decisions))

    @on(DecisionsLoaded)
    def _loaded(self, event: DecisionsLoaded) -> None:
        self.decisions = event.decisions
        self._fill()

    def _rel(self) -> str:
        try:
            return self.log_path.resolve().relative_to(self.workspace).as_posix()
        except ValueError:
            return str(self.log_path)

    def _fill(self) -> None:
        table = self.query_one(FittedTable)
        text = self.query_one("#decisions-filter", Input).value.strip().lower()
        table.clear()
        shown = 0
        for decision in self.decisions:
            if self.only_missing_why and not decision.missing_why:
                continue
            if text and text not in _haystack(decision):
                continue
            why = Content.from_markup("[b $warning]$flag", flag=NO_WHY) if decision.missing_why else "✓"
            table.add_row(safe_text(decision.date or ""), why, safe_text(decision.title or "(untitled)"), key=str(decision.index))
            shown += 1
        table.fit()  # the titles cut with … inside the pane
        missing = sum(d.missing_why for d in self.decisions)
        status = f"{self._rel()}  ·  {counted(len(self.decisions), 'decision')}"
        if missing:
            status += f"  ·  {missing} without a why"
        if shown != len(self.decisions):
            status += f"  ·  showing {shown}"
        if not self.log_path.is_file():  # `a` only where a decision can be added (not on a read-only source)
            status = (f"No decision log yet — `a` starts {self._rel()}"
                      if action_offered("add", (), self.COMMAND_SCOPE, self.app.source)  # type: ignore[attr-defined]
                      else f"No decision log ({self._rel()})")
        self.query_one("#decisions-title", Static).update(status)
        if shown:
            table.move_cursor(row=0)
            self._detail(self.decisions[int(table.coordinate_to_cell_key((0, 0)).row_key.value)])
        else:
            self.query_one("#decisions-entry", Static).update("")

    @on(DataTable.RowHighlighted, "#decisions-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._detail(self.decisions[int(event.row_key.value)])

    def _detail(self, decision: Decision) -> None:
        parts = [Content.from_markup("[b]$title", title=sanitize(decision.title or "(untitled)"))]
        parts.append(Content.from_markup("[$text-muted]$where", where=sanitize(f"{decision.date or 'undated'} · line {decision.line}")))
        for label, value in (("Problem", decision.problem), ("Options", decision.options),
                             ("Chosen", decision.chosen), ("Why", decision.why)):
            parts.append(Content(""))
            if label == "Why" and decision.missing_why:
                parts.append(Content.from_markup("[b $warning]Why: missing[/] — the next agent cannot tell "
                                                 "whether this still holds."))
            else:
                parts.append(Content.from_markup("[b]$label:[/] $value", label=label, value=sanitize(value or "—", multiline=True)))
        self.query_one("#decisions-entry", Static).update(Content("\n").join(parts))

    # ------------------------------------------------------------------ actions
    def action_filter(self) -> None:
        """Filter by any text of the entries."""
        box = self.query_one("#decisions-filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#decisions-filter")
    def _filter_changed(self) -> None:
        self._fill()

    @on(Input.Submitted, "#decisions-filter")
    def _filter_submitted(self) -> None:
        self.query_one(DataTable).focus()

    def action_toggle_missing_why(self) -> None:
        """Show only the entries that do not say why (or all again)."""
        self.only_missing_why = not self.only_missing_why
        self._fill()

    def action_back(self) -> None:
        box = self.query_one("#decisions-filter", Input)
        if box.display:
            box.value = ""
            box.display = False
            self.query_one(DataTable).focus()
            self._fill()
        elif len(self.app.screen_stack) > 1:
            self.dismiss()

    def action_add(self) -> None:
        """Append a decision through a form (the file's own format, the safe save)."""

        def added(fields: dict[str, str] | None) -> None:
            if not fields:
                return
            try:
                add_decision(self.workspace, self.log_path, **fields)
            except SaveConflict as exc:
                self.app.notify_error(f"{exc}; nothing was added — try again")
                return
            except (MemtuiError, OSError) as exc:
                self.app.notify_error(exc)
                return
            self.notify(f"Added “{fields['title']}” to {self._rel()}.", markup=False)
            self.refresh_data()
            self.app.refresh_data()  # the other screens (memory, search) read the log too

        self.app.push_screen(DecisionForm(), added)


class DecisionForm(MemtuiModal[dict[str, str] | None]):
    """Title, problem, options, chosen, why; dismisses with the fields or None."""

    CSS_PATH = screen_css("memory.tcss")

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "submit", "Add", priority=True),
    ]

    FIELDS = (("title", "Decision (title)"), ("problem", "Problem"), ("options", "Options considered"),
              ("chosen", "Chosen"), ("why", "Why"))

    _warned = False
    """Whether the form already said a decision without a why helps nobody (once per form)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="decision-form"):
            yield Static("Add a decision", id="decision-form-title")
            for key, label in self.FIELDS:
                yield Label(label)
                yield Input(id=f"decision-{key}")
            yield Static("", id="decision-form-hint", markup=False)
            with Horizontal(id="decision-buttons"):
                yield Button("Add", id="add", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "add":
            self.action_submit()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    def action_submit(self) -> None:
        values = {key: self.query_one(f"#decision-{key}", Input).value.strip() for key, _ in self.FIELDS}
        if not values["title"]:
            self.query_one("#decision-form-hint", Static).update("A title is needed.")
            self.query_one("#decision-title", Input).focus()
            return
        if not values["why"]:
            self.query_one("#decision-form-hint", Static).update(
                "Without a why, the next agent cannot judge the decision: add one (ctrl+s again adds anyway).")
            if not self._warned:
                self._warned = True
                self.query_one("#decision-why", Input).focus()
                return
        self.dismiss(values)


def _haystack(decision: Decision) -> str:
    return " ".join((decision.date or "", decision.title, decision.problem, decision.options,
                     decision.chosen, decision.why)).lower()
