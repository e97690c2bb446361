"""The memory documents of a workspace, grouped by kind, each with its lint badge."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memtui.core.memory.discover import KINDS, MemoryDocument
from memtui.core.memory.lint import Finding
from memtui.ui.text import sanitize


class DocumentList(OptionList):
    """Documents under a heading per kind; a ⚠ badge counts a document's lint findings.

    Highlighting a document posts `DocumentList.DocumentHighlighted` (the pane shows it at
    once: memory files are small).
    """

    class DocumentHighlighted(Message):
        """The highlighted document changed."""

        def __init__(self, rel: str) -> None:
            super().__init__()
            self.rel = rel

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._docs: list[MemoryDocument] = []
        self._findings: dict[str, int] = {}
        self._filter = ""

    def show(self, docs: list[MemoryDocument], findings: list[Finding], keep: str | None = None) -> None:
        """Replace the list; keep the highlight on `keep` (a relative path) if it is there."""
        self._docs = list(docs)
        self._findings = {}
        for finding in findings:
            self._findings[finding.file] = self._findings.get(finding.file, 0) + 1
        self._rebuild(keep)

    def filter(self, text: str) -> None:
        """Show only documents whose path contains `text` (case-insensitive)."""
        self._filter = text.strip().lower()
        self._rebuild(self.highlighted_rel)

    @property
    def highlighted_rel(self) -> str | None:
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return None if option.disabled else option.id

    def select_rel(self, rel: str) -> bool:
        """Highlight the document `rel`; False if it is not listed."""
        try:
            self.highlighted = self.get_option_index(rel)
        except Exception:  # OptionDoesNotExist: filtered out or not a document
            return False
        return True

    def _rebuild(self, keep: str | None) -> None:
        options: list[Option] = []
        for kind, label in KINDS.items():
            members = [d for d in self._docs if d.kind == kind and self._filter in d.rel.lower()]
            if not members:
                continue
            options.append(Option(Content.from_markup("[b $text-muted]$label", label=label), disabled=True))
            for doc in members:
                options.append(Option(self._prompt(doc), id=doc.rel))
        self.clear_options()
        self.add_options(options)
        if keep is None or not self.select_rel(keep):
            first = next((i for i, o in enumerate(options) if not o.disabled), None)
            self.highlighted = first

    def _prompt(self, doc: MemoryDocument) -> Content:
        # A skill is named by its folder: every one of them is SKILL.md.
        name = sanitize(f"{doc.path.parent.name}/{doc.name}" if doc.kind == "skills" else doc.name)
        count = self._findings.get(doc.rel, 0)
        if count:
            return Content.from_markup("  $name [b $warning]⚠ $count[/]", name=name, count=str(count))
        return Content.from_markup("  $name", name=name)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.post_message(self.DocumentHighlighted(event.option.id))
