"""A DataTable over a list of records, filled in pages and filterable.

Subclasses say how a record becomes a row (`row_cells`, `row_key`) and what a filter
matches (`filter_key`). Rows are added a page at a time as the cursor nears the end, so a
list of tens of thousands of records costs one page up front; `more_available` lets a
subclass fetch further pages from the store (the step timeline does).
"""

from __future__ import annotations

from typing import Any, Generic, Iterable, Sequence, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from memtui.ui.widgets.render_pass import StylesPerPass

R = TypeVar("R")

PAGE = 200
"""Rows added at a time."""
PREFETCH = 40
"""Add the next page when the cursor comes this close to the last row."""
_NOTHING = object()
FIRST_PAGE = 60
"""Rows added when a list is filled anew (a new task's steps at each cursor move): what a tall
terminal shows and the prefetch distance; the next page follows as the cursor goes down."""


def fit_last_column(table: DataTable) -> None:
    """Give a plain DataTable's last column (a title, a name) what the columns before it leave
    of the table's width, so a long cell is cut with `…` inside the table rather than running
    past its edge behind a sideways scrollbar.

    The columns before it are measured here from their cells: the table measures new rows only
    when it next goes idle, so its own widths may still be the headers' alone."""
    columns = list(table.columns.values())
    if not columns or not table.size.width:
        return
    before = sum(_shown_width(table, column) for column in columns[:-1])
    width = max(8, table.scrollable_content_region.width - before - 2 * table.cell_padding)
    last = columns[-1]
    if last.width != width or last.auto_width:
        last.width, last.auto_width = width, False
        table.virtual_size = Size(before + width + 2 * table.cell_padding, table.virtual_size.height)
        table.notify_style_update()  # rows are cached drawn at the old width: redraw them


def _shown_width(table: DataTable, column: Any) -> int:
    if column.auto_width:
        cells = (cell.cell_len if isinstance(cell, Text) else cell_len(str(cell))
                 for cell in table.get_column(column.key))
        column.content_width = max(column.content_width, column.label.cell_len, *cells)
    return column.get_render_width(table)


class FittedTable(DataTable):
    """A plain DataTable whose last column fits the table (`fit_last_column`) whenever the
    table's width or its vertical scrollbar changes, and after rows are added (`fit`)."""

    def fit(self) -> None:
        """Fit once laid out (call after adding or clearing rows)."""
        self.call_after_refresh(fit_last_column, self)

    def on_resize(self) -> None:
        fit_last_column(self)

    def watch_show_vertical_scrollbar(self) -> None:
        self.fit()


