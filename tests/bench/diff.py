"""Benchmark: memtui's diff (computed + first screen rendered) vs difflib vs git diff.

Run from the project root:  python tests/bench/diff.py [--timeout SECONDS] [--repeat N]

Inputs are real source: the Python standard library's .py files concatenated in name order,
changed deterministically. Every tool runs in the same process run on the same inputs; slow
difflib runs go to a child process that is stopped after --timeout seconds (shown as ">N s").
git is the anchor of the ratio columns. Wall-clock and CPU time are both shown, best of
--repeat runs (difflib runs once); on a busy machine the CPU column is the steadier one.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import multiprocessing
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from memtui.core.diff import prepare_file_diff  # noqa: E402

SCREEN_ROWS = 48


def stdlib_lines(count: int) -> list[str]:
    """`count` lines of real Python source, the stdlib's modules concatenated in name order."""
    lines: list[str] = []
    folder = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(folder.glob("*.py")):
        lines += path.read_text(encoding="utf-8", errors="replace").split("\n")
        if len(lines) >= count:
            break
    return lines[:count]


def change_every(lines: list[str], step: int) -> list[str]:
    """Change one line in `step` (5% for step 20), the way an edit would: same line, altered."""
    changed = list(lines)
    for k in range(step // 2, len(changed), step):
        line = changed[k]
        changed[k] = line.replace("self", "this", 1) if "self" in line else line + "  # edited"
    return changed


def replace_block(lines: list[str], start: int, size: int, source: list[str]) -> list[str]:
    """Replace lines[start:start+size] by `size` other real lines."""
    return lines[:start] + source[:size] + lines[start + size :]


def _repeated(lines: list[str], limit: int = 300) -> list[str]:
    """The `limit` most frequent lines of `lines`."""
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return sorted(counts, key=lambda line: (-counts[line], line))[:limit]


def cases() -> list[tuple[str, list[str], list[str]]]:
    big = stdlib_lines(60_000)
    ten, fifty = big[:10_000], big[:50_000]
    other = big[55_000:55_500]
    # Real lines, but only a few hundred distinct ones, each repeated: the worst shape for
    # patience (no anchors) and for difflib without autojunk.
    common = _repeated(big)
    repetitive = [common[(k * 7919) % len(common)] for k in range(50_000)]
    return [
        ("10k lines, 5% changed", ten, change_every(ten, 20)),
        ("50k lines, 5% changed", fifty, change_every(fifty, 20)),
        ("10k lines, 500-line block replaced", ten, replace_block(ten, 4_000, 500, other)),
        (
            "10k lines, 500-line block rewritten",
            ten,
            replace_block(ten, 4_000, 500, change_every(ten[4_000:4_500], 1)),
        ),
        ("50k lines, no unique line, 5% changed", repetitive, change_every(repetitive, 20)),
    ]


# --------------------------------------------------------------------------- measurements


Timing = tuple[float, float]  # (wall-clock seconds, CPU seconds)


def best_of(repeat: int, run: Callable[[], object], cpu: Callable[[], float] = time.process_time) -> Timing:
    """Best wall-clock and best CPU time of `repeat` runs (CPU time is steadier on a busy box)."""
    walls, cpus = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), cpu()
        run()
        walls.append(time.perf_counter() - start)
        cpus.append(cpu() - start_cpu)
    return min(walls), min(cpus)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _difflib_child(a: list[str], b: list[str], kind: str, queue: multiprocessing.Queue) -> None:
    start, start_cpu = time.perf_counter(), time.process_time()
    if kind == "ndiff":
        # ndiff pairs similar lines of each replaced block character by character.
        for _ in difflib.ndiff(a, b):
            pass
    else:
        difflib.SequenceMatcher(None, a, b, autojunk=(kind == "autojunk")).get_opcodes()
    queue.put((time.perf_counter() - start, time.process_time() - start_cpu))


def time_difflib(a: list[str], b: list[str], kind: str, timeout: float) -> Timing | None:
    """Seconds difflib takes, or None when it did not finish within `timeout`."""
    queue: multiprocessing.Queue = multiprocessing.Queue()
    process = multiprocessing.Process(target=_difflib_child, args=(a, b, kind, queue))
    process.start()
    process.join(timeout)
    if process.is_alive():
        process.terminate()
        process.join()
        return None
    return queue.get()


