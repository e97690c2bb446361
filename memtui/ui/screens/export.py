"""Export the highlighted session or task (key x): Markdown, HTML or JSON, as `memtui export`.

In a terminal the document is written to a new file (never over an existing one, atomically);
served in a browser (`memtui serve`) the browser downloads it and nothing is written on the
server. The document is built by the same core function the CLI calls, in a thread worker.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, RadioButton, RadioSet, Static

from memtui.core.display import sanitize
from memtui.core.model import Id
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiModal

FORMATS: tuple[tuple[str, str], ...] = (("html", "HTML (one page, highlighted diffs)"),
                                        ("md", "Markdown"), ("json", "JSON (the read model)"))


def default_file(scope: str, ident: Id, fmt: str, folder: Path) -> Path:
    """`memtui-session-4.html` in `folder`, with -2, -3 … when that name is taken."""
    stem = "memtui-" + scope + "-" + re.sub(r"[^A-Za-z0-9._-]+", "-", str(ident)).strip("-.")
    path = folder / f"{stem}.{fmt}"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}.{fmt}"
        n += 1
    return path


class ExportScreen(MemtuiModal[str | None]):
    """Choose format and options, then export; dismisses with what was done (or None)."""

    COMMAND_SCOPE = "export"
    BINDINGS = bindings("export")

    def __init__(self, scope: str, ident: Id, title: str, *, folder: Path | None = None) -> None:
        """`scope`: "session" or "task"; `ident` its id; `folder`: where files go (cwd)."""
        super().__init__()
        self.scope = scope
        self.ident = ident
        self.title_text = title
        self.folder = folder or Path.cwd()
        self.fmt = FORMATS[0][0]
        self._suggested = default_file(scope, ident, self.fmt, self.folder)

    def compose(self) -> ComposeResult:
        web = self.app.is_web
        with VerticalScroll(id="export-dialog"):
            yield Static(Content(sanitize(f"Export {self.scope} {self.ident}: {self.title_text}")),
                         id="export-title")
            with RadioSet(id="export-format"):
                for n, (_fmt, label) in enumerate(FORMATS):
                    yield RadioButton(label, value=n == 0)
            yield Checkbox("with the workspace's memory documents", id="export-memory")
            if web:
                yield Static("Your browser downloads the file; nothing is written on the server.",
                             id="export-where")
            else:
                yield Static("Write to (a new file; an existing one is never overwritten):", id="export-where")
                yield Input(str(self._suggested), id="export-path")
            yield Static(Content(""), id="export-status")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export-format", RadioSet).focus()

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        self.fmt = FORMATS[event.index][0]
        if self.app.is_web:
            return
        box = self.query_one("#export-path", Input)
        if box.value == str(self._suggested):  # follow the format unless the user typed a name
            self._suggested = default_file(self.scope, self.ident, self.fmt, self.folder)
            box.value = str(self._suggested)

    @on(Button.Pressed, "#export-cancel")
    def action_close(self) -> None:
        """Leave without exporting."""
        self.dismiss(None)

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    def action_export(self) -> None:
        """Build the document and write (or deliver) it."""
        target = None
        if not self.app.is_web:
            text = self.query_one("#export-path", Input).value.strip()
            if not text:
                self._status("Give a file name.")
                return
            target = Path(text).expanduser()
            if not target.is_absolute():
                target = self.folder / target
            if target.exists():
                self._status(f"{target} exists; choose another name (export never overwrites).")
                return
        self._status("Exporting…")
        self.query_one("#export-go", Button).disabled = True
        self.export(self.fmt, self.query_one("#export-memory", Checkbox).value, target)

    def _status(self, text: str) -> None:
        self.query_one("#export-status", Static).update(Content(sanitize(text)))

    @work(thread=True, exclusive=True, group="export", exit_on_error=False, description="export")
    def export(self, fmt: str, with_memory: bool, target: Path | None) -> None:
        from memtui.core.atomic import write_atomic
        from memtui.core.errors import MemtuiError
        from memtui.core.export import build_export, render_export

        app: Any = self.app
        key = {"session_id": self.ident} if self.scope == "session" else {"task_id": self.ident}
        with app.reading() as source:
            doc = build_export(source, with_memory=with_memory, memory_root=app.workspace, **key)
        text = render_export(doc, fmt)
        if target is None:
            name = default_file(self.scope, self.ident, fmt, Path("/nonexistent")).name
            self.app.call_from_thread(self.app.deliver_text, io.StringIO(text), save_filename=name)
            self.app.call_from_thread(self.dismiss, f"Your browser is downloading {name}.")
            return

        def still_free() -> None:
            if target.exists():
                raise MemtuiError(f"{target} exists; choose another name (export never overwrites).")

        try:
            write_atomic(target, text.encode("utf-8"), before_replace=still_free)
        except (MemtuiError, OSError) as exc:
            message = str(exc) if isinstance(exc, MemtuiError) else f"cannot write {target}: {exc.strerror or exc}"
            self.app.call_from_thread(self._failed, message)
            return
        self.app.call_from_thread(self.dismiss, f"Exported {self.scope} {self.ident} to {target}.")

    def worker_failed(self, worker) -> None:
        """The export failed (the app notified why): let the user try again or leave."""
        super().worker_failed(worker)
        self._failed("The export failed; see the notification.")

    def _failed(self, message: str) -> None:
        self._status(message)
        self.query_one("#export-go", Button).disabled = False
