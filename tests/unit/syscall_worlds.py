"""The commands the syscall kill tests stop at every file-system call (syscall_kill.World):
export, decisions --add, a memory document's history restore, pin of an agent's session and
rollback of a Claude Code task — the last two with the agent's home watched: it must stay
exactly as it was (bytes, modes, mtimes), whatever point the kill came at."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from syscall_kill import World

from memtui.core.store import AgentStore

REAL_HOME_CACHE: dict[str, Path] = {}


def _store(ws: Path) -> None:
    """A small memtui store: a session with a task that edited two files."""
    with AgentStore.open(ws) as store:
        session = store.start_session("Refactor the parser")
        task = store.start_task(session, "Split the tokenizer out")
        step = store.record_step(task, "edit_file", {"path": "parser.py"}, "ok")
        store.record_checkpoint(task, step, {"parser.py": (b"old\n" * 200, b"new\n" * 200), "tok.py": (None, b"t\n")})
        store.finish_task(task, "completed", summary="tokenizer in tok.py")


def export_world(fmt: str) -> World:
    def build(root: Path) -> list[str]:
        _store(root / "ws")
        (root / "out").mkdir()
        return ["export", str(root / "ws"), "--task", "1", "--format", fmt, "-o", str(root / "out" / f"task.{fmt}")]

    def again(root: Path, argv: list[str]) -> list[str] | None:
        return None if Path(argv[-1]).exists() else argv  # export never overwrites: a whole file is the job done

    # The document says when it was made: that time is not compared.
    return World(f"export --format {fmt}", build, writes=("out",), watched=("ws",), again=again,
                 normalize=lambda data: re.sub(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d[.\d]*(?:[+-]\d\d:\d\d|Z)?", b"<time>", data))


def decisions_world() -> World:
    def build(root: Path) -> list[str]:
        log = root / "ws" / ".agent" / "DECISIONS.md"
        log.parent.mkdir(parents=True)
        log.write_text("# Decisions\n\n## 2026-01-02 Keep the parser\n- Why: it works\n" * 40)
        return ["decisions", str(root / "ws"), "--file", str(log), "--add", "Split the tokenizer", "--problem", "p",
                "--options", "a, b", "--chosen", "b", "--why", "w", "--date", "2026-03-04"]

    def again(root: Path, argv: list[str]) -> list[str] | None:
        text = (root / "ws" / ".agent" / "DECISIONS.md").read_text()
        return None if "Split the tokenizer" in text else argv  # appended once, not twice

    # The log is saved with a kept copy of its old text, named by the time it was kept.
    return World("decisions --add", build, writes=("ws",), again=again, ignore=lambda rel: "/.memtui/history/" in rel)


def memory_restore_world() -> World:
    def build(root: Path) -> list[str]:
        from memtui.core.memory import ANY, save_document

        ws = root / "ws"
        (ws / ".agent").mkdir(parents=True)
        (ws / "MEMORY.md").write_text("# Memory v0\n" + "- a fact\n" * 500)
        for i in (1, 2):
            save_document(ws, ws / "MEMORY.md", f"# Memory v{i}\n" + "- a fact\n" * 500, ANY)
        return ["memory-history", str(ws), "MEMORY.md", "--restore", "1"]

    def again(root: Path, argv: list[str]) -> list[str] | None:
        return None if (root / "ws" / "MEMORY.md").read_text().startswith("# Memory v1") else argv  # done: v1 is back

    # The kept versions are named by the time they were kept: compared as present, not by bytes.
    return World("memory-history --restore", build, writes=("ws",), again=again,
                 ignore=lambda rel: "/.memtui/history/" in rel)


def _claude_home(root: Path) -> tuple[Path, Path]:
    """The real Claude Code home of tests/fixtures/real (mixed_homes), spotter-small's project
    living in root/spotter with plan.md as the task's Write left it."""
    from mixed_homes import claude_home, spotter_project

    home = claude_home(root / "unpack")
    shutil.move(home, root / "claude")
    shutil.rmtree(root / "unpack", ignore_errors=True)
    home = root / "claude"
    return home, spotter_project(home, root / "spotter")


