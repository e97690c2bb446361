"""A chain file's text with line numbers and the point where the agent stops reading marked by
a rule line inside it ("Claude Code stops reading here (line 200)").

Virtualised (`render_line`): a 10 MB file scrolls as smoothly as a small one. The file's text
is untrusted: control characters are shown as visible pictures, nothing is parsed as markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.core.memory.chain import ChainFile
from memtui.core.display import sanitize

_MAX_WIDTH = 4000  # cells scrolled horizontally; longer lines are cut (the file is never changed)


@dataclass(frozen=True)
class _Row:
    number: int | None  # 1-based line number; None for a rule or a line's continuation
    text: str
    rule: bool = False


def chain_rows(data: bytes, entry: ChainFile, agent: str) -> list[_Row]:
    """The rows to show: the file's lines, with a rule where `agent` stops reading."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"" and data:
        lines.pop()
    if entry.on_demand:
        head = [_Row(None, f"On demand — {entry.reason}", rule=True)]
    elif entry.bytes and not entry.loaded_bytes:
        head = [_Row(None, f"{agent} does not read this file at start — {entry.reason}", rule=True)]
    else:
        head = []
    rows = head + [_Row(i, _show(line)) for i, line in enumerate(lines, start=1)]
    cut = entry.loaded_bytes
    if not entry.truncated or cut >= len(data):  # a file changed since the chain was read: no rule until it is read again
        return rows
    index = data.count(b"\n", 0, cut)  # 0-based line holding the first unread byte
    start = data.rfind(b"\n", 0, cut) + 1
    where = f"line {entry.loaded_lines}" if cut == start else f"byte {cut:,}, line {index + 1}"
    rule = _Row(None, f"{agent} stops reading here ({where})", rule=True)
    at = len(head) + index
    if cut == start:
        return rows[:at] + [rule] + rows[at:]
    line = lines[index]
    split = [_Row(index + 1, _show(line[: cut - start])), rule, _Row(None, _show(line[cut - start:]))]
    return rows[:at] + split + rows[at + 1:]


def _show(line: bytes) -> str:
    return sanitize(line.decode("utf-8", "replace").expandtabs(4))


class ChainText(ScrollView, can_focus=True):
    """A document with its cut-off marked. Use `show(data, entry, agent)`."""

    COMPONENT_CLASSES = {"chain-text--gutter", "chain-text--rule"}

    DEFAULT_CSS = """
    ChainText { background: $surface; }
    ChainText > .chain-text--gutter { color: $text-muted; }
    ChainText > .chain-text--rule { color: $error; text-style: bold; background: $error 15%; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[_Row] = []
        self._gutter = 4

    def show(self, data: bytes, entry: ChainFile, agent: str) -> None:
        self.rows = chain_rows(data, entry, agent)
        self._gutter = max(4, len(str(entry.lines)))
        widest = max((len(r.text) for r in self.rows), default=0)
        self.virtual_size = Size(min(widest, _MAX_WIDTH) + self._gutter + 3, len(self.rows))
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def rule_rows(self) -> list[int]:
        """Indexes of the rule rows (for tests and for jumping to the cut)."""
        return [i for i, r in enumerate(self.rows) if r.rule]

    def scroll_to_cut(self) -> None:
        rules = self.rule_rows()
        if rules:
            self.scroll_to(0, max(rules[0] - self.size.height // 2, 0), animate=False)

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.size.width
        base = self.rich_style
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[index]
        if row.rule:
            style = base + self.get_component_rich_style("chain-text--rule")
            text = f"── {row.text} "
            return Strip([Segment(text + "─" * max(width - len(text), 0), style)]).crop(0, width)
        gutter_style = base + self.get_component_rich_style("chain-text--gutter")
        number = "" if row.number is None else str(row.number)
        left = self.scroll_offset.x
        body = row.text[left: left + width]
        segments = [Segment(f"{number:>{self._gutter}} │ ", gutter_style), Segment(body, base + Style())]
        return Strip(segments).crop(0, width).extend_cell_length(width, base)
