"""Write SVG screenshots of the main views, from the seeded demo, into screenshots/, and
serve.png: the app served by `memtui serve` in headless Chromium (see tests/browser_support.py).

    python tests/screenshots.py [OUTPUT_DIR]     (default: ./screenshots)

Deterministic: demo seed 1 with its own clock, a fixed "now" for relative times, UTC wall
clock, a 160×48 terminal, cursor blink off. The snapshot tests drive the app with the same
helpers (tests/pilot_support.py: `settle`, `open_session`, `open_step`). To add a view,
append a `Shot`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Awaitable, Callable

TESTS = Path(__file__).resolve().parent
for folder in (TESTS.parent, TESTS):  # memtui from this checkout; the tests' helpers
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from pilot_support import ROUTING, open_session, open_step, settle  # noqa: E402

SIZE = (160, 48)


@dataclass(frozen=True)
class Shot:
    """One screenshot: a file name and what to do before taking it."""

    name: str
    prepare: Callable[[Any], Awaitable[None]]
    writes: bool = False
    """The shot writes to the store (at the shots' fixed "now", a month after the demo's
    story): it runs on a copy, so the demo — and the served shot, which runs on the real
    clock — never holds a step dated in the future."""


async def _keys(pilot: Any, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


async def _main(pilot: Any) -> None:
    await settle(pilot)


async def _handoffs(pilot: Any) -> None:
    await open_session(pilot, "Refactor the parser with sub-agents")
    await _keys(pilot, "2")


async def _diff(pilot: Any) -> None:
    await open_step(pilot, *ROUTING, 7, "3")


async def _split(pilot: Any) -> None:
    await open_step(pilot, *ROUTING, 3, "5")
    await _keys(pilot, "v")


async def _step(pilot: Any) -> None:
    await open_step(pilot, *ROUTING, 7, "3")
    await _keys(pilot, "enter")


async def _help(pilot: Any) -> None:
    await settle(pilot)
    await _keys(pilot, "question_mark")


async def _palette(pilot: Any) -> None:
    await settle(pilot)
    await _keys(pilot, "ctrl+p", *"diff")
    await pilot.pause(0.3)


async def _gc(pilot: Any) -> None:
    await settle(pilot)
    await _keys(pilot, "g")


async def _stats(pilot: Any) -> None:
    await settle(pilot)
    await _keys(pilot, "s")


async def _usage(pilot: Any) -> None:
    await settle(pilot)
    await _keys(pilot, "dollar_sign")


async def _memory(pilot: Any) -> None:
    """PROJECT_MEMORY.md rendered, with its table of contents and the list's lint badges."""
    await settle(pilot)
    await _keys(pilot, "m")
    await _keys(pilot, "down", "down")


async def _follow(pilot: Any) -> None:
    """An agent adds steps to the running task while memtui shows it (follow mode, tail):
    they appear by themselves and the cursor stays on the newest. Writes to the demo: last."""
    from memtui.core.demo import DEMO_START
    from memtui.core.store import AgentStore

    await settle(pilot)
    await _keys(pilot, "3", "end")
    task = pilot.app.screen.query_one("#steps").task_id
    written = DEMO_START + timedelta(days=30, minutes=-5)  # a few minutes before the shots' "now"
    with AgentStore.open(pilot.app.path, clock=lambda: written) as agent:
        agent.record_step(task, "bash", {"command": "pytest -q --durations=5"}, "412 passed in 41.2s",
                          tokens_in=2100, tokens_out=180, cost=0.0071, duration_ms=41200)
        agent.record_step(task, "edit_file", {"path": "tests/conftest.py"}, {"ok": True},
                          tokens_in=2600, tokens_out=240, cost=0.0089, duration_ms=620)
    for _ in range(30):  # follow mode polls every half second
        await pilot.pause(0.1)
    await settle(pilot)


SHOTS: tuple[Shot, ...] = (
    Shot("main", _main),
    Shot("handoff-tree", _handoffs),
    Shot("checkpoint-diff", _diff),
    Shot("split-diff", _split),
    Shot("step-detail", _step),
    Shot("help", _help),
    Shot("command-palette", _palette),
    Shot("gc-preview", _gc),
    Shot("statistics", _stats),
    Shot("usage", _usage),
    Shot("memory", _memory),
    Shot("follow", _follow, writes=True),
)


async def take(workspace: Path, out: Path, shots: tuple[Shot, ...] = SHOTS) -> list[Path]:
    """Run the app on `workspace` once per shot and save each SVG into `out`."""
    from memtui.core.demo import DEMO_START
    from memtui.core.scratch import scratch_folder
    from memtui.ui.app import make_app

    now = DEMO_START + timedelta(days=30)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for shot in shots:
        with scratch_folder("shot") as scratch:
            here = shutil.copytree(workspace, Path(scratch) / workspace.name) if shot.writes else workspace
            app = make_app(here, clock=lambda: now, shown_path="~/demo")
            async with app.run_test(size=SIZE) as pilot:
                await shot.prepare(pilot)
                await pilot.pause()
                written.append(Path(app.save_screenshot(f"{shot.name}.svg", str(out))))
    return written


def take_served(workspace: Path, out: Path) -> Path | None:
    """`memtui serve` in headless Chromium, on a checkpoint diff: out/serve.png (None, with
    the reason printed, where Playwright or Chromium is missing)."""
    from browser_support import BrowserTerminal, missing_browser_parts, served

    missing = missing_browser_parts()
    if missing:
        print(f"serve.png not written: {missing}", file=sys.stderr)
        return None
    # HOME is the demo's parent: the header says ~/demo, and no real agent home is looked at.
    env = {**os.environ, "HOME": str(workspace.parent)}
    with served(workspace, env=env) as url, BrowserTerminal(url, width=1280, height=760) as page:
        page.wait_for("Speed up the test", "Tasks · session 10")
        page.press("j", "j")
        page.wait_for("Tasks · session 8", "Remove the draft docs page")
        page.press("3")
        page.wait_for("Diff · docs/draft.md", "To be removed.")
        return page.screenshot(out / "serve.png")


def documents_written_at(workspace: Path, when: Any) -> None:
    """Give the demo's files (not its database) one fixed time, after the demo's story: the
    memory screen shows a document's modification time, which would otherwise be the day the
    shots were taken."""
    stamp = when.timestamp()
    for path in workspace.rglob("*"):
        if path.is_file() and not path.name.startswith("agent.db"):
            os.utime(path, (stamp, stamp))


def main(argv: list[str] | None = None) -> int:
    """Build the seeded demo in a temporary directory and write every shot."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[0] if args else "screenshots").resolve()
    os.environ["TZ"] = "UTC"  # wall-clock times in the panes are local time
    time.tzset()
    from memtui.core.demo import DEMO_START, build_demo
    from memtui.core.scratch import scratch_folder

    with scratch_folder("shots") as tmp:
        workspace = Path(tmp) / "demo"
        build_demo(workspace, seed=1)
        documents_written_at(workspace, DEMO_START + timedelta(days=4))
        for path in asyncio.run(take(workspace, out)):
            print(path)
        served_shot = take_served(workspace, out)
        if served_shot is not None:
            print(served_shot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
