"""A pane's loaded data drawn as soon as the screen is done with it, not at Textual's next tick.

Textual draws a screen from a repeating timer (TEXTUAL_FPS, 120 here): once something changed
and the screen's queue is empty, the paused timer resumes and draws at its next tick. After a
tick it skips to the tick after next (Timer._run realigns a late timer one interval ahead),
so a change made just after a frame waits 1–2 intervals: 8–17 ms. A cursor move draws the moved
cursor at once (the timer has long been idle), then its worker's result arrives a few
milliseconds later and waited for that grid — most of a settled move's wall time.

`draw_soon(node)` asks for the next frame to be drawn as soon as every widget of the screen is
done with what the result changed (nothing queued, nothing left to post to the screen): one
frame per loaded result, so the frame rate stays Textual's everywhere else (held keys,
scrolling, animations). `MemtuiScreen` calls `idle` from its idle handler.
"""

from __future__ import annotations

from textual import events
from textual.dom import DOMNode
from textual.screen import Screen

_WANTED = "_memtui_draw_soon"


def draw_soon(node: DOMNode) -> None:
    """Draw `node`'s screen as soon as it is quiet (a worker's result was just applied)."""
    try:
        node.screen.__dict__[_WANTED] = True
    except Exception:  # not on a screen (yet, or any more): its next frame comes as usual
        pass


def _quiet(screen: Screen) -> bool:
    """No widget of the screen has a message queued or a change it has not told the screen."""
    for widget in screen.walk_children(with_self=False):
        if (not widget._message_queue.empty() or widget._next_callbacks or widget._repaint_required
                or widget._layout_required or widget._scroll_required or widget._refresh_styles_required):
            return False
    return True


def idle(screen: Screen, event: events.Idle) -> None:
    """The screen's queue is empty: draw now if a result waits to be shown and nothing else is
    under way (else Textual's own handler resumes its timer, and a later idle looks again)."""
    if not screen.__dict__.get(_WANTED) or screen.app._batch_count or not screen.is_current:
        return
    if not (screen._layout_required or screen._scroll_required or screen._repaint_required
            or screen._dirty_widgets) or not _quiet(screen):
        return
    screen.__dict__[_WANTED] = False
    event.prevent_default()  # Screen._on_idle would only resume the timer
    screen._on_timer_update()
