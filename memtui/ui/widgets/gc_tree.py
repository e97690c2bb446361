"""The GC preview as a tree: sessions, and under each its tasks marked by what GC does.

Each task shows its id, title, its mark — root and why (current task of an open session,
running, waiting for the user, pinned), live via a reference, reclaimable, or collected —
and bytes: what would go for a reclaimable task, the step payloads it keeps
for a live one. Marks are theme colours through component classes (tcss/gc.tcss).
Sessions start collapsed except those with live work; a session's tasks are added
when it is expanded, so a store with 100,000 tasks opens quickly.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from memtui.core.gc import GcSessionRow, GcTaskRow
from memtui.ui.text import human_bytes, safe_text
from memtui.ui.widgets.kept_view import KeptView

Row = GcSessionRow | GcTaskRow
RowKey = tuple[str, int | None]


def row_key(row: Row) -> RowKey:
    """What a row stands for across a reload (its data objects are new each time)."""
    return ("session", row.id) if isinstance(row, GcSessionRow) else ("task", row.task)


class GcTree(Tree[Row]):
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
        self.show_root = False
        self.guide_depth = 2

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

    def _on_tree_node_expanded(self, event: Tree.NodeExpanded[Row]) -> None:
        self._fill(event.node)

    def current_row(self) -> Row | None:
        node = self.cursor_node
        return None if node is None or node is self.root else node.data

    def render_label(self, node: TreeNode[Row], base_style: Style, style: Style) -> Text:
        row = node.data
        if row is None:
            return super().render_label(node, base_style, style)
        cls = self.get_component_rich_style
        if isinstance(row, GcSessionRow):
            icon = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else "  "
            live = row.count("root") + row.count("live")
            note = f"  {row.status} · {live} live · {row.count('reclaimable')} reclaimable"
            size = f" · {human_bytes(row.reclaimable_bytes)}" if row.reclaimable_bytes else ""
            title = self._title(node, style, len(icon) + len(note) + len(size))
            parts: list = [(icon, base_style), title, (note, cls("gc-tree--session-note", partial=True))]
            if size:
                parts.append((size, cls("gc-tree--bytes", partial=True)))
            return Text.assemble(*parts)
        size = f"  {human_bytes(row.bytes)}" if row.bytes else ""
        title = self._title(node, style, len(f"#{row.task}   {row.label}{size}") + self.guide_depth)
        mark_style = cls(f"gc-tree--{row.state}", partial=True)
        parts = [(f"#{row.task} ", base_style), title, ("  ", base_style), (row.label, mark_style)]
        if size:
            parts.append((size, cls("gc-tree--bytes", partial=True)))
        return Text.assemble(*parts)

    def _title(self, node: TreeNode[Row], style: Style, beside: int) -> Text:
        """The node's title, cut with … so that what stands beside it (the mark, the counts,
        the bytes) stays in view: the width decides, down to 12 characters."""
        title = node.label.copy()
        title.truncate(max(12, self.scrollable_content_region.width - beside - 5), overflow="ellipsis")
        title.stylize(style)
        return title
