"""Usage and cost (key `$`): what the open store's replies cost, by day, week, month, model or
project (and machine, on a team store); a bar per day; the costliest sessions (Enter goes to the session's costliest turn);
the models. Every figure from memtui.core.usage, as `memtui usage` prints it; the price
table and its date in the title."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import Worker

from memtui.core.memory_source import Capability
from memtui.core.usage import GROUPINGS, ORIGIN_GROUPINGS, Priced, Report, by_task, cost_text, kept_priced, price_table, summarise
from memtui.core.usage import unpriced_note
from memtui.resources import screen_css
from memtui.ui.commands import bindings
from memtui.ui.labels import kind_label
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.text import human_tokens, safe_text
from memtui.ui.widgets.key_footer import KeyFooter
from memtui.ui.widgets.record_table import FittedTable
from memtui.ui.widgets.usage_chart import UsageChart
from memtui.ui.workers import failure_reason

GROUPS = tuple(g for g in GROUPINGS if g != "session")
"""What `b` steps through, less ORIGIN_GROUPINGS where the sessions do not name their machine."""
TOP_SESSIONS = 20


@dataclass(frozen=True)
class UsageData:
    """What the screen shows, computed off the UI thread."""

    priced: list[Priced]
    days: Report
    sessions: Report
    models: Report
    costliest_task: dict[str, object]  # session key → its costliest turn's task id
    agents: dict[str, str]  # session key → the agent its source names (a merged home's, a team store's), if any


def usage_data(priced: list[Priced], agents: dict[str, str] | None = None) -> UsageData:
    """The reports the screen draws from one list of priced replies (`agents`: each session's
    agent, where the source names it)."""
    costliest: dict[str, object] = {}
    best: dict[str, float] = {}
    for task_id, group in by_task(priced).items():
        session = next(iter(group.sessions)).split("\0", 1)[1]
        cost = group.cost or 0.0
        if session not in best or cost > best[session]:
            best[session], costliest[session] = cost, task_id
    return UsageData(priced, summarise(priced, "day"), summarise(priced, "session"), summarise(priced, "model"),
                     costliest, agents or {})


class UsageScreen(MemtuiScreen[None]):
    """Tokens and cost of the open store, grouped, charted and ranked."""

    CSS_PATH = screen_css("usage.tcss")
    COMMAND_SCOPE = "usage"
    BINDINGS = bindings("usage")

    @dataclass
    class Loaded(Message):
        data: UsageData

    def __init__(self) -> None:
        super().__init__()
        self.data: UsageData | None = None
        self._groups_width = 0  # what the groups table needs to show every column
        self.grouping = "day"
        self.groups = tuple(g for g in GROUPS if g not in ORIGIN_GROUPINGS)
        self.busy = True

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Usage and cost · {price_table().label}"), id="usage-title")
        with Horizontal(id="usage-top"):
            with Vertical(id="usage-groups-pane", classes="usage-pane"):
                yield DataTable(id="usage-groups", cursor_type="row", zebra_stripes=False)
            with Vertical(id="usage-chart-pane", classes="usage-pane"):
                yield UsageChart(id="usage-chart")
        with Horizontal(id="usage-bottom"):
            with Vertical(id="usage-sessions-pane", classes="usage-pane"):
                yield FittedTable(id="usage-sessions", cursor_type="row")
            with Vertical(id="usage-models-pane", classes="usage-pane"):
                yield FittedTable(id="usage-models", cursor_type="row")
        yield Static("", id="usage-note")
        yield KeyFooter()

    def on_mount(self) -> None:
        if self.app.source is not None and self.app.source.can(Capability.ORIGIN):
            self.groups = GROUPS  # a team store's sessions name their machine
        self._titles()
        self.query_one("#usage-sessions-pane").border_title = "Costliest sessions (enter: go to it)"
        self.query_one("#usage-models-pane").border_title = "Models"
        self.query_one("#usage-note", Static).update(Text("reading every reply's tokens…"))
        self.query_one("#usage-sessions", DataTable).focus()
        self.refresh_data()

    def _titles(self) -> None:
        following = self.groups[(self.groups.index(self.grouping) + 1) % len(self.groups)]
        self.query_one("#usage-groups-pane").border_title = f"By {self.grouping} (b: by {following})"
        chart = self.query_one(UsageChart)
        self.query_one("#usage-chart-pane").border_title = ("Tokens per day (t: cost)" if chart.show_tokens
                                                            else "Cost per day (t: tokens)")

    # ------------------------------------------------------------------ loading
    def refresh_data(self) -> None:
        self.load_usage()

    def worker_failed(self, worker: Worker) -> None:
        super().worker_failed(worker)
        self.busy = False
        self.query_one("#usage-note", Static).update(safe_text(f"Cannot read the usage: {failure_reason(worker)}"))

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False, description="read token usage")
    def load_usage(self) -> None:
        with self.app.reading() as source:
            priced = kept_priced(source).items  # sessions unchanged since the last report: their kept rows
            agents = {str(s.id): s.agent for s in source.sessions() if s.agent}  # `memtui ~`: whose each is
        self.post_message(self.Loaded(usage_data(priced, agents)))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        self.data = data = event.data
        self._show_groups()
        self.query_one(UsageChart).show(data.days.rows)
        sessions = self.query_one("#usage-sessions", FittedTable)
        sessions.clear(columns=True)
        several = len(set(data.agents.values())) > 1  # the same prompt may have run in several agents
        sessions.add_columns("Cost", "Tokens", *(("Agent",) if several else ()), "Session")
        for row in data.sessions.rows[:TOP_SESSIONS]:
            agent = (safe_text(kind_label(data.agents.get(row.key, ""))),) if several else ()
            sessions.add_row(_right(cost_text(row.cost, row.unpriced)), _right(human_tokens(row.tokens.total)), *agent,
                             safe_text(" ".join((row.title or row.key).split())), key=row.key)
        models = self.query_one("#usage-models", FittedTable)
        models.clear(columns=True)
        models.add_columns("Cost", "Tokens", "Model")
        for row in data.models.rows:
            models.add_row(_right(cost_text(row.cost, row.unpriced)), _right(human_tokens(row.tokens.total)),
                           safe_text(row.key), key=row.key)
        sessions.fit()  # titles and model names cut with … inside their panes
        models.fit()
        total = data.days.total
        note = f"total {cost_text(total.cost, total.unpriced)} · {human_tokens(total.tokens.total)} tokens"
        missing = unpriced_note(total.unpriced)
        self.query_one("#usage-note", Static).update(safe_text(note + (f" · {missing}" if missing else "")))
        self.busy = False

    def _show_groups(self) -> None:
        """The groups table; where its pane is too narrow for every column, without the two cache
        columns (the pane says so) rather than with a sideways scrollbar."""
        if self.data is None:
            return
        report = summarise(self.data.priced, self.grouping)
        labels = [self.grouping.capitalize(), "Cost", "Input", "Output", "Cache read", "Cache write"]
        rows = [[" ".join(row.key.split()), cost_text(row.cost, row.unpriced),
                 *(human_tokens(n) for n in (row.tokens.input, row.tokens.output, row.tokens.cache_read,
                                             row.tokens.cache_write))] for row in report.rows]
        table = self.query_one("#usage-groups", DataTable)
        widths = [max(cell_len(cell) for cell in column) + 2 * table.cell_padding for column in zip(labels, *rows)]
        self._groups_width = sum(widths)
        compact = self._groups_compact(table)
        shown, cursor = (4 if compact else 6), table.cursor_row
        table.clear(columns=True)
        for label, width in zip(labels[:shown], widths):  # sized now: auto widths follow the rows a frame later
            table.add_column(label, width=width - 2 * table.cell_padding)
        for row, cells in zip(report.rows, rows):
            table.add_row(safe_text(cells[0]), *(_right(cell) for cell in cells[1:shown]), key=row.key)
        table.move_cursor(row=cursor)
        self.query_one("#usage-groups-pane").border_subtitle = ("cache columns: widen to see"
                                                                if compact else "")
        self._titles()

    def _groups_compact(self, table: DataTable) -> bool:
        """Whether the groups pane is too narrow for every column."""
        return self._groups_width > table.scrollable_content_region.width

    def on_resize(self) -> None:
        self.call_after_refresh(self._refit_groups)

    def _refit_groups(self) -> None:
        """Show the groups again only where the cache columns now fit, or no longer do."""
        table = self.query_one("#usage-groups", DataTable)
        if self.data is not None and self._groups_compact(table) != (len(table.columns) == 4):
            self._show_groups()

    # ------------------------------------------------------------------ actions
    def action_next_grouping(self) -> None:
        self.grouping = self.groups[(self.groups.index(self.grouping) + 1) % len(self.groups)]
        self._show_groups()

    def action_toggle_tokens(self) -> None:
        chart = self.query_one(UsageChart)
        chart.show_tokens = not chart.show_tokens
        self._titles()

    def action_close(self) -> None:
        self.dismiss()

    @on(DataTable.RowSelected, "#usage-sessions")
    def _go_to_session(self, event: DataTable.RowSelected) -> None:
        if self.data is None or event.row_key.value is None:
            return
        task_id = self.data.costliest_task.get(event.row_key.value)
        self.dismiss()
        from memtui.ui.screens.main import MainScreen

        if task_id is not None and isinstance(self.app.screen, MainScreen):
            self.app.screen.show_task(task_id)


def _right(text: str) -> Text:
    return Text(text, justify="right")
