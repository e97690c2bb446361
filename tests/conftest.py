"""Fixtures shared by the unit and UI tests: a fixed clock, a fresh store, the seeded demo
(built once), an app driven through make_app() as the CLI builds it, and one settle.

    async with open_app(demo_path) as pilot:      # the app on a workspace, settled
        await pilot.press("g")
        await settle(pilot)
"""

from __future__ import annotations

import gc
import html
import os
import re
import shutil
import time
import weakref
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator

import pytest
from rich.cells import cell_len

# Wall-clock times in the panes are local time: pin the zone so snapshots are the same anywhere.
os.environ["TZ"] = "UTC"
time.tzset()

from memtui.core.demo import DEMO_START, DemoClock, build_demo  # noqa: E402
from memtui.core.store import AgentStore  # noqa: E402

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures"
SIZE = (160, 48)
"""The terminal of the UI tests unless a test says otherwise (the screenshots' size)."""

# "Now" for relative times ("3d ago"): a little after the demo's last recorded activity.
SVG_CHAR_WIDTH = 20 * 0.61
"""The width of a cell in Rich's SVG export (font size 20, aspect ratio 0.61)."""

FIXED_NOW = DEMO_START + timedelta(days=30)


def fixed_clock() -> datetime:
    return FIXED_NOW


MAX_WORKERS = 8


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (in addopts): one worker more than the cores this process may use, at most
    MAX_WORKERS. A worker is often asleep rather than busy: each key a UI test presses and each
    pause waits for the app to go idle (Textual sleeps 20 ms at least, twice a key), and the
    kill, CLI and browser tests wait on child processes; the suite's CPU time was three
    quarters of two workers' wall time on an idle 2-core machine. The extra worker runs while
    another sleeps (each worker imports the app and builds its own session fixtures, so not
    more)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores + 1, MAX_WORKERS))


# The modules holding the longest tests (a Chromium driven through `memtui serve`, mypy over the
# core, kill -9 trials in child processes, thousands of commits): queued first, whole, so that no
# worker starts one of them when the others have run out of tests (pytest-xdist hands tests out in
# the order collected). Longest first; a name that no longer exists is passed over.
LONG_FIRST = (
    "tests/ui/test_serve_browser.py",
    "tests/unit/test_core_types.py",
    "tests/unit/test_textual_public.py",
    "tests/ui/test_serve_team_browser.py",
    "tests/ui/test_narrow_lists.py",
    "tests/ui/test_scratch_kill.py",
    "tests/ui/test_search_screen.py",
    "tests/unit/test_gemini_home_kill.py",
    "tests/unit/test_team_push.py",
    "tests/unit/test_store_upgrade.py",
    "tests/ui/test_gc_screens.py",
    "tests/unit/test_demo_kill.py",
    "tests/ui/test_sources_ui.py",
    "tests/unit/test_gc_apply.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """LONG_FIRST's modules first, each module's tests together and in their order (its module
    fixtures are built once); every other test after them in the order collected."""
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(autouse=True)
def _own_xdg_folders(tmp_path_factory, monkeypatch):
    """memtui's own folders (archive, pins, caches under XDG_DATA/STATE/CACHE_HOME) point
    into a temp folder: no test reads or writes the real user's."""
    base = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(base / var.lower()))


@pytest.fixture(autouse=True)
def _heap_of_one_test():
    """The objects alive before a test (modules, session fixtures) are left out of the cycle
    collector's passes during it, as the app leaves its start-up heap out (memtui.ui.collector);
    after it they are handed back, so what the test froze or left in cycles is collected and a
    worker's memory stays that of one test.

    The collector is also left on if it was on before: `memtui open` pauses it for the app's
    start and a process that fails to open exits, but a test that runs it in-process (a bad
    --root) would leave it off for every later test in its worker."""
    enabled = gc.isenabled()
    gc.freeze()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


@dataclass(frozen=True)
class Said:
    """One notification the app showed."""

    message: str
    title: str
    severity: str


_SAID: weakref.WeakKeyDictionary[Any, list[Said]] = weakref.WeakKeyDictionary()


def notifications(app: Any) -> list[Said]:
    """Every notification `app` showed since it started or since its clear_notifications()
    (UI tests: kept by App.notify, Textual's public way in)."""
    return _SAID.setdefault(app, [])


@pytest.fixture(autouse=True)
def _notifications_kept(request: pytest.FixtureRequest) -> Iterator[None]:
    """In the UI tests, an app keeps what it notified (`notifications(app)`), as Textual's
    App.notify got it (MemtuiApp's notify has made the text literal by then)."""
    if "ui" not in request.node.path.parts:
        yield
        return
    from textual.app import App

    notify, clear = App.notify, App.clear_notifications

    def kept_notify(self: Any, message: str, *, title: str = "", severity: Any = "information", **kw: Any) -> None:
        notifications(self).append(Said(str(message), str(title), str(severity)))
        notify(self, message, title=title, severity=severity, **kw)

    def kept_clear(self: Any) -> None:
        notifications(self).clear()
        clear(self)

    with pytest.MonkeyPatch.context() as patch:  # its own: a test's monkeypatch.undo() leaves it
        patch.setattr(App, "notify", kept_notify)
        patch.setattr(App, "clear_notifications", kept_clear)
        yield


@pytest.fixture
def store(tmp_path: Path) -> Any:
    """A new, empty memtui store in tmp_path/"ws", on the demo's deterministic clock."""
    with AgentStore.open(tmp_path / "ws", clock=DemoClock()) as opened:
        yield opened


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """A private PostgreSQL cluster on a Unix socket (tests/pg_cluster.py), one per test process,
    started on first use and stopped at the end; the test is skipped, saying why, without one."""
    from tests.pg_cluster import PgCluster

    why = PgCluster.missing()
    if why:
        pytest.skip(why)
    cluster = PgCluster.start()
    yield cluster
    cluster.stop()


