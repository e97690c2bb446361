"""The memory pane: a workspace's memory documents, read and hand-edited safely.

Left, the documents grouped by kind with lint badges (`/` filters them). Right, the
highlighted document: markdown rendered with a table of contents, JSONL as a table of
records (malformed lines reported), anything else as text, and the document's lint
findings underneath. `e` edits in a TextArea, ctrl+s saves atomically with a conflict check
(reload / diff / overwrite when the agent wrote the file meanwhile), `u` undoes memtui's
last save, `h` lists kept versions to restore one.

Browsing (layout, loading, showing) is the base class `MemoryBrowser`
(memtui.ui.screens.memory_browser); this module adds editing and the actions.

The screen needs only a workspace path; with the memtui app around, lint also uses the
store's facts (unfinished tasks, newest checkpoint) through `app.store`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual import on
from textual.app import SuspendNotSupported
from textual.widgets import Input, MarkdownViewer, TextArea

from memtui.core.errors import MemtuiError, NoHistory, SaveConflict
from memtui.core.memory.save import (
    ANY,
    keep_discarded,
    list_history,
    restore_version,
    save_document,
    undo_last_save,
)
from memtui.ui.commands import bindings
from memtui.ui.screens.memory_browser import (  # noqa: F401  (WATCH_SECONDS: importable from here, as before)
    CHANGED_ON_DISK,
    VIEWS,
    WATCH_SECONDS,
    MemoryBrowser,
)
from memtui.ui.widgets.document_list import DocumentList


class MemoryScreen(MemoryBrowser):
    """Memory documents: browse, lint, edit safely, undo, restore."""

    COMMAND_SCOPE = "memory"
    BINDINGS = bindings("memory")

    # ------------------------------------------------------------------ editing
    def watch_editing(self, editing: bool) -> None:
        self.set_class(editing, "-editing")
        if self.is_mounted:
            self._switch_view()
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "save":
            return self.editing
        if action in ("edit", "undo_save", "history", "toggle_source", "edit_external", "filter"):
            return not self.editing
        return True

    def action_edit(self) -> None:
        """Open the current document in the editor."""
        if self.opened is None or self.current is None:
            self.app.bell()
            return
        if self.opened.readonly:
            self.notify(f"{self.current} is not valid UTF-8: it stays read-only.", severity="warning", markup=False)
            return
        editor = self.query_one(f"#{VIEWS['edit']}", TextArea)
        editor.language = "markdown" if self.current.endswith(".md") else None
        editor.load_text(self.opened.text or "")
        self._discard_armed = False
        self.editing = True
        self._notice("Editing — ctrl+s saves (the previous version is kept), escape leaves.")
        editor.focus()

    def action_save(self) -> None:
        """Save the edit: atomic, refusing to overwrite a newer write on disk."""
        if not self.editing or self.opened is None or self.current is None:
            return
        self._save(self.query_one(f"#{VIEWS['edit']}", TextArea).text, self.opened.version)

    def _save(self, text: str, expected) -> None:
        path = self.workspace / self.current
        try:
            save_document(self.workspace, path, text, expected)
        except SaveConflict as conflict:
            self._conflict(conflict, text)
            return
        except MemtuiError as exc:
            self._error(exc)
            return
        except OSError as exc:
            self._error(f"could not save {self.current}: {exc.strerror or exc}")
            return
        self.notify(f"Saved {self.current}; the previous version is kept (u undoes).", markup=False)
        self._leave_editor()

    def _conflict(self, conflict: SaveConflict, text: str) -> None:
        from memtui.ui.screens.conflict import ConflictScreen

        def chosen(choice: str | None) -> None:
            if choice == "overwrite":
                self._save(text, ANY)
            elif choice == "reload":
                keep_discarded(self.workspace, self.workspace / self.current, text)
                self.notify(f"Reloaded {self.current} from disk; your edit is kept in its history (h).",
                            markup=False)
                self._leave_editor()

        # The banner says what the watcher would say on its next tick, so it does not
        # depend on whether that tick came before the save.
        self._notice(CHANGED_ON_DISK)
        name = Path(self.current).name
        self.app.push_screen(ConflictScreen(name, str(conflict), conflict.disk, text), chosen)

    def _leave_editor(self) -> None:
        self.editing = False
        self._notice("")
        self.opened = None
        self.query_one(DocumentList).focus()
        self.refresh_data()

    def action_back(self) -> None:
        """Leave the editor (twice if there are unsaved changes), the filter, or the screen."""
        if self.editing:
            text = self.query_one(f"#{VIEWS['edit']}", TextArea).text
            if self.opened is not None and text != self.opened.text and not self._discard_armed:
                self._discard_armed = True
                self.notify("Unsaved changes: ctrl+s saves, escape again discards them.", severity="warning")
                return
            if self.opened is not None and text != self.opened.text:
                keep_discarded(self.workspace, self.workspace / self.current, text)
                self.notify("Edit discarded (kept in the document's history).", markup=False)
            self.editing = False
            self._notice("")
            self.query_one(DocumentList).focus()
            return
        filter_input = self.query_one("#memory-filter", Input)
        if filter_input.display:
            filter_input.value = ""
            filter_input.display = False
            self.query_one(DocumentList).filter("")
            self.query_one(DocumentList).focus()
            return
        if self._source_mode:
            self._source_mode = False
            self._switch_view()
            return
        if len(self.app.screen_stack) > 1:
            self.dismiss()

    def action_undo_save(self) -> None:
        """Put back the version memtui's last save replaced."""
        if self.current is None or self.opened is None:
            return
        try:
            undo_last_save(self.workspace, self.workspace / self.current, self.opened.version)
        except (SaveConflict, NoHistory) as exc:
            self._error(exc)
            return
        self.notify(f"Undid the last save of {self.current} (u again redoes it).", markup=False)
        self.opened = None
        self.refresh_data()

    def action_history(self) -> None:
        """List kept versions; restore the chosen one."""
        from memtui.ui.screens.memory_history import HistoryScreen

        if self.current is None or self.opened is None:
            return
        entries = list_history(self.workspace, self.workspace / self.current)
        if not entries:
            self.notify(f"No kept versions of {self.current} yet: memtui keeps one at every save.", markup=False)
            return
        expected = self.opened.version

        def restore(number: int | None) -> None:
            if number is None:
                return
            try:
                restore_version(self.workspace, self.workspace / self.current, number, expected)
            except MemtuiError as exc:
                self._error(exc)
                return
            self.notify(f"Restored version {number} of {self.current}.", markup=False)
            self.opened = None
            self.refresh_data()

        self.app.push_screen(HistoryScreen(self.current, entries), restore)

    def action_toggle_source(self) -> None:
        """Rendered markdown / JSONL table ↔ plain source with line numbers."""
        self._source_mode = not self._source_mode
        self._switch_view()

    def action_toggle_toc(self) -> None:
        viewer = self.query_one(MarkdownViewer)
        viewer.show_table_of_contents = not viewer.show_table_of_contents

    def action_filter(self) -> None:
        """Filter the document list by path."""
        filter_input = self.query_one("#memory-filter", Input)
        filter_input.display = True
        filter_input.focus()

    @on(Input.Changed, "#memory-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(DocumentList).filter(event.value)

    @on(Input.Submitted, "#memory-filter")
    def _filter_submitted(self) -> None:
        self.query_one(DocumentList).focus()

    def _offer_builtin_editor(self, why: str) -> None:
        """$EDITOR cannot run here: say so and offer memtui's own editor."""
        from memtui.ui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.action_edit()

        body = f"{why}\nEdit {self.current} in memtui's own editor instead? ctrl+s saves it, with the same conflict check."
        self.app.push_screen(ConfirmScreen("$EDITOR is not available here", body, yes="Edit here", no="Cancel"),
                             answered)

    def action_edit_external(self) -> None:
        """Edit in $EDITOR (the app is suspended); the same conflict check applies on return."""
        if self.opened is None or self.current is None or self.opened.readonly:
            self.app.bell()
            return
        if self.app.is_web:
            self._offer_builtin_editor("memtui runs in a browser here: $EDITOR needs a terminal on this machine.")
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        suffix = Path(self.current).suffix
        with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False, encoding="utf-8", newline="") as tmp:
            tmp.write(self.opened.text or "")
        try:
            with self.app.suspend():
                subprocess.call([*shlex.split(editor), tmp.name])
            text = Path(tmp.name).read_text(encoding="utf-8")
        except SuspendNotSupported:
            Path(tmp.name).unlink(missing_ok=True)
            self._offer_builtin_editor("This terminal cannot hand itself over to $EDITOR.")
            return
        except (OSError, UnicodeDecodeError) as exc:
            self._error(f"editor failed: {exc}")
            return
        finally:
            Path(tmp.name).unlink(missing_ok=True)
        if text == self.opened.text:
            return
        self._save(text, self.opened.version)
