"""Python's cycle collector while the app starts, and the sessions list kept out of it.

Start-up allocates a few hundred thousand objects (modules, classes, widgets, styles, the
first rows) and frees few of them, so each collection it triggers walks them all again for
nothing: about a tenth of the CPU time to the first paint on a 100k-task store. `memtui open`
pauses the collector before it imports the app (`pause`); `resume_after` turns it back on
once the sessions are drawn, with the objects alive by then frozen: they live as long as the
app, and later collections need not walk them again (shorter pauses while browsing too).

No collection comes before that freeze, measured on the 100k-task store
(tests/bench/startup_heap.py): at first paint ~128k objects are tracked; a collection there
finds ~7k in cycles (Textual's discarded widgets with their render caches: FIFOCache,
Segment, Strip) and frees ~40k objects with them, for 1-4 MB less RSS four seconds later
(of ~80 MB). It holds the interpreter for ~40-60 ms of CPU just when keys typed ahead are
handled; tests/bench/startup.py cannot tell it from noise (CPU by the time the first task
is shown: 440-490 ms without, 480-490 with, load 6-8). On a small store the sessions list
is complete before the first paint and `keep_out_of_collections` freezes it then, so the
collection would have to come before the first frame. Frozen, that garbage costs a few MB
and no collection time.
"""

from __future__ import annotations

import gc
import threading


def pause() -> None:
    """No cycle collection until `resume_after` says the first frame is drawn."""
    gc.disable()


def resume() -> None:
    """Collect cycles again at once: nothing will be drawn (`memtui open` refused to start)."""
    gc.enable()


def resume_after(drawn: threading.Event, wait: float) -> None:
    """Collect cycles again once `drawn` is set (or after `wait` seconds, whatever happened)."""
    if gc.isenabled():
        return

    def resume() -> None:
        drawn.wait(wait)
        gc.freeze()
        gc.enable()

    threading.Thread(target=resume, name="memtui-collector", daemon=True).start()


_kept = False

YOUNG = 10_000
"""Objects allocated (less those freed) between two passes over the youngest generation once the
sessions list is kept out (Python's default is 700). A cursor move allocates a few thousand
(messages, timers, strips, cells): at 700 four or five passes a move promoted what the move
was still using, and the older generations' passes that followed took 2-90 ms each; at
10,000 most moves see no pass and the collector's time halves (tests/bench/browse.py: 80
moves, 270-400 ms of passes at 700, 140-165 ms at 10,000)."""


def keep_out_of_collections() -> None:
    """Leave every object alive now (the sessions list, the app's widgets and modules) out of
    the garbage collector's passes from now on, and pass over young objects less often (YOUNG). A cursor move allocates thousands of small
    objects; the passes they trigger otherwise walk the whole heap of the listed sessions
    (a pass of the oldest generation took a quarter of a second at 100k tasks): a frame
    late, or several. Frozen objects are still freed by reference counting when the list is
    replaced; only reference cycles among them stay until the app exits.

    Once per process: the first full list. A later call would also freeze the cycles that had
    become garbage since (each reload of a followed store leaves some), for good."""
    global _kept
    if not _kept:
        _kept = True
        gc.freeze()
        gc.set_threshold(YOUNG, *gc.get_threshold()[1:])
