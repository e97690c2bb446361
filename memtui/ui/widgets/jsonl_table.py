"""A JSONL document as a table of records, with malformed lines reported, not fatal.

Keys and values are the agent's text: shown literally (DataTable would read a str as markup,
and an ESC in it would reach the terminal)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from memtui.core.display import counted
from memtui.core.memory.documents import JsonlDocument, record_text
from memtui.ui.text import safe_text

CELL_WIDTH = 60


class JsonlTable(Vertical):
    """One row per well-formed record (its line number first); a notice above the table
    lists the malformed lines that were skipped."""

    DEFAULT_CSS = """
    JsonlTable { height: 1fr; }
    JsonlTable > #jsonl-problems { color: $warning; height: auto; padding: 0 1; }
    JsonlTable > #jsonl-problems.-clean { display: none; }
    JsonlTable > DataTable { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="jsonl-problems", classes="-clean", markup=False)
        yield DataTable(id="jsonl-records", cursor_type="row", zebra_stripes=True)

    def show(self, parsed: JsonlDocument) -> None:
        """Fill the table from `parsed`."""
        table = self.query_one(DataTable)
        table.clear(columns=True)
        columns = parsed.columns()
        table.add_column("line", key="line")
        for column in columns:
            table.add_column(safe_text(column), key=f"c:{column}")
        if not columns:
            table.add_column("record", key="record")
        for record in parsed.records:
            value = record.value
            if columns and isinstance(value, dict):
                cells = [_cell(value.get(c, "")) for c in columns]
            elif columns:
                cells = [_cell(value)] + [""] * (len(columns) - 1)
            else:
                cells = [_cell(value)]
            table.add_row(str(record.line), *map(safe_text, cells), key=str(record.line))
        notice = self.query_one("#jsonl-problems", Static)
        if parsed.problems:
            lines = ", ".join(str(p.line) for p in parsed.problems[:20])
            more = "…" if len(parsed.problems) > 20 else ""
            notice.update(f"⚠ {counted(len(parsed.problems), 'malformed line')} skipped: {lines}{more}")
            notice.remove_class("-clean")
        else:
            notice.update("")
            notice.add_class("-clean")

    def go_to_line(self, line: int) -> None:
        """Move the cursor to the record on `line` (or the nearest after it)."""
        table = self.query_one(DataTable)
        for index, row_key in enumerate(table.rows):
            if int(row_key.value) >= line:
                table.move_cursor(row=index)
                return


def _cell(value) -> str:
    text = " ".join(record_text(value).split())
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…"
