"""A failing worker on every screen: the user is told what failed, once, and no pane keeps
saying it is loading.

Each case opens one screen with one of its reads broken the way a damaged disk or
database breaks it (an OSError / sqlite3.DatabaseError from the read), then checks the
screen as the terminal shows it.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import pytest
from textual.screen import Screen

import memtui.ui.screens as screens_pkg
from memtui.ui.screens.base import MemtuiScreen
from pilot_support import ROUTING, open_step

from sources_support import FIXTURES, damaged
from conftest import notifications

SIZE = (140, 40)
WAITING = ("loading…", "reading the database…", "computing the live set…", "indexing…", "Reading…", "opening…")
"""What a pane says while it waits: none of it may stay once its worker failed."""


def unreadable(*_: Any, **__: Any) -> Any:
    raise PermissionError(13, "Permission denied")


def break_source(method: str) -> Callable[[Any, Any], None]:
    def apply(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(app.source, method, damaged)
    return apply


def break_unread(method: str) -> Callable[[Any, Any], None]:
    """break_source, and the main screen forgets what it read ahead (memtui.ui.read_ahead): the
    rows next to the cursor were read before the damage; the move must read."""
    def apply(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(app.source, method, damaged)
        for ahead in (app.screen.tasks_ahead, app.screen.steps_ahead, app.screen.bottom.ahead):
            ahead.clear()
    return apply


def break_module(target: str, error: Callable[..., Any] = damaged) -> Callable[[Any, Any], None]:
    def apply(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(target, error)
    return apply


async def routing_edit(pilot: Any) -> None:
    """The step of the demo that edits one file (step 7 of the routing fix)."""
    await open_step(pilot, *ROUTING, 7, "3")


ROUTING_EDIT = (routing_edit,)

# name: (workspace, keys that open the screen (or a coroutine function of the pilot), what breaks, the failed worker's description,
#        the screen class expected on top)
CASES: dict[str, tuple[str, tuple[str, ...], Callable[[Any, Any], None], str, str]] = {
    "main: sessions": ("demo", ("ctrl+r",), break_module("memtui.ui.pane_reads.session_parts"), "load sessions",
                       "MainScreen"),
    "main: tasks": ("demo", ("down",), break_unread("tasks"), "load tasks", "MainScreen"),
    "main: steps": ("demo", ("down",), break_unread("steps"), "load steps", "MainScreen"),
    "main: changed files": ("demo", ROUTING_EDIT, break_source("checkpoint_entries"), "load checkpoint files",
                            "MainScreen"),
    "main: diff": ("demo", ROUTING_EDIT, break_source("read_entry"), "read file contents", "MainScreen"),
    "step detail": ("demo", (*ROUTING_EDIT, "enter"), break_source("checkpoint_entries"), "load the step's checkpoint",
                    "StepDetailScreen"),
    "GC preview": ("demo", ("g",), break_module("memtui.ui.screens.gc.plan_gc"), "compute the GC plan",
                   "GcScreen"),
    "statistics": ("demo", ("s",), break_module("memtui.ui.screens.stats.db_stats"), "read database statistics",
                   "StatsScreen"),
    "memory documents": ("demo", ("m",), break_module("memtui.ui.screens.memory.discover_documents", unreadable),
                         "read memory documents", "MemoryScreen"),
    "memory document": ("demo", ("m",), break_module("memtui.ui.screens.memory.read_document", unreadable),
                        "open a document", "MemoryScreen"),
    "memory history": ("demo", ("m", "h"), break_module("memtui.ui.screens.memory.list_history"),
                       "list the kept versions of HISTORY.jsonl", "MemoryScreen"),
    "decision log": ("demo", ("D",), break_module("memtui.ui.screens.decisions.read_decisions", unreadable),
                     "read the decision log", "DecisionsScreen"),
    "search": ("demo", ("ctrl+f",), break_module("memtui.ui.screens.search.search_index"), "search",
               "SearchScreen"),
    "source switcher": ("demo", ("S",), break_module("memtui.core.discovery.discover", unreadable),
                        "find the sources", "SourcesScreen"),
    "memory items": ("ra-aid", ("i",), break_source("memory_items"), "load memory items", "MemoryItemsScreen"),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_failed_worker_is_reported_and_nothing_waits_forever(case, demo_path, open_app, settled, shown,
                                                                     monkeypatch) -> None:
    where, keys, breaks, description, expected = CASES[case]
    path = demo_path if where == "demo" else FIXTURES / "ra_aid_project"
    async with open_app(path, size=SIZE) as pilot:
        app = pilot.app
        breaks(app, monkeypatch)
        app.clear_notifications()
        for key in keys:
            await (key(pilot) if callable(key) else pilot.press(key))
        await settled(pilot)
        assert type(app.screen).__name__ == expected
        failed = [n for n in notifications(app) if n.title == f"Failed: {description}"]
        assert len(failed) == 1, [(n.title, n.message) for n in notifications(app)]
        assert failed[0].severity == "error" and failed[0].message  # the reason, in one line
        text = shown(app)
        assert not [w for w in WAITING if w in text], text
        assert not [w for w in app.screen.query("*") if w.loading]


def test_every_screen_and_modal_has_the_one_base() -> None:
    """A screen outside MemtuiScreen would not report its failed workers."""
    import importlib
    import pkgutil

    classes = []
    for info in pkgutil.iter_modules(screens_pkg.__path__):
        module = importlib.import_module(f"memtui.ui.screens.{info.name}")
        classes += [c for _, c in inspect.getmembers(module, inspect.isclass)
                    if issubclass(c, Screen) and c.__module__ == module.__name__]
    assert len(classes) >= 15
    assert [c.__name__ for c in classes if not issubclass(c, MemtuiScreen)] == []
