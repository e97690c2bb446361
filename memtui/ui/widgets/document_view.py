"""One memory document, shown: a title line, a notice, the document in one of five views,
and its lint findings underneath.

The views: markdown rendered with a table of contents, JSONL as a table of records
(malformed lines reported), plain source with line numbers, the editor, and a file of an
agent's start-up chain with the point where the agent stops reading marked. The memory
screen (memtui.ui.screens.memory) decides which one shows; this widget only shows.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, MarkdownViewer, Static, TextArea

from memtui.core.display import shown_lines
from memtui.core.memory.documents import JsonlDocument
from memtui.core.memory.front_matter import FrontMatter, split_front_matter
from memtui.core.memory.lint import Finding
from memtui.ui.text import safe_text, sanitize
from memtui.ui.widgets.chain_text import ChainText
from memtui.ui.widgets.jsonl_table import JsonlTable

VIEWS = {"markdown": "memory-markdown", "jsonl": "memory-jsonl", "source": "memory-source", "edit": "memory-editor",
         "chain": "memory-chain"}
"""View name → id of its widget."""


class DocumentView(Vertical):
    """The right side of the memory screen."""

    def compose(self) -> ComposeResult:
        yield Static(id="memory-title", markup=False)
        yield Static(id="memory-notice", markup=False)
        yield Static(id="memory-front-matter")
        with ContentSwitcher(initial=VIEWS["markdown"], id="memory-switcher"):
            yield MarkdownViewer(id=VIEWS["markdown"], show_table_of_contents=True, open_links=False)
            yield JsonlTable(id=VIEWS["jsonl"])
            yield TextArea(id=VIEWS["source"], read_only=True, show_line_numbers=True)
            yield TextArea(id=VIEWS["edit"], language="markdown", show_line_numbers=True, soft_wrap=True)
            yield ChainText(id=VIEWS["chain"])
        yield Static(id="memory-findings", markup=False)

    def on_mount(self) -> None:
        self.query_one("#memory-notice").display = False
        self.query_one("#memory-findings").display = False
        self.query_one("#memory-front-matter").display = False

    @property
    def editor(self) -> TextArea:
        """The editor's text area."""
        return self.query_one(f"#{VIEWS['edit']}", TextArea)

    @property
    def chain_text(self) -> ChainText:
        """The chain view: a file as an agent loads it, its cut-off marked."""
        return self.query_one(ChainText)

    @property
    def source(self) -> TextArea:
        """The read-only source view."""
        return self.query_one(f"#{VIEWS['source']}", TextArea)

    def title(self, text: str) -> None:
        """The line above the document (path, size, modified)."""
        self.query_one("#memory-title", Static).update(safe_text(text))  # a file may be named with an ESC

    def notice(self, text: str) -> None:
        """A warning line under the title ("" hides it)."""
        notice = self.query_one("#memory-notice", Static)
        notice.update(safe_text(text, multiline=True))
        notice.display = bool(text)

    def findings(self, findings: list[Finding]) -> None:
        """The document's lint findings under it (none: hidden)."""
        panel = self.query_one("#memory-findings", Static)
        panel.update(safe_text("\n".join(f"⚠ {f'line {f.line}' if f.line else 'file'}: {f.message}  [{f.rule}]"
                                          for f in findings), multiline=True))
        panel.display = bool(findings)

    async def show(self, text: str, markdown: bool, jsonl: JsonlDocument | None) -> None:
        """Load the document into the views that can show it. Markdown's YAML front matter
        (a skill's name and description) is shown as a small key/value block above the body."""
        self.source.load_text(shown_lines(text))
        if jsonl is not None:
            self.query_one(JsonlTable).show(jsonl)
        front = split_front_matter(text) if markdown else None
        block = self.query_one("#memory-front-matter", Static)
        block.update(front_matter_content(front) if front is not None else "")
        block.set_class(front is not None, "-shown")
        if markdown:  # the agent's text: an ESC or a bidi override is shown, never acted on
            body = text if front is None else front.body
            await self.query_one(MarkdownViewer).document.update(shown_lines(body))

    def clear(self) -> None:
        """Nothing shown (the document could not be read)."""
        self.source.load_text("")
        self.findings([])
        self.switch("source")

    def switch(self, view: str) -> None:
        """Show one of VIEWS (the front-matter block goes with the rendered markdown)."""
        self.query_one(ContentSwitcher).current = VIEWS[view]
        block = self.query_one("#memory-front-matter")
        block.display = view == "markdown" and block.has_class("-shown")

    def go_to_line(self, line: int, jsonl: bool) -> None:
        """Put the cursor on `line` (1-based) of the JSONL table or the source view."""
        if jsonl:
            self.query_one(JsonlTable).go_to_line(line)
        else:
            self.source.move_cursor((max(line - 1, 0), 0), center=True)

    def toggle_toc(self) -> None:
        """Show or hide the markdown table of contents."""
        viewer = self.query_one(MarkdownViewer)
        viewer.show_table_of_contents = not viewer.show_table_of_contents


def front_matter_content(front: FrontMatter) -> Content:
    """The fields as "key  value" lines, keys bold (values shown literally)."""
    width = max((len(key) for key, _ in front.fields), default=0)
    lines = [Content.assemble((f"{key:<{width}}  ", "bold $text-accent"), sanitize(value))
             for key, value in front.fields]
    return Content("\n").join(lines) if lines else Content("(empty front matter)")
