"""The Textual user interface: app, screens, widgets, the command table."""

import os

# Textual draws at most MAX_FPS frames a second, on a fixed grid: whatever changes just after a
# frame waits for the next grid point, and a cursor move that loads the panes below crosses
# two of them (the moved cursor, then the loaded panes). At Textual's default of 60 that is
# up to 16.7 ms each; at 120, 8.3 ms. Frames are only drawn when something changed, so a
# cursor move costs the same CPU time (tests/bench/browse.py: the tasks pane settled in 36 ms
# instead of 54, same CPU). Read when Textual is first imported; TEXTUAL_FPS set by the user wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
