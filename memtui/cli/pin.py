"""`memtui pin PATH TASK_ID [--unpin]`: make a task a GC root, or stop it being one."""

from __future__ import annotations

from memtui.cli._common import add_json_flag, emit, open_store
from memtui.core.errors import MemtuiError


def register(sub) -> None:
    p = sub.add_parser("pin", help="pin a task (GC keeps it and what it references); --unpin undoes it")
    p.add_argument("path", help="workspace directory or agent.db")
    p.add_argument("task", type=int, metavar="TASK_ID")
    p.add_argument("--unpin", action="store_true", help="remove the pin")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    with open_store(args.path, write=True) as store:
        try:
            (store.unpin if args.unpin else store.pin)(args.task)
        except KeyError:
            raise MemtuiError(f"no task {args.task} in {store.db_path}") from None
        info = store.task(args.task)
    out = {"task": info.id, "pinned": info.pinned, "collected": info.collected}
    note = " (already collected: pinning keeps its row and references only)" if info.collected else ""
    emit(out, args.json, lambda o: f"task #{o['task']} {'pinned' if o['pinned'] else 'unpinned'}{note}")
    return 0
