"""`memtui open`'s check of memtui's own store (before the app starts) imports no reader of
other agents' formats (Claude Code, Codex, RA.Aid, JSONL): importing them cost ~30 ms of a
~350 ms first paint on a 100k-task store (tests/bench/startup.py: 1.78x -> 1.97x the anchor)."""

from __future__ import annotations

import subprocess
import sys

OTHER_AGENTS = ("memtui.core.agents.claude_code.source", "memtui.core.agents.codex.source", "memtui.core.agents.ra_aid.source",
                "memtui.core.agents.jsonl.source", "memtui.core.discovery")


def test_opening_memtuis_own_store_imports_no_other_agents_reader(demo_path):
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from memtui.cli.open import check_openable\n"
        f"store = check_openable(Path({str(demo_path)!r}))\n"
        "assert store is not None and store.session_page(0, 1)\n"
        f"print([m for m in {OTHER_AGENTS!r} if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_the_apps_first_frame_modules_import_no_diff_engine_and_no_agents_registry():
    """The app's modules (what `memtui PATH` imports before its first frame: the main screen with
    its sessions) import neither the diff engine (its first diff imports it) nor the registry of
    every agent (imported as the store is opened, behind a kept page): ~20 ms of CPU before
    the first frame on a machine where a trivial Textual app's first paint takes ~350 ms."""
    code = ("import sys\nimport memtui.cli.open, memtui.ui.app, memtui.ui.screens.main\n"
            "print(sorted(m for m in sys.modules if m.startswith(('memtui.core.diff', 'memtui.core.agents'))))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
