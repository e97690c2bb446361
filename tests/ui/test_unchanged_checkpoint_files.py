"""A Claude Code prompt checkpoint lists every file tracked from that prompt on, edited since or
not: where a file's before and after are the same bytes, the changed-files list says
"unchanged" — it read "M +0 -0" beside a diff saying "No changes (5 lines identical)". Checked
on the live fixtures the real CLI wrote (tests/fixtures/live/claude-code-*) and a real home's
file history (tests/fixtures/real/claude-2.1.2-pai). The entry itself is as before (a
"modified" file a rollback of the checkpoint writes back)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from memtui.core.resolve import resolve
from memtui.ui.app import make_app
from memtui.ui.pane_reads import line_counts
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from pilot_support import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import real_home  # noqa: E402

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live"
CLAUDE_HOMES = sorted(LIVE.glob("claude-code-*/*/home/.claude"))


def checkpoint_entries(source):
    """(task, step, entry, before == after) of every file of every checkpoint step, readable."""
    found = []
    for session in source.sessions():
        for task in source.tasks(session.id):
            for step in source.steps(task.id):
                if step.checkpoint_id is None:
                    continue
                for entry in source.checkpoint_entries(step.checkpoint_id):
                    try:
                        before, after = source.read_entry(entry.id)
                    except Exception:
                        continue
                    found.append((task, step, entry, before is not None and before == after))
    return found


def home_of(name: str, tmp_path: Path) -> Path:
    return real_home(name, tmp_path) if name.startswith("claude-2") else LIVE / name


HOMES = ["claude-2.1.2-pai", *(str(p.relative_to(LIVE)) for p in CLAUDE_HOMES)]


@pytest.mark.parametrize("name", HOMES)
def test_the_counts_say_unchanged_exactly_where_before_and_after_are_the_same(name, tmp_path) -> None:
    with resolve(home_of(name, tmp_path)) as resolved:
        source = resolved.source
        assert source.kind == "claude-code"
        found = checkpoint_entries(source)
        for _task, step, entry, same in found:
            counts = line_counts(source, [entry])[entry.id]
            assert counts is not None and counts.unchanged == same, (step.checkpoint_id, entry.path)
            if same:
                assert step.tool == "checkpoint" and entry.kind == "modified"  # the entry (and rollback) as before
            else:
                assert counts.added + counts.removed > 0 or entry.before_size != entry.after_size


UNCHANGED_IN = ["claude-2.1.2-pai", "claude-code-2.1.332/cd-mid-session/home/.claude",
                "claude-code-2.1.90/tagged-prompt/home/.claude"]


@pytest.mark.parametrize("name", UNCHANGED_IN)
async def test_an_unchanged_file_of_a_checkpoint_reads_unchanged_not_m_plus_0_minus_0(name, tmp_path, shown) -> None:
    home = home_of(name, tmp_path)
    with resolve(home) as resolved:
        found = checkpoint_entries(resolved.source)
    task, step, entry, _ = next(f for f in found if f[3])
    changed = next((f for f in found if not f[3] and f[1].checkpoint_id == step.checkpoint_id), None)
    app = make_app(home)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.screen.show_task(task.id, step_seq=step.seq)
        await settle(pilot)
        files = app.screen.query_one(CheckpointFiles)
        assert files.select_key(str(entry.id))
        await settle(pilot)
        screen_lines = shown(app).splitlines()
        top = next(n for n, line in enumerate(screen_lines) if "Changed files" in line)
        lines = [line.split("│")[1] for line in screen_lines[top + 1:] if line.count("│") >= 4]  # the files pane
        [row] = [line for line in lines if Path(entry.path).name in line]
        assert row.rstrip().endswith(" KiB") or row.rstrip().endswith(" B"), row
        assert " unchanged " in row and not re.search(r"(^\s*M\s)|(\s[+-]0\s)", row), row
        assert any("No changes (" in line for line in screen_lines)
        if changed is not None:  # a file the prompt did change keeps its mark and counts
            [other] = [line for line in lines if Path(changed[2].path).name in line]
            assert " unchanged" not in other and re.match(r"\s*[AMD]\s", other), other
