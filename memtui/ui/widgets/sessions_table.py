"""The sessions list: newest activity first, with an "Orphans" row for session-less tasks; an
Agent column when the sessions come from several agents (`memtui ~`: SessionInfo.origin).

On a source whose sessions name the machine they came from (a team store: Capability.ORIGIN)
it has a Machine and an Agent column, and its filter takes `machine:NAME` and `agent:KIND`
words, which match those exactly (`/machine:laptop fix`: laptop's sessions with "fix" in them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, ClassVar, Iterable, Sequence

from rich.text import Text

from memtui.core.display import counted
from memtui.core.model import SESSION_STATUSES, Id, SessionInfo
from memtui.core.team.origin_words import ORIGIN_FIELDS, split_origin_words
from memtui.ui.text import Fitting, human_bytes, relative_time, safe_text
from memtui.ui.widgets.record_table import RecordTable

ORPHANS_KEY = "orphans"


@dataclass(frozen=True)
class OrphansRow:
    """The pseudo-session of tasks whose session was deleted."""

    count: int
    id: str = ORPHANS_KEY
    title: str = "Orphans (tasks without a session)"
    short_titles: tuple[str, ...] = ("Orphans (no session)", "Orphans")
    """What a narrower title column shows instead of cutting the title."""




class SessionsTable(RecordTable[SessionInfo | OrphansRow]):
    """Sessions: title, (machine, agent,) status, current task, tasks, stored bytes, last activity."""

    COLUMNS: Sequence[tuple[str, str, int | None]] = (
        ("title", "Session", None),
        ("machine", "Machine", 10),
        ("agent", "Agent", 11),  # "claude-code"
        ("status", "Status", max(len(word) for word in SESSION_STATUSES)),  # "archived", not "archiv…"
        ("current", "Current task", None),
        ("tasks", "Tasks", 5),
        ("cost", "Cost", 7),
        ("bytes", "Stored", 8),
        ("activity", "Activity", 10),
    )
    FLEX = {"title": 3.0, "current": 2.0}
    SHED: Sequence[str] = ("current", "bytes", "cost")  # narrow: the tasks pane names the current task; cost is on the usage screen
    SHED_ORIGIN = ("current", "bytes", "cost", "agent", "status")
    """Narrow, on a team store: the machine stays, in the place of the status (pushed sessions'
    is mostly "unknown" or "closed")."""
    SHED_AGENTS = ("current", "bytes", "cost", "status")
    """Narrow, on every agent's sessions (`memtui ~`): the agent stays, in the place of the status
    (mostly "unknown": Claude Code, Codex and Gemini CLI record no end of a session)."""
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
        self.origin = False
        """Whether the sessions name their machine and agent (both columns are shown)."""
        self.agents = False
        """Whether the sessions name their agent (the Agent column is shown)."""
        self.COLUMNS = self._columns()
        self._shown = tuple(key for key, _, _ in self.COLUMNS)

    def _columns(self) -> tuple[tuple[str, str, int | None], ...]:
        self.SHED = self.SHED_ORIGIN if self.origin else self.SHED_AGENTS if self.agents else type(self).SHED
        hidden = set() if self.origin else {"machine"} if self.agents else set(ORIGIN_FIELDS)
        return tuple(c for c in type(self).COLUMNS if c[0] not in hidden)

    @property
    def shows_agents(self) -> bool:
        """Whether the Agent column is shown (the sessions name their agent)."""
        return self.origin or self.agents

    def show_origin(self, origin: bool, agents: bool | None = None) -> None:
        """Show (or leave out) the Machine and Agent columns (`origin`: the open source's sessions
        name the machine they came from), or the Agent column alone (`agents`)."""
        agents = self.agents if agents is None else agents
        if (origin, agents) == (self.origin, self.agents):
            return
        self.origin, self.agents = origin, agents
        self.COLUMNS = self._columns()
        self._shown = tuple(key for key, _, _ in self.COLUMNS)
        if self.columns:  # mounted: the columns anew, and the rows if there are any
            keep = self.current_key()
            self.clear(columns=True)
            self._add_columns()
            self._fit_columns()
            if self.records and self.size.width:
                self._rebuild(keep)

    def origins(self, field: str) -> list[str]:
        """The machines (`field` "machine") or agents ("agent") of the listed sessions, sorted."""
        return sorted({value for r in self.records if isinstance(r, SessionInfo) and (value := _origin_part(r, field))},
                      key=str.lower)

    def origin_filter(self, field: str) -> str:
        """The value of the filter's `machine:`/`agent:` word ("" without one)."""
        return split_origin_words(self.filter_text)[0].get(field, "")

    def matches(self, record: SessionInfo | OrphansRow, needle: str) -> bool:
        """The filter's text is looked for in the title (and the origin); each `machine:NAME` or
        `agent:KIND` word matches the session's own exactly (case-insensitive; a name with spaces
        in quotes: `machine:"Ana's laptop"`)."""
        if not self.origin:
            return super().matches(record, needle)
        words, text = split_origin_words(needle)
        for name, value in words.items():
            if not isinstance(record, SessionInfo) or _origin_part(record, name).lower() != value.lower():
                return False
        return not text or text in self.filter_key(record).lower()

    def filter_key(self, record: SessionInfo | OrphansRow) -> str:
        """The title, and the origin where shown: `/gemini` lists Gemini CLI's sessions."""
        origin = record.origin if isinstance(record, SessionInfo) else ""
        return f"{record.title}\t{origin}" if origin else record.title

    def show_part(self, sessions: list[SessionInfo], titles: dict[Id, str], orphans: int, offset: int,
                  complete: bool, keep_cursor: bool) -> str:
        """Show the first page of sessions (`offset` 0: replaces the list) or the rest after it;
        the Orphans row comes last, with the last part. Returns the pane's count line."""
        tail: list[OrphansRow] = [OrphansRow(orphans)] if complete and orphans else []
        named = any(s.origin for s in sessions)
        if not self.shows_agents and named:
            self.show_origin(self.origin, agents=True)
        elif self.agents and sessions and not offset and not named:  # another source: one agent's
            self.show_origin(self.origin, agents=False)
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
        cells = self._cells(record)
        return [cells[key] for key, _, _ in self.COLUMNS]

    def _cells(self, record: SessionInfo | OrphansRow) -> dict[str, Any]:
        if isinstance(record, OrphansRow):
            style = self.get_component_rich_style("sessions-table--orphans", partial=True)
            title = Fitting(*(Text(t, style=style) for t in (record.title, *record.short_titles)))
            return {"title": title, "machine": Text(""), "agent": Text(""), "status": Text("—"), "current": Text(""),
                    "tasks": self.number(record.count), "cost": self.number(self.costs.get(ORPHANS_KEY, "")),
                    "bytes": Text(""), "activity": Text("")}
        status_style = self.get_component_rich_style(
            "sessions-table--open" if record.status == "open" else "sessions-table--closed", partial=True)
        current = self.current_titles.get(record.current_task_id, "") if record.current_task_id else ""
        return {
            "title": safe_text(record.title),
            "machine": safe_text(record.machine),
            "agent": safe_text(record.agent),
            "status": safe_text(record.status, style=status_style),
            "current": safe_text(current),
            "tasks": self.number(record.task_count),
            "cost": self.number(self.costs.get(str(record.id), "")),
            "bytes": self.number(human_bytes(record.stored_bytes)),
            "activity": Text(relative_time(record.updated_at, self.now())),
        }


def _origin_part(session: SessionInfo, field: str) -> str:
    """The session's machine (`field` "machine") or agent ("agent")."""
    return session.machine if field == "machine" else session.agent
