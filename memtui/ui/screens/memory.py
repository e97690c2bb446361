"""The memory pane: a workspace's memory documents, read and hand-edited safely.

Left, the documents by kind with lint badges; right, the highlighted one (widgets.document_view),
compared with the disk every WATCH_SECONDS. `e` edits, ctrl+s saves atomically with a conflict
check (reload / diff / overwrite), `E` edits in $EDITOR with the same check, `u` undoes memtui's
last save, `h` lists kept versions (the dialog: memtui.ui.screens.memory_history).

"Loaded at start" (key `l`): what Claude Code, Codex and an init.d agent load when a session
starts in the workspace, one tab per agent. The left side swaps the document list for the
chain (memtui.ui.widgets.chain_panel): files in load order with size bars, imports under the
file importing them, the agent's problems. The right side shows the highlighted file as the
agent reads it, a rule line where it stops reading (memtui.ui.widgets.chain_text). Enter edits
the file with the same safe save — conflict check, history, undo — also when the file lies
outside the workspace (a user-level CLAUDE.md, an auto-memory MEMORY.md): those files, and only
those, are passed to the save as `outside`, and the editor names the full path it writes. After
a save the chains are built again, so a fixed cut-off disappears from the view.

Every read and write of a document's history runs in a thread worker (a slow or network disk
never freezes the screen): a refusal (a conflict, a read-only folder) is one error line,
anything else a failed worker, which the screen reports once.

One concern, so one module past 400 lines: the documents of one workspace, as the user reads,
edits and restores them, whichever list (documents or chains) chose them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input
from textual.worker import Worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.display import counted, has_controls
from memtui.core.errors import MemtuiError, SaveConflict
from memtui.core.memory.chain import ChainFile
from memtui.core.memory.discover import MemoryDocument, discover_documents
from memtui.core.memory.documents import JsonlDocument, OpenedDocument, parse_jsonl, read_document
from memtui.core.memory.lint import Finding, lint_workspace, store_facts
from memtui.core.memory.save import (ANY, HistoryEntry, keep_discarded, list_history, restore_version,
                                     save_document, undo_last_save)
from memtui.ui.commands import bindings, command_for, refusal
from memtui.ui.external_editor import EditorUnavailable, edit_externally
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.memory_history import HistoryScreen
from memtui.ui.widgets.chain_list import ChainList
from memtui.ui.widgets.chain_panel import ChainPanel
from memtui.ui.widgets.document_list import DocumentList
from memtui.ui.widgets.document_view import DocumentView
from memtui.ui.workers import failure_reason
from memtui.resources import screen_css

WATCH_SECONDS = 0.5  # how often the open document is compared with the disk (one stat)
CHANGED_ON_DISK = "The file changed on disk while you edit it: ctrl+s will show what changed."
ON_A_DOCUMENT = ("edit", "undo_save", "history", "toggle_source", "toggle_toc", "edit_external")
WHILE_EDITING_NOT = (set(ON_A_DOCUMENT) - {"toggle_toc"}) | {"filter", "toggle_loaded"}  # while a document is edited


class MemoryScreen(MemtuiScreen[None]):
    """Memory documents: browse, lint, edit safely, undo, restore."""

    CSS_PATH = screen_css("memory.tcss")

    COMMAND_SCOPE = "memory"
    BINDINGS = bindings("memory")

    editing: reactive[bool] = reactive(False)
    """True while the editor is open on the current document."""

    @dataclass
    class DocumentsLoaded(Message):
        """Discovery and lint finished (posted from a worker)."""

        docs: list[MemoryDocument]
        findings: list[Finding]

    @dataclass
    class DocumentOpened(Message):
        """A document was read (posted from a worker)."""

        rel: str
        opened: OpenedDocument
        jsonl: JsonlDocument | None

    def __init__(self, workspace: Path | str, *, select: str | None = None, line: int | None = None) -> None:
        """`select`: a document (relative path) to show first; `line`: show its source there."""
        super().__init__()
        self.workspace = Path(workspace).resolve()
        self.docs: dict[str, MemoryDocument] = {}
        self.findings: list[Finding] = []
        self.current: str | None = None
        self.opened: OpenedDocument | None = None
        self._pending_line = line
        self._select = select
        self._source_mode = line is not None
        self._discard_armed = False
        self.showing_chains = False
        """True while the "Loaded at start" view (l) shows the agents' chains instead of the documents."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="memory-body"):
            with Vertical(id="memory-side"):
                yield Input(placeholder="filter documents", id="memory-filter")
                yield DocumentList(id="memory-documents")
                yield ChainPanel(self.workspace, id="chain-panel")
            yield DocumentView(id="memory-main")
        yield KeyFooter()

    @property
    def view(self) -> DocumentView:  # the document shown (right side)
        return self.query_one(DocumentView)

    def on_mount(self) -> None:
        self.query_one("#memory-filter").display = False
        self.query_one(DocumentList).focus()
        self.refresh_data()
        self.set_interval(WATCH_SECONDS, self.check_disk)

    def check_disk(self) -> None:
        """Notice when the agent rewrites the open document: reload it when only viewing;
        while editing, say so at once (ctrl+s will then offer reload / diff / overwrite)."""
        if self.opened is None or self.current is None or not self._stale(self.current):
            return
        if self.editing:
            self.view.notice(CHANGED_ON_DISK)
        else:
            self.refresh_data()

    def refresh_data(self) -> None:
        """Rediscover and lint (the app calls this after any write); the chains are built again."""
        self.load_documents()
        if self.showing_chains:
            self.chain_panel.reload()

    def worker_failed(self, worker: Worker) -> None:
        super().worker_failed(worker)
        if worker.group == "memory-open" and self.current is not None:
            self.opened = None
            self.view.title(f"Cannot open {self.current}: {failure_reason(worker)}")
            self.view.clear()
        elif worker.group == "memory-load":
            self.view.title(f"Cannot read the memory documents: {failure_reason(worker)}")

    # ------------------------------------------------------------------ loading
    @work(thread=True, exclusive=True, group="memory-load", exit_on_error=False, description="read memory documents")
    def load_documents(self) -> None:
        docs = discover_documents(self.workspace)
        store = self.app.store
        if store is None:
            facts = store_facts(None)
        else:
            with self.app.reading() as source:
                facts = store_facts(source)
        findings = lint_workspace(self.workspace, documents=docs, **facts)
        self.post_message(self.DocumentsLoaded(docs, findings))

    @work(thread=True, exclusive=True, group="memory-open", exit_on_error=False, description="open a document")
    def open_document(self, rel: str) -> None:
        opened = read_document(self.workspace / rel)
        jsonl = parse_jsonl(opened.text, rel) if rel.endswith(".jsonl") and opened.text is not None else None
        self.post_message(self.DocumentOpened(rel, opened, jsonl))

    @on(DocumentsLoaded)
    def _documents_loaded(self, event: DocumentsLoaded) -> None:
        self.docs = {d.rel: d for d in event.docs}
        self.refresh_bindings()  # a document's keys are offered while there is one
        self.findings = event.findings
        keep = self._select or self.current
        self._select = None
        doc_list = self.query_one(DocumentList)
        doc_list.show(event.docs, event.findings, keep=keep)
        if self.showing_chains:
            return  # the chain view shows its own file
        if not event.docs:
            self.view.title("No memory documents in this workspace")
            return
        rel = doc_list.highlighted_rel
        if rel is not None and (rel != self.current or self.opened is None or self._stale(rel)):
            if not self.editing:
                self.current = rel
                self.open_document(rel)
        elif rel is not None:
            self.view.findings([f for f in self.findings if f.file == rel])

    @on(DocumentList.DocumentHighlighted)
    def _document_highlighted(self, event: DocumentList.DocumentHighlighted) -> None:
        if self.editing:
            # The editor stays on its document; the list follows it back.
            if event.rel != self.current and self.current is not None:
                self.query_one(DocumentList).select_rel(self.current)
            return
        if event.rel != self.current and not self.showing_chains:
            self.current = event.rel
            self.open_document(event.rel)

    def _stale(self, rel: str) -> bool:
        """True if the file on disk is not the version last read (one stat, no read)."""
        if self.opened is None:
            return True
        try:
            st = os.stat(self.workspace / rel)
        except OSError:
            return True
        return (st.st_size, st.st_mtime_ns) != (self.opened.version.size, self.opened.version.mtime_ns)

    @on(DocumentOpened)
    async def _document_opened(self, event: DocumentOpened) -> None:
        if event.rel != self.current or self.editing:
            return
        self.opened = opened = event.opened
        doc = self.docs.get(event.rel)
        self.view.title(event.rel if doc is None else f"{event.rel}  ·  {counted(doc.lines, 'line')}  ·  {doc.size} B  ·  "
                        f"modified {doc.mtime:%Y-%m-%d %H:%M} UTC")
        self.view.notice(f"Read-only: {opened.encoding_error}. Nothing is re-encoded." if opened.readonly else "")
        self.view.findings([f for f in self.findings if f.file == event.rel])
        text = opened.text if opened.text is not None else opened.data.decode("utf-8", "replace")
        markdown = doc is not None and doc.format == "markdown" and opened.text is not None
        await self.view.show(text, markdown, event.jsonl)
        self._show_chain_text()
        self._switch_view()
        if self._pending_line is not None:
            self._go_to_line(self._pending_line)
            self._pending_line = None

    def _format(self) -> str:
        doc = self.docs.get(self.current or "")
        return doc.format if doc else "text"

    def _switch_view(self) -> None:
        fmt = self._format()
        if self.editing:
            view = "edit"
        elif self._chain_entry(self.current) is not None and not self._source_mode:
            view = "chain"
        elif self._source_mode or self.opened is None or self.opened.readonly or fmt not in ("markdown", "jsonl"):
            view = "source"
        else:
            view = fmt
        self.view.switch(view)

    def _go_to_line(self, line: int) -> None:
        jsonl = self._format() == "jsonl" and not self._source_mode
        if not jsonl:
            self._source_mode = True
            self._switch_view()
        self.view.go_to_line(line, jsonl)

    # ------------------------------------------------------------------ editing
    def watch_editing(self, editing: bool) -> None:
        self.set_class(editing, "-editing")
        if self.is_mounted:
            self._switch_view()
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not super().check_action(action, parameters):
            return False  # the source can't (a read-only session, a store without a workspace)
        if action == "save":
            return self.editing
        if action == "filter" and self.showing_chains:
            return False
        if not self.docs and not self.showing_chains and action in ON_A_DOCUMENT:
            return False  # no document to edit, view or restore (the chain view has its files)
        return not (self.editing and action in WHILE_EDITING_NOT)

    def action_edit(self) -> None:
        """Open the current document in the editor."""
        if self.opened is None or self.current is None:
            self.app.bell()
            return
        if self.opened.readonly:
            self.notify(f"{self.current} is not valid UTF-8: it stays read-only.", severity="warning", markup=False)
            return
        if has_controls(self.opened.text or ""):  # the editor would pass them to the terminal
            self.notify(f"{self.current} holds control characters (shown as ␛ …): edit it in $EDITOR (E).",
                        severity="warning", markup=False)
            return
        editor = self.view.editor
        editor.language = "markdown" if self.current.endswith(".md") else None
        editor.load_text(self.opened.text or "")
        self._discard_armed = False
        self.editing = True
        self.view.notice(self._edit_notice(self.current)
                         or "Editing — ctrl+s saves (the previous version is kept), escape leaves.")
        editor.focus()

    def action_save(self) -> None:
        """Save the edit: atomic, refusing to overwrite a newer write on disk."""
        if not self.editing or self.opened is None or self.current is None:
            return
        self.save(self.view.editor.text, self.opened.version)

    def save(self, text: str, expected) -> None:
        """Save `text` if the file on disk is still `expected` (ANY: overwrite)."""
        try:
            save_document(self.workspace, self.workspace / self.current, text, expected, outside=self.outside_grants)
        except SaveConflict as conflict:
            self._conflict(conflict, text)
            return
        except (MemtuiError, OSError) as exc:
            self.app.notify_error(exc if isinstance(exc, MemtuiError) else
                                  f"could not save {self.current}: {exc.strerror or exc}")
            return
        self.notify(f"Saved {self.current}; the previous version is kept (u undoes).", markup=False)
        self._leave_editor()

    def _conflict(self, conflict: SaveConflict, text: str) -> None:
        from memtui.ui.screens.conflict import ConflictScreen

        def chosen(choice: str | None) -> None:
            if choice == "overwrite":
                self.save(text, ANY)
            elif choice == "reload" and self._keep_discarded(text):
                self.notify(f"Reloaded {self.current} from disk; your edit is kept in its history (h).",
                            markup=False)
                self._leave_editor()

        # The banner says what the watcher would say on its next tick, so it does not
        # depend on whether that tick came before the save.
        self.view.notice(CHANGED_ON_DISK)
        self.app.push_screen(ConflictScreen(Path(self.current).name, str(conflict), conflict.disk, text), chosen)

    def _keep_discarded(self, text: str) -> bool:
        """Keep an edit that is not saved in the document's history; False (and said why)
        when that write failed (a read-only workspace)."""
        try:
            keep_discarded(self.workspace, self.workspace / self.current, text, outside=self.outside_grants)
        except (MemtuiError, OSError) as exc:
            self.app.notify_error(f"could not keep the edit of {self.current} in its history: "
                                  f"{getattr(exc, 'strerror', None) or exc}", title="Edit not discarded")
            return False
        return True

    def _leave_editor(self) -> None:
        self.editing = False
        self.view.notice("")
        self.opened = None
        self._focus_list()
        self.refresh_data()

    def action_back(self) -> None:
        """Leave the editor (twice if there are unsaved changes), the filter, or the screen."""
        if self.editing:
            text = self.view.editor.text
            changed = self.opened is not None and text != self.opened.text
            if changed and not self._discard_armed:
                self._discard_armed = True
                self.notify("Unsaved changes: ctrl+s saves, escape again discards them.", severity="warning")
                return
            if changed:
                if not self._keep_discarded(text):
                    return  # the edit stays open: nothing is lost
                self.notify("Edit discarded (kept in the document's history).", markup=False)
            self.editing = False
            self.view.notice("")
            self._focus_list()
            return
        filter_input = self.query_one("#memory-filter", Input)
        if filter_input.display:
            filter_input.value = ""
            filter_input.display = False
            self.query_one(DocumentList).filter("")
            self.query_one(DocumentList).focus()
        elif self._source_mode:
            self._source_mode = False
            self._switch_view()
        elif self.showing_chains:
            self.action_toggle_loaded()
        elif len(self.app.screen_stack) > 1:
            self.dismiss()

    # ------------------------------------------------------------------ kept versions
    def _history_worker(self, job: Callable[[], None], what: str) -> None:
        """Run `job` in a thread worker (one history job at a time); a refusal the user can
        act on (MemtuiError, OSError) is one error line, anything else fails the worker."""

        def run() -> None:
            try:
                job()
            except (MemtuiError, OSError) as exc:
                self.app.call_from_thread(self.app.notify_error, exc)

        self.run_worker(run, thread=True, exclusive=True, group="memory-history", exit_on_error=False,
                        description=what)

    def _write_and_reload(self, write: Callable[[], object], done: str, what: str) -> None:
        """Run one write over the document in a worker; on success say `done` and reload it."""

        def job() -> None:
            write()
            self.app.call_from_thread(self._written, done)

        self._history_worker(job, what)

    def _written(self, done: str) -> None:
        self.notify(done, markup=False)
        self.opened = None
        self.refresh_data()

    def action_undo_save(self) -> None:
        """u: put back the version memtui's last save of the document replaced."""
        if self.current is None or self.opened is None:
            return
        name, version, grants, workspace = self.current, self.opened.version, self.outside_grants, self.workspace
        self._write_and_reload(lambda: undo_last_save(workspace, workspace / name, version, grants),
                               f"Undid the last save of {name} (u again redoes it).", f"undo the last save of {name}")

    def action_history(self) -> None:
        """h: list the kept versions of the document; restore the chosen one."""
        if self.current is None or self.opened is None:
            return
        workspace, grants = self.workspace, self.outside_grants
        path, expected, name = workspace / self.current, self.opened.version, self.current

        def restore(number: int | None) -> None:
            if number is None:
                return
            self._write_and_reload(lambda: restore_version(workspace, path, number, expected, grants),
                                   f"Restored version {number} of {name}.", f"restore version {number} of {name}")

        def offer(entries: list[HistoryEntry]) -> None:
            if not entries:
                self.notify(f"No kept versions of {name} yet: memtui keeps one at every save.", markup=False)
            else:
                self.app.push_screen(HistoryScreen(name, entries), restore)

        def job() -> None:
            entries = list_history(workspace, path, grants)
            self.app.call_from_thread(offer, entries)

        self._history_worker(job, f"list the kept versions of {name}")

    def action_toggle_source(self) -> None:
        """Rendered markdown / JSONL table ↔ plain source with line numbers."""
        self._source_mode = not self._source_mode
        self._switch_view()

    def action_toggle_toc(self) -> None:
        """Show or hide the table of contents."""
        self.view.toggle_toc()

    # ------------------------------------------------------------------ loaded at start
    @property
    def chain_panel(self) -> ChainPanel:
        """The agents' chains (left side of the "Loaded at start" view)."""
        return self.query_one(ChainPanel)

    @property
    def outside_grants(self) -> frozenset[Path]:
        """The files outside the workspace the screen may write: the chains' files."""
        return self.chain_panel.grants if self.is_mounted else frozenset()

    def action_toggle_loaded(self) -> None:
        """What each agent loads at start ↔ the workspace's documents."""
        self.showing_chains = not self.showing_chains
        self.set_class(self.showing_chains, "-loaded")
        self.query_one("#memory-filter").display = False
        if self.showing_chains:
            self.chain_panel.reload()
            self.chain_panel.list.focus()
            return
        self.query_one(DocumentList).focus()
        self.current = self.opened = None
        self.refresh_data()

    def _focus_list(self) -> None:
        """Put the cursor in the list shown on the left: the chain in the chains' view, else the
        documents (hidden while the chain shows)."""
        (self.chain_panel.list if self.showing_chains else self.query_one(DocumentList)).focus()

    def _chain_key(self, path: Path) -> str:
        """The screen's name for a file: workspace-relative inside it, absolute outside."""
        return path.relative_to(self.workspace).as_posix() if path.is_relative_to(self.workspace) else str(path)

    def _chain_entry(self, key: str | None) -> ChainFile | None:
        """The chain's file `key` shows (with its cut-off marked), while the chains show."""
        chain = self.chain_panel.chain if self.showing_chains else None
        return None if chain is None or key is None else chain.file(self.workspace / key)

    @on(ChainList.FileHighlighted)
    def _chain_file_highlighted(self, event: ChainList.FileHighlighted) -> None:
        """A chain file was highlighted: open it (the editor, if open, stays on its file)."""
        if self.editing:
            if self.current is not None:
                self.chain_panel.list.select_path(self.workspace / self.current)
            return
        key = self._chain_key(event.path)
        if key != self.current or self.opened is None:
            self.current, self.opened = key, None
            self.open_document(key)

    @on(ChainList.FileChosen)
    def _chain_file_chosen(self) -> None:
        """Enter on a chain file edits it as `e` does: only where the source can, else say why
        (an editor that cannot save would take the user's typing and refuse it after)."""
        if self.check_action("edit", ()):
            self.action_edit()
            return
        edit = command_for(self.COMMAND_SCOPE, "edit")  # its key, as the table defines it
        why = edit and refusal(self.COMMAND_SCOPE, edit.key.split(",")[0], self.app.source, self.focused_pane())
        if why:
            self.notify(why, severity="warning", markup=False)

    @on(ChainPanel.Loaded)
    def _chains_loaded(self) -> None:
        """Fresh chains are shown: reopen the highlighted file if it changed, else re-mark it."""
        path = self.chain_panel.list.highlighted_path
        if path is None or self.editing:
            return
        key = self._chain_key(path)
        if key != self.current or self.opened is None or self._stale(key):
            self.current, self.opened = key, None
            self.open_document(key)
        else:
            self._show_chain_text()

    def _show_chain_text(self) -> None:
        """Show the open file as the agent reads it, with the agent's problems in it."""
        entry, chain = self._chain_entry(self.current), self.chain_panel.chain
        if entry is None or chain is None or self.opened is None:
            return
        self.view.chain_text.show(self.opened.data, entry, chain.label)
        self.view.findings([Finding(self.current or "", p.line, p.rule, p.message)
                            for p in chain.problems if p.file == entry.path])
        self._switch_view()

    def _edit_notice(self, key: str) -> str | None:
        """What the editor says about a file outside the workspace: the full path written."""
        path = self.workspace / key
        if path.is_relative_to(self.workspace):
            return None
        entry, chain = self._chain_entry(key), self.chain_panel.chain
        whose = f"{chain.label}'s {entry.scope} file" if entry is not None and chain is not None else "a chain file"
        target = path.resolve()
        through = f" (through the link {path})" if target != path else ""
        return (f"Editing {target}{through} — outside the workspace, {whose}. ctrl+s writes this file "
                "(its previous version is kept in the workspace's history), escape leaves.")

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

    # ------------------------------------------------------------------ $EDITOR
    def action_edit_external(self) -> None:
        """E: edit the open document in $EDITOR (the app is suspended meanwhile); the text that
        comes back is saved with the same conflict check as memtui's own editor."""
        opened, current = self.opened, self.current
        if opened is None or current is None or opened.readonly:
            self.app.bell()
            return
        try:
            text = edit_externally(self.app, opened.text or "", Path(current).name)
        except EditorUnavailable as why:
            self._offer_builtin_editor(str(why))
            return
        if text is not None and text != opened.text:
            self.save(text, opened.version)

    def _offer_builtin_editor(self, why: str) -> None:
        """$EDITOR cannot run here: say so and offer memtui's own editor (e)."""
        from memtui.ui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.action_edit()

        body = (f"{why}\nEdit {self.current} in memtui's own editor instead? ctrl+s saves it, "
                "with the same conflict check.")
        self.app.push_screen(ConfirmScreen("$EDITOR is not available here", body, yes="Edit here", no="Cancel"),
                             answered)