def time_git(a: list[str], b: list[str], repeat: int) -> Timing | None:
    if shutil.which("git") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        old, new = Path(folder, "old.py"), Path(folder, "new.py")
        old.write_text("\n".join(a) + "\n")
        new.write_text("\n".join(b) + "\n")
        command = ["git", "diff", "--no-index", "--no-color", str(old), str(new)]
        return best_of(
            repeat,
            lambda: subprocess.run(command, stdout=subprocess.DEVNULL, check=False),
            cpu=_children_cpu,
        )


async def time_memtui(a: list[str], b: list[str], repeat: int) -> tuple[Timing, Timing, Timing]:
    """(diff only, diff + first unified screen, diff + first split screen), best of `repeat`."""
    from textual.app import App, ComposeResult

    from memtui.ui.widgets.diff_view import DiffView

    before = ("\n".join(a) + "\n").encode()
    after = ("\n".join(b) + "\n").encode()

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield DiffView()

    app = Bench()
    async with app.run_test(size=(160, SCREEN_ROWS + 2)) as pilot:
        await pilot.pause()
        view = app.query_one(DiffView)
        diff_only = best_of(repeat, lambda: prepare_file_diff("bench.py", before, after))

        def first_screen(split: bool) -> None:
            diff = prepare_file_diff("bench.py", before, after)
            view.set_reactive(DiffView.split, split)
            view.install(diff)  # fresh caches: nothing is highlighted or rendered yet
            for y in range(SCREEN_ROWS):
                view.render_line(y)

        unified = best_of(repeat, lambda: first_screen(False))
        split = best_of(repeat, lambda: first_screen(True))
    return diff_only, unified, split


# --------------------------------------------------------------------------- report


def fmt(seconds: float | None, timeout: float | None = None) -> str:
    if seconds is None:
        return f">{timeout:g} s" if timeout else "n/a"
    return f"{seconds * 1000:,.0f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def ratio(seconds: float | None, anchor: float | None, timeout: float) -> str:
    if anchor is None:
        return ""
    value = timeout if seconds is None else seconds
    return f"{'>' if seconds is None else ''}{value / anchor:,.1f}×"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=30.0, help="cap for each difflib run")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for the fast tools")
    args = parser.parse_args()

    print(f"Python {sys.version.split()[0]}, inputs from {sysconfig.get_paths()['stdlib']}")
    print(f"first screen = {SCREEN_ROWS} rows of DiffView rendered (160 columns); git is the anchor\n")
    header = ("input", "tool", "wall", "CPU", "wall vs git", "CPU vs git")
    rows: list[tuple[str, ...]] = []
    for name, a, b in cases():
        git = time_git(a, b, args.repeat)
        diff_only, unified, split = asyncio.run(time_memtui(a, b, args.repeat))
        measured: list[tuple[str, Timing | None]] = [
            ("memtui diff + first screen (unified)", unified),
            ("memtui diff + first screen (split)", split),
            ("memtui diff only", diff_only),
            ("difflib SequenceMatcher, autojunk", time_difflib(a, b, "autojunk", args.timeout)),
            ("difflib SequenceMatcher, no autojunk", time_difflib(a, b, "plain", args.timeout)),
        ]
        if "block" in name:
            start = next(k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
            block_a, block_b = a[start : start + 500], b[start : start + 500]
            measured.append(
                ("difflib ndiff of the 500-line block", time_difflib(block_a, block_b, "ndiff", args.timeout))
            )
        measured.append(("git diff --no-index", git))
        for tool, timing in measured:
            wall, cpu = timing if timing is not None else (None, None)
            rows.append(
                (
                    name,
                    tool,
                    fmt(wall, args.timeout),
                    fmt(cpu, args.timeout),
                    ratio(wall, git and git[0], args.timeout),
                    ratio(cpu, git and git[1], args.timeout),
                )
            )
            name = ""
    widths = [max(len(row[k]) for row in (header, *rows)) for k in range(len(header))]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(c.ljust(w) if k < 2 else c.rjust(w) for k, (c, w) in enumerate(zip(row, widths, strict=True))))


if __name__ == "__main__":
    main()
