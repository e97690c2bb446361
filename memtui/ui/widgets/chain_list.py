"""One agent's start-up chain as a list in load order: each file with a size bar (loaded part
and cut-off part shaded differently), imports drawn as a tree under the file importing them.

Highlighting a file posts `ChainList.FileHighlighted`; enter posts `ChainList.FileChosen`.
"""

from __future__ import annotations

import math
from pathlib import Path

from rich.text import Text

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memtui.core.memory.chain import AgentChain, ChainFile
from memtui.core.display import human_bytes, sanitize
from memtui.ui.text import kept_end

BAR_WIDTH = 10


def size_bar(entry: ChainFile, largest: int, width: int = BAR_WIDTH) -> Content:
    """A bar as long as the file is big (square-root scale against the largest file of the
    chain, so small files stay visible): loaded cells solid, the cut-off part in the error
    colour, a file loaded on demand or not at all faint."""
    if entry.bytes <= 0 or largest <= 0:
        return Content(" " * width)
    cells = max(1, round(width * math.sqrt(entry.bytes / largest)))
    loaded = round(cells * entry.loaded_bytes / entry.bytes)
    if entry.loaded_bytes and not loaded:
        loaded = 1
    if entry.truncated and loaded == cells:
        loaded = cells - 1 if cells > 1 else cells
    rest = cells - loaded
    unseen = "$error" if entry.truncated else "$text-muted"
    glyph = "▒" if entry.truncated else "░"
    return Content.from_markup(
        f"[$success]$solid[/][{unseen}]$rest[/]$pad",
        solid="█" * loaded, rest=glyph * rest, pad=" " * (width - cells),
    )


def shown_chain_path(entry: ChainFile, workspace: Path | None) -> str:
    """A chain file's path, short: relative inside the workspace, `memory/NAME` for auto
    memory (its folder is the sanitized project path), `~/…` under the home folder."""
    if workspace is not None and entry.path.is_relative_to(workspace):
        return entry.path.relative_to(workspace).as_posix()
    if entry.scope == "auto-memory":
        return f"memory/{entry.path.name}"
    home = Path.home()
    if entry.path.is_relative_to(home):
        return "~/" + entry.path.relative_to(home).as_posix()
    return str(entry.path)


class ChainList(OptionList):
    """The files of one agent's chain, in load order."""

    class FileHighlighted(Message):
        """The highlighted chain file changed."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    class FileChosen(Message):
        """Enter on a chain file: open it."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def __init__(self, workspace: Path | None = None, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.workspace = workspace
        self.chain: AgentChain | None = None
        self._fitted_to = 0

    def on_resize(self) -> None:
        # Each line is fitted to the width (one line per file, never wrapped): refit.
        width = self.scrollable_content_region.width
        if width != self._fitted_to and self.chain is not None:
            self.show(self.chain, self.highlighted_path)

    def show(self, chain: AgentChain, keep: Path | None = None) -> None:
        """Replace the list with `chain`; keep the highlight on `keep` if it is listed."""
        self.chain = chain
        self._fitted_to = self.scrollable_content_region.width
        largest = max((f.bytes for f in chain.files), default=0)
        counts: dict[Path, int] = {}
        for problem in chain.problems:
            counts[problem.file] = counts.get(problem.file, 0) + 1
        self.clear_options()
        self.add_options([Option(self._prompt(f, largest, counts.get(f.path, 0)), id=str(f.path))
                          for f in chain.files])
        if not chain.files:
            self.add_option(Option(Content("no files: this agent starts with nothing from here"), disabled=True))
        if keep is None or not self.select_path(keep):
            self.highlighted = 0 if chain.files else None

    @property
    def highlighted_path(self) -> Path | None:
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return None if option.disabled or option.id is None else Path(option.id)

    def select_path(self, path: Path) -> bool:
        try:
            self.highlighted = self.get_option_index(str(path))
        except Exception:  # OptionDoesNotExist
            return False
        return True

    def _prompt(self, entry: ChainFile, largest: int, problems: int) -> Content:
        """One line: order, size bar, size, the path and beside it the scope and state. Where
        the room is short the scope, then the state drop out to keep the path whole, and past
        that the path loses its start (at 120 columns "project" wrapped onto a line of its own)."""
        indent = "  " * max(entry.depth - 1, 0) + ("└ " if entry.depth else "")
        name = shown_chain_path(entry, self.workspace)
        if entry.on_demand:
            state = "on demand"
        elif entry.truncated:
            state = f"{entry.loaded_lines}/{entry.lines} lines"
        elif entry.bytes and not entry.loaded_bytes:
            state = "not loaded"
        else:
            state = ""
        faint = entry.on_demand or (entry.bytes > 0 and entry.loaded_bytes == 0)
        head = Content.assemble(
            Content.from_markup("[$text-muted]$order[/] ", order=f"{entry.order:>2}"),
            size_bar(entry, largest),
            Content.from_markup(" [$text-muted]$size[/] $indent", size=f"{human_bytes(entry.bytes):>8}", indent=indent),
        )
        warn = Content.from_markup("[b $warning] ⚠ $count[/]", count=str(problems)) if problems else Content("")
        muted = " [$text-muted]$words[/]"
        forms = [Content.from_markup(muted, words=f"{entry.scope} {state}".rstrip()) + warn,
                 (Content.from_markup(muted, words=state) if state else Content("")) + warn, warn]
        name = sanitize(name)
        room = self._fitted_to - head.cell_length if self._fitted_to else len(name) + 80  # not laid out: whole
        beside = next((form for form in forms if room - form.cell_length >= len(name)), forms[-1])
        name = kept_end(Text(name), max(1, room - beside.cell_length)).plain
        return Content.assemble(
            head,
            Content.from_markup("[$text-muted]$name[/]" if faint else "$name", name=name),
            beside,
        )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.post_message(self.FileHighlighted(Path(event.option.id)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.FileChosen(Path(event.option.id)))
