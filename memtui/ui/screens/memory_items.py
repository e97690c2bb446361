"""Memory items: what an agent distilled for later, beside its sessions.

RA.Aid keeps key facts, key snippets (file, line, code) and research notes, each with the
`#id` RA.Aid itself shows; a JSONL session store keeps a history log. Snippets are
syntax-highlighted by their file name. Items tied to the most recent human input are
marked protected: curation (space marks, d deletes after a confirmation, one transaction)
never removes them — the same rule RA.Aid's own GC follows.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.highlight import highlight
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.display import counted
from memtui.core.memory_source import Capability
from memtui.core.model import MemoryItem
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.confirm import ConfirmScreen
from memtui.ui.text import clock_time, one_line, sanitize
from memtui.ui.widgets.workspace_bar import WorkspaceBar
from memtui.resources import screen_css

KIND_TITLES: dict[str, str] = {"fact": "Key facts", "snippet": "Key snippets", "note": "Research notes",
                               "history": "History"}
"""Section titles, in the order the sections are shown."""
COUNTED: dict[str, tuple[str, str]] = {"fact": ("key fact", "key facts"), "snippet": ("key snippet", "key snippets"),
                                       "note": ("research note", "research notes"),
                                       "history": ("history entry", "history entries")}
"""How the pane's subtitle counts each kind: "1 key fact", "3 history entries"."""

CURATABLE = frozenset({"fact", "snippet", "note"})
HIGHLIGHT_LIMIT = 20_000
"""Snippet characters above which the code is shown plain."""


def item_key(item: MemoryItem) -> str:
    """The option id of an item: "<kind>:<id>"."""
    return f"{item.kind}:{item.id}"


def item_prompt(item: MemoryItem, marked: bool = False) -> Content:
    """One item as it reads in the list: a header line, then its text or highlighted code."""
    facts = []
    if item.filepath:
        location = f"{item.filepath}:{item.line_number}" if item.line_number is not None else item.filepath
        facts.append(location)
    if item.task_id is not None:
        facts.append(f"input #{item.task_id}")
    if item.created_at is not None:
        facts.append(f"{item.created_at:%Y-%m-%d} {clock_time(item.created_at)}")
    header = Content.assemble(
        ("✗ " if marked else "  ", "bold $text-error" if marked else ""),
        (f"#{item.id}", "bold $accent"),
        "  ",
        (" · ".join(sanitize(f) for f in facts), "$text-muted"),
        ("  protected" if item.protected else "", "bold $text-warning"),
    )
    parts = [header]
    if item.description:
        parts.append(Content.assemble("  ", (one_line(item.description, 200), "italic")))
    body = sanitize(item.content, multiline=True).rstrip("\n")
    if item.kind == "snippet" and len(body) <= HIGHLIGHT_LIMIT:
        code = highlight(body, path=item.filepath or None)
        start = item.line_number or 1
        for offset, line in enumerate(code.split("\n")):
            parts.append(Content.assemble((f"{start + offset:>7} │ ", "$text-muted"), line))
    else:
        parts.extend(Content.assemble("  ", line) for line in body.split("\n"))
    return Content("\n").join(parts)


