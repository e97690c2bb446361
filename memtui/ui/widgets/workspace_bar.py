"""The header line: workspace path, database size, read-only badge, live vs reclaimable tasks."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from memtui.core.memory_source import WRITING, Capability
from memtui.ui.labels import kind_label, workspace_label
from memtui.ui.opening import is_store
from memtui.core.display import counted
from memtui.ui.text import EndKept, human_bytes, safe_text
from memtui.ui.widgets.fitted_row import richest_form


PATH_MIN = 8
"""Cells the workspace path keeps before the GC figures give up their longer forms."""


class WorkspaceBar(Horizontal):
    """One line of facts about the open workspace (filled by the app's measuring worker).

    A narrow terminal shortens the GC figures by leaving parts out whole (the task count,
    then the bytes), never by cutting a number short.
    """

    _gc_forms: tuple[Text, ...] = ()

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
            self.query_one("#ws-name", Label).update(Text(f"memtui · {kind_label(source.kind)}"))
        # The end of the path names the project: a narrow header loses its start instead.
        self.query_one("#ws-path", Label).update(EndKept(safe_text(workspace_label(app))))
        self.query_one("#ws-size", Label).update(
            Text(f"DB {human_bytes(measured.db_bytes)}" if measured.db_bytes is not None else ""))
        badge = self.query_one("#ws-badge", Label)
        # "read-only" when nothing here can write (`--read-only`, a store with no writing
        # capability), not merely because browsing reads through a read-only connection.
        readonly = source is None or not any(source.can(c) for c in WRITING)
        old = app.store is not None and app.store.needs_upgrade  # browsed as is; a write upgrades it
        badge.update(Text(" · ".join(w for w, on in (("read-only", readonly), ("older schema", old)) if on)))
        badge.set_class(readonly or old, "-readonly")
        following = app.follower.enabled and source is not None and source.can(Capability.LIVE)  # a team store can't
        self.query_one("#ws-follow", Label).update(Text("● following" if following else ""))
        self._gc_forms = tuple(Text(form) for form in gc_forms(measured, is_store(source)))
        self._fit_gc()

    def on_resize(self) -> None:
        self._fit_gc()

    def _fit_gc(self) -> None:
        """The longest form of the GC figures that leaves the path its few cells."""
        others = sum(cell_len(str(self.query_one(f"#{name}", Label).content)) + 2
                     for name in ("ws-name", "ws-size", "ws-badge", "ws-follow"))
        room = self.size.width - others - (PATH_MIN + 2) - 2  # the path and this label: padding 1+1
        self.query_one("#ws-gc", Label).update(richest_form(self._gc_forms, room))


def gc_forms(measured: Any, collectable: bool) -> tuple[str, ...]:
    """The GC part of the header, longest first; nothing for a store GC does not work on."""
    counts = measured.counts or {}
    gc = measured.gc
    tasks = f"{counted(counts['tasks'], 'task')} · " if "tasks" in counts else ""
    if gc is None:
        if not collectable:
            return (tasks.removesuffix(" · "), "")
        state = "computing…" if measured.gc_pending else "not computed"
        return (f"{tasks}GC: {state}", f"GC: {state}", "")
    freed = gc.get("reclaimable_bytes")
    figures = f"live {gc['live']:,} · reclaimable {gc['reclaimable']:,}"
    forms = [f"{tasks}{figures}", figures]
    if freed:
        forms[:0] = [f"{tasks}{figures} ({human_bytes(freed)})", f"{figures} ({human_bytes(freed)})"]
    return (*forms, f"live {gc['live']:,} · recl. {gc['reclaimable']:,}", "")
