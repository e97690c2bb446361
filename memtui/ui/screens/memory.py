"""The memory pane: a workspace's memory documents, read and hand-edited safely.

Left, the documents by kind with lint badges; right, the highlighted one (widgets.document_view),
compared with the disk every WATCH_SECONDS. `e` edits, ctrl+s saves atomically with a conflict
check (reload / diff / overwrite), `u` undoes memtui's last save, `h` lists kept versions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input
from textual.worker import Worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.display import has_controls
from memtui.core.errors import MemtuiError, SaveConflict
from memtui.core.memory.discover import MemoryDocument, discover_documents
from memtui.core.memory.documents import JsonlDocument, OpenedDocument, parse_jsonl, read_document
from memtui.core.memory.lint import Finding, lint_workspace, store_facts
from memtui.core.memory.save import ANY, keep_discarded, save_document
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.memory_loaded import LoadedAtStart
from memtui.ui.screens.memory_history import offer_versions, undo_save
from memtui.ui.external_editor import edit_in_editor
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
        self.loaded = LoadedAtStart(self)

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
        """Rediscover and lint (the app calls this after any write)."""
        self.load_documents()
        self.loaded.refresh()

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
        if self.loaded.active:
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
        if event.rel != self.current and not self.loaded.active:
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
        self.view.title(event.rel if doc is None else f"{event.rel}  ·  {doc.lines} lines  ·  {doc.size} B  ·  "
                        f"modified {doc.mtime:%Y-%m-%d %H:%M} UTC")
        self.view.notice(f"Read-only: {opened.encoding_error}. Nothing is re-encoded." if opened.readonly else "")
        self.view.findings([f for f in self.findings if f.file == event.rel])
        text = opened.text if opened.text is not None else opened.data.decode("utf-8", "replace")
        markdown = doc is not None and doc.format == "markdown" and opened.text is not None
        await self.view.show(text, markdown, event.jsonl)
        self.loaded.show_current()
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
        elif self.loaded.shows(self.current) and not self._source_mode:
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
        if action == "filter" and self.loaded.active:
            return False
        if not self.docs and not self.loaded.active and action in ON_A_DOCUMENT:
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
        self.view.notice(self.loaded.edit_notice(self.current)
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
            save_document(self.workspace, self.workspace / self.current, text, expected, outside=self.loaded.grants)
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
            keep_discarded(self.workspace, self.workspace / self.current, text, outside=self.loaded.grants)
        except (MemtuiError, OSError) as exc:
            self.app.notify_error(f"could not keep the edit of {self.current} in its history: "
                                  f"{getattr(exc, 'strerror', None) or exc}", title="Edit not discarded")
            return False
        return True

    def _leave_editor(self) -> None:
        self.editing = False
        self.view.notice("")
        self.opened = None
        self.loaded.focus_list()
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
            self.loaded.focus_list()
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
        elif self.loaded.active:
            self.loaded.toggle()
        elif len(self.app.screen_stack) > 1:
            self.dismiss()

    action_undo_save = undo_save  # u: put back the version memtui's last save replaced
    action_history = offer_versions  # h: list kept versions, restore the chosen one

    def action_toggle_source(self) -> None:
        """Rendered markdown / JSONL table ↔ plain source with line numbers."""
        self._source_mode = not self._source_mode
        self._switch_view()

    def action_toggle_toc(self) -> None:
        """Show or hide the table of contents."""
        self.view.toggle_toc()

    def action_toggle_loaded(self) -> None:
        """What each agent loads at start ↔ the workspace's documents."""
        self.loaded.toggle()

    @on(ChainList.FileHighlighted)
    def _chain_file_highlighted(self, event: ChainList.FileHighlighted) -> None:
        self.loaded.highlighted(event.path)

    @on(ChainList.FileChosen)
    def _chain_file_chosen(self) -> None:
        self.loaded.chosen()

    @on(ChainPanel.Loaded)
    def _chains_loaded(self) -> None:
        self.loaded.loaded()

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

    action_edit_external = edit_in_editor  # E: edit in $EDITOR (the app is suspended meanwhile)
