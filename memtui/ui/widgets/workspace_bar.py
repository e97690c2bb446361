"""The header line: workspace path, database size, read-only badge, live vs reclaimable tasks."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from memtui.ui.labels import KIND_LABELS, workspace_label
from memtui.ui.text import EndKept, human_bytes, safe_text


class WorkspaceBar(Horizontal):
    """One line of facts about the open workspace (filled by the app's measuring worker)."""

    def compose(self) -> ComposeResult:
        yield Label("memtui", id="ws-name")
        yield Label(Text("opening…"), id="ws-path")
        yield Label("", id="ws-size")
        yield Label("", id="ws-badge")
        yield Label("", id="ws-follow")
        yield Label("", id="ws-gc")

    def on_mount(self) -> None:
        measured = self.app.measured  # type: ignore[attr-defined]  (MemtuiApp)
        if measured is not None:
            self.show(self.app, measured)

    def show(self, app: Any, measured: Any) -> None:
        """Fill in the facts (`measured` is a `WorkspaceMeasured` message)."""
        source = app.source
        if source is not None and source.kind != "memtui":  # another agent's store: say whose
            self.query_one("#ws-name", Label).update(Text(f"memtui · {KIND_LABELS.get(source.kind, source.kind)}"))
        # The end of the path names the project: a narrow header loses its start instead.
        self.query_one("#ws-path", Label).update(EndKept(safe_text(workspace_label(app))))
        self.query_one("#ws-size", Label).update(
            Text(f"DB {human_bytes(measured.db_bytes)}" if measured.db_bytes is not None else ""))
        badge = self.query_one("#ws-badge", Label)
        store = app.store
        readonly = store.readonly if store is not None else True
        old = store is not None and store.needs_upgrade
        badge.update(Text("read-only" + (" · older schema" if old else "")) if readonly else Text(""))
        badge.set_class(readonly, "-readonly")
        self.query_one("#ws-follow", Label).update(Text("● following" if app.follower.enabled else ""))
        counts = measured.counts or {}
        gc = measured.gc
        tasks = f"{counts['tasks']} tasks · " if "tasks" in counts else ""
        if gc is None:
            state = "computing…" if measured.gc_pending else "not computed"
            self.query_one("#ws-gc", Label).update(Text(f"{tasks}GC: {state}"))
        else:
            freed = gc.get("reclaimable_bytes")
            self.query_one("#ws-gc", Label).update(Text(
                f"{tasks}live {gc['live']} · reclaimable {gc['reclaimable']}"
                + (f" ({human_bytes(freed)})" if freed else "")))
