"""The stores the source switcher found: kind, counts, problems and path, one row each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from rich.text import Text

from memtui.ui.labels import counts_line, kind_label, kind_labels, shown_path
from memtui.ui.text import EndKept, Fitting, safe_text
from memtui.ui.widgets.record_table import RecordTable


@dataclass(frozen=True)
class SourceRow:
    """What the switcher shows of one source (computed in the worker)."""

    source: Any
    counts: dict[str, int]
    problems: int
    notes: tuple[str, ...] = ()
    """The first problems as lines ("file:line: message"), shown under the table."""


def counts_cell(counts: dict[str, int]) -> Fitting:
    """The counts as the room allows: whole counts, the last ones left out first ("sessions 10
    · tasks 18 · steps 255 · checkpoints 26", not "… · entries…")."""
    items = list(counts.items())
    forms = [safe_text(counts_line(dict(items[:n]), 200)) for n in range(len(items), 0, -1)]
    return Fitting(*forms) if forms else Fitting(safe_text(""))


class SourcesTable(RecordTable[SourceRow]):
    """One row per source; the one shown now is marked ●. The counts and the path share
    what the kind and the problems leave, so "Problems" stays whole on a narrow terminal; a
    path too long for its column loses its start, not the end that tells it apart."""

    COLUMNS = (
        ("here", "", 1),
        ("kind", "Kind", max(len(label) for label in kind_labels().values())),
        ("counts", "Counts", None),
        ("problems", "Problems", 8),
        ("path", "Path", None),
    )
    FLEX = {"counts": 3.0, "path": 2.0}
    RIGHT = frozenset({"problems"})

    def __init__(self, opened: Path, current: tuple[str, str] | None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.opened = opened
        self.current = current

    def is_current(self, row: SourceRow) -> bool:
        return self.current == (row.source.kind, str(row.source.path))

    def row_key(self, record: SourceRow) -> str:
        return f"{record.source.kind}:{record.source.path}"

    def filter_key(self, record: SourceRow) -> str:
        return f"{kind_label(record.source.kind)} {record.source.path}"

    def row_cells(self, record: SourceRow) -> Iterable[Any]:
        source = record.source
        return (
            Text("●" if self.is_current(record) else " ", style="bold"),
            Text(kind_label(source.kind), style="bold"),
            counts_cell(record.counts),
            Text(str(record.problems) if record.problems else "—", style="bold" if record.problems else "dim",
                 justify="right"),
            EndKept(safe_text(shown_path(source.path, self.opened))),
        )