class MemoryItemsScreen(MemtuiScreen[None]):
    """The memory items of the open source, grouped by kind."""

    CSS_PATH = screen_css("sources.tcss")

    COMMAND_SCOPE = "items"
    BINDINGS = bindings("items")

    @dataclass
    class ItemsLoaded(Message):
        """The items worker's answer."""

        items: list[MemoryItem]

    @dataclass
    class Curated(Message):
        """A curation finished: how many rows went, and what was kept and why."""

        deleted: int
        refused: list[tuple[str, int, str]]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, MemoryItem] = {}
        self.marked: set[str] = set()

    def compose(self) -> ComposeResult:
        yield WorkspaceBar(id="workspace-bar")
        with Vertical(id="items-pane", classes="pane"):
            yield OptionList(id="items")
        yield KeyFooter()

    def on_mount(self) -> None:
        pane = self.query_one("#items-pane")
        pane.border_title = "Memory items"
        self.query_one(OptionList).focus()
        self.refresh_data()

    def refresh_data(self) -> None:
        """Reload the items from the source."""
        self.query_one(OptionList).loading = True
        self.load_items()

    @work(thread=True, exclusive=True, group="items", exit_on_error=False, description="load memory items")
    def load_items(self) -> None:
        with self.app.reading() as source:
            items = list(source.part(Capability.ITEMS).memory_items()) if source.has_part(Capability.ITEMS) else []
        if not get_current_worker().is_cancelled:
            self.post_message(self.ItemsLoaded(items))

    @on(ItemsLoaded)
    def _items_loaded(self, event: ItemsLoaded) -> None:
        options = self.query_one(OptionList)
        options.loading = False
        self.items = {item_key(i): i for i in event.items}
        self.marked &= set(self.items)
        highlighted = options.highlighted_option.id if options.highlighted_option else None
        rows: list[Option | None] = []
        counts = []
        for kind, title in KIND_TITLES.items():
            group = [i for i in event.items if i.kind == kind]
            if not group:
                continue
            counts.append(counted(len(group), *COUNTED[kind]))
            if rows:
                rows.append(None)
            rows.append(Option(Content.styled(f"{title} ({len(group)})", "bold underline"), disabled=True))
            rows += [Option(item_prompt(i, item_key(i) in self.marked), id=item_key(i)) for i in group]
        if not rows:
            rows.append(Option(Content("This source keeps no memory items."), disabled=True))
        options.set_options(rows)
        self.query_one("#items-pane").border_subtitle = " · ".join(counts)
        if highlighted in self.items:
            options.highlighted = options.get_option_index(highlighted)
        elif self.items:
            options.highlighted = next(i for i, o in enumerate(options.options) if not o.disabled)

    # ------------------------------------------------------------------ curation
    def _can_curate(self) -> bool:
        return self.app.source is not None and self.app.source.can(Capability.CURATE)

    def action_toggle_mark(self) -> None:
        """Mark or unmark the highlighted item for deletion."""
        options = self.query_one(OptionList)
        option = options.highlighted_option
        if option is None or option.id not in self.items:
            return
        item = self.items[option.id]
        if not self._can_curate() or item.kind not in CURATABLE:
            self.app.notify("This source's items cannot be deleted from memtui.", markup=False)
            return
        if item.protected:
            self.app.notify(f"#{item.id} belongs to the most recent human input: RA.Aid keeps it, so does memtui.",
                            title="Protected", markup=False)
            return
        self.marked ^= {option.id}
        options.replace_option_prompt(option.id, item_prompt(item, option.id in self.marked))
        options.action_cursor_down()

    def action_curate(self) -> None:
        """Delete the marked items, after a confirmation."""
        if not self.marked:
            self.app.notify("Mark items with space first.", markup=False)
            return
        chosen = [self.items[k] for k in sorted(self.marked, key=lambda k: list(self.items).index(k))]

        def answered(yes: bool | None) -> None:
            if yes:
                self.curate(chosen)

        lines = Text()
        for item in chosen:
            lines.append(f"{item.kind} #{item.id}  ", style="bold")
            lines.append(one_line(item.content, 70) + "\n")
        self.app.push_screen(ConfirmScreen(f"Delete {counted(len(chosen), 'item')} from RA.Aid's memory?", lines,
                                           yes="Delete", no="Keep",
                                           note="One transaction; RA.Aid cannot bring them back."), answered)

    @work(thread=True, exclusive=True, group="curate", exit_on_error=False, description="delete memory items")
    def curate(self, chosen: list[MemoryItem]) -> None:
        from memtui.core.agents.ra_aid.curate import apply_curate, plan_curate

        source = self.app.source
        ids = {kind: [i.id for i in chosen if i.kind == kind] for kind in CURATABLE}
        plan = plan_curate(source.path, facts=ids["fact"], snippets=ids["snippet"], notes=ids["note"])
        deleted = apply_curate(plan)
        source.reload()
        self.post_message(self.Curated(deleted, list(plan.refused)))

    @on(Curated)
    def _curated(self, event: Curated) -> None:
        self.marked.clear()
        kept = "; ".join(f"{kind} #{i}: {why}" for kind, i, why in event.refused)
        self.app.notify(f"Deleted {counted(event.deleted, 'item')}." + (f" Kept {kept}." if kept else ""),
                        title="Memory curated", markup=False)
        self.app.refresh_data()

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss()
