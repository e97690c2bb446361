"""`memtui demo [PATH]`: write the demo workspace and open the app on it."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("demo", help="write a realistic demo workspace and open it")
    p.add_argument("path", nargs="?",
                   help="an empty or new folder to write it in (default: a temporary folder, removed after the app"
                        " unless --keep)")
    p.add_argument("--seed", type=int, default=1, help="random seed (the demo is deterministic per seed)")
    p.add_argument("--scale", type=int, default=None, metavar="N", help="add N generated tasks (benchmarks)")
    p.add_argument("--no-open", action="store_true", help="write the workspace and print a summary only")
    p.add_argument("--force", action="store_true",
                   help="replace, whole, a folder an earlier memtui demo made (any other folder holding files is refused)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder after the app closes")
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.cli._common import open_store
    from memtui.core.demo import build_demo
    from memtui.core.display import human_bytes
    from memtui.core.errors import MemtuiError

    if args.scale is not None and args.scale < 0:
        raise MemtuiError("--scale must be 0 or more (generated tasks to add)")
    if not args.no_open:  # refused before anything is built
        from memtui.ui.terminal_driver import keys_missing

        if why := keys_missing():
            raise MemtuiError(f"{why}; memtui demo --no-open writes the demo without opening it")
    started = time.monotonic()

    def progress(done: int, total: int) -> None:
        print(f"  {done:,} / {total:,} generated tasks", file=sys.stderr)

    temporary = args.path is None
    try:
        replaces_here = not temporary and os.path.abspath(os.path.expanduser(args.path)) == os.getcwd()
    except OSError:  # this process's folder is gone
        replaces_here = False
    scratch = None
    if temporary and not args.no_open and not args.keep:  # removed after the app; a killed memtui's by the next
        from memtui.core.scratch import make_scratch

        scratch = make_scratch("demo")
    try:
        root = build_demo(scratch / "demo" if scratch else args.path, seed=args.seed, scale=args.scale,
                          progress=progress, force=args.force)
    except BaseException:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    with open_store(root) as store:
        counts = store.counts()
        size = store.db_path.stat().st_size
    took = time.monotonic() - started
    print(f"demo workspace: {root}" + (" (a temporary folder)" if temporary else ""))
    print("  " + ", ".join(f"{v:,} {k}" for k, v in counts.items()) + f"; agent.db {human_bytes(size)}"
          f" (built in {took:.1f} s)")
    if replaces_here:  # the folder this shell is in was swapped for the demo: the shell still sees the old one
        print("  it replaced the folder this shell is in: run cd . to see it")
    if args.no_open:
        if temporary:
            print(f"  remove it when done: rm -r {root}")
        return 0
    from memtui.ui.app import run_app

    try:
        return run_app(Path(root))
    finally:
        if temporary and not args.keep:
            shutil.rmtree(scratch or root, ignore_errors=True)
            print(f"removed the demo workspace {root} (memtui demo --keep keeps it)")
        elif temporary:
            print(f"kept the demo workspace {root}")
