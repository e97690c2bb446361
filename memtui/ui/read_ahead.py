"""Reading ahead: what a pane will show when the cursor above it moves one row up or down.

A pane follows the cursor above it by reading in a worker thread and posting the result back:
two hand-overs between threads per move. On a busy machine each waits for the scheduler (5-10 ms
each at a load of 10 on two cores, tests/bench/browse.py), more than the read itself (~1 ms).
Once a pane shows what the cursor is on, `ReadAhead.around(keys)` reads the rows next to it in
one background worker, once that is drawn; a move onto one of them `take`s the result and
shows it in the cursor's own frame. Every read still runs in a worker (a locked database never
freezes the screen); a move the read ahead did not cover reads as before. A failed read ahead
is dropped without a word (the move then reads itself, and says what failed). `clear` forgets
everything (a reload: the store changed).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Hashable, Iterable

from textual.dom import DOMNode
from textual.worker import get_current_worker

KEEP = 8
"""Results kept (the oldest go first): the rows around the cursor, and where it just was."""
AFTER = 0.03
"""Seconds from the shown result to the read ahead: the frame that shows it is drawn first
(a worker's Python work holds the interpreter lock the frame needs)."""


class ReadAhead:
    """Results of `read(source, key, cancelled=…)` for keys near the cursor, read in a worker of
    `node` (a cleared or superseded read stops mid-way where `read` looks at `cancelled`)."""

    def __init__(self, node: DOMNode, loads: str, read: Callable[[Any, Any], Any]) -> None:
        self.node = node
        self.loads = loads
        """The worker group of the pane's own loads (the read ahead runs in `loads`-ahead)."""
        self.group = f"{loads}-ahead"
        self.read = read
        self._kept: dict[Hashable, Any] = {}

    def take(self, key: Hashable) -> Any | None:
        """The result read ahead for `key` (None: not read)."""
        return self._kept.get(key)

    def show_or_load(self, key: Hashable, show: Callable[[Any], None], load: Callable[[], None]) -> None:
        """`show` the result read ahead for `key` at once (a load still under way for where the
        cursor was is cancelled), or `load` it as before."""
        ready = self.take(key)
        if ready is None:
            load()
        else:
            self.node.workers.cancel_group(self.node, self.loads)
            show(ready)

    def clear(self) -> None:
        """Forget every result (what the store holds changed)."""
        self.node.workers.cancel_group(self.node, self.group)
        self._kept = {}

    def around(self, keys: Iterable[Hashable | None]) -> None:
        """Read the results of `keys` not read yet, once the frame showing this one is drawn."""
        wanted = [key for key in keys if key is not None and key not in self._kept]
        if wanted:
            self.node.set_timer(AFTER, partial(self._start, wanted, self._kept))

    def _start(self, keys: list[Hashable], kept: dict[Hashable, Any]) -> None:
        if kept is self._kept:  # not cleared since
            self.node.run_worker(partial(self._read, keys, kept), thread=True, group=self.group, exclusive=True,
                                 exit_on_error=False, description="read ahead")

    def _read(self, keys: list[Hashable], kept: dict[Hashable, Any]) -> None:
        worker = get_current_worker()
        try:
            with self.node.app.reading() as source:  # type: ignore[attr-defined]
                for key in keys:
                    if worker.is_cancelled:
                        return
                    result = self.read(source, key, cancelled=lambda: worker.is_cancelled)  # stops mid-read
                    if not worker.is_cancelled:
                        kept[key] = result
                        while len(kept) > KEEP:
                            kept.pop(next(iter(kept)))
        except Exception:  # the move onto that row reads again, and reports what failed
            return
