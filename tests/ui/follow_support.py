"""Follow mode in tests: one look of the follower — what its timer does every POLL_SECONDS —
driven by the test, so no test waits on the clock for it; and the reloads it made, counted."""

from __future__ import annotations

import asyncio
from typing import Any

from pilot_support import settle


async def look(pilot: Any) -> None:
    """One look of follow mode (`Follower.poll`, the timer's call), then the panes settled. The
    look runs in a worker; when the store changed since the last look, the app reloads it and
    every pane keeps its selection — otherwise nothing happens and the panes stay as they were."""
    follower = pilot.app.follower
    enabled, follower.enabled = follower.enabled, True  # on for this look (a test may keep the timer's off)
    follower.poll()
    follower.enabled = enabled
    await settle(pilot)


def count_reloads(app: Any) -> list[int]:
    """The follower's reloads so far (a list that grows by one at each)."""
    done: list[int] = []
    changed = app.follower.changed

    def counted() -> None:
        done.append(1)
        changed()
    app.follower.changed = counted
    return done


def next_reload(app: Any) -> asyncio.Event:
    """Set when the follower next reloads the store (after its own timer's look)."""
    event = asyncio.Event()
    changed = app.follower.changed

    def reloaded() -> None:
        changed()
        event.set()
    app.follower.changed = reloaded
    return event