def pin_world() -> World:
    from mixed_homes import PLAN_TASK

    def build(root: Path) -> list[str]:
        home, _project = _claude_home(root)
        return ["pin", str(home), PLAN_TASK.split(":")[0]]

    return World("pin (a Claude Code session)", build, writes=("xdg-state",), watched=("claude", "spotter"))


def rollback_world() -> World:
    from mixed_homes import PLAN_TASK

    def build(root: Path) -> list[str]:
        home, _project = _claude_home(root)
        return ["rollback", str(home), "--task", PLAN_TASK, "--yes"]

    def again(root: Path, argv: list[str]) -> list[str] | None:
        return None if not (root / "spotter" / "plan.md").exists() else argv

    # The undo's manifest is named by a fresh id and carries its time: compared as present, not by bytes.
    return World("rollback (a Claude Code task)", build, writes=("spotter", "xdg-state"), watched=("claude",),
                 again=again, ignore=lambda rel: rel.startswith("xdg-state/") and "/undo-" in rel)


WORLDS = {w.name: w for w in (export_world("md"), export_world("html"), export_world("json"), decisions_world(),
                              memory_restore_world(), pin_world(), rollback_world())}


def archived_view_world() -> World:
    """Browsing archived sessions unpacks each into memtui's cache (a temp folder renamed into
    place): the home and the archive are watched, untouched."""

    def build(root: Path) -> dict:
        import subprocess
        import sys

        from cleanup_homes import build_bulky_claude_home
        from syscall_kill import env

        template = root.parent / "archived-template"  # built once: the archive names its home's absolute path
        if not template.exists():
            build_bulky_claude_home(root / "claude", sessions=2, kib=16)
            subprocess.run([sys.executable, "-m", "memtui", "cleanup", str(root / "claude"), "--agent", "claude-code",
                            "--archive", "--archive-dir", str(root / "archive"), "--keep-days", "0", "--keep-last", "0"],
                           env=env(root, WORLDS["archived sessions unpacked for browsing"]), check=True,
                           capture_output=True)
            shutil.copytree(root, template, symlinks=True)
        else:
            shutil.copytree(template, root, symlinks=True)
        return {"code": "from memtui.core.cleanup import list_archived, unpacked_view\n"
                        f"for m in list_archived({str(root / 'archive')!r}):\n"
                        f"    unpacked_view({str(root / 'archive')!r}, m, {str(root / 'cache')!r})\n"}

    return World("archived sessions unpacked for browsing", build, writes=("cache",), watched=("claude", "archive"))


_view = archived_view_world()
WORLDS[_view.name] = _view


def cleanup_preview_world() -> World:
    """`cleanup --dry-run` of a real Claude Code home writes only memtui's cache of session
    summaries: the home is watched, untouched."""

    def build(root: Path) -> list[str]:
        home, _project = _claude_home(root)
        return ["cleanup", str(home), "--agent", "claude-code", "--dry-run", "--keep-days", "0", "--keep-last", "0"]

    def whole(data: bytes) -> bytes:  # the cache holds the files' mtimes, new each build: whole JSON is what counts
        import json

        try:
            json.loads(data)
        except ValueError:
            return data
        return b"whole JSON"

    return World("cleanup --dry-run (summary cache)", build, writes=("xdg-cache",), watched=("claude", "spotter"),
                 normalize=whole)


_preview = cleanup_preview_world()
WORLDS[_preview.name] = _preview


def settings_world() -> World:
    """The app's settings (theme, panes) saved to $XDG_CONFIG_HOME/memtui/config.toml."""

    def build(root: Path) -> dict:
        (root / "xdg-config" / "memtui").mkdir(parents=True)
        (root / "xdg-config" / "memtui" / "config.toml").write_text('theme = "textual-light"\n')
        return {"code": "from memtui.ui.settings import save_settings\n"
                        "save_settings({'theme': 'nord', 'sessions_pane': False, 'tail': True})\n"}

    return World("settings saved by the app", build, writes=("xdg-config",))


_settings = settings_world()
WORLDS[_settings.name] = _settings
