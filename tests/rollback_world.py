"""A workspace with an agent store and real files, for the rollback tests.

`World.edit` plays an agent: it reads the disk as *before*, writes *after*, and records the
checkpoint, so the store and the disk agree the way they do in real use.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from memtui.core.store import AgentStore

FIXED = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path / "ws"
        self.root.mkdir()
        self.store = AgentStore.open(self.root, clock=lambda: FIXED)
        self.session = self.store.start_session("Work")

    def close(self) -> None:
        self.store.close()

    def reopen(self, readonly: bool = False) -> AgentStore:
        """A fresh connection (no content cache), as a new process would have."""
        self.store.close()
        self.store = AgentStore.open(self.root, readonly=readonly, clock=lambda: FIXED)
        return self.store

    def path(self, rel: str) -> Path:
        return self.root / rel

    def write(self, rel: str, data: bytes | None) -> None:
        p = self.path(rel)
        if data is None:
            p.unlink(missing_ok=True)
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)

    def read(self, rel: str) -> bytes | None:
        p = self.path(rel)
        return p.read_bytes() if p.exists() else None

    def task(self, title: str = "Task", session: int | None = None, parent: int | None = None) -> int:
        return self.store.start_task(self.session if session is None else session, title, parent_task_id=parent)

    def edit(self, task_id: int, changes: dict[str, bytes | None]) -> int:
        """The agent changes files: `None` deletes. Returns the checkpoint id."""
        recorded = {rel: (self.read(rel), after) for rel, after in changes.items()}
        for rel, after in changes.items():
            self.write(rel, after)
        step = self.store.record_step(task_id, "edit_file", {"paths": sorted(changes)}, "ok")
        return self.store.record_checkpoint(task_id, step, recorded)

    def entry_id(self, checkpoint_id: int, rel: str) -> int:
        return next(e.id for e in self.store.checkpoint_entries(checkpoint_id) if e.path == rel)

    def sql(self, text: str, params: tuple = ()) -> list[tuple]:
        return self.store.execute(text, params).fetchall()

    def files(self) -> dict[str, bytes]:
        """Every file under the root outside .agent/, for "nothing was written" checks."""
        out = {}
        for p in sorted(self.root.rglob("*")):
            rel = p.relative_to(self.root).as_posix()
            if rel.startswith(".agent") or not p.is_file() or p.is_symlink():
                continue
            out[rel] = p.read_bytes()
        return out


def handoff_world(tmp_path, child_edits: dict[str, bytes]) -> World:
    """A parent task editing app.py that handed off to a sub-agent's task (in a closed session
    of its own) making `child_edits`; the store is closed for an app to open."""
    w = World(tmp_path)
    w.write("app.py", b"print('v0')\n")
    w.write("notes.md", b"# notes 0\n")
    w.parent = w.task("Refactor the app")
    w.edit(w.parent, {"app.py": b"print('v1')\n"})
    sub = w.store.start_session("Sub-agent")
    w.child = w.task("Write the notes", session=sub, parent=w.parent)
    w.edit(w.child, child_edits)
    w.store.finish_task(w.child, "completed")
    w.store.close_session(sub)
    w.store.close()
    return w


async def open_on_task(pilot, task_id: int):
    """The app's main screen with the handoff world's first session and `task_id` selected."""
    from memtui.ui.screens.main import MainScreen
    from pilot_support import settle

    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    assert screen.query_one("#sessions").select_key("1")  # the session the parent task lives in
    await settle(pilot)
    await pilot.press("2")
    tree = screen.query_one("#tasks")
    assert tree.select_task(task_id)
    await settle(pilot)
    return screen
