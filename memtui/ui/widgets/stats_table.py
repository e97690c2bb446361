"""The tables and indexes of the statistics screen: rows, bytes and share of the file each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from rich.text import Text

from memtui.core.stats import DbStats
from memtui.core.display import percent
from memtui.ui.text import EndKept, human_bytes, safe_text
from memtui.ui.widgets.record_table import RecordTable


@dataclass(frozen=True)
class SpaceRow:
    """One table, index or the freelist, as the list shows it."""

    key: str
    name: str
    kind: str  # "table", "index" or "free"
    bytes: int | None
    rows: int | None = None
    table: str = ""


def space_rows(stats: DbStats) -> list[SpaceRow]:
    """Tables, then indexes, then the freelist when it holds pages."""
    rows = [SpaceRow(f"t:{t.name}", t.name, "table", t.bytes, t.rows) for t in stats.tables]
    rows += [SpaceRow(f"i:{i.name}", i.name, "index", i.bytes, table=i.table) for i in stats.indexes]
    if stats.freelist_count:
        rows.append(SpaceRow("freelist", "(freelist)", "free", stats.freelist_bytes))
    return rows


class StatsTable(RecordTable[SpaceRow]):
    """Name, rows, bytes, share, kind and (for an index) its table. The figures have fixed
    widths; on a narrow terminal the index's table is left out first (index names carry it), then
    the kind and the share (the bytes stay): the name keeps room to tell tables apart."""

    COLUMNS = (
        ("name", "name", None),
        ("rows", "rows", 4),
        ("bytes", "bytes", 8),
        ("share", "share", 5),
        ("kind", "kind", 5),
        ("table", "table", None),
    )
    FLEX = {"name": 2.0, "table": 1.0}
    RIGHT = frozenset({"rows", "bytes", "share"})
    SHED = ("table", "kind", "share")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.zebra_stripes = True
        self.total = 1
        """The file's bytes (page count × page size): what a share is of."""

    def show(self, stats: DbStats) -> None:
        """List the statistics' tables and indexes; the figures' columns are as wide as their
        widest value, so the name gets the rest."""
        self.total = max(1, stats.page_count * stats.page_size)
        records = space_rows(stats)
        keep = self.current_key()
        widest: dict[str, int] = {}
        for record in records:
            for (key, label, _), cell in zip(self.COLUMNS, self.row_cells(record)):
                if key in self.RIGHT:
                    widest[key] = max(widest.get(key, len(label)), cell.cell_len)
        columns = tuple((key, label, widest.get(key, width)) for key, label, width in self.COLUMNS)
        if columns != self.COLUMNS:
            self.COLUMNS = columns
            self.clear(columns=True)
            self._add_columns()
        self.set_records(records)
        if keep is not None:
            self.select_key(keep)
        self._fit_columns()

    def row_key(self, record: SpaceRow) -> str:
        return record.key

    def filter_key(self, record: SpaceRow) -> str:
        return record.name

    def row_cells(self, record: SpaceRow) -> Iterable[Any]:
        share = percent(record.bytes / self.total) if record.bytes is not None else "—"
        return (
            EndKept(safe_text(record.name), middle=True),  # both a name's table and its kind stay
            self.number(f"{record.rows:,}" if record.rows is not None else ""),
            self.number(human_bytes(record.bytes)),
            self.number(share),
            Text(record.kind),
            safe_text(record.table),
        )
