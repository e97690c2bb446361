"""The UI's heap and the garbage collector."""

from __future__ import annotations

import gc

_kept = False


def keep_out_of_collections() -> None:
    """Leave every object alive now (the sessions list, the app's widgets and modules) out of
    the garbage collector's passes from now on. A cursor move allocates thousands of small
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
