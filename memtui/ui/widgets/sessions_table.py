"""The sessions list: newest activity first, with an "Orphans" row for session-less tasks; an
Agent column when the sessions come from several agents (`memtui ~`: SessionInfo.origin)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, ClassVar, Iterable

from rich.text import Text

from memtui.core.display import counted
from memtui.core.model import SESSION_STATUSES, Id, SessionInfo
from memtui.ui.text import Fitting, human_bytes, relative_time, safe_text
from memtui.ui.widgets.record_table import RecordTable

ORPHANS_KEY = "orphans"
AGENT_COLUMN = ("agent", "Agent", 11)
"""Shown after the title when the sessions name where they come from (their `origin`)."""


@dataclass(frozen=True)
class OrphansRow:
    """The pseudo-session of tasks whose session was deleted."""

    count: int
    id: str = ORPHANS_KEY
    title: str = "Orphans (tasks without a session)"
    short_titles: tuple[str, ...] = ("Orphans (no session)", "Orphans")
    """What a narrower title column shows instead of cutting the title."""


class SessionsTable(RecordTable[SessionInfo | OrphansRow]):
    """Sessions: title, status, current task, tasks, stored bytes, last activity."""

    COLUMNS: tuple[tuple[str, str, int | None], ...] = (
        ("title", "Session", None),
        ("status", "Status", max(len(word) for word in SESSION_STATUSES)),  # "archived", not "archiv…"
        ("current", "Current task", None),
        ("tasks", "Tasks", 5),
        ("cost", "Cost", 7),
        ("bytes", "Stored", 8),
        ("activity", "Activity", 10),
    )
    FLEX = {"title": 3.0, "current": 2.0}
    SHED = ("current", "bytes", "cost")  # narrow: the tasks pane names the current task; cost is on the usage screen
    RIGHT = frozenset({"tasks", "cost", "bytes"})
    COMPONENT_CLASSES: ClassVar[set[str]] = RecordTable.COMPONENT_CLASSES | {
        "sessions-table--open",
        "sessions-table--closed",
        "sessions-table--orphans",
    }
    """
    | Class | Description |
    | :- | :- |
    | `sessions-table--open` | The status of an open session. |
    | `sessions-table--closed` | The status of a closed session. |
    | `sessions-table--orphans` | The Orphans pseudo-session row. |
    """

    def __init__(self, *, now: Callable[[], datetime] | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.now = now or (lambda: datetime.now(timezone.utc))
        self.current_titles: dict[Id, str] = {}
        self._wanted: str | None = None
        self.costs: dict[str, str] = {}
        """Each session's cost as shown ("$1.23", "—"), by row key, as the screen's worker priced them."""
        """The session selected before a reload when it was not on the first page."""

    def show_part(self, sessions: list[SessionInfo], titles: dict[Id, str], orphans: int, offset: int,
                  complete: bool, keep_cursor: bool) -> str:
        """Show the first page of sessions (`offset` 0: replaces the list) or the rest after it;
        the Orphans row comes last, with the last part. Returns the pane's count line."""
        tail: list[OrphansRow] = [OrphansRow(orphans)] if complete and orphans else []
        if not self.shows_agents and any(s.origin for s in sessions):
            self._show_agents()
        if offset:
            self.current_titles = {**self.current_titles, **titles}
            shown = {self.row_key(r) for r in self.records}  # a session may have moved up meanwhile
            self.extend_records([s for s in sessions if self.row_key(s) not in shown] + tail)
            if self._wanted is not None and self.cursor_row == 0 and self.select_key(self._wanted):
                self._wanted = None
        else:
            self.current_titles = titles
            previous = self.current_key() if keep_cursor else None
            self.set_records([*sessions, *tail], keep_cursor=keep_cursor)
            self._wanted = previous if previous is not None and self.current_key() != previous else None
        listed = sum(1 for r in self.records if isinstance(r, SessionInfo))
        return f"{listed:,}{'' if complete else '…'}" + (f" + {counted(orphans, 'orphan')}" if orphans else "")

    @property
    def shows_agents(self) -> bool:
        """Whether the Agent column is shown (the sessions name their agent)."""
        return AGENT_COLUMN in self.COLUMNS

    def _show_agents(self) -> None:
        self.COLUMNS = (self.COLUMNS[0], AGENT_COLUMN, *self.COLUMNS[1:])
        self._shown = (self._shown[0], AGENT_COLUMN[0], *self._shown[1:])
        if self.columns:  # already mounted: the columns anew (rows follow from show_part)
            self.clear(columns=True)
            self._add_columns()
            self._fit_columns()

    def filter_key(self, record: SessionInfo | OrphansRow) -> str:
        """The title, and the agent where shown: `/gemini` lists Gemini CLI's sessions."""
        origin = record.origin if isinstance(record, SessionInfo) else ""
        return f"{record.title}\t{origin}" if origin else record.title

    def show_costs(self, costs: dict[str, str]) -> None:
        """Fill the Cost column of these sessions (row key → "$1.23"); rows not drawn yet get
        theirs when they are."""
        self.costs.update(costs)
        if "cost" not in self._shown:
            return
        for key, text in costs.items():
            if key in self.rows:
                self.update_cell(key, "cost", self.number(text))

    def row_key(self, record: SessionInfo | OrphansRow) -> str:
        return str(record.id) if isinstance(record, SessionInfo) else ORPHANS_KEY

    def row_cells(self, record: SessionInfo | OrphansRow) -> Iterable[Any]:
        agent = [safe_text(record.origin if isinstance(record, SessionInfo) else "")] if self.shows_agents else []
        if isinstance(record, OrphansRow):
            style = self.get_component_rich_style("sessions-table--orphans", partial=True)
            title = Fitting(*(Text(t, style=style) for t in (record.title, *record.short_titles)))
            return (title, *agent, Text("—"), Text(""), self.number(record.count),
                    self.number(self.costs.get(ORPHANS_KEY, "")), Text(""), Text(""))
        status_style = self.get_component_rich_style(
            "sessions-table--open" if record.status == "open" else "sessions-table--closed", partial=True)
        current = self.current_titles.get(record.current_task_id, "") if record.current_task_id else ""
        return (
            safe_text(record.title),
            *agent,
            safe_text(record.status, style=status_style),
            safe_text(current),
            self.number(record.task_count),
            self.number(self.costs.get(str(record.id), "")),
            self.number(human_bytes(record.stored_bytes)),
            Text(relative_time(record.updated_at, self.now())),
        )
