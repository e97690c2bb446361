"""The cleanup preview as a tree: projects, and under each its sessions marked keep /
archive / delete with the reason; orphans in their own group; sessions already in memtui's
archive in an "Archived" group (restorable).

A project's line carries a size bar: the share of its bytes that would go. Marks are theme
colours through component classes (tcss/cleanup.tcss).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from memtui.core.cleanup import Decision, Manifest, OrphanRecord, ProjectPreview, SessionRecord
from memtui.core.display import counted as count_of, human_bytes
from memtui.ui.text import safe_text
from memtui.ui.widgets.fitted_row import FittedTree, fit_row, label_room
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


class CleanupTree(FittedTree[Row]):
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

    def render_label(self, node: TreeNode[Row], base_style: Style, style: Style) -> Text:
        row = node.data
        if row is None:
            return super().render_label(node, base_style, style)
        cls = self.get_component_rich_style
        note = cls("cleanup-tree--note", partial=True)
        title = node.label.copy()
        title.stylize(style)
        room = label_room(self, node)
        if isinstance(row, ArchivedGroup):
            icon = Text(self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style)
            size = human_bytes(sum(m.bytes for m in row.manifests))
            counted = f"  {count_of(len(row.manifests), 'session')}"
            forms = [f"{counted} · {size} before archiving", f"{counted} · {size}", counted]
            return fit_row(room, icon, title, [Text(form, note) for form in forms], most=40)
        if isinstance(row, ProjectPreview):
            icon = Text(self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style)
            # a folder: its end names the project
            return fit_row(room, icon, title, project_forms(row, cls, base_style), least=16, most=40,
                           end_kept=bool(row.project))
        if isinstance(row, Manifest):
            head = Text("archived ", cls("cleanup-tree--archived", partial=True))
            forms = [f"  {human_bytes(row.bytes)} → {human_bytes(row.archive_bytes)}", f"  {human_bytes(row.archive_bytes)}"]
            return fit_row(room, head, title, [Text(form, note) for form in forms], least=8, most=44)
        decision = row.decision
        size = row.session.bytes if isinstance(row, SessionRow) else row.orphan.bytes
        mark = cls("cleanup-tree--keep" if decision.action == "keep" else "cleanup-tree--going", partial=True)
        return fit_row(room, Text(f"{decision.action:<8}", mark), title, [Text(f"  {human_bytes(size)}", note)],
                       least=8, most=44)


def project_forms(row: ProjectPreview, cls: Callable[..., Style], gap: Style) -> list[Text]:
    """What stands beside a project's folder, longest first: the size bar shrinks, then goes;
    then the count of sessions going; the bytes going of the project's stay whole."""
    note, bar = cls("cleanup-tree--note", partial=True), cls("cleanup-tree--bar", partial=True)
    count = len(row.sessions) + len(row.orphans)
    going = f"  {human_bytes(row.going_bytes)} of {human_bytes(row.bytes)} going"
    figures = [f"{going} · {row.going} of {count}", going]
    bars = [Text.assemble(("  ", gap), (size_bar(row.going_bytes, row.bytes, width), bar), (figures[0], note))
            for width in (BAR_WIDTH, BAR_WIDTH // 2)]
    return [*bars, *(Text(text, note) for text in figures)]
