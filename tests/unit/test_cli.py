"""The command line: version, demo, one-line errors."""

from __future__ import annotations

import subprocess
import sys

from memtui import __version__
from memtui.cli import main
from memtui.core.store import AgentStore


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert capsys.readouterr().out.strip() == f"memtui {__version__}"


def test_demo_writes_a_deterministic_workspace(tmp_path, capsys):
    assert main(["demo", str(tmp_path / "a"), "--seed", "3", "--no-open"]) == 0
    assert main(["demo", str(tmp_path / "b"), "--seed", "3", "--no-open"]) == 0
    out = capsys.readouterr().out
    assert f"demo workspace: {tmp_path / 'a'}" in out
    with AgentStore.open(tmp_path / "a", readonly=True) as a, AgentStore.open(tmp_path / "b", readonly=True) as b:
        assert a.sessions() == b.sessions()
        counts = a.counts()
        statuses = {t.status for s in a.sessions() for t in a.tasks(s.id)} | {t.status for t in a.tasks(None)}
        assert statuses == {"running", "waiting_user", "completed", "failed", "cancelled"}
        assert counts["steps"] >= 200 and counts["checkpoints"] >= 20
        assert a.tasks(None), "orphans of a deleted session"
        assert any(t.pinned for s in a.sessions() for t in a.tasks(s.id))
        assert any(t.superseded for s in a.sessions() for t in a.tasks(s.id))


def test_demo_files_on_disk_equal_latest_after_contents(tmp_path):
    main(["demo", str(tmp_path), "--no-open"])
    latest: dict[str, bytes | None] = {}
    with AgentStore.open(tmp_path, readonly=True) as store:
        tasks = [t for s in store.sessions() for t in store.tasks(s.id)] + store.tasks(None)
        for cp in sorted((cp for t in tasks for cp in store.checkpoints(t.id)), key=lambda c: c.id):
            for e in store.checkpoint_entries(cp.id):
                latest[e.path] = store.read_entry(e.id)[1]
    for path, data in latest.items():
        target = tmp_path / path
        assert (target.read_bytes() if target.exists() else None) == data, path
    assert (tmp_path / "MEMORY.md").exists() and (tmp_path / ".agent/init.d/04-decision-log.md").exists()


def test_existing_demo_is_not_overwritten(tmp_path, capsys):
    main(["demo", str(tmp_path), "--no-open"])
    assert main(["demo", str(tmp_path), "--no-open"]) == 2
    assert "already holds" in capsys.readouterr().err


def test_errors_are_one_line_without_traceback(tmp_path):
    bogus = tmp_path / "agent.db"
    bogus.write_bytes(b"garbage" * 300)
    proc = subprocess.run([sys.executable, "-m", "memtui", "demo", str(tmp_path / "x"), "--scale", "nope"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
