"""Browsing a workspace's memory documents: the layout, the loading workers, the showing.

Left, the documents grouped by kind with lint badges. Right, the highlighted document:
markdown rendered with a table of contents, JSONL as a table of records (malformed lines
reported), anything else as text, and the document's lint findings underneath. The open
document is compared with the disk every WATCH_SECONDS. `MemoryBrowser` is the base of
`MemoryScreen` (memtui.ui.screens.memory), which adds editing and the actions.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Input, MarkdownViewer, Static, TextArea

from memtui.core.memory.discover import MemoryDocument, discover_documents
from memtui.core.memory.documents import JsonlDocument, OpenedDocument, parse_jsonl, read_document
from memtui.core.memory.lint import Finding, lint_workspace, store_facts
from memtui.ui.widgets.document_list import DocumentList
from memtui.ui.widgets.jsonl_table import JsonlTable

WATCH_SECONDS = 2.0  # how often the open document is compared with the disk (one stat)
CHANGED_ON_DISK = "The file changed on disk while you edit it: ctrl+s will show what changed."
VIEWS = {"markdown": "memory-markdown", "jsonl": "memory-jsonl", "source": "memory-source", "edit": "memory-editor"}


class MemoryBrowser(Screen):
    """Memory documents listed, linted and shown; editing is added by MemoryScreen."""

    editing: reactive[bool] = reactive(False)
    """True while the editor is open on the current document."""

    class DocumentsLoaded(Message):
        """Discovery and lint finished (posted from a worker)."""

        def __init__(self, docs: list[MemoryDocument], findings: list[Finding]) -> None:
            super().__init__()
            self.docs = docs
            self.findings = findings

    class DocumentOpened(Message):
        """A document was read (posted from a worker)."""

        def __init__(self, rel: str, opened: OpenedDocument, jsonl: JsonlDocument | None) -> None:
            super().__init__()
            self.rel = rel
            self.opened = opened
            self.jsonl = jsonl

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

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="memory-body"):
            with Vertical(id="memory-side"):
                yield Input(placeholder="filter documents", id="memory-filter")
                yield DocumentList(id="memory-documents")
            with Vertical(id="memory-main"):
                yield Static(id="memory-title", markup=False)
                yield Static(id="memory-notice", markup=False)
                with ContentSwitcher(initial=VIEWS["markdown"], id="memory-switcher"):
                    yield MarkdownViewer(id=VIEWS["markdown"], show_table_of_contents=True, open_links=False)
                    yield JsonlTable(id=VIEWS["jsonl"])
                    yield TextArea(id=VIEWS["source"], read_only=True, show_line_numbers=True)
                    yield TextArea(id=VIEWS["edit"], language="markdown", show_line_numbers=True, soft_wrap=True)
                yield Static(id="memory-findings", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#memory-filter").display = False
        self.query_one("#memory-notice").display = False
        self.query_one("#memory-findings").display = False
        self.query_one(DocumentList).focus()
        self.refresh_data()
        self.set_interval(WATCH_SECONDS, self.check_disk)

    def check_disk(self) -> None:
        """Notice when the agent rewrites the open document: reload it when only viewing;
        while editing, say so at once (ctrl+s will then offer reload / diff / overwrite)."""
        if self.opened is None or self.current is None or not self._stale(self.current):
            return
        if self.editing:
            self._notice(CHANGED_ON_DISK)
        else:
            self.refresh_data()

    def refresh_data(self) -> None:
        """Rediscover and lint (the app calls this after any write)."""
        self.load_documents()

    # ------------------------------------------------------------------ workers
    @work(thread=True, exclusive=True, group="memory-load", exit_on_error=False, description="read memory documents")
    def load_documents(self) -> None:
        docs = discover_documents(self.workspace)
        findings = lint_workspace(self.workspace, documents=docs, **self._store_facts())
        self.post_message(self.DocumentsLoaded(docs, findings))

    @work(thread=True, exclusive=True, group="memory-open", exit_on_error=False, description="open a document")
    def open_document(self, rel: str) -> None:
        opened = read_document(self.workspace / rel)
        jsonl = None
        if rel.endswith(".jsonl") and opened.text is not None:
            jsonl = parse_jsonl(opened.text, rel)
        self.post_message(self.DocumentOpened(rel, opened, jsonl))

    def _store_facts(self) -> dict:
        store = getattr(self.app, "store", None)
        if store is None:
            return store_facts(None)
        reading = getattr(self.app, "reading", None)
        with reading() if callable(reading) else nullcontext(store) as source:
            return store_facts(source)

    # ------------------------------------------------------------------ showing
    @on(DocumentsLoaded)
    def _documents_loaded(self, event: DocumentsLoaded) -> None:
        self.docs = {d.rel: d for d in event.docs}
        self.findings = event.findings
        keep = self._select or self.current
        self._select = None
        doc_list = self.query_one(DocumentList)
        doc_list.show(event.docs, event.findings, keep=keep)
        if not event.docs:
            self._title("No memory documents in this workspace")
            return
        rel = doc_list.highlighted_rel
        if rel is not None and (rel != self.current or self.opened is None or self._stale(rel)):
            if not self.editing:
                self._show(rel)
        elif rel is not None:
            self._show_findings(rel)

    @on(DocumentList.DocumentHighlighted)
    def _document_highlighted(self, event: DocumentList.DocumentHighlighted) -> None:
        if self.editing:
            # The editor stays on its document; the list follows it back.
            if event.rel != self.current and self.current is not None:
                self.query_one(DocumentList).select_rel(self.current)
            return
        if event.rel != self.current:
            self._show(event.rel)

    def _stale(self, rel: str) -> bool:
        """True if the file on disk is not the version last read (one stat, no read)."""
        if self.opened is None:
            return True
        try:
            st = os.stat(self.workspace / rel)
        except OSError:
            return True
        return (st.st_size, st.st_mtime_ns) != (self.opened.version.size, self.opened.version.mtime_ns)

    def _show(self, rel: str) -> None:
        self.current = rel
        self.open_document(rel)

    @on(DocumentOpened)
    async def _document_opened(self, event: DocumentOpened) -> None:
        if event.rel != self.current or self.editing:
            return
        self.opened = event.opened
        doc = self.docs.get(event.rel)
        self._title(self._describe(event.rel, doc))
        notice = []
        if event.opened.readonly:
            notice.append(f"Read-only: {event.opened.encoding_error}. Nothing is re-encoded.")
        self._notice(" ".join(notice))
        self._show_findings(event.rel)
        text = event.opened.text if event.opened.text is not None else event.opened.data.decode("utf-8", "replace")
        source = self.query_one(f"#{VIEWS['source']}", TextArea)
        source.load_text(text)
        if event.jsonl is not None:
            self.query_one(JsonlTable).show(event.jsonl)
        if doc is not None and doc.format == "markdown" and event.opened.text is not None:
            await self.query_one(MarkdownViewer).document.update(text)
        self._switch_view()
        if self._pending_line is not None:
            self._go_to_line(self._pending_line)
            self._pending_line = None

    def _switch_view(self) -> None:
        doc = self.docs.get(self.current or "")
        fmt = doc.format if doc else "text"
        if self.editing:
            view = "edit"
        elif self._source_mode or self.opened is None or self.opened.readonly:
            view = "source"
        elif fmt == "markdown":
            view = "markdown"
        elif fmt == "jsonl":
            view = "jsonl"
        else:
            view = "source"
        self.query_one(ContentSwitcher).current = VIEWS[view]

    def _go_to_line(self, line: int) -> None:
        doc = self.docs.get(self.current or "")
        if doc is not None and doc.format == "jsonl" and not self._source_mode:
            self.query_one(JsonlTable).go_to_line(line)
            return
        self._source_mode = True
        self._switch_view()
        source = self.query_one(f"#{VIEWS['source']}", TextArea)
        source.move_cursor((max(line - 1, 0), 0), center=True)

    def _describe(self, rel: str, doc: MemoryDocument | None) -> str:
        if doc is None:
            return rel
        return f"{rel}  ·  {doc.lines} lines  ·  {doc.size} B  ·  modified {doc.mtime:%Y-%m-%d %H:%M} UTC"

    def _title(self, text: str) -> None:
        self.query_one("#memory-title", Static).update(text)

    def _notice(self, text: str) -> None:
        notice = self.query_one("#memory-notice", Static)
        notice.update(text)
        notice.display = bool(text)

    def _show_findings(self, rel: str) -> None:
        mine = [f for f in self.findings if f.file == rel]
        panel = self.query_one("#memory-findings", Static)
        panel.update("\n".join(f"⚠ {f'line {f.line}' if f.line else 'file'}: {f.message}  [{f.rule}]" for f in mine))
        panel.display = bool(mine)

    def _error(self, error: BaseException | str) -> None:
        report = getattr(self.app, "notify_error", None)
        if callable(report):
            report(error)
        else:
            self.notify(str(error), severity="error", markup=False)
