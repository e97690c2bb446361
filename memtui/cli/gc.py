"""`memtui gc PATH`: preview (default) or apply lifecycle GC."""

from __future__ import annotations

import sys

from memtui.cli._common import add_json_flag, emit, open_store
from memtui.cli._confirm import add_yes_flag, confirmed
from memtui.core.display import counted, human_bytes, json_safe, one_line
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability


def register(sub) -> None:
    p = sub.add_parser("gc", help="show what lifecycle GC would remove and why; --apply removes it")
    p.add_argument("path", help="workspace directory or agent.db")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="only show the plan (the default)")
    mode.add_argument("--apply", action="store_true", help="delete the reclaimable tasks' heavy data")
    p.add_argument("--batch", type=int, default=200, metavar="N",
                   help="tasks between blob sweeps, and blobs per sweep transaction (default 200)")
    p.add_argument("--max-tasks", type=int, default=None, metavar="N", help="collect at most N tasks this pass")
    add_yes_flag(p)
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.gc import apply_gc, plan_gc

    if args.batch < 1:
        raise MemtuiError("--batch must be at least 1")
    if args.max_tasks is not None and args.max_tasks < 0:
        raise MemtuiError("--max-tasks must be 0 or more")
    if not args.apply:
        with open_store(args.path, Capability.GC) as store:
            plan = plan_gc(store, titles=True)
        if args.json and not sys.stdout.isatty():  # a program reading: compact, written as it is made
            sys.stdout.writelines(map(json_safe, plan.json_text()))
            sys.stdout.write("\n")
        else:
            emit(plan.to_json(), args.json, lambda _: plan_text(plan))
        return 0
    with open_store(args.path, Capability.GC) as store:  # apply_gc writes through store.writer()
        if not args.yes and sys.stdin.isatty():
            plan = plan_gc(store, titles=True)
            if not (plan.reclaimable or plan.loose_blobs):
                emit(plan.to_json(), args.json, lambda _: "nothing to collect")
                return 0
            question = f"Collect {counted(len(plan.reclaimable), 'task')} ({human_bytes(plan.reclaimable_bytes)})?"
            if not confirmed(plan_text(plan, preview=False), question, yes=args.yes):
                return 1
        tty = sys.stderr.isatty() and not args.json

        def progress(p) -> None:
            if tty:
                print(f"\r  {p.phase}: {p.tasks_done}/{p.tasks_total} tasks, {human_bytes(p.bytes_freed)} freed",
                      end="", file=sys.stderr, flush=True)

        result = apply_gc(store, batch=args.batch, max_tasks=args.max_tasks, progress=progress)
        if tty:
            print(file=sys.stderr)
    emit(result.to_json(), args.json, lambda _: result_text(result))
    return 0


def plan_text(plan, preview: bool = True) -> str:
    titles = plan.titles or {}

    def title(task: int) -> str:
        return one_line(titles.get(task, ""), 60)

    lines = [f"{counted(plan.tasks_total, 'task')}: {len(plan.live)} live ({counted(len(plan.roots), 'root')}),"
             f" {len(plan.reclaimable)} reclaimable, {plan.collected} already collected"]
    lines.append("")
    lines.append("live")
    for t in plan.live:
        lines.append(f"  #{t.task:<7} {title(t.task)} — {t.reason}" if title(t.task) else f"  #{t.task:<7} {t.reason}")
    lines.append("")
    lines.append(f"reclaimable ({human_bytes(plan.reclaimable_bytes)})")
    for t in plan.reclaimable:
        where = "orphan" if t.orphan else f"session {t.session}"
        lines.append(f"  #{t.task:<7} {where:<13} {t.status:<10} {_of(t.steps, 5, 'step')} {_of(t.checkpoints, 4, 'checkpoint')}"
                     f" {_of(t.entries, 4, 'entry', 'entries')} {human_bytes(t.bytes):>10}  {title(t.task)}")
    if plan.loose_blobs:
        lines.append(f"  {plan.loose_blobs} blobs no entry needs ({human_bytes(plan.loose_bytes)})")
    if preview:
        lines.append("")
        lines.append("nothing was deleted; run with --apply to collect" if plan.reclaimable or plan.loose_blobs
                     else "nothing to collect")
    return "\n".join(lines)


def result_text(r) -> str:
    text = (f"collected {counted(r.tasks, 'task')}: {counted(r.steps, 'step')}, {counted(r.checkpoints, 'checkpoint')},"
            f" {counted(r.entries, 'entry', 'entries')}, {counted(r.blobs, 'blob')} — {human_bytes(r.bytes)} in {r.seconds:.1f} s\n"
            f"freelist: {r.freelist_before} → {r.freelist_after} pages"
            f" ({human_bytes(r.freelist_after * r.page_size)} reusable; `memtui vacuum` returns it to the disk)")
    if r.skipped:
        text += f"\nskipped {counted(len(r.skipped), 'task')} that became live since the plan"
    if r.cancelled:
        text += "\ncancelled: the remaining tasks are untouched"
    return text


def _of(n: int, width: int, noun: str, plural: str | None = None) -> str:
    """A count in a column of the reclaimable table, its noun singular for one ("1 step "), the
    columns kept aligned."""
    plural = plural or noun + "s"
    return f"{n:>{width}} {(noun if n == 1 else plural):<{len(plural)}}"
