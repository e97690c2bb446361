"""Atomic writes leave no stray temp files: a crashed write's leftovers are swept by the next
operation in that folder, and nothing that is not memtui's own stale temp file is touched."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.atomic import is_stale_temp, remove_stale_temps, write_atomic
from memtui.core.memory import save_document, sweep_workspace
from memtui.core.memory.documents import disk_version
from memtui.core.rollback import apply_rollback, plan_rollback
from rollback_world import World


def dead_pid() -> int:
    """The pid of a process that has exited (as a kill -9'd writer's is)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def leftover(folder: Path, name: str, pid: int | None, age: float = 0.0) -> Path:
    middle = f"{pid}-1a2b3c4d" if pid is not None else "1a2b3c4d"
    p = folder / f".{name}.{middle}.memtui-tmp"
    p.write_bytes(b"half a write")
    if age:
        then = time.time() - age
        os.utime(p, (then, then))
    return p


def test_a_crashed_writers_temp_is_swept_by_the_next_write_and_a_live_ones_kept(tmp_path):
    crashed = leftover(tmp_path, "MEMORY.md", dead_pid())
    live = leftover(tmp_path, "MEMORY.md", os.getpid())
    legacy_young = leftover(tmp_path, "PLAN.md", None)
    legacy_old = leftover(tmp_path, "PROGRESS.md", None, age=2 * 3600)
    write_atomic(tmp_path / "MEMORY.md", b"new\n")
    assert (tmp_path / "MEMORY.md").read_bytes() == b"new\n"
    assert not crashed.exists() and not legacy_old.exists()
    assert live.exists() and legacy_young.exists()


def test_nothing_but_memtuis_exact_pattern_is_removed(tmp_path):
    gone = dead_pid()
    others = [tmp_path / n for n in (
        f"MEMORY.md.{gone}-1a2b3c4d.memtui-tmp",  # no leading dot
        f".MEMORY.md.{gone}-1a2b3c4.memtui-tmp",  # 7 hex digits
        f".MEMORY.md.{gone}-1A2B3C4D.memtui-tmp",  # upper case is not token_hex
        f".MEMORY.md.{gone}-1a2b3c4d.memtui-tmp.bak",
        f".MEMORY.md.{gone}-1a2b3c4d.memtui-temp",
        "notes.memtui-tmp",
    )]
    for p in others:
        p.write_bytes(b"user data")
    as_dir = tmp_path / f".d.{gone}-1a2b3c4d.memtui-tmp"
    as_dir.mkdir()
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"keep me")
    as_link = tmp_path / f".l.{gone}-1a2b3c4d.memtui-tmp"
    as_link.symlink_to(target)
    assert remove_stale_temps(tmp_path) == []
    assert all(p.read_bytes() == b"user data" for p in others)
    assert as_dir.is_dir() and as_link.is_symlink() and target.read_bytes() == b"keep me"


def test_the_check_can_fail_a_stale_temp_is_seen(tmp_path):
    # The planted fault the sweeps below detect: without a sweep the leftover stays.
    p = leftover(tmp_path, "x", dead_pid())
    assert is_stale_temp(p)
    write_atomic(tmp_path / "y", b"1", sweep=False)
    assert p.exists()


def test_a_memory_save_sweeps_the_documents_folder_and_its_history(tmp_path):
    doc = tmp_path / "MEMORY.md"
    doc.write_bytes(b"old\n")
    save_document(tmp_path, doc, "mid\n", disk_version(doc)[1])
    history = next((tmp_path / ".agent/.memtui/history").iterdir())
    stray = [leftover(tmp_path, "MEMORY.md", dead_pid()), leftover(history, "x.bak", dead_pid())]
    save_document(tmp_path, doc, "new\n", disk_version(doc)[1])
    assert not any(p.exists() for p in stray)


def test_opening_the_workspace_sweeps_memory_folders(tmp_path):
    (tmp_path / ".agent/plan").mkdir(parents=True)
    (tmp_path / ".agent/plan/PLAN.md").write_text("# plan\n")
    stray = [leftover(tmp_path, "MEMORY.md", dead_pid()), leftover(tmp_path / ".agent/plan", "PLAN.md", dead_pid()),
             leftover(tmp_path / ".agent", "DECISIONS.md", dead_pid())]
    assert sorted(sweep_workspace(tmp_path)) == sorted(p.resolve() for p in stray)
    assert not any(p.exists() for p in stray)


def test_a_rollback_sweeps_the_folders_it_restores_even_when_all_is_done(tmp_path):
    world = World(tmp_path)
    try:
        (world.root / "src").mkdir()
        world.write("src/a.py", b"a0\n")
        cp = world.edit(world.task(), {"src/a.py": b"a1\n"})
        apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp))
        stray = leftover(world.root / "src", "a.py", dead_pid())
        result = apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp))
        assert [f.reason for f in result.files] == ["already restored"]
        assert not stray.exists()
    finally:
        world.close()


@pytest.mark.parametrize("name", ["a" * 255, "ü" * 120])
def test_a_long_file_name_still_gets_a_temp_name(tmp_path, name):
    write_atomic(tmp_path / name, b"x")
    assert (tmp_path / name).read_bytes() == b"x"


