"""The cleanup preview as a tree: projects, and under each its sessions marked keep /
archive / delete with the reason; orphans in their own group; sessions already in memtui's
archive in an "Archived" group (restorable).

A project's line carries a size bar: the share of its bytes that would go. Marks are theme
colours through component classes (tcss/cleanup.tcss).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from memtui.core.cleanup import Decision, Manifest, OrphanRecord, ProjectPreview, SessionRecord
from memtui.core.display import human_bytes
from memtui.ui.text import kept_end, safe_text
from memtui.ui.widgets.kept_view import KeptView

BAR_WIDTH = 12


@dataclass(frozen=True)
class SessionRow:
    session: SessionRecord
    decision: Decision


@dataclass(frozen=True)
class OrphanRow:
    orphan: OrphanRecord
    decision: Decision


@dataclass(frozen=True)
class ArchivedGroup:
    manifests: tuple[Manifest, ...]


Row = ProjectPreview | SessionRow | OrphanRow | ArchivedGroup | Manifest
RowKey = tuple[str, str | None]


def row_key(row: Row) -> RowKey:
    """What a row stands for across a reload (its data objects are new each time)."""
    if isinstance(row, ProjectPreview):
        return ("project", row.project)
    if isinstance(row, SessionRow):
        return ("session", row.session.id)
    if isinstance(row, OrphanRow):
        return ("orphan", str(row.orphan.path))
    if isinstance(row, ArchivedGroup):
        return ("archived", None)
    return ("manifest", row.id)


def size_bar(part: int, whole: int, width: int = BAR_WIDTH) -> str:
    """`part` of `whole` as a bar of block characters ("████▌░░░░░░░")."""
    if whole <= 0:
        return "░" * width
    eighths = round(8 * width * min(part, whole) / whole)
    full, rest = divmod(eighths, 8)
    partial = " ▏▎▍▌▋▊▉"[rest] if rest else ""
    return ("█" * full + partial + "░" * width)[:width]


class CleanupTree(Tree[Row]):
    """Projects → sessions with what cleanup does to each, and the archived sessions."""

    COMPONENT_CLASSES: ClassVar[set[str]] = Tree.COMPONENT_CLASSES | {
        "cleanup-tree--keep",
        "cleanup-tree--going",
        "cleanup-tree--archived",
        "cleanup-tree--bar",
        "cleanup-tree--note",
    }
    """
    | Class | Description |
    | :- | :- |
    | `cleanup-tree--keep` | The mark of a session that stays. |
    | `cleanup-tree--going` | The mark of a session to archive or delete. |
    | `cleanup-tree--archived` | A session already in memtui's archive. |
    | `cleanup-tree--bar` | A project's size bar. |
    | `cleanup-tree--note` | Counts and bytes beside a project or session. |
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("cleanup", id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 2

    def show_rows(self, projects: list[ProjectPreview], archived: list[Manifest], home: Path | None = None) -> None:
        """Replace the tree (a reload: after an action, ctrl+r, or follow mode noticing the home
        change) as the user left it: the cursor stays on the same session, project, orphan group
        or archived session (on its project when the row itself went), and a group the user
        opened or closed stays so; projects new to the tree start expanded when something in
        them goes. The cursor is placed before this returns: a key handled next acts on that
        row, never on whatever line the old cursor's number points at in the new tree."""
        view = KeptView(self, row_key)
        self.clear()
        nodes: dict[RowKey, TreeNode[Row]] = {}

        def add(parent: TreeNode[Row], label: Text, row: Row, expand: bool = False, leaf: bool = False) -> TreeNode[Row]:
            key = row_key(row)
            node = parent.add_leaf(label, data=row) if leaf else parent.add(label, data=row,
                                                                             expand=view.expand(key, expand))
            nodes[key] = node
            return node

        for project in projects:
            label = "orphans (files of sessions whose transcript is gone)" if project.project == "" else (
                project.project or "(no recorded folder)")
            node = add(self.root, safe_text(label), project, expand=project.going > 0)
            for session, decision in project.sessions:
                add(node, safe_text(session.title), SessionRow(session, decision), leaf=True)
            for orphan, decision in project.orphans:
                shown = orphan.path.relative_to(home) if home is not None and orphan.path.is_relative_to(home) else orphan.path
                add(node, safe_text(str(shown)), OrphanRow(orphan, decision), leaf=True)
        if archived:
            group = add(self.root, Text("archived by memtui"), ArchivedGroup(tuple(archived)))
            for manifest in archived:
                add(group, safe_text(manifest.title), manifest, leaf=True)
        view.place(nodes)

    def current_row(self) -> Row | None:
        """The data of the highlighted line (None on an empty tree)."""
        return self.cursor_node.data if self.cursor_node is not None else None

    def render_label(self, node: TreeNode[Row], base_style: Style, style: Style) -> Text:
        row = node.data
        if row is None:
            return super().render_label(node, base_style, style)
        cls = self.get_component_rich_style
        note = cls("cleanup-tree--note", partial=True)
        title = node.label.copy()
        title.stylize(style)
        if isinstance(row, (ProjectPreview, ArchivedGroup)):
            icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
            if isinstance(row, ProjectPreview) and row.project:  # a folder: its end names the project
                title = kept_end(title, 40)
            title.truncate(40, overflow="ellipsis")
            if isinstance(row, ArchivedGroup):
                size = sum(m.bytes for m in row.manifests)
                return Text.assemble((icon, base_style), title, (f"  {len(row.manifests)} sessions · {human_bytes(size)}"
                                                                 " before archiving", note))
            count = len(row.sessions) + len(row.orphans)
            return Text.assemble(
                (icon, base_style), title, ("  ", base_style),
                (size_bar(row.going_bytes, row.bytes), cls("cleanup-tree--bar", partial=True)),
                (f"  {human_bytes(row.going_bytes)} of {human_bytes(row.bytes)} going · {row.going} of {count}", note))
        title.truncate(44, overflow="ellipsis")
        if isinstance(row, Manifest):
            return Text.assemble(("archived ", cls("cleanup-tree--archived", partial=True)), title,
                                 (f"  {human_bytes(row.bytes)} → {human_bytes(row.archive_bytes)}", note))
        decision = row.decision
        size = row.session.bytes if isinstance(row, SessionRow) else row.orphan.bytes
        mark = cls("cleanup-tree--keep" if decision.action == "keep" else "cleanup-tree--going", partial=True)
        return Text.assemble((f"{decision.action:<8}", mark), title, (f"  {human_bytes(size)}", note))
