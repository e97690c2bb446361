"""The Textual user interface: app, screens, widgets, the command table."""

import os

# Textual draws at most MAX_FPS frames a second, on a fixed grid: whatever changes just after a
# frame waits for the next grid point, and a cursor move that loads the panes below crosses
# two of them (the moved cursor, then the loaded panes). At Textual's default of 60 that is
# up to 16.7 ms each; at 120, 8.3 ms. Frames are only drawn when something changed, so a
# cursor move costs the same CPU time (tests/bench/browse.py: the tasks pane settled in 36 ms
# instead of 54, same CPU). Read when Textual is first imported; TEXTUAL_FPS set by the user wins.
_FPS_OURS = "TEXTUAL_FPS" not in os.environ
os.environ.setdefault("TEXTUAL_FPS", "120")


def user_environment() -> None:
    """Give the process its user's environment back once Textual has read TEXTUAL_FPS (on its
    import; an app is built after it): $EDITOR and a resumed agent, children of this process,
    inherit the environment as the user set it (a Textual app among them would otherwise draw
    at memtui's rate, not the one the user chose or Textual's default)."""
    if _FPS_OURS and os.environ.get("TEXTUAL_FPS") == "120":
        del os.environ["TEXTUAL_FPS"]
