"""The memory screen's "Loaded at start" view (key `l`): what Claude Code, Codex and an init.d
agent load when a session starts in the workspace, one tab per agent.

The left side swaps the document list for the chain (memtui.ui.widgets.chain_panel): files in
load order with size bars, imports under the file importing them, the agent's problems. The
right side shows the highlighted file as the agent reads it, a rule line where it stops
reading (memtui.ui.widgets.chain_text). Enter edits the file with the memory screen's own
safe save — conflict check, history, undo — also when the file lies outside the workspace (a
user-level CLAUDE.md, an auto-memory MEMORY.md): those files, and only those, are passed to
the save as `outside`, and the editor names the full path it writes. After a save the chains
are built again, so a fixed cut-off disappears from the view.

The memory screen owns one `LoadedAtStart` and forwards the view's messages to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.memory.chain import ChainFile
from memtui.core.memory.lint import Finding
from memtui.ui.commands import command_for, refusal
from memtui.ui.widgets.chain_panel import ChainPanel
from memtui.ui.widgets.document_list import DocumentList

if TYPE_CHECKING:
    from memtui.ui.screens.memory import MemoryScreen


class LoadedAtStart:
    """State and behaviour of the "Loaded at start" view of one memory screen."""

    def __init__(self, screen: "MemoryScreen") -> None:
        self.screen = screen
        self.active = False

    @property
    def panel(self) -> ChainPanel:
        return self.screen.query_one(ChainPanel)

    @property
    def grants(self) -> frozenset[Path]:
        """The files outside the workspace the screen may write: the chains' files."""
        return self.panel.grants if self.screen.is_mounted else frozenset()

    def toggle(self) -> None:
        """Show the chains instead of the document list, or go back to the documents."""
        screen = self.screen
        self.active = not self.active
        screen.set_class(self.active, "-loaded")
        screen.query_one("#memory-filter").display = False
        if self.active:
            self.panel.reload()
            self.panel.list.focus()
            return
        screen.query_one(DocumentList).focus()
        screen.current = screen.opened = None
        screen.refresh_data()

    def focus_list(self) -> None:
        """Put the cursor in the list shown on the left: the chain in this view, else the
        documents (hidden while the chain shows)."""
        (self.panel.list if self.active else self.screen.query_one(DocumentList)).focus()

    def refresh(self) -> None:
        """Build the chains again (after a save, or when the open file changed on disk)."""
        if self.active:
            self.panel.reload()

    def key(self, path: Path) -> str:
        """The screen's name for a file: workspace-relative inside it, absolute outside."""
        workspace = self.screen.workspace
        return path.relative_to(workspace).as_posix() if path.is_relative_to(workspace) else str(path)

    def entry(self, key: str | None) -> ChainFile | None:
        chain = self.panel.chain if self.active else None
        return None if chain is None or key is None else chain.file(self.screen.workspace / key)

    def shows(self, key: str | None) -> bool:
        """True when `key` is shown as a chain file (with its cut-off marked)."""
        return self.entry(key) is not None

    def highlighted(self, path: Path) -> None:
        """A chain file was highlighted: open it (the editor, if open, stays on its file)."""
        screen = self.screen
        if screen.editing:
            if screen.current is not None:
                self.panel.list.select_path(screen.workspace / screen.current)
            return
        key = self.key(path)
        if key != screen.current or screen.opened is None:
            screen.current, screen.opened = key, None
            screen.open_document(key)

    def chosen(self) -> None:
        """Enter on a chain file edits it as `e` does: only where the source can, else say why
        (an editor that cannot save would take the user's typing and refuse it after)."""
        screen = self.screen
        if screen.check_action("edit", ()):
            screen.action_edit()
            return
        edit = command_for(screen.COMMAND_SCOPE, "edit")  # its key, as the table defines it
        why = edit and refusal(screen.COMMAND_SCOPE, edit.key.split(",")[0], screen.app.source, screen.focused_pane())
        if why:
            screen.notify(why, severity="warning", markup=False)

    def loaded(self) -> None:
        """Fresh chains are shown: reopen the highlighted file if it changed, else re-mark it."""
        screen = self.screen
        path = self.panel.list.highlighted_path
        if path is None or screen.editing:
            return
        key = self.key(path)
        if key != screen.current or screen.opened is None or screen._stale(key):
            screen.current, screen.opened = key, None
            screen.open_document(key)
        else:
            self.show_current()

    def show_current(self) -> None:
        """Show the open file as the agent reads it, with the agent's problems in it."""
        screen, entry = self.screen, self.entry(self.screen.current)
        chain = self.panel.chain
        if entry is None or chain is None or screen.opened is None:
            return
        screen.view.chain_text.show(screen.opened.data, entry, chain.label)
        screen.view.findings([Finding(screen.current or "", p.line, p.rule, p.message)
                              for p in chain.problems if p.file == entry.path])
        screen._switch_view()

    def edit_notice(self, key: str) -> str | None:
        """What the editor says about a file outside the workspace: the full path written."""
        path = self.screen.workspace / key
        if path.is_relative_to(self.screen.workspace):
            return None
        entry, chain = self.entry(key), self.panel.chain
        whose = f"{chain.label}'s {entry.scope} file" if entry is not None and chain is not None else "a chain file"
        target = path.resolve()
        through = f" (through the link {path})" if target != path else ""
        return (f"Editing {target}{through} — outside the workspace, {whose}. ctrl+s writes this file "
                "(its previous version is kept in the workspace's history), escape leaves.")
