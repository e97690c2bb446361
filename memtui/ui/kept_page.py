"""The newest sessions the app listed last time, kept for its next first frame.

Opening an agent's home (a Claude Code home of 2,000 sessions) walks it and checks every
transcript against the index before a session can be listed: seconds on a heavy home, where a
trivial Textual app draws in a third of one. The app keeps the first page it listed (the
newest sessions, with their current tasks' titles) in memtui's cache folder, and on the next
run draws it at once, saying so ("as of 5m ago; checking…"), while the opening checks the home
behind the frame; the page read then replaces it, cursor kept. A session cannot be opened from
the kept page (its tasks wait for the store), and no figure on it is new: it is the list as
it was, named as such.

A team store on a server (`memtui postgresql://…`) is opened so too once a page of it is kept:
its connection (and the import of its driver) comes after the first frame.

One small file per opened path (`$XDG_CACHE_HOME/memtui/first-page/<key>.pickle`, the folder
0700 as the index's: titles are the users' prompts), keyed by the path's resolved name, device
and inode, or by a team store's URL; written atomically by the opening worker once the first
frame is up, never under `--read-only`. A file of another layout, damaged, or of sessions that
no longer fit the model is ignored (and replaced by the next run's).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import time
from pathlib import Path
from typing import Any, NamedTuple

from memtui.core.atomic import check_writes_allowed, is_mine, made_private, write_atomic
from memtui.core.places import cache_dir
from memtui.core.errors import WritesForbidden
from memtui.core.model import SessionInfo
from memtui.core.store.paths import is_team_url

LAYOUT = 1
"""The layout of a kept page's file: a file of another is not read."""
FOLDER = "first-page"
KEPT = 60
"""Sessions kept: what a tall terminal's sessions pane shows (the first frame builds a row for
each kept session; the page read behind it brings the rest)."""


class KeptPage(NamedTuple):
    """A page kept by an earlier run."""

    sessions: list[SessionInfo]
    titles: dict[Any, str]
    """The current tasks' titles, by task id."""
    orphans: int
    complete: bool
    """Whether the page held every session (and so the Orphans row, if any)."""
    kept_at: float
    """When it was kept (epoch seconds)."""
    origin: bool
    """Whether the store's sessions named their machine (a team store's Machine and Agent columns)."""
    fit: tuple[int, int, int] | None = None
    """(terminal columns, terminal rows, the sessions table's row width) as the page was drawn:
    at the same terminal size the next first frame draws the rows at once, fitted to that width
    (memtui.ui.widgets.record_table `expect_width`), rather than after a frame without them."""


def _cache_folder() -> Path:
    """Where kept pages go: `first-page` in memtui's cache folder."""
    return cache_dir() / FOLDER


def page_file(path: Path | str) -> Path | None:
    """The file of the page kept for `path`, a folder or file (None when it is gone) or a team
    store's URL (keyed by its digest: the file's name never shows the URL)."""
    if is_team_url(path):
        digest = hashlib.sha256(("team\0" + str(path)).encode()).hexdigest()
        return _cache_folder() / f"{digest[:24]}.pickle"
    try:
        resolved = Path(path).resolve()
        st = os.stat(resolved)
    except (OSError, RuntimeError):
        return None
    key = hashlib.sha256(f"{resolved}\0{st.st_dev}\0{st.st_ino}".encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return _cache_folder() / f"{key}.pickle"


def _ours(folder: Path) -> bool:
    """Whether `folder` is a real folder of this user's (not a link, not someone else's)."""
    try:
        own = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(own.st_mode) and is_mine(own)


def read_kept(path: Path | str) -> KeptPage | None:
    """The page kept for `path`; None when there is none usable."""
    file = page_file(path)
    if file is None or not _ours(file.parent):
        return None
    try:
        kept = pickle.loads(file.read_bytes())  # memtui's own file, in a 0700 folder of this user's
        if kept.get("layout") != LAYOUT:
            return None
        sessions = [SessionInfo(**fields) for fields in kept["sessions"]]
        return KeptPage(sessions, dict(kept["titles"]), int(kept["orphans"]), bool(kept["complete"]),
                        float(kept["kept_at"]), bool(kept["origin"]), _fit(kept.get("fit")))
    except Exception:  # no file, damaged, or sessions of another model: no kept page
        return None


def _fit(kept: Any) -> tuple[int, int, int] | None:
    """A kept `fit` as KeptPage has it; None for anything else (the first frame then waits for
    the table's width, as without one)."""
    if isinstance(kept, tuple) and len(kept) == 3 and all(type(n) is int and n > 0 for n in kept):
        return kept
    return None


def keep_page(path: Path | str, sessions: list[SessionInfo], titles: dict[Any, str], orphans: int, complete: bool,
              origin: bool = False, fit: tuple[int, int, int] | None = None) -> None:
    """Keep the first page listed for `path` for the next run (a page of no sessions is not
    kept: the next run says what it finds); `origin`: the store's sessions name their machine;
    `fit`: see KeptPage. Never raises: a cache that cannot be written only means the next
    first frame waits for the opening."""
    file = page_file(path)
    if file is None:
        return
    try:
        check_writes_allowed(file)
        if not sessions:
            file.unlink(missing_ok=True)
            return
        if not made_private(file.parent):
            return
        if len(sessions) > KEPT:
            sessions, complete = sessions[:KEPT], False
        wanted = {s.current_task_id for s in sessions}
        write_atomic(file, pickle.dumps({
            "layout": LAYOUT, "kept_at": time.time(), "orphans": orphans, "complete": complete, "origin": origin,
            "fit": None if fit is None else tuple(fit), "sessions": [dict(vars(s)) for s in sessions],
            "titles": {k: v for k, v in titles.items() if k in wanted},
        }, protocol=pickle.HIGHEST_PROTOCOL), 0o600)
    except (OSError, WritesForbidden):
        return