def test_a_crashed_builders_temp_folder_goes_and_nothing_else(tmp_path):
    from memtui.core.atomic import remove_stale_temp_dirs, temp_dir

    gone = dead_pid()
    crashed = tmp_path / f".view.{gone}-1a2b3c4d.memtui-tmpdir"
    (crashed / "deep").mkdir(parents=True)
    (crashed / "deep" / "half.jsonl").write_bytes(b"half a file")
    live = temp_dir(tmp_path / "view")  # this process's own: kept
    live.mkdir()
    keep = [tmp_path / n for n in (f"view.{gone}-1a2b3c4d.memtui-tmpdir", f".view.{gone}-1a2b3c4.memtui-tmpdir",
                                   ".view.1a2b3c4d.memtui-tmpdir")]
    for p in keep:
        p.mkdir()
    as_file = tmp_path / f".f.{gone}-1a2b3c4d.memtui-tmpdir"
    as_file.write_bytes(b"user data")
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "x").write_text("keep me")
    as_link = tmp_path / f".l.{gone}-1a2b3c4d.memtui-tmpdir"
    as_link.symlink_to(target)
    assert remove_stale_temp_dirs(tmp_path) == [crashed]
    assert live.is_dir() and all(p.is_dir() for p in keep) and as_file.read_bytes() == b"user data"
    assert as_link.is_symlink() and (target / "x").read_text() == "keep me"


def _tree(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def _read(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("exchange", ["renameat2", "old aside"])
def test_put_in_place_swaps_a_whole_folder_and_leaves_nothing_beside_it(tmp_path, monkeypatch, exchange):
    from memtui.core import atomic

    if exchange == "old aside":  # what platforms without RENAME_EXCHANGE do
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    place = _tree(tmp_path / "demo", {"README.md": b"mine\n", "notes/todo.txt": b"old\n"})
    place.chmod(0o750)
    built = _tree(atomic.temp_dir(place), {"README.md": b"demo\n", "src/a.py": b"x = 1\n"})
    atomic.put_in_place(built, place)
    assert _read(place) == {"README.md": b"demo\n", "src/a.py": b"x = 1\n"}
    assert (place.stat().st_mode & 0o777) == 0o750
    assert sorted(os.listdir(tmp_path)) == ["demo"]
    new = _tree(atomic.temp_dir(tmp_path / "fresh"), {"x": b"1"})
    atomic.put_in_place(new, tmp_path / "fresh")  # nothing there yet: one rename
    assert _read(tmp_path / "fresh") == {"x": b"1"} and sorted(os.listdir(tmp_path)) == ["demo", "fresh"]


def test_put_in_place_puts_the_old_folder_back_when_the_new_one_cannot_go_in(tmp_path, monkeypatch):
    """With the old folder aside (no RENAME_EXCHANGE), a new folder that cannot be renamed in
    (here: on another file system) leaves the old one in place, not under a temp name."""
    import tempfile

    from memtui.core import atomic

    monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    place = _tree(tmp_path / "demo", {"README.md": b"mine\n"})
    with tempfile.TemporaryDirectory(dir="/dev/shm") as other:
        if os.stat(other).st_dev == os.stat(tmp_path).st_dev:
            pytest.skip("/dev/shm is on the same file system as the test folder here")
        built = _tree(Path(other) / "built", {"README.md": b"demo\n"})
        with pytest.raises(OSError):
            atomic.put_in_place(built, place)
    assert _read(place) == {"README.md": b"mine\n"} and sorted(os.listdir(tmp_path)) == ["demo"]


@pytest.mark.parametrize("system", ["renameat2", "without it"])
def test_rename_fresh_never_lands_on_what_is_there(tmp_path, monkeypatch, system):
    from memtui.core import atomic

    if system == "without it":
        monkeypatch.setattr(atomic, "_renameat2", lambda a, b, flag: False)
    taken = [_tree(tmp_path / f"demo-{i:08x}", {"mine": b"keep"}) for i in range(3)]
    built = _tree(atomic.temp_dir(tmp_path / "demo"), {"README.md": b"demo\n"})
    names, real = ["00000000", "00000002", "0000abcd"], atomic.secrets.token_hex  # the first two are taken
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: names.pop(0) if names else real(n))
    made = atomic.rename_fresh(built, "demo-")
    assert made == tmp_path / "demo-0000abcd"
    assert _read(made) == {"README.md": b"demo\n"} and all(_read(p) == {"mine": b"keep"} for p in taken)
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in [*taken, made])


def test_put_in_place_reports_success_when_the_old_tree_cannot_be_removed(tmp_path):
    """The swap is done once the new folder is in place: an old tree that cannot be removed
    (a read-only folder in it) stays under its temp name for the sweep, and the job succeeds.
    Root may remove anything, so the swap runs as `nobody` when the tests run as root."""
    import tempfile

    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if as_root:
        try:  # the interpreter may live where `nobody` cannot go (e.g. under /root)
            subprocess.run([sys.executable, "-c", "import memtui"], user=65534, cwd="/", check=True,
                           capture_output=True, timeout=60)
        except (OSError, subprocess.CalledProcessError):
            pytest.skip("this Python or memtui cannot be run by an unprivileged user here (root removes anything)")
    base = Path(tempfile.mkdtemp(dir="/tmp" if as_root else tmp_path))
    place = _tree(base / "demo", {"README.md": b"mine\n", "locked/keep.txt": b"old\n"})
    built = _tree(base / ".demo.1-0000abcd.memtui-tmpdir", {"README.md": b"demo\n"})
    if as_root:
        for p in [base, *base.rglob("*")]:
            os.chown(p, 65534, 65534)
    (place / "locked").chmod(0o555)
    code = "import sys; from memtui.core.atomic import put_in_place; put_in_place(sys.argv[1], sys.argv[2])"
    try:
        run = subprocess.run([sys.executable, "-c", code, str(built), str(place)], capture_output=True, text=True,
                             user=65534 if as_root else None, cwd=base, timeout=60)
        assert run.returncode == 0, run.stderr
        assert _read(place) == {"README.md": b"demo\n"}
    finally:
        for p in base.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
        import shutil

        shutil.rmtree(base, ignore_errors=True)
