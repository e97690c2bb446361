"""The page of newest sessions the app keeps for its next first frame (memtui.ui.kept_page):
kept per opened path in a 0700 folder of memtui's cache, read back as it was listed, and never
served when it is damaged, of another path, or written under --read-only."""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from datetime import datetime, timezone

from memtui.core.atomic import forbid_writes
from memtui.core.model import SessionInfo
from memtui.ui.kept_page import KEPT, keep_page, page_file, read_kept

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def _sessions(n: int) -> list[SessionInfo]:
    return [SessionInfo(id=f"s{i}", title=f"session {i}", status="unknown", current_task_id=f"s{i}:t",
                        created_at=WHEN, updated_at=WHEN, task_count=i, current_title=f"task {i}") for i in range(n)]


def test_a_kept_page_reads_back_as_listed_for_its_path_alone(tmp_path):
    home, other = tmp_path / "home", tmp_path / "other"
    home.mkdir(), other.mkdir()
    sessions = _sessions(3)
    keep_page(home, sessions, {"s0:t": "task 0", "elsewhere": "not on the page"}, 2, True)
    sessions_read, titles, orphans, complete, kept_at, origin, fit = read_kept(home)
    assert sessions_read == sessions
    assert titles == {"s0:t": "task 0"}  # the titles of the page's current tasks only
    assert (orphans, complete, origin, fit) == (2, True, False, None)
    assert abs(kept_at - datetime.now(timezone.utc).timestamp()) < 60
    assert read_kept(other) is None  # another folder: nothing kept for it
    folder = page_file(home).parent
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700  # titles are the users' prompts
    assert folder.is_relative_to(os.environ["XDG_CACHE_HOME"])


def test_a_long_page_is_kept_as_far_as_a_tall_pane_shows(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    keep_page(home, _sessions(KEPT + 5), {}, 3, True)
    sessions, _titles, _orphans, complete, _at, _origin, _fit = read_kept(home)
    assert [s.id for s in sessions] == [f"s{i}" for i in range(KEPT)]
    assert not complete  # more sessions follow: no Orphans row on the kept page


def test_a_damaged_or_emptied_page_is_not_served(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    keep_page(home, _sessions(2), {}, 0, True)
    page_file(home).write_bytes(b"not a kept page")
    assert read_kept(home) is None
    keep_page(home, _sessions(2), {}, 0, True)
    keep_page(home, [], {}, 0, True)  # the home has no sessions now: the next run says what it finds
    assert read_kept(home) is None and not page_file(home).exists()


def test_the_sessions_tables_width_is_kept_with_the_page_and_a_damaged_one_is_not_used(tmp_path):
    """The width the sessions table had at a terminal size comes back with the page (the next
    first frame draws the rows fitted to it); a kept width of another shape is no width."""
    home = tmp_path / "home"
    home.mkdir()
    keep_page(home, _sessions(2), {}, 0, True, fit=(120, 40, 68))
    assert read_kept(home).fit == (120, 40, 68)
    kept = pickle.loads(page_file(home).read_bytes())
    for damaged in ((120, 40), "120x40", [120, 40, 68], ("a", "b", "c"), (120, 40, -1), None):
        page_file(home).write_bytes(pickle.dumps({**kept, "fit": damaged}))
        page = read_kept(home)
        assert page is not None and page.fit is None and len(page.sessions) == 2


def test_nothing_is_kept_under_read_only(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    forbid_writes("memtui was started with --read-only")
    try:
        keep_page(home, _sessions(2), {}, 0, True)
    finally:
        forbid_writes(None)
    assert read_kept(home) is None
    assert not page_file(home).parent.exists()


def test_a_team_store_is_connected_to_before_the_app_unless_a_page_of_it_is_kept(tmp_path):
    """No page kept: the server's refusal is one line before the app starts. A page kept: the
    app draws it and connects behind it, so starting imports no database driver (and a server
    gone since says so in the app, over the kept page)."""
    url = f"postgresql://memtui@/nowhere?host={tmp_path / 'no-server'}"
    check = ("import sys\nfrom memtui.cli.open import check_openable\n"
             f"print(check_openable({url!r}), 'psycopg' in sys.modules, 'peewee' in sys.modules)\n")
    refused = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert refused.returncode != 0 and "cannot open the team store" in refused.stderr
    keep_page(url, _sessions(2), {}, 0, True, origin=True)
    assert read_kept(url).origin and not read_kept(f"{url}-other")
    assert url not in page_file(url).name
    started = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert started.returncode == 0, started.stderr
    assert started.stdout.split() == ["None", "False", "False"]


def test_memtui_open_reads_a_team_stores_kept_page_once_and_hands_it_to_the_app(tmp_path, monkeypatch):
    """`memtui URL` with a page of the team store kept reads that page once: to decide that the
    app draws it and connects behind it (no connection before the app), and the app is given it."""
    import argparse

    import memtui.ui.kept_page as kept_page
    import memtui.ui.terminal_driver as terminal_driver
    from memtui.cli.open import _checked

    url = f"postgresql://memtui@/nowhere?host={tmp_path / 'no-server'}"
    keep_page(url, _sessions(2), {}, 0, True, origin=True)
    reads = []
    real_read = kept_page.read_kept
    monkeypatch.setattr(kept_page, "read_kept", lambda path: reads.append(path) or real_read(path))
    monkeypatch.setattr(terminal_driver, "keys_missing", lambda: "")  # (pytest's stdin is no terminal)
    path, _root, store, page = _checked(argparse.Namespace(path=url, team=None, root=None, read_only=False))
    assert (path, store, reads) == (url, None, [url])
    assert [s.id for s in page.sessions] == ["s0", "s1"] and page.origin
