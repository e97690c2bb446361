"""The hits of a search: kind, where (a file and line, a task, a step) and the text around
the match, with the match in view and marked however narrow the text column is."""

from __future__ import annotations

from typing import Any, ClassVar, Iterable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.message import Message

from memtui.core.memory.search import SearchHit
from memtui.ui.text import EndKept, safe_text, start_within
from memtui.ui.widgets.record_table import RecordTable

Row = tuple[int, SearchHit]
"""A hit and its place in the list (messages of one task share their location)."""


class SearchResults(RecordTable[Row]):
    """One row per hit; the `where` column is as wide as the longest location, up to a third
    of the room, and the text column takes the rest."""

    COLUMNS = (
        ("kind", "kind", 7),
        ("where", "where", None),
        ("text", "text", None),
    )
    SHED = ("kind",)  # the location says the kind too
    MIN_FLEX = 4  # the where column is sized to its content: shed only when it has almost no room
    COMPONENT_CLASSES: ClassVar[set[str]] = RecordTable.COMPONENT_CLASSES | {"search-results--match"}
    """
    | Class | Description |
    | :- | :- |
    | `search-results--match` | The matched terms in a hit's text. |
    """

    @property
    def FLEX(self) -> dict[str, float]:  # type: ignore[override]
        """The location gets what its longest one needs, up to a third of the room."""
        room = max(16, self.scrollable_content_region.width - 2 * 2 * self.cell_padding - 7)
        longest = max((cell_len(self.where(hit)) for _, hit in self.records), default=8)
        where = max(8, min(longest, room // 3))
        return {"where": where, "text": max(8, room - where)}

    class LeftAtTop(Message):
        """Up was pressed on the first hit: back to the query."""

    class NeedMore(Message):
        """The cursor nears the last hit listed and more match: the screen asks for the
        hits after the `listed` ones (`add_hits`)."""

        def __init__(self, listed: int) -> None:
            super().__init__()
            self.listed = listed

    more = False
    """More hits match than are listed (set by the screen with each page)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.origins: dict[str, str] = {}
        """Where each hit's task came from, by task id: its agent (every agent's sessions
        searched), or "machine · agent" (a team store)."""

    def where(self, hit: SearchHit) -> str:
        """The hit's location, after the agent (or machine and agent) its task came from."""
        origin = self.origins.get(hit.task or "")
        return f"{origin} · {describe_location(hit)}" if origin else describe_location(hit)
    _asked = -1  # the number of hits listed when the next page was last asked for

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0:
            self.post_message(self.LeftAtTop())
        else:
            super().action_cursor_up()

    def show_hits(self, hits: list[SearchHit], more: bool = False) -> None:
        """List `hits` (the cursor back at the first); `more`: further hits match."""
        self.more, self._asked = more, -1
        self.set_records(list(enumerate(hits)))
        self._fit_columns()

    def add_hits(self, hits: list[SearchHit], more: bool) -> None:
        """List a further page of hits after the others (the cursor stays where it is)."""
        self.more = more
        self.extend_records(list(enumerate(hits, start=len(self.records))))
        self._fit_columns()  # a longer location may widen its column

    def more_available(self) -> bool:
        return self.more

    def request_more(self) -> None:
        if self._asked != len(self.records):
            self._asked = len(self.records)
            self.post_message(self.NeedMore(len(self.records)))

    def row_key(self, record: Row) -> str:
        return str(record[0])

    def filter_key(self, record: Row) -> str:
        return record[1].text

    def row_cells(self, record: Row) -> Iterable[Any]:
        hit = record[1]
        text = safe_text(hit.text)  # one character for one: the spans still fall on the terms
        style = self.get_component_rich_style("search-results--match", partial=True)
        for start, end in hit.spans:
            text.stylize(style, start, end)
        return (
            Text(hit.kind),
            EndKept(safe_text(self.where(hit)), middle=True),  # the file's name and line stay
            MatchInView(text, hit.spans[0] if hit.spans else None),
        )


class MatchInView:
    """One line of text drawn so that its match (a span of characters) is in view, with some
    of what comes before it: when the line is wider than its cell, it loses its start (behind
    `…`) as well as its end."""

    def __init__(self, text: Text, span: tuple[int, int] | None) -> None:
        self.text = text
        self.span = span

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, self.text.cell_len)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield in_view(self.text, self.span, options.max_width)


def in_view(text: Text, span: tuple[int, int] | None, width: int) -> Text:
    """`text` cut to `width` cells around `span`: a third of the room the match leaves goes
    before it (less when the text ends sooner), `…` marks each side cut."""
    line = text.copy()
    line.no_wrap, line.overflow, line.end = True, "ellipsis", ""
    if span is None or line.cell_len <= width or width < 3:
        line.truncate(width, overflow="ellipsis")
        return line
    plain = line.plain
    start, end = span
    start = start_within(plain, start, max(0, width - 2 - cell_len(plain[start:end])) // 3)
    start = start_within(plain, start, width - 1 - cell_len(plain[start:]))  # the text ends in view: show more before
    if start:
        line = Text("…", style=line.style, no_wrap=True, overflow="ellipsis", end="") + line[start:]
    line.truncate(width, overflow="ellipsis")
    return line


def describe_location(hit: SearchHit) -> str:
    """Where a hit is, as people read it: `MEMORY.md:12`, `task 8 · step 3`, `task 8`."""
    if hit.kind == "file":
        return f"{hit.file}:{hit.line}"
    if hit.kind == "step":
        return f"task {hit.task} · step {hit.line}"
    if hit.kind == "message":
        return f"task {hit.task} · message"
    return f"task {hit.task}"
