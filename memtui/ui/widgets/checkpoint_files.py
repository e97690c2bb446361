"""The changed files of a checkpoint: added / modified / deleted, with +/- line counts; a file
the checkpoint lists whose before and after are the same bytes reads "unchanged"."""

from __future__ import annotations

from typing import Any, ClassVar, Iterable

from rich.text import Text

from memtui.core.model import Id, EntryInfo
from memtui.ui.pane_reads import LineCounts
from memtui.ui.text import EndKept, human_bytes, safe_text
from memtui.ui.widgets.record_table import RecordTable

KIND_MARKS = {"added": ("A", "checkpoint-files--added"), "modified": ("M", "checkpoint-files--modified"),
              "deleted": ("D", "checkpoint-files--deleted")}
UNCHANGED = "unchanged"
"""Said after the path of a file whose before and after are the same (no mark, no counts)."""


class CheckpointFiles(RecordTable[EntryInfo]):
    """One row per file the checkpoint changed."""

    COLUMNS = (
        ("kind", "", 1),
        ("path", "File", None),
        ("added", "+", 5),
        ("removed", "-", 5),
        ("size", "Size", 7),
    )
    RIGHT = frozenset({"added", "removed", "size"})
    SHED = ("size",)  # narrow: the path before the size
    COMPONENT_CLASSES: ClassVar[set[str]] = RecordTable.COMPONENT_CLASSES | {
        "checkpoint-files--added",
        "checkpoint-files--modified",
        "checkpoint-files--deleted",
        "checkpoint-files--unchanged",
    }
    """
    | Class | Description |
    | :- | :- |
    | `checkpoint-files--added` | Mark and counts of added lines/files. |
    | `checkpoint-files--modified` | Mark of a modified file. |
    | `checkpoint-files--deleted` | Mark and counts of removed lines/files. |
    | `checkpoint-files--unchanged` | "unchanged" after a file whose before and after are the same. |
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.stats: dict[Id, LineCounts | None] = {}

    def filter_key(self, record: EntryInfo) -> str:
        return record.path

    def show_entries(self, entries: list[EntryInfo], stats: dict[Id, LineCounts | None]) -> None:
        self.stats = dict(stats)
        self.set_records(entries)

    def update_stats(self, stats: dict[Id, LineCounts | None]) -> None:
        """Fill in +/- counts computed after the list was shown."""
        self.stats.update(stats)
        self.set_records(self.records, keep_cursor=True)

    def row_cells(self, record: EntryInfo) -> Iterable[Any]:
        mark, component = KIND_MARKS.get(record.kind, ("?", "checkpoint-files--modified"))
        added_style = self.get_component_rich_style("checkpoint-files--added", partial=True)
        removed_style = self.get_component_rich_style("checkpoint-files--deleted", partial=True)
        stat = self.stats.get(record.id)
        size = record.after_size if record.after_size is not None else record.before_size
        if stat is not None and stat.unchanged:  # listed, not changed: no mark, no +0 -0
            path = safe_text(record.path)
            path.append(f"  {UNCHANGED}", style=self.get_component_rich_style("checkpoint-files--unchanged", partial=True))
            return (Text(""), EndKept(path), Text(""), Text(""), self.number(human_bytes(size)))
        return (
            Text(mark, style=self.get_component_rich_style(component, partial=True)),
            EndKept(safe_text(record.path)),  # the file's name, not its folders, stays in view
            Text(f"+{stat[0]}" if stat else "", style=added_style, justify="right"),
            Text(f"-{stat[1]}" if stat else "", style=removed_style, justify="right"),
            self.number(human_bytes(size)),
        )
