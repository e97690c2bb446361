"""A two-level tree rebuilt by a reload, left as the user had it.

A reload (after an action, ctrl+r, or follow mode noticing a change) gives a tree new data
objects, so rows are matched by a key (what the row stands for). `KeptView` reads the tree
before it is cleared — which groups were shown and open, and the cursor's row and its
group's — then, once the new nodes are added, says whether a group starts open and puts the
cursor back before returning: a key handled next acts on that row, never on whatever line
the old cursor's number points at in the new tree (Textual's `move_cursor` after the next
refresh would leave that window open).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from textual.widgets import Tree
from textual.widgets.tree import TreeNode


class KeptView:
    """The view state of a tree about to be rebuilt, keyed by `key(row)`."""

    def __init__(self, tree: Tree[Any], key: Callable[[Any], Hashable]) -> None:
        self.tree = tree
        groups = [node for node in tree.root.children if node.data is not None]
        self.was = {key(node.data) for node in groups}
        self.opened = {key(node.data) for node in groups if node.is_expanded}
        self.cursor: list[Hashable] = []  # the cursor's row, then its group's
        node = tree.cursor_node
        while node is not None and node is not tree.root and node.data is not None:
            self.cursor.append(key(node.data))
            node = node.parent

    @property
    def first(self) -> bool:
        """Nothing was shown before (the tree's first filling)."""
        return not self.was

    def expand(self, key: Hashable, default: bool) -> bool:
        """Whether a group starts open: as the user left it, or `default` when it is new."""
        return key in self.opened if key in self.was else default

    def place(self, nodes: dict[Hashable, TreeNode[Any]], fallback: TreeNode[Any] | None = None) -> None:
        """Put the cursor on the row it was on (its group's when the row went), else on
        `fallback`, else on the first row; now, not after the next refresh."""
        tree = self.tree
        target = next((nodes[key] for key in self.cursor if key in nodes), None) or fallback
        if target is None and tree.root.children:
            target = tree.root.children[0]
        if target is None:
            return
        if target.parent is not None and target.parent is not tree.root:
            target.parent.expand()
        tree.get_node_at_line(0)  # lays the new lines out now: `target.line` is known
        tree.move_cursor(target)
        tree.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        node = self.tree.cursor_node
        if node is not None:
            self.tree.scroll_to_node(node, animate=False)
