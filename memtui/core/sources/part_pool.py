"""Parts read in worker processes: a build that has many files to read (a cold index of a
heavy home) parses them on every core, each worker handing back a part's tables pickled as
the index file keeps them; a build with few (a warm open, a grown session, a small home)
reads them in this process, where starting workers would cost more than they save.

The workers are forked from this process when it runs no other thread (a verb), else started
by a fork server (a fresh interpreter that imports the parser once, then forks a worker per
core): never a fork of a process whose other threads (the app's) may hold locks. Results come back in the order the files were listed, so the index merged
from them is the one a serial build makes.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import signal
import sys
import threading
import time
from functools import partial
from types import FunctionType
from pathlib import Path
from typing import Any, Callable, Iterator

from memtui.core.sources.part_store import dumps

POOL_BYTES = 48 << 20
"""Files to read of at least this many bytes in all are parsed in worker processes; below it,
starting them (a fresh interpreter importing the parser, ~0.3 s) costs more than they save."""
MAX_WORKERS = 8
"""Workers at most (each holds a parser's memory: ~40 MiB)."""

last_workers = 0
"""How many worker processes the last build of this process parsed in (0: it parsed here)."""
_in_worker = False
"""This process is a worker of another (`worker_started`): it parses and reads here."""

Parse = Callable[[Path, Any], tuple[Any, "bytes | None"]]
"""A file's part from its path and kept cursor: (the part, the cursor to keep)."""
Blobs = tuple[bytes, bytes, bytes]
"""A part's head, side and body, pickled (memtui.core.sources.part_store.dumps)."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def workers_for(parse: Parse, sizes: list[int]) -> int:
    """How many worker processes should parse files of `sizes` bytes with `parse`: 0 (parse them
    here) below POOL_BYTES, on one core, or when `parse` cannot be sent to a worker (a closure)."""
    if _in_worker or sum(sizes) < POOL_BYTES or len(sizes) < 2 or cores() < 2:
        return 0
    try:
        pickle.dumps(parse)
    except (pickle.PicklingError, TypeError, AttributeError):
        return 0
    return min(cores(), MAX_WORKERS, len(sizes))


def light(part: Any) -> Any:
    """The part without its heavy and side tables: what a listing needs of it."""
    head = copy.copy(part)
    for name in (*part.lazy, *part.side):
        setattr(head, name, {})
    return head


def heavy(part: Any) -> Any:
    """The part's heavy tables alone (its `lazy` ones): what a served index reads of its body
    (`add_tables`); the head and side tables are kept apart already, never twice."""
    body = copy.copy(part)
    for name in ("sessions", "task_rows", *part.side):
        setattr(body, name, {})
    return body


def part_blobs(part: Any) -> Blobs:
    """A part pickled as the index file keeps it: its head (`light`), side and body (`heavy`)."""
    return dumps(light(part)), dumps(part.side_tables()), dumps(heavy(part))


WATCH_SECONDS = 0.5
"""How often a worker looks whether the process that started it is still there."""


def watch_starter(pid: int) -> None:
    """(In a worker, as it starts.) End this worker once the process that started the pool
    (`pid`) is gone: killed mid-build, its workers would otherwise wait on their queues for
    ever (one whose result fills the pipe blocks writing it: the other workers hold its read
    end), and the fork server that made them with them."""
    import psutil

    def end() -> None:
        os.kill(os.getpid(), signal.SIGKILL)  # at once, from this thread: its queues may never be read again

    try:
        starter = psutil.Process(pid)
    except psutil.Error:
        end()

    def watch() -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            try:
                gone = not starter.is_running() or starter.status() == psutil.STATUS_ZOMBIE
            except psutil.Error:
                gone = True
            if gone:
                end()

    threading.Thread(target=watch, name="memtui worker watch", daemon=True).start()


def worker_started(starter: int, env: dict[str, str] | None = None) -> None:
    """(In a worker, as it starts.) Watch the starter (`watch_starter`); take its environment
    of now (`env`: a worker started from a fork server has the one the server started with, and
    memtui finds its cache folder, and an agent its home, there); start no workers of its own."""
    global _in_worker
    _in_worker = True
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    watch_starter(starter)


def pickled_part(parse: Parse, item: tuple[Path, Any]) -> tuple[Blobs, bytes | None]:
    """(In a worker.) The part of a file, pickled (`part_blobs`), and its cursor."""
    part, cursor = parse(*item)
    return part_blobs(part), cursor


def _context(parse: Parse) -> Any:
    """How workers start: forked from this process where that is safe and cheapest (Linux, no
    other thread that could hold a lock: a verb), else from a fork server that imported the
    parser once (the app, whose build runs beside its other threads), else spawned."""
    import multiprocessing  # a build with workers only: a warm run starts none

    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return _fresh_context(parse)


def _fresh_context(*named: Any) -> Any:
    """Workers started from a fork server that imported the modules of the functions `named`
    (and of those their partials name) once, else spawned: never forked from a process whose
    other threads may hold a lock."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    _tracker_running()
    modules, todo = {__name__}, list(named)
    while todo:
        one = todo.pop()
        if isinstance(one, partial):
            todo += [one.func, *one.args, *one.keywords.values()]
        elif isinstance(one, (FunctionType, type)):
            modules.add(one.__module__)
        elif dataclasses.is_dataclass(one):  # a call made of values (MemorySource.reopener's)
            modules.add(type(one).__module__)
            todo += list(vars(one).values())
    context.set_forkserver_preload(sorted(m for m in modules if m in sys.modules))
    return context


def _tracker_running() -> None:
    """multiprocessing's resource tracker started with this process's real stderr: the app's
    sys.stderr is a capture whose fileno is -1, which the tracker would pass on (ValueError)."""
    from multiprocessing import resource_tracker

    stderr = sys.stderr
    try:
        sys.stderr = sys.__stderr__ or stderr
        resource_tracker.ensure_running()
    finally:
        sys.stderr = stderr


def read_parts(parse: Parse, items: list[tuple[Path, Any]], sizes: list[int]) -> Iterator[tuple[Any, Blobs | None, bytes | None]]:
    """Each item's part (`parse(path, cursor)` → part, cursor), in order: (the part, None, its
    cursor) parsed here, or (None, its tables pickled, its cursor) by a worker. Workers that die
    (killed, out of memory) leave the rest to this process."""
    global last_workers
    workers = last_workers = workers_for(parse, sizes)
    done = 0
    pool = None
    if workers:
        from concurrent.futures import ProcessPoolExecutor  # a build with workers only: a warm run starts none
        from concurrent.futures.process import BrokenProcessPool

        try:
            context = _context(parse)
            env = None if context.get_start_method() == "fork" else dict(os.environ)
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=worker_started,
                                       initargs=(os.getpid(), env))
            chunk = max(1, min(8, len(items) // (workers * 8)))
            results = pool.map(partial(pickled_part, parse), items, chunksize=chunk)
        except (OSError, ValueError, RuntimeError):  # no worker could start: parsed here
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
            pool = None
            last_workers = 0
    if pool is not None:
        finished = False
        try:
            for _item in items:
                try:
                    blobs, cursor = next(results)
                except BrokenProcessPool:
                    break
                done += 1
                yield None, blobs, cursor
            finished = True
        finally:
            pool.shutdown(wait=finished, cancel_futures=True)  # done: the idle workers exit and are waited for
    for item in items[done:]:
        part, cursor = parse(*item)
        yield part, None, cursor


FORK_MIN_ITEMS = 32
"""`forked_map` uses workers for at least this many items (fewer are done here)."""
FORK_AHEAD = 8
"""Items a forked worker may be given beyond those whose results were taken (results wait in
this process's memory until taken: a session's search records are megabytes)."""

last_forked = 0
"""How many worker processes the last `forked_map` of this process forked (0: it ran here)."""

_inherited: tuple[Callable[[Any, Any], Any], Any] | None = None
"""(In a forked worker.) The function `forked_map` maps and the object it passes it."""


def _call_inherited(item: Any) -> Any:
    assert _inherited is not None
    function, on = _inherited
    return function(on, item)


def _reopen_in_worker(starter: int, env: dict[str, str], function: Callable[[Any, Any], Any],
                      reopen: Callable[[], Any]) -> None:
    """(In a worker started afresh, as it starts.) As `worker_started`, and open what `function`
    is given (`forked_map`'s `reopen`). One that cannot ends at once, saying nothing (its stderr
    is the app's terminal): the pool breaks and the starter reads the rest itself, where an
    error that is real is met again and reported."""
    global _inherited
    worker_started(starter, env)
    try:
        _inherited = (function, reopen())
    except Exception:
        os.kill(os.getpid(), signal.SIGKILL)


def forked_map(function: Callable[[Any, Any], Any], on: Any, items: list[Any],
               reopen: Callable[[], Any] | None = None) -> Iterator[Any]:
    """`function(on, item)` of each item, in order, in worker processes on Linux with cores to
    spare when the items are many: forked from this one when it runs no other thread (a verb;
    `on` is inherited, not pickled: an open source, whose reads must allow it, see
    MemorySource.reads_forked), else — this process runs other threads (the app), and a fork
    could inherit a lock one of them holds — started from a fork server, each opening its own
    `on` with `reopen()` (a picklable call: MemorySource.reopener). Else here. Workers that die
    leave the rest to this process."""
    global _inherited, last_forked
    workers = min(cores(), MAX_WORKERS)
    last_forked = 0
    alone = threading.active_count() == 1
    if (_in_worker or len(items) < FORK_MIN_ITEMS or workers < 2 or sys.platform != "linux"
            or not (alone or reopen is not None)):
        for item in items:
            yield function(on, item)
        return
    import multiprocessing
    from collections import deque
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    last_forked = workers
    pool: ProcessPoolExecutor | None = None
    try:
        if alone:
            _inherited = (function, on)
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                       initializer=worker_started, initargs=(os.getpid(),))
        else:
            assert reopen is not None  # not alone: only with a way to open `on` again
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=_fresh_context(function, reopen),
                                       initializer=_reopen_in_worker,
                                       initargs=(os.getpid(), dict(os.environ), function, reopen))
        # The workers start (and `reopen` is pickled) as the first items are handed out.
        pending: deque[Future] = deque(pool.submit(_call_inherited, item) for item in items[:workers + FORK_AHEAD])
    except (OSError, ValueError, RuntimeError, pickle.PicklingError, TypeError, AttributeError):
        pending, last_forked = deque(), 0  # no worker could start: every item is read here, below
    done = 0
    try:
        while pending:
            try:
                result = pending.popleft().result()
            except BrokenProcessPool:
                break
            if pool is not None and done + len(pending) + 1 < len(items):  # (pending holds the pool's futures)
                pending.append(pool.submit(_call_inherited, items[done + len(pending) + 1]))
            done += 1
            yield result
    finally:
        if pool is not None:
            pool.shutdown(wait=bool(last_forked), cancel_futures=True)
        _inherited = None
    for item in items[done:]:
        yield function(on, item)
