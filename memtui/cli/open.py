"""`memtui [PATH]`: open the app on a workspace or an agent.db."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any


def register(sub) -> None:
    p = sub.add_parser("open", help="open the app on a workspace or store (the default verb)")
    p.add_argument("path", nargs="?", default=".",
                   help="workspace directory or a store (agent.db, .ra-aid, agent home, transcript, rollout)")
    p.add_argument("--root", help="workspace root: for an agent.db outside its workspace, or the folder a Claude "
                                  "Code / Codex store's recorded paths are restored under")
    p.add_argument("--team", nargs="?", const="", metavar="URL",
                   help="open the team store at URL (postgresql://…; without URL: $MEMTUI_TEAM_URL)")
    p.add_argument("--read-only", action="store_true",
                   help="no writing action at all: no pin, rollback, GC, vacuum, edit or cleanup")
    p.set_defaults(func=run)


def check_openable(path: Path, kept: bool = True) -> Any | None:
    """Refuse, in one line and before the screen takes the terminal, a store that cannot be
    read: a file that is no store, a damaged or foreign database. (A folder without a store
    still opens: the app says what it found and how to make a demo.) One page of one session
    is enough to prove the database readable: the app reads the rest behind its first paint.
    Returns memtui's own store, open (the app reads it without opening it again), else None.
    Other agents' formats are imported only for a file given as PATH: importing them all costs
    ~30 ms before the first paint of memtui's own store. A team store is opened here (its server
    refuses in one line) unless the app kept a page of it last time (memtui.ui.kept_page): then
    the app draws that page and connects behind it (a third of a trivial app's first paint);
    `kept` False: opened here all the same (`memtui serve`: checked once, before any tab)."""
    from memtui.core.store.paths import is_team_url, store_of

    if is_team_url(path):  # the team store: opened here, shown by the app
        from memtui.ui.kept_page import read_kept

        if kept and read_kept(path) is not None:
            return None
        from memtui.core.resolve import resolve

        return resolve(str(path)).source
    from memtui.core.resolve import resolve

    if path.is_dir() and store_of(path) is None:
        return None
    source = resolve(path).source  # the store the app will show
    try:
        source.session_page(0, 1)  # a damaged database fails here, not behind the screen
    except BaseException:
        source.close()
        raise
    if path.is_dir():
        return source
    source.close()
    return None


def run(args) -> int:
    from memtui.ui.collector import pause, resume

    pause()  # no cycle collection while the app starts: it resumes after the first paint
    try:
        path, root, store, page = _checked(args)
    except BaseException:
        resume()  # refused before the app started: nothing will be drawn
        raise
    from memtui.ui.app import run_app

    if isinstance(path, str):  # a team store: the app names its URL (without a password)
        from memtui.core.store.paths import shown_url, team_folder

        if store is None:  # a page of it kept: the app draws it (read once, here) and connects behind it
            return run_app(team_folder(path), root=root, browse_only=args.read_only, shown_path=shown_url(path),
                           opener=partial(_team_store, path), kept=path, kept_page=page)
        return run_app(store.path, root=root, browse_only=args.read_only, opened=store, shown_path=shown_url(path),
                       kept=path)
    return run_app(path, root=root, browse_only=args.read_only,
                   opened=store)


def _team_store(url: str) -> Any:
    from memtui.core.resolve import resolve

    return resolve(url).source


def _checked(args):
    """(path, root, the store opened if any, the page kept of a team store if any) once every
    refusal before the app has had its say."""
    from memtui.cli._common import root_folder
    from memtui.cli._source import team_or_path
    from memtui.core.errors import MemtuiError
    from memtui.ui.terminal_driver import keys_missing

    path = team_or_path(args.path, args.team)
    root = root_folder(args.root)
    page = None
    if isinstance(path, str):  # a team store: with a page of it kept, the app connects behind that page
        from memtui.ui.kept_page import read_kept

        page = read_kept(path)
    store = check_openable(path, kept=False) if page is None else None
    if why := keys_missing():
        if store is not None:
            store.close()
        raise MemtuiError(why)
    return path, root, store, page
