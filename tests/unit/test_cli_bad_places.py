"""Every verb, pointed at a bad place, says so in one line on stderr and exits 2: a missing
path, a file that is not SQLite, a truncated database, a read-only workspace (writes only)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from contextlib import contextmanager

import pytest

from memtui.cli import main
from memtui.core.demo import build_demo

# Each verb with arguments that reach the store or the workspace ({p} is the path).
READS = {
    "rollback": ["rollback", "{p}", "--task", "1", "--dry-run"],
    "gc": ["gc", "{p}"],
    "stats": ["stats", "{p}"],
    "memory": ["memory", "{p}"],
    "memory-history": ["memory-history", "{p}", "MEMORY.md"],
    "decisions": ["decisions", "{p}"],
    "lint": ["lint", "{p}"],
    "search": ["search", "{p}", "parser"],
    "sources": ["sources", "{p}"],
    "curate": ["curate", "{p}", "--fact", "1", "--dry-run"],
    "log": ["log", "{p}"],
    "show": ["show", "{p}", "--task", "1"],
    "open": ["{p}"],
}
WRITES = {
    "rollback": ["rollback", "{p}", "--task", "2", "--force", "--yes"],
    "gc": ["gc", "{p}", "--apply", "--yes"],
    "pin": ["pin", "{p}", "1"],
    "vacuum": ["vacuum", "{p}"],
    "decisions": ["decisions", "{p}", "--add", "Use SQLite", "--why", "it is there"],
    "demo": ["demo", "{p}/new", "--no-open"],
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad") / "demo"
    build_demo(root, seed=1)
    return root


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_exit_2(code, err):
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("memtui"), err
    assert "Traceback" not in err


def _not_sqlite(tmp_path):
    path = tmp_path / "agent.db"
    path.write_text("these are my notes, not a database\n" * 50)
    return path


def _truncated(tmp_path, demo):
    path = tmp_path / "ws" / ".agent" / "agent.db"
    path.parent.mkdir(parents=True)
    data = (demo / ".agent" / "agent.db").read_bytes()
    path.write_bytes(data[: len(data) // 3])
    return path


@pytest.mark.parametrize("verb", sorted(READS))
def test_a_missing_path(verb, tmp_path, capsys):
    argv = [a.format(p=tmp_path / "no" / "such") for a in READS[verb]]
    code, _, err = _run(argv, capsys)
    _one_line_exit_2(code, err)
    assert "does not exist" in err


@pytest.mark.parametrize("verb", sorted(set(READS) - {"memory", "decisions", "lint", "memory-history"}))
def test_a_file_that_is_not_sqlite(verb, tmp_path, capsys):
    path = _not_sqlite(tmp_path)
    argv = [a.format(p=path) for a in READS[verb]]
    code, _, err = _run(argv, capsys)
    _one_line_exit_2(code, err)


@pytest.mark.parametrize("verb", sorted(set(READS) - {"memory", "decisions", "lint", "memory-history"}))
def test_a_truncated_database(verb, tmp_path, demo, capsys):
    path = _truncated(tmp_path, demo)
    argv = [a.format(p=path) for a in READS[verb]]
    code, _, err = _run(argv, capsys)
    _one_line_exit_2(code, err)
    assert "damaged" in err


@contextmanager
def read_only(root):
    """`root` really read-only: files and folders without write permission, or, for root
    (who writes anywhere), marked immutable (chattr +i), which refuses even root."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None or subprocess.run(["chattr", "-R", "+i", str(root)]).returncode:
            pytest.skip("running as root without chattr +i: nothing is read-only")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-R", "-i", str(root)], check=True)
        return
    for folder, _dirs, files in os.walk(root):
        for name in files:
            os.chmod(os.path.join(folder, name), stat.S_IRUSR)
        os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        yield
    finally:
        for folder, _dirs, files in os.walk(root):
            os.chmod(folder, stat.S_IRWXU)


@pytest.mark.parametrize("verb", sorted(WRITES))
def test_a_read_only_workspace(verb, tmp_path, demo, capsys):
    root = shutil.copytree(demo, tmp_path / "ro")
    with read_only(root):
        argv = [a.format(p=root) for a in WRITES[verb]]
        code, _, err = _run(argv, capsys)
    _one_line_exit_2(code, err)
    assert "permission" in err.lower() or "read-only" in err.lower()


def test_a_write_refused_names_the_file_asked_for_not_memtuis_temp_file(tmp_path, demo, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "session.html"
    with read_only(folder):
        code, _, err = _run(["export", str(demo), "--session", "1", "-o", str(target)], capsys)
    _one_line_exit_2(code, err)
    assert err == f"memtui: {target}: permission denied (the folder or file is read-only for you)\n"
    assert list(folder.iterdir()) == []
