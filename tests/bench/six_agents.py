"""First paint of `memtui ~` on a home folder holding six agents (not collected by pytest).

    python tests/bench/six_agents.py [--copies 65] [--runs 3] [--folder DIR] [--profile | --phases]

The home is tests/agents/six_home.py's: every live fixture of Claude Code, Codex, Gemini CLI,
OpenCode, Aider and Cline (files the real CLIs wrote) placed `--copies` times under new ids —
65 copies make ~2,000 sessions spread over the six agents. Made once in a cache folder and
kept. Every run is a new process in a pty (120x40) with HOME and the XDG folders pointed into
the bench folder (never a real home); the app is first painted when the Agent column and the
newest session's agent are drawn (the merged list is on screen).

Measured in the same run, medians of `--runs`, interleaved with the anchor: a trivial Textual
app's first paint. The first memtui run has no kept page (it builds the index when the bench
folder has none: cold); the next, as a user's run, stays up until every session is listed (the
app keeps its first page then: memtui.ui.kept_page); the rest are warm: their first frame is
that kept page ("as of …; checking…"), and "every session listed" is when the home was opened
and checked behind it (the count line says all).
`--profile` runs the warm opening path (open_workspace: discovery, every store, the merged
list) in this process under cProfile and prints the top functions. `--phases` runs it in a
fresh process (warm: the index kept) and prints the CPU time of each step: importing Textual
and memtui, finding the stores, each agent's listing, the merged first page (the opening
worker's work before the first paint).
"""

from __future__ import annotations

import argparse
import compileall
import os
import tempfile
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "agents"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from six_home import expected_sessions, make_six_agent_home  # noqa: E402
from startup import TRIVIAL, first_paint  # noqa: E402


def bench_env(folder: Path, user: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLAUDE_", "CODEX_"))}
    env.update(HOME=str(user), XDG_CONFIG_HOME=str(user / ".config"), XDG_DATA_HOME=str(user / ".local/share"),
               XDG_STATE_HOME=str(folder / "state"), XDG_CACHE_HOME=str(folder / "cache"),
               CLAUDE_CONFIG_DIR=str(user / ".claude"), CODEX_HOME=str(user / ".codex"))
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=65)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--folder", type=Path, default=None)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--phases", action="store_true")
    args = ap.parse_args()
    compileall.compile_dir(str(ROOT / "memtui"), quiet=1)
    cache = Path(tempfile.gettempdir()) / "memtui-bench"  # never under the real home
    folder = (args.folder or cache / f"six-agents-{args.copies}").absolute()
    if not (folder / "done").exists():
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        make_six_agent_home(folder, args.copies)
        (folder / "done").write_text("complete\n")
    user = folder / "user"
    expected = expected_sessions(args.copies)
    print(f"home: {user} — {sum(expected.values()):,} sessions: "
          + ", ".join(f"{label} {n}" for label, n in expected.items()))
    env = bench_env(folder, user)
    os.environ.update(env)  # the pty children inherit it; the in-process reads below use it too

    if args.profile:
        import cProfile
        import pstats

        from memtui.ui.opening import open_workspace

        open_workspace(user)[0].close()  # warm
        profile = cProfile.Profile()
        profile.enable()
        source, _ = open_workspace(user)
        source.session_page(0, 100)
        profile.disable()
        source.close()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
        return

    if args.phases:
        import subprocess

        subprocess.run([sys.executable, __file__, "--phases-here", str(user)], env={**os.environ, **env}, check=True)
        return

    memtui = [sys.executable, "-m", "memtui", str(user)]
    from memtui.ui.kept_page import page_file, read_kept
    from memtui.ui.opening import open_workspace

    source, _ = open_workspace(user)
    newest = source.sessions()[0].origin
    source.close()
    marker = ["Agent", newest]
    listed = {"listed": [f"{sum(expected.values()):,}"]}
    kept = page_file(user)
    if kept is not None:
        kept.unlink(missing_ok=True)  # the first run draws what it opens (the index as kept, built when missing)
    cold = first_paint(memtui, marker, timeout=600)["first"]
    for _ in range(3):  # a run before, as the user's: the app keeps its first page once it listed
        first_paint(memtui, marker, timeout=300, then=listed)
        if read_kept(user) is not None:
            break
        time.sleep(1)
    else:
        print("the app kept no first page: the warm rows below open the home before their first frame")
    warm, every, trivial = [], [], []
    for i in range(args.runs):  # alternated, so both see the same load
        for which in ("memtui", "trivial") if i % 2 == 0 else ("trivial", "memtui"):
            if which == "memtui":
                times = first_paint(memtui, marker, timeout=300, then=listed)
                warm.append(times["first"])
                every.append(times["listed"])
            else:
                trivial.append(first_paint([sys.executable, "-c", TRIVIAL], "TRIVIAL-APP-READY")["first"])
    anchor_wall = statistics.median(t[0] for t in trivial)
    anchor_cpu = statistics.median(t[1] for t in trivial)

    def median(pairs: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(w for w, _ in pairs), statistics.median(c for _, c in pairs)

    rows = [("memtui ~ first paint, no kept page (index as kept), 1 run", cold),
            (f"memtui ~ first paint, warm (kept page), median of {args.runs}", median(warm)),
            (f"memtui ~ warm, every session listed, median of {args.runs}", median(every)),
            (f"anchor: trivial Textual app, median of {args.runs}", (anchor_wall, anchor_cpu))]
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")
    print(f"{'':56} {'wall s':>8} {'× anchor':>9} {'CPU s':>8} {'× anchor':>9}")
    for name, (wall, cpu) in rows:
        print(f"{name:56} {wall:8.2f} {wall / anchor_wall:9.2f} {cpu:8.2f} {cpu / anchor_cpu:9.2f}")
    print("warm runs (wall, CPU):", ", ".join(f"{w:.2f}/{c:.2f}" for w, c in warm),
          "· listed:", ", ".join(f"{w:.2f}/{c:.2f}" for w, c in every),
          "· trivial:", ", ".join(f"{w:.2f}/{c:.2f}" for w, c in trivial))

def phases(user: Path) -> None:
    """(In a fresh process.) CPU seconds of each step of the opening worker's path to the first
    paint, each agent's listing apart."""
    import time

    cpu = time.process_time
    steps: list[tuple[str, float]] = []
    at = cpu()

    def step(name: str) -> None:
        nonlocal at
        now = cpu()
        steps.append((name, now - at))
        at = now

    import textual.app  # noqa: F401 — the anchor imports it too

    step("import textual")
    from memtui.core.resolve import resolve
    from memtui.core.sources.every_agent import every_agent_entry
    from memtui.ui.pane_reads import first_sessions

    step("import memtui (opening path)")
    found = resolve(user)
    step("find the stores (discovery)")
    entry = every_agent_entry(found.path, found.found)
    assert entry is not None, "not a home of several agents"
    source = entry.open()
    for label, store in source.stores:
        store.counts()
        step(f"listing: {label}")
    first_sessions(source)
    step("merged first page (titles, orphans)")
    source.close()
    total = sum(t for _name, t in steps)
    merged: dict[str, float] = {}
    for name, t in steps:
        merged[name] = merged.get(name, 0.0) + t
    print(f"{'step (CPU)':44} {'s':>6} {'share':>6}")
    for name, t in merged.items():
        print(f"{name:44} {t:6.3f} {t / total:6.0%}")
    print(f"{'total':44} {total:6.3f}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--phases-here":
        phases(Path(sys.argv[2]))
    else:
        main()
