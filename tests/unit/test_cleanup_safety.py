"""Cleanup's guards against what is not the happy path: an unreadable pins file, a damaged
archive, file names that are not UTF-8, two cleanups at once, and the privacy of memtui's
own archive — each checked on real files through the same verbs the user runs."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.cleanup import load_pins, set_pinned
from memtui.core.places import state_dir
from memtui.core.errors import MemtuiError
from tests.unit.cleanup_homes import build_claude_home, snapshot


@pytest.fixture
def claude(tmp_path):
    home = tmp_path / "claude"
    return home, build_claude_home(home)


def broken_pins(session_id: str) -> Path:
    """The pins file as a hand edit leaves it: a trailing comma."""
    path = state_dir() / "pins.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{\n  "claude-code": [\n    "%s",\n  ]\n}\n' % session_id)
    return path


# ---------------------------------------------------------------- A. pins
def test_an_unreadable_pins_file_stops_cleanup_instead_of_unpinning(claude, capsys):
    home, ids = claude
    old = ids["old1"]
    assert main(["pin", str(home), old]) == 0
    capsys.readouterr()
    pins = broken_pins(old)
    text = pins.read_bytes()
    before = snapshot(home)
    for verb in ("--dry-run", "--archive", "--delete"):
        assert main(["cleanup", str(home), "--keep-days", "1", "--keep-last", "0", verb]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1, err  # one line, no plan that says "archive"
        assert str(pins) in err and "not valid JSON" in err and "fix or remove" in err
    assert snapshot(home) == before  # the pinned session (and every other) is still there
    assert pins.read_bytes() == text


def test_pinning_over_an_unreadable_pins_file_refuses_and_keeps_it(claude, capsys):
    home, ids = claude
    pins = broken_pins(ids["old1"])
    text = pins.read_bytes()
    assert main(["pin", str(home), ids["old2"]]) == 2
    assert str(pins) in capsys.readouterr().err
    with pytest.raises(MemtuiError, match="not valid JSON"):
        set_pinned("claude-code", ids["old2"], True)
    assert pins.read_bytes() == text  # not replaced by a file holding only the new pin


def test_pins_made_at_the_same_moment_all_land(tmp_path):
    folder = tmp_path / "state"
    ids = [f"{n:08d}" for n in range(24)]
    start = threading.Barrier(len(ids))

    def pin(session_id: str) -> None:
        start.wait()
        set_pinned("claude-code", session_id, True, folder)

    threads = [threading.Thread(target=pin, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert load_pins(folder) == {"claude-code": set(ids)}
    assert json.loads((folder / "pins.json").read_text()) == {"claude-code": ids}
    assert [p.name for p in folder.iterdir() if ".memtui-tmp" in p.name] == []


# ---------------------------------------------------------------- B. a damaged archive
def archive_old1(home: Path, root: Path, ids: dict) -> tuple[Path, Path]:
    from memtui.core.cleanup import apply_cleanup, plan_cleanup
    from memtui.core.homes import take_inventory
    from tests.unit.cleanup_homes import NOW

    result = apply_cleanup(plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, now=NOW), root, level=3)
    assert ids["old1"] in result.done
    folder = root / "claude-code"
    return folder / f"{ids['old1']}.tar.zst", folder / f"{ids['old1']}.json"


def flip_middle_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_restoring_a_damaged_archive_fails_in_one_line_and_leaves_it_archived(claude, tmp_path, capsys):
    from memtui.core.cleanup import iter_files, list_archived
    from memtui.core.cleanup.manifest import read_manifest

    home, ids = claude
    root = tmp_path / "archive"
    tar, manifest_path = archive_old1(home, root, ids)
    manifest = read_manifest(manifest_path)
    flip_middle_byte(tar)
    gone = snapshot(home)
    assert main(["restore", "--session", ids["old1"], "--archive-dir", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "nothing restored" in err, err
    assert read_manifest(manifest_path).state == "archived"  # not stuck at "restoring"
    assert snapshot(home) == gone  # no file of old1 put back half-way, no temp file left
    assert not any(os.path.exists(f.path) for f in manifest.files)
    # Browsing it says the same in one line (a MemtuiError), never the decompressor's error.
    [listed] = [m for m in list_archived(root) if m.id == ids["old1"]]
    with pytest.raises(MemtuiError):
        list(iter_files(root, listed))


@pytest.mark.parametrize("cut", [0.5, 0.97])
def test_a_torn_archive_is_an_archive_error_for_restore_and_browse(claude, tmp_path, cut):
    from memtui.core.cleanup import iter_files, list_archived, restore_session
    from memtui.core.cleanup.manifest import ArchiveError, read_manifest

    home, ids = claude
    root = tmp_path / "archive"
    tar, manifest_path = archive_old1(home, root, ids)
    data = tar.read_bytes()
    tar.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(ArchiveError, match="unreadable archive"):
        restore_session(ids["old1"], root)
    assert read_manifest(manifest_path).state == "archived"
    assert not any(os.path.exists(f.path) for f in read_manifest(manifest_path).files)
    [listed] = [m for m in list_archived(root) if m.id == ids["old1"]]
    with pytest.raises(ArchiveError, match="unreadable archive"):
        list(iter_files(root, listed))


# ---------------------------------------------------------------- C. names that are not UTF-8
def test_a_file_name_that_is_not_utf8_is_archived_and_restored_byte_exact(claude, tmp_path, capsys):
    from memtui.core.cleanup import list_archived

    home, ids = claude
    folder = home / "projects/-work-alpha" / ids["old1"] / "tool-results"
    name = os.path.join(os.fsencode(folder), b"caf\xe9.txt")  # Latin-1, as an old tool wrote it
    with open(name, "wb") as handle:
        handle.write(b"caf\xe9 au lait\n")
    when = os.stat(folder / "r1.txt").st_mtime_ns
    os.utime(name, ns=(when, when))
    before = snapshot(home)
    root = tmp_path / "archive"
    assert main(["cleanup", str(home), "--keep-days", "30", "--keep-last", "1", "--archive",
                 "--archive-dir", str(root), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not any("error" in r for r in report["sessions"] + report["orphans"])
    assert not os.path.exists(name) and not (home / "projects/-work-alpha" / f"{ids['old2']}.jsonl").exists()
    manifest_file = root / "claude-code" / f"{ids['old1']}.json"
    json.loads(manifest_file.read_bytes().decode("utf-8"))  # still UTF-8 JSON any tool reads
    [listed] = [m for m in list_archived(root) if m.id == ids["old1"]]
    assert os.fsdecode(name) in {f.path for f in listed.files}
    assert main(["restore", "--session", ids["old1"], "--archive-dir", str(root)]) == 0
    with open(name, "rb") as handle:
        assert handle.read() == b"caf\xe9 au lait\n"
    after = snapshot(home)
    assert {p: after[p] for p in before if p in after} == {p: before[p] for p in before if p in after}
    assert after[os.fsdecode(name)] == before[os.fsdecode(name)]  # bytes, mtime, mode


# ---------------------------------------------------------------- D. two cleanups at once
HOLDER = """
import sys
from pathlib import Path
from memtui.core.cleanup.lock import archive_lock
with archive_lock(Path(sys.argv[1]), "claude-code") as folder:
    # as a cleanup between writing its tar and committing its manifest
    (folder / (sys.argv[2] + ".tar.zst")).write_bytes(b"(\\xb5/\\xfd half of a tar")
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_cleanup_waits_then_refuses_and_deletes_nothing_of_the_first(claude, tmp_path, capsys, monkeypatch):
    import subprocess
    import sys

    from memtui.core.cleanup import lock

    monkeypatch.setattr(lock, "WAIT", 0.5)
    home, ids = claude
    root = tmp_path / "archive"
    first = subprocess.Popen([sys.executable, "-c", HOLDER, str(root), ids["old2"]], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2], text=True)
    try:
        assert first.stdout.readline() == "held\n"
        in_flight = root / "claude-code" / f"{ids['old2']}.tar.zst"
        before = snapshot(home)
        argv = ["cleanup", str(home), "--keep-days", "30", "--keep-last", "1", "--archive-dir", str(root)]
        assert main([*argv, "--archive"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "another memtui cleanup or restore is using the archive folder" in err
        assert in_flight.is_file()  # not taken for a torn archive and deleted
        assert snapshot(home) == before
        assert main(["restore", "--session", ids["old2"], "--archive-dir", str(root)]) == 2
        assert main([*argv, "--dry-run"]) == 0  # a preview writes nothing: it does not wait
    finally:
        first.communicate("")
    # The first is gone: the next cleanup runs, and drops that torn tar (its originals are whole).
    assert main([*argv, "--archive"]) == 0
    assert not in_flight.is_file() or (root / "claude-code" / f"{ids['old2']}.json").is_file()


# ---------------------------------------------------------------- memtui's own folders are private
def test_the_archive_and_the_pins_are_this_users_alone(claude, capsys):
    import stat

    from memtui.core.cleanup import archive_dir

    home, ids = claude
    os.umask(umask := os.umask(0o022))  # the common umask: what an ordinary create gives 0644
    try:
        assert main(["pin", str(home), ids["recent"]]) == 0
        assert main(["cleanup", str(home), "--keep-days", "30", "--keep-last", "1", "--archive"]) == 0
    finally:
        os.umask(umask)
    root = archive_dir()

    def mode(path: Path) -> int:
        return stat.S_IMODE(os.stat(path).st_mode)

    assert mode(root) == mode(root.parent) == mode(root / "claude-code") == 0o700
    files = list((root / "claude-code").iterdir())
    assert {p.suffix for p in files} == {".zst", ".json"}
    assert {oct(mode(p)) for p in files} == {oct(0o600)}
    assert mode(state_dir()) == 0o700 and mode(state_dir() / "pins.json") == 0o600
