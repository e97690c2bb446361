"""The tasks of one session as a tree: sub-agent handoffs nest under the task that handed off.

A handoff child may live in another (often closed) session; it still nests under its
parent here, marked with the session it lives in. Status is a glyph plus a theme colour
(component classes, styled in tcss/app.tcss), so themes restyle it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from memtui.core.model import Id, TaskInfo
from memtui.ui.text import safe_text
from memtui.ui.widgets.render_pass import StylesPerPass

# status → (glyph, component class). Pinned and superseded are shown besides the status.
STATUS_GLYPHS: dict[str, tuple[str, str]] = {
    "running": ("▶", "task-tree--running"),
    "waiting_user": ("?", "task-tree--waiting"),
    "completed": ("✓", "task-tree--completed"),
    "failed": ("✗", "task-tree--failed"),
    "cancelled": ("⊘", "task-tree--cancelled"),
    "interrupted": ("⊘", "task-tree--cancelled"),  # the user stopped it: not a failure
}
UNKNOWN_GLYPH = ("·", "task-tree--cancelled")


class TaskTree(StylesPerPass, Tree[TaskInfo]):
    """Tasks of a session, handoff children nested; filterable by title."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = Tree.COMPONENT_CLASSES | {
        "task-tree--running",
        "task-tree--waiting",
        "task-tree--completed",
        "task-tree--failed",
        "task-tree--cancelled",
        "task-tree--superseded",
        "task-tree--pinned",
        "task-tree--current",
        "task-tree--foreign",
        "task-tree--collected",
    }
    """
    | Class | Description |
    | :- | :- |
    | `task-tree--running` … `task-tree--cancelled` | The status glyph of each status. |
    | `task-tree--superseded` | A task a newer one supersedes (title dimmed). |
    | `task-tree--pinned` | The pin mark. |
    | `task-tree--current` | The session's current-task mark. |
    | `task-tree--foreign` | The "in session N" note of a handoff child from another session. |
    | `task-tree--collected` | The "collected" note of a task whose heavy data GC removed. |
    """

    class NothingMatches(Message):
        """The filter leaves none of the session's tasks listed: no task is under the cursor, so
        the steps shown (the last highlighted task's) are no longer those of a listed task."""

        def __init__(self, tree: "TaskTree") -> None:
            super().__init__()
            self.tree = tree

        @property
        def control(self) -> "TaskTree":
            return self.tree

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("Tasks", id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 3
        self.auto_expand = False  # enter moves on to the steps; space folds sub-agents
        self.session_id: Id | None = None
        """The session shown (None: the orphans)."""
        self.current_task_id: Id | None = None
        self.filter_text = ""
        self.handed_from: dict[Id, Id] = {}
        """Tasks of this session handed off from a task in another session: child → parent."""
        self.tasks: list[TaskInfo] = []
        """The tasks last given to `show_tasks`."""
        self._children: dict[Id, list[TaskInfo]] = {}
        self._roots: list[Id] = []

    # ------------------------------------------------------------------ content
    def show_tasks(self, session_id: Id | None, tasks: list[TaskInfo], children: dict[Id, list[TaskInfo]],
                   roots: list[Id], current_task_id: Id | None, handed_from: dict[Id, Id] | None = None) -> None:
        """Replace the tree with this session's task forest."""
        self.session_id = session_id
        self.current_task_id = current_task_id
        self.handed_from = dict(handed_from or {})
        self.tasks, self._children, self._roots = tasks, children, roots
        with self.styles_fixed():  # measuring every label asks for the same styles
            self._rebuild()
            _ = self.last_line  # the lines and the size now, drawn in one frame

    def apply_filter(self, text: str) -> None:
        """Keep the tasks whose title contains `text`, with their ancestors. A filter that
        matches none says so (`NothingMatches`); one that matches again after none puts the
        cursor on the first task (its steps load as any highlight's do)."""
        if text != self.filter_text:
            self.filter_text = text
            self._rebuild(keep=self.current_task())
            if not self.root.children:
                if self.tasks:
                    self.post_message(self.NothingMatches(self))
            elif self.current_task() is None:
                _ = self.last_line  # lays the lines out now
                self.move_cursor_to_line(0)

    def _rebuild(self, keep: TaskInfo | None = None) -> None:
        by_id = {t.id: t for t in self.tasks}
        for kids in self._children.values():
            by_id.update((k.id, k) for k in kids)
        needle = self.filter_text.lower()

        def wanted(task_id: Id, seen: frozenset[Id]) -> bool:
            task = by_id[task_id]
            if not needle or needle in task.title.lower():
                return True
            return any(wanted(k.id, seen | {k.id}) for k in self._children.get(task_id, ()) if k.id not in seen)

        self.clear()
        target: TreeNode[TaskInfo] | None = None

        def add(parent: TreeNode[TaskInfo], task_id: Id, seen: frozenset[Id]) -> None:
            nonlocal target
            task = by_id[task_id]
            kids = [k for k in self._children.get(task_id, ()) if k.id not in seen and wanted(k.id, seen)]
            node = parent.add(safe_text(task.title), data=task, expand=True, allow_expand=bool(kids))
            if keep is not None and task.id == keep.id and target is None:
                target = node
            for kid in kids:
                add(node, kid.id, seen | {kid.id})

        for root in self._roots:
            if root in by_id and wanted(root, frozenset({root})):
                add(self.root, root, frozenset({root}))
        if target is not None:
            _ = self.last_line
            self.move_cursor(target)

    def current_task(self) -> TaskInfo | None:
        """The task under the cursor."""
        node = self.cursor_node
        return None if node is None or node is self.root else node.data

    def around_cursor(self) -> list[TaskInfo]:
        """The tasks on the lines just above and below the cursor (what a move of one line shows next)."""
        lines = (self.cursor_line - 1, self.cursor_line + 1)
        nodes = [self.get_node_at_line(y) for y in lines if 0 <= y <= self.last_line]
        return [node.data for node in nodes if node is not None and node.data is not None]

    def select_task(self, task_id: Id) -> bool:
        """Move the cursor to a task, if it is in the tree."""
        def find(node: TreeNode[TaskInfo]) -> TreeNode[TaskInfo] | None:
            for child in node.children:
                if child.data is not None and child.data.id == task_id:
                    return child
                found = find(child)
                if found is not None:
                    return found
            return None

        node = find(self.root)
        if node is None:
            return False
        _ = self.last_line  # lays the lines out now: a node's line is unknown until then
        self.move_cursor(node)
        return node.line >= 0

    # ------------------------------------------------------------------ rendering
    def render_label(self, node: TreeNode[TaskInfo], base_style: Style, style: Style) -> Text:
        task = node.data
        if task is None:
            return super().render_label(node, base_style, style)
        glyph, component = STATUS_GLYPHS.get(task.status, UNKNOWN_GLYPH)
        prefix = Text.assemble(
            (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style)
            if node.allow_expand else "",
            (f"{glyph} ", self.get_component_rich_style(component, partial=True)),
        )
        title = node.label.copy()
        if task.superseded:
            title.stylize(self.get_component_rich_style("task-tree--superseded", partial=True))
        title.stylize(style)
        parts: list[Text | tuple[str, Style] | str] = [prefix, title]
        if task.id == self.current_task_id:
            parts.append((" ◀ current", self.get_component_rich_style("task-tree--current", partial=True)))
        if task.pinned:
            parts.append((" ⚑ pinned", self.get_component_rich_style("task-tree--pinned", partial=True)))
        if task.superseded:
            parts.append((" superseded", self.get_component_rich_style("task-tree--superseded", partial=True)))
        if task.collected:
            parts.append((" collected", self.get_component_rich_style("task-tree--collected", partial=True)))
        parent = self.handed_from.get(task.id)
        if parent is not None and node.parent is self.root:
            parts.append((f" ↖ from task {parent}", self.get_component_rich_style("task-tree--foreign", partial=True)))
        if task.session_id != self.session_id:
            where = "orphan" if task.session_id is None else f"session {task.session_id}"
            parts.append((f" ↗ {where}", self.get_component_rich_style("task-tree--foreign", partial=True)))
        return Text.assemble(*parts)
