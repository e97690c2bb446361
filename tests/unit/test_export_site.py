"""`memtui export PATH --all | --project DIR -o FOLDER`: a page per session and an index page
(title, date, prompts, tokens, cost) whose links are relative and work offline; the folder
is written whole or not at all, and never over anything."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from memtui.cli import main
from memtui.core.store import AgentStore
from real_support import claude_session_counts, real_home

SMALL = "claude-2.1.38-spotter-small"  # three sessions, one with a sub-agent
AGTRACE = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9"  # claude-2.0.28-agtrace's one session


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.sources: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "href" in attrs:
            self.hrefs.append(attrs["href"])
        if "src" in attrs:
            self.sources.append(attrs["src"])
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join(" ".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def parsed(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def test_all_sessions_become_linked_pages_with_an_index(tmp_path, capsys):
    home = real_home(SMALL, tmp_path)
    out = tmp_path / "site"
    assert main(["export", str(home), "--all", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}/index.html, 3 session pages\n"
    index = parsed(out / "index.html")
    header, *rows = index.rows
    assert header == ["Session", "Date", "Prompts", "Tokens", "Cost"]
    counts = claude_session_counts(home)
    by_id = {row[0].split()[-1]: row for row in rows}
    assert set(by_id) == set(counts)
    for sid, row in by_id.items():
        assert int(row[2]) == counts[sid]["typed"] + counts[sid]["commands"]  # prompts, counted independently
        assert int(row[3].replace(",", "")) > 0 and row[4].startswith("$")
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d\+00:00", row[1]) for row in rows)
    # Every link is a file of the folder (relative, offline); each page links back; nothing remote.
    assert sorted(index.hrefs) == sorted(p.name for p in out.iterdir() if p.name != "index.html")
    for href in index.hrefs:
        page = parsed(out / href)
        assert "index.html" in page.hrefs and not page.sources
        assert all(h.startswith("#") or h == "index.html" for h in page.hrefs), page.hrefs
    assert sorted(p.name for p in tmp_path.iterdir()) == [SMALL, "site"]  # no temp folder left


def test_a_project_exports_only_its_sessions_and_an_existing_folder_is_refused(tmp_path, capsys):
    home = real_home("claude-2.1.38-spotter-small", tmp_path / "small")
    (home / "projects" / "-Users-zawakin-agent-sample").symlink_to(
        real_home("claude-2.0.28-agtrace", tmp_path) / "projects" / "-Users-zawakin-agent-sample")
    out = tmp_path / "agent-sample"
    project = "/Users/zawakin/agent-sample"  # the folder its session recorded
    assert main(["export", str(home), "--project", project, "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["index.html", f"session-{AGTRACE}.html"]
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for argv, said in ((["--all", "-o", str(out)], "exists; choose a new folder (export never overwrites)"),
                       (["--all"], "name a new one with -o FOLDER"),
                       (["--all", "-o", str(tmp_path / "x"), "--format", "md"], "writes HTML pages only"),
                       (["--project", str(tmp_path), "-o", str(tmp_path / "y")], "no sessions that ran in")):
        assert main(["export", str(home), *argv]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
    assert re.search(r"memtui-tmpdir", " ".join(p.name for p in tmp_path.iterdir())) is None


KILLED_EXPORT = """
import os, signal, sys
import memtui.core.atomic as atomic
from memtui.cli import main
from memtui.core.store import AgentStore
kill_at, writes = int(sys.argv[3]), [0]
real_write, real_place = atomic.write_atomic, atomic.put_in_place
def write(*a, **kw):
    real_write(*a, **kw)
    writes[0] += 1
    if writes[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
def place(*a, **kw):
    if kill_at == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    real_place(*a, **kw)
atomic.write_atomic, atomic.put_in_place = write, place
sys.exit(main(["export", sys.argv[1], "--all", "-o", sys.argv[2]]))
"""


def test_an_export_killed_mid_way_leaves_no_folder_and_the_next_one_writes_it_whole(tmp_path):
    """kill -9 after the first page, after the last (before the folder is renamed into place):
    no folder at all (never a half-written one), and the next export writes it whole and
    sweeps the killed one's temporary folder."""
    import os
    import subprocess
    import sys

    root = tmp_path / "ws"
    with AgentStore.open(root) as store:
        for n in range(3):
            task = store.start_task(store.start_session(f"session {n}"), f"task {n}")
            store.record_step(task, "bash", {"command": f"echo {n}"}, "ok")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for kill_at in (1, 0):  # after the first page's write; just before the rename
        out = tmp_path / f"site{kill_at}"
        proc = subprocess.run([sys.executable, "-c", KILLED_EXPORT, str(root), str(out), str(kill_at)],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == -9, proc.stderr
        assert not out.exists()
        assert any(p.name.endswith(".memtui-tmpdir") for p in tmp_path.iterdir())  # what it left
        assert main(["export", str(root), "--all", "-o", str(out)]) == 0
        assert sorted(p.name for p in out.iterdir()) == ["index.html"] + sorted(
            f"session-{n}.html" for n in (1, 2, 3))
        assert not any(p.name.endswith(".memtui-tmpdir") for p in tmp_path.iterdir())


def test_a_workspace_exports_its_orphan_tasks_on_a_page_of_their_own(tmp_path, capsys):
    from memtui.core.demo import build_demo

    root = build_demo(tmp_path / "ws", seed=1)
    with AgentStore.open(root, readonly=True) as store:
        sessions, orphans = len(store.sessions()), store.tasks(None)
    assert orphans
    out = tmp_path / "site"
    assert main(["export", str(root), "--all", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert said == f"wrote {out}/index.html, {sessions} session pages and orphans.html (tasks without a session)\n"
    index = parsed(out / "index.html")
    assert index.rows[-1][0] == "Tasks without a session" and "orphans.html" in index.hrefs
    page = (out / "orphans.html").read_text(encoding="utf-8")
    assert "memtui export — tasks without a session" in page
    assert all(f">task {task.id}</a>: " in page for task in orphans)