class RecordTable(StylesPerPass, DataTable, Generic[R]):
    """Rows from records; paged; `/`-filterable (`filter_text`)."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("home", "first_row", "First", show=False),
        Binding("end", "last_row", "Last", show=False),
    ]

    COLUMNS: Sequence[tuple[str, str, int | None]] = ()
    """(key, label, width) of each column; the columns with width None share the rest."""
    FLEX: dict[str, float] = {}
    """Shares of the rest by flexible column (default 1 each): titles get more than ids."""
    RIGHT: frozenset[str] = frozenset()
    """Keys of the columns whose cells are right-aligned numbers (their labels align too)."""
    SHED: Sequence[str] = ()
    """Columns left out, in this order, while the first flexible column (the title or the
    path) would get fewer than MIN_FLEX characters: on a narrow terminal the title stays
    readable instead of every column being cut."""
    MIN_FLEX = 20

    class NothingMatches(Message):
        """The filter leaves none of the records listed: no row is highlighted, so what the
        cursor's record fed (the panes below) is no longer that of a listed record."""

        def __init__(self, table: RecordTable) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> RecordTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=False)
        self.records: list[R] = []
        """Every record given, in display order."""
        self.matching: list[R] = []
        """The records that pass the filter."""
        self.filter_text = ""
        """The current filter ("" shows everything)."""
        self._added = 0
        self._said_none = False  # NothingMatches was posted for the records and filter shown
        self._page_pending = False
        self._shown = tuple(key for key, _, _ in self.COLUMNS)
        self._waiting: object = _NOTHING
        """Records given before the table was laid out wait for its width: the key to keep."""
        self._expected_width: int | None = None
        """The width the first layout will give the rows (`expect_width`), until it has."""

    def on_mount(self) -> None:
        self._add_columns()
        # Cells carry styles resolved from the theme (component classes): rebuild on a switch.
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: object) -> None:
        self.call_after_refresh(self.set_records, self.records, True)

    def on_resize(self) -> None:
        self.refit()

    def refit(self) -> None:
        """Fit the columns to the width the table has now, and add the rows that waited for it
        (on a resize; and when a hidden pane holding the table is shown again, which a real
        terminal's layout does not always follow with a Resize)."""
        self._expected_width = None
        self._fit_columns()
        self._add_waiting_rows()

    def expect_width(self, width: int) -> None:
        """Before the first layout: the rows' width it will give (`scrollable_content_region`
        width, as an earlier run measured it at this terminal size). Records given until then
        are added at once, fitted to it, so the first frame draws them; the layout refits them
        (to the same widths when the guess was right: nothing to redraw)."""
        if not self.size.width and width > 0:
            self._expected_width = width

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        # Rows arriving change the virtual size, not the size: no Resize comes when the
        # scrollbar appears or goes, so refit here (else the width depends on load order).
        self.call_after_refresh(self._fit_columns)

    def _add_columns(self) -> None:
        for key, label, width in self.COLUMNS:
            if key in self._shown:
                self.add_column(Text(label, justify="right" if key in self.RIGHT else "left"),
                                key=key, width=width or 10)

    def _rows_width(self) -> int:
        """The rows' width: as laid out, else as expected (`expect_width`), else 0."""
        return self.scrollable_content_region.width if self.size.width else self._expected_width or 0

    def _room(self, shown: Sequence[str]) -> int:
        """What the shown fixed columns (and every shown column's padding) leave of the width."""
        return self._rows_width() - sum(
            (width or 0) + 2 * self.cell_padding for key, _, width in self.COLUMNS if key in shown)

    def _columns_that_fit(self, flex: list[str]) -> tuple[str, ...]:
        shown = [key for key, _, _ in self.COLUMNS]
        share = self.FLEX.get(flex[0], 1.0) / sum(self.FLEX.get(key, 1.0) for key in flex)
        for key in self.SHED:
            if self._room(shown) * share >= self.MIN_FLEX:
                break
            shown.remove(key)
            if key in flex:
                flex.remove(key)
                share = self.FLEX.get(flex[0], 1.0) / sum(self.FLEX.get(k, 1.0) for k in flex)
        return tuple(shown)

    def _fit_columns(self) -> None:
        """Leave out SHED columns the width cannot afford; share what the fixed columns leave
        among the flexible ones."""
        flex = [key for key, _, width in self.COLUMNS if width is None]
        if not flex or not self._rows_width():
            return
        shown = self._columns_that_fit(list(flex))
        if shown != self._shown:
            gone = [key for key in self._shown if key not in shown]
            if set(shown) <= set(self._shown):  # narrower: drop the columns, keep the rows
                self._shown = shown
                for key in gone:
                    self.remove_column(ColumnKey(key))
            else:  # a column comes back: its cells are made anew
                self._shown = shown
                keep = self.current_key()
                self.clear(columns=True)
                self._add_columns()
                self._rebuild(keep)
        flex = [key for key in flex if key in shown]
        room = max(self._room(shown), 8 * len(flex))
        shares = [self.FLEX.get(key, 1.0) for key in flex]
        widths = [max(8, int(room * share / sum(shares))) for share in shares]
        widths[0] += max(0, room - sum(widths))  # rounding: the first flexible column takes it
        changed = False
        for key, width in zip(flex, widths):
            column = self.columns.get(ColumnKey(key))
            if column is not None and column.width != width:
                column.width = width
                column.auto_width = False
                changed = True
        if changed:
            self.virtual_size = Size(sum(column.get_render_width(self) for column in self.columns.values()),
                                     self.virtual_size.height)
            self.notify_style_update()  # DataTable's rows are cached drawn at the old widths: drop them, redraw

    # ------------------------------------------------------------------ subclass API
    def row_cells(self, record: R) -> Iterable[Any]:
        """The cells of one record (Rich `Text` for anything from the store)."""
        raise NotImplementedError

    def row_key(self, record: R) -> str:
        """A unique key for the record's row."""
        return str(getattr(record, "id"))

    def filter_key(self, record: R) -> str:
        """The text a filter matches against (case-insensitive substring)."""
        return str(getattr(record, "title", ""))

    def matches(self, record: R, needle: str) -> bool:
        """Whether `record` passes the filter `needle` (lower case): by default, its
        `filter_key` contains it."""
        return needle in self.filter_key(record).lower()

    def more_available(self) -> bool:
        """True when more records exist than were given (the subclass fetches them)."""
        return False

    def request_more(self) -> None:
        """Fetch the next page from the store (called near the end when `more_available`)."""

    # ------------------------------------------------------------------ records
    def set_records(self, records: Sequence[R], keep_cursor: bool = False) -> None:
        """Replace every record; the cursor goes back to the top unless `keep_cursor`."""
        if not records and not self.records and not self.row_count:
            return  # empty again (steps that changed no files): nothing to clear or redraw
        previous = self.current_key() if keep_cursor else None
        self.records = list(records)
        if not self.size.width and self._expected_width is not None:  # fitted to the width expected
            self._fit_columns()
        elif not self.size.width:
            # Not laid out yet (Textual draws a first frame before the table learns its width): the
            # rows are added once the columns are fitted to it (on_resize), so they are drawn once;
            # a table that is not laid out (a hidden pane) gets them after the next frame.
            if self._waiting is _NOTHING:
                self.call_after_refresh(self._add_waiting_rows)
            self._waiting = previous
            return
        self._rebuild(previous)

    def _add_waiting_rows(self) -> None:
        if self._waiting is not _NOTHING:
            keep, self._waiting = self._waiting, _NOTHING
            self._rebuild(keep if isinstance(keep, str) else None)

    def extend_records(self, records: Sequence[R]) -> None:
        """Append records (a further page); rows appear as the cursor gets there."""
        self.records.extend(records)
        if self._waiting is not _NOTHING:
            return  # every record is listed once the table is laid out
        needle = self.filter_text.lower()
        new = [r for r in records if not needle or self.matches(r, needle)]
        self.matching.extend(new)
        if self._added >= len(self.matching) - len(new) - PREFETCH:
            self._add_page()

    def apply_filter(self, text: str) -> None:
        """Show only records whose `filter_key` contains `text` (case-insensitive)."""
        if text == self.filter_text:
            return
        self.filter_text = text
        self._rebuild(self.current_key())

    def _rebuild(self, keep: str | None) -> None:
        needle = self.filter_text.lower()
        self.matching = [r for r in self.records if not needle or self.matches(r, needle)]
        none = bool(needle and self.records and not self.matching)
        if none and not self._said_none:  # once, as the filter comes to match none (not at each reload)
            self.post_message(self.NothingMatches(self))
        self._said_none = none
        self.clear()
        self._added = 0
        self._page_pending = False
        self._add_page(max(FIRST_PAGE, self.size.height + PREFETCH))
        index = None if keep is None else next(
            (i for i, r in enumerate(self.matching) if self.row_key(r) == keep), None)
        while index is not None and index >= self._added:
            self._add_page()
        if index is not None:
            self.jump_to_row(index)

    def jump_to_row(self, index: int) -> None:
        """Move the cursor to row `index` and show it in the same frame. DataTable scrolls to a
        cursor only after the next refresh when rows were just added (it measures them when
        idle), so a reload that put the cursor back on the newest step drew one frame of the
        table's top first; the rows are one line each, so the height is known now."""
        self.move_cursor(row=index, animate=False)
        header = self.header_height if self.show_header else 0
        height = self.scrollable_content_region.height - header  # the header stays put
        if height <= 0:
            return
        top = int(self.scroll_y)
        if top <= index < top + height:
            return
        rows = header + self.row_count
        if self.virtual_size.height < rows:
            self.virtual_size = Size(self.virtual_size.width, rows)
        self.scroll_to(y=index - height + 1 if index >= top + height else index, animate=False, immediate=True)

    def _add_page(self, count: int = PAGE) -> None:
        self._page_pending = False
        page = self.matching[self._added:self._added + count]
        every = len(self._shown) == len(self.COLUMNS)
        with self.styles_fixed():  # row_cells' component styles: once a page, not once a row
            for record in page:
                cells = self.row_cells(record)
                if not every:
                    cells = [cell for (key, _, _), cell in zip(self.COLUMNS, cells, strict=True) if key in self._shown]
                self.add_row(*cells, key=self.row_key(record))
        self._added += len(page)

    def current_record(self) -> R | None:
        """The record under the cursor, if any."""
        if not self.row_count or self.cursor_row < 0 or self.cursor_row >= min(self._added, len(self.matching)):
            return None
        return self.matching[self.cursor_row]

    def around_cursor(self) -> list[R]:
        """The records just above and below the cursor (what a move of one row shows next)."""
        row, shown = self.cursor_row, min(self._added, len(self.matching))
        return [self.matching[i] for i in (row - 1, row + 1) if 0 <= i < shown]

    def current_key(self) -> str | None:
        record = self.current_record()
        return None if record is None else self.row_key(record)

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row of `key` (adding pages as needed)."""
        if self._waiting is not _NOTHING:  # not laid out yet: the cursor goes there with the rows
            if not any(self.row_key(r) == key for r in self.records):
                return False
            self._waiting = key
            return True
        index = next((i for i, r in enumerate(self.matching) if self.row_key(r) == key), None)
        if index is None:
            return False
        while index >= self._added:
            self._add_page()
        self.jump_to_row(index)
        return True

    def action_first_row(self) -> None:
        """Go to the first row."""
        if self.row_count:
            self.move_cursor(row=0, animate=False)

    def action_last_row(self) -> None:
        """Go to the last row (every listed record; further pages are fetched as they come)."""
        while self._added < len(self.matching):
            self._add_page()
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def watch_cursor_coordinate(self, old: Any, new: Any) -> None:
        super().watch_cursor_coordinate(old, new)
        if new.row >= self._added - PREFETCH:
            if self._added < len(self.matching):
                if not self._page_pending:
                    self._page_pending = True
                    self.call_after_refresh(self._add_page)
            elif self.more_available():
                self.request_more()

    @staticmethod
    def number(value: int | float | str) -> Text:
        """A right-aligned cell."""
        return Text(str(value), justify="right")
