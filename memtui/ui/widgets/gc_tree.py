"""The GC preview as a tree: sessions, and under each its tasks marked by what GC does.

Each task shows its id, title, its mark — root and why (current task of an open session,
running, waiting for the user, pinned), live via a reference, reclaimable, or collected —
and bytes: what would go for a reclaimable task, the step payloads it keeps
for a live one. Marks are theme colours through component classes (tcss/gc.tcss).
Sessions start collapsed except those with live work; a session's tasks are added
when it is expanded, so a store with 100,000 tasks opens quickly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from memtui.core.gc import GcSessionRow, GcTaskRow
from memtui.ui.text import human_bytes, safe_text
from memtui.ui.widgets.fitted_row import FittedTree, fit_row, label_room
from memtui.ui.widgets.kept_view import KeptView

Row = GcSessionRow | GcTaskRow
RowKey = tuple[str, int | None]


def row_key(row: Row) -> RowKey:
    """What a row stands for across a reload (its data objects are new each time)."""
    return ("session", row.id) if isinstance(row, GcSessionRow) else ("task", row.task)


class GcTree(FittedTree[Row]):
    """Sessions → tasks, each task marked root / live / reclaimable / collected."""

    COMPONENT_CLASSES: ClassVar[set[str]] = Tree.COMPONENT_CLASSES | {
        "gc-tree--root",
        "gc-tree--live",
        "gc-tree--reclaimable",
        "gc-tree--collected",
        "gc-tree--bytes",
        "gc-tree--session-note",
    }
    """
    | Class | Description |
    | :- | :- |
    | `gc-tree--root` … `gc-tree--collected` | The mark of a task in that state. |
    | `gc-tree--bytes` | The byte count of a task or session. |
    | `gc-tree--session-note` | The live/reclaimable summary beside a session. |
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("GC", id=id, classes=classes)

    def show_rows(self, sessions: list[GcSessionRow], first_task: int | None = None) -> None:
        """Replace the tree (a reload: after a pin or a collection, ctrl+r, follow mode) as the
        user left it: the cursor stays on the same task or session (on its session when the
        task went) and a session the user opened or closed stays so; sessions new to the tree
        start expanded when they hold live work. On the first showing the cursor goes to
        `first_task`. The cursor is placed before this returns: a key handled next (p, a)
        acts on that row, never on whatever line the old cursor's number points at now."""
        view = KeptView(self, row_key)
        self.clear()
        held = set(view.cursor) | ({("task", first_task)} if view.first and first_task is not None else set())
        nodes: dict[RowKey, TreeNode[Row]] = {}
        for session in sessions:
            key = row_key(session)
            busy = any(t.state in ("root", "live") for t in session.tasks)
            node = self.root.add(safe_text(session.title or f"session {session.id}"), data=session,
                                 allow_expand=bool(session.tasks))
            nodes[key] = node
            opened = view.expand(key, busy)
            if opened or any(("task", t.task) in held for t in session.tasks):
                nodes.update((row_key(child.data), child) for child in self._fill(node))
            if opened:
                node.expand()
        fallback = nodes.get(("task", first_task)) if view.first else None
        view.place(nodes, fallback)

    def _fill(self, node: TreeNode[Row]) -> list[TreeNode[Row]]:
        """Add a session's tasks (once: they are added when it is first expanded)."""
        session = node.data
        if node.children or not isinstance(session, GcSessionRow):
            return []
        return [node.add_leaf(safe_text(task.title), data=task) for task in session.tasks]

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Row]) -> None:
        self._fill(event.node)

    def render_label(self, node: TreeNode[Row], base_style: Style, style: Style) -> Text:
        row = node.data
        if row is None:
            return super().render_label(node, base_style, style)
        cls = self.get_component_rich_style
        title = node.label.copy()
        title.stylize(style)
        room = label_room(self, node)
        if isinstance(row, GcSessionRow):
            icon = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else "  "
            return fit_row(room, Text(icon, base_style), title, session_forms(row, cls))
        return fit_row(room, Text(f"#{row.task} ", base_style), title, task_forms(row, cls, base_style), least=8)


def session_forms(row: GcSessionRow, cls: Callable[..., Style]) -> list[Text]:
    """What stands beside a session's title, longest first: its status goes first, then the
    counts; the bytes that would go stay to the last."""
    note, size = cls("gc-tree--session-note", partial=True), cls("gc-tree--bytes", partial=True)
    live, gone = row.count("root") + row.count("live"), row.count("reclaimable")
    figure = [(f" · {human_bytes(row.reclaimable_bytes)}", size)] if row.reclaimable_bytes else []
    notes = [f"  {row.status} · {live} live · {gone} reclaimable", f"  {live} live · {gone} reclaimable",
             f"  {gone} reclaimable" if gone else f"  {live} live"]
    return [Text.assemble((text, note), *figure) for text in notes]


def task_forms(row: GcTaskRow, cls: Callable[..., Style], gap: Style) -> list[Text]:
    """What stands beside a task's title, longest first: the mark loses its detail ("live via
    #8 (handoff)" → "live via #8" → "live"); the byte figure stays whole."""
    mark = cls(f"gc-tree--{row.state}", partial=True)
    size = [("  ", gap), (human_bytes(row.bytes), cls("gc-tree--bytes", partial=True))] if row.bytes else []
    labels = dict.fromkeys((row.label, row.label.split(" (")[0], row.state))
    return [Text.assemble(("  ", gap), (label, mark), *size) for label in labels]
