"""kill -9 of `memtui demo PATH --no-open` just before one of its file-system calls (syscall_kill):
PATH is then as before (absent, or the earlier demo with --force) or a whole demo (the files of an
uninterrupted run, a sound store with the same counts); the re-run builds it, or refuses a
built one; no temp file or folder stays beside it. Used by
tests/unit/test_demo_kill.py and tests/reliability/test_syscall_kill_all.py."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from kill_points import stray_temps
from syscall_kill import World, fresh, run_at

def _build(root: Path) -> list[str]:
    (root / "parent").mkdir(parents=True)
    return ["demo", str(root / "parent" / "demo"), "--no-open"]


WORLD = World("demo --no-open", _build, writes=("parent",))


def _build_temporary(root: Path) -> list[str]:
    (root / "parent").mkdir(parents=True)
    return ["demo", "--no-open"]


# No PATH: a temporary folder (TMPDIR is parent, relative to the child's folder, root).
TEMPORARY = World("demo --no-open, a temporary folder", _build_temporary, writes=("parent",), env={"TMPDIR": "parent"})


def made(root: Path) -> list[Path]:
    """The temporary demo folders under root/parent."""
    return sorted((root / "parent").glob("memtui-demo-*"))


def shape(demo: Path) -> tuple[list[str], tuple]:
    """(the demo's file names, the store's row counts) — after integrity and foreign-key checks."""
    names = sorted(str(p.relative_to(demo)) for p in demo.rglob("*") if p.is_file() and p.name != "agent.db-wal"
                   and p.name != "agent.db-shm")
    con = sqlite3.connect(f"file:{demo / '.agent' / 'agent.db'}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        counts = tuple(con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                       for t in ("session", "task", "step", "checkpoint", "checkpoint_entry"))
    finally:
        con.close()
    return names, counts


def uninterrupted(tmp: Path, world: World = WORLD) -> tuple[int, tuple]:
    """(the points of a run not killed, the demo's shape it leaves)."""
    root = fresh(tmp)
    argv = world.build(root)
    killed, points, out = run_at(root, world, argv, 0)
    assert not killed and points > 0, out
    return points, shape(made(root)[0] if world is TEMPORARY else root / "parent" / "demo")


# `demo PATH --force` over an earlier demo (its mark, and files of the user's in it): killed at
# any point, PATH holds the old files exactly or the whole demo (never some of each); the re-run
# finishes; no temp folder stays.

OLD = {".agent/memtui-demo": b"Made by `memtui demo`\n", "notes/todo.txt": b"keep the parser\n" * 50}


def _build_force(root: Path) -> list[str]:
    demo = root / "parent" / "demo"
    for name, data in OLD.items():
        (demo / name).parent.mkdir(parents=True, exist_ok=True)
        (demo / name).write_bytes(data)
    return ["demo", str(demo), "--no-open", "--force"]


FORCE_WORLD = World("demo --no-open --force", _build_force, writes=("parent",))


def _build_aside(root: Path) -> dict:
    """The same, as on a system without RENAME_EXCHANGE: the old folder renamed aside, then the new in."""
    argv = _build_force(root)
    return {"code": "import sys\nfrom memtui.core import atomic\natomic._exchange = lambda a, b: False\n"
                    f"from memtui.cli import main\nif main({argv!r}):\n    sys.exit(2)\n"}


ASIDE_WORLD = World("demo --no-open --force, old folder aside", _build_aside, writes=("parent",))


def _old(demo: Path) -> dict[str, bytes]:
    return {p.relative_to(demo).as_posix(): p.read_bytes() for p in demo.rglob("*") if p.is_file()}


def demo_trial(tmp: Path, kill_at: int, whole: tuple, world: World = WORLD) -> str:
    """Kill the demo at point `kill_at`, check, re-run, check; what the kill left at PATH:
    "none" (no folder: as before into a new PATH, or — with the old folder aside — between the
    two renames), "old" (the old files exactly), "whole" (the whole demo, none of the old
    files); AssertionError on a problem."""
    root = fresh(tmp)
    argv = world.build(root)
    killed, _points, out = run_at(root, world, argv, kill_at)
    assert killed, out
    demo = root / "parent" / "demo"
    left = "none" if not demo.exists() else "old" if _old(demo) == OLD else "whole"
    assert left != "none" or world is not FORCE_WORLD, "the folder was gone after a kill mid-swap"
    if left == "whole" and world is WORLD:
        assert shape(demo) == whole
        try:  # the re-run sweeps what the kill left beside it, and refuses: the demo is there
            run_at(root, world, argv, 0)
            raise AssertionError("a re-run over the built demo was not refused")
        except AssertionError as refused:
            assert "exit 2" in str(refused) and "holds an earlier memtui demo" in str(refused), refused
    else:  # with --force a re-run over the whole demo builds it again
        assert left != "whole" or shape(demo) == whole
        run_at(root, world, argv, 0)  # the re-run builds it
        assert shape(demo) == whole
    assert sorted(p.name for p in (root / "parent").iterdir()) == ["demo"]
    assert stray_temps(root) == []
    return left


def temporary_trial(tmp: Path, kill_at: int, whole: tuple) -> str:
    """Kill `demo --no-open` (no PATH) at point `kill_at`: no temporary demo folder ("none") or
    a whole one ("whole"), never an empty or half-built one; a re-run makes a whole one; nothing
    else stays in the temp folder."""
    root = fresh(tmp)
    argv = TEMPORARY.build(root)
    killed, _points, out = run_at(root, TEMPORARY, argv, kill_at)
    assert killed, out
    left = made(root)
    assert len(left) <= 1 and all(shape(demo) == whole for demo in left)
    run_at(root, TEMPORARY, argv, 0)  # the re-run makes a temporary demo of its own
    assert len(made(root)) == len(left) + 1 and all(shape(demo) == whole for demo in made(root))
    assert [p for p in sorted((root / "parent").iterdir()) if not _probe(p)] == made(root)  # no temp folder
    assert stray_temps(root) == []
    return "whole" if left else "none"


def _probe(path: Path) -> bool:
    """The file Python's tempfile.gettempdir() writes and removes to test the temp folder, once
    per process (8 characters, b'blat'): a kill between the two leaves it — the standard
    library's, not memtui's."""
    return re.fullmatch(r"[a-z0-9_]{8}", path.name) is not None and path.read_bytes() in (b"", b"blat")