@pytest.fixture
def team_url(pg_cluster) -> str:
    """The URL of a new, empty database on the test cluster (a team store is made there on first write)."""
    return pg_cluster.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def open_new_store(request, tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """`open_new_store(clock=None)`: a new, empty memtui store, in a folder of tmp_path (SQLite)
    or in a new database of the test PostgreSQL cluster (a team store); the test runs once on
    each, with the same assertions. The stores are closed after the test."""
    opened: list[Any] = []

    def make(clock: Any = None) -> Any:
        if request.param == "sqlite":
            store = AgentStore.open(tmp_path / f"ws{len(opened) or ''}", clock=clock)
        else:
            from memtui.core.store.team import TeamStore

            store = TeamStore.open(request.getfixturevalue("pg_cluster").new_database(), clock=clock)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def any_store(open_new_store) -> Any:
    """A new, empty memtui store on the demo's clock, on SQLite and on PostgreSQL (open_new_store)."""
    return open_new_store(DemoClock())


@pytest.fixture(scope="session")
def demo_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded demo workspace (seed 1, the demo's own fixed clock), built once per run.
    Read-only tests use it as `demo_path`; tests that write take `demo_copy`."""
    root = tmp_path_factory.mktemp("demo") / "workspace"
    build_demo(root, seed=1)
    return root


@pytest.fixture(scope="session")
def demo_path(demo_master: Path) -> Path:
    """The shared demo workspace: never write into it."""
    return demo_master


@pytest.fixture
def demo_copy(demo_master: Path, tmp_path: Path) -> Path:
    """A private copy of the demo workspace, for tests that write."""
    return shutil.copytree(demo_master, tmp_path / "demo")


@pytest.fixture
def app_for() -> Callable[..., Any]:
    """make_app with the fixed clock and a fixed workspace label (tmp paths differ per run)."""
    from memtui.ui.app import make_app

    def build(path: Path, **kw: Any) -> Any:
        kw.setdefault("shown_path", "~/demo")
        kw.setdefault("clock", fixed_clock)
        return make_app(path, **kw)
    return build


@pytest.fixture
def settled() -> Callable[[Any], Awaitable[None]]:
    """The one settle: wait until every worker is done and every pane shows the selection
    above it (pilot_support.settle, which the screenshots use too)."""
    from pilot_support import settle

    return settle


@pytest.fixture
def open_app(app_for: Callable[..., Any], settled: Callable[[Any], Awaitable[None]]) -> Callable[..., Any]:
    """`async with open_app(path, size=SIZE, **make_app_kw) as pilot:` the app, settled."""

    @asynccontextmanager
    async def run(path: Path, size: tuple[int, int] = SIZE, **kw: Any) -> AsyncIterator[Any]:
        app = app_for(path, **kw)
        async with app.run_test(size=size) as pilot:
            await settled(pilot)
            yield pilot
    return run


@pytest.fixture(scope="session")
def crafted_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small store with hostile text, a many-hunk file and a task of 1,200 steps (read-only use)."""
    from crafted_store import build_crafted

    return build_crafted(tmp_path_factory.mktemp("crafted") / "workspace")


@pytest.fixture
def open_screen(open_app: Callable[..., Any], settled: Callable[[Any], Awaitable[None]]) -> Callable[..., Any]:
    """`async with open_screen(root, lambda: DecisionsScreen(root)) as pilot:` the app on a
    workspace, with that screen pushed on top, settled."""

    @asynccontextmanager
    async def run(root: Path, make_screen: Callable[[], Any], size: tuple[int, int] = (120, 40),
                  **kw: Any) -> AsyncIterator[Any]:
        async with open_app(root, size=size, **kw) as pilot:
            pilot.app.push_screen(make_screen())
            await settled(pilot)
            yield pilot
    return run


@pytest.fixture
def open_memory(open_screen: Callable[..., Any]) -> Callable[..., Any]:
    """`async with open_memory(root, select="MEMORY.md") as pilot:` the memory screen (these
    keyword arguments) on the app of the workspace `root`, settled."""
    from memtui.ui.screens.memory import MemoryScreen

    def run(root: Path, size: tuple[int, int] = (120, 40), **kw: Any) -> Any:
        return open_screen(root, lambda: MemoryScreen(root, **kw), size=size)
    return run


_SVG_TEXT = re.compile(r'<text [^>]*\bx="([0-9.]+)"[^>]*clip-path="url\(#[^)]*-line-(\d+)\)">([^<]*)</text>')


def screen_text(app: Any) -> str:
    """The screen as the terminal shows it, as plain text lines (read from the app's own SVG
    screenshot: Textual's public way to get what it draws). A wide character is one character
    of its line, as it is one character of the text drawn."""
    width, height = app.size
    cells = [[" "] * width for _ in range(height)]
    svg = app.export_screenshot()
    for x, line, text in _SVG_TEXT.findall(svg):
        column = round(float(x) / SVG_CHAR_WIDTH)
        for char in html.unescape(text).replace("\xa0", " "):  # Rich writes spaces as &#160;
            if 0 <= column < width and int(line) < height:
                cells[int(line)][column] = char
                for wide in range(1, cell_len(char)):
                    if column + wide < width:
                        cells[int(line)][column + wide] = ""
            column += cell_len(char)
    return "\n".join("".join(row) for row in cells)


def tree_nodes(tree: Any) -> Iterator[Any]:
    """Every node of a Textual tree below its root, each before its children."""
    stack = list(reversed(tree.root.children))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


@pytest.fixture
def shown() -> Callable[[Any], str]:
    """`shown(app)`: the screen as the terminal shows it, as plain text lines."""
    return screen_text
