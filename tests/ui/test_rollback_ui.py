"""Rollback from the app: `r` on a task, a step, a file; the confirmation dialog; `u` undo."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import tree_nodes
from rollback_world import FIXED, handoff_world, open_on_task
from textual.app import App

from memtui.core import rollback as rb
from memtui.core.rollback import FilePlan, RollbackPlan
from memtui.core.store import AgentStore
from memtui.resources import tcss_dir
from memtui.ui.screens.main import MainScreen
from memtui.ui.screens.rollback import RollbackScreen
from pilot_support import settle

SIZE = (150, 45)


@pytest.fixture
def world(tmp_path):
    return handoff_world(tmp_path, {"notes.md": b"# notes 1\n", "new.txt": b"made by the sub-agent\n"})


async def test_r_on_a_task_confirms_and_rolls_back_with_sub_agents(world, open_app):
    async with open_app(world.root, size=SIZE, clock=lambda: FIXED) as pilot:
        app = pilot.app
        await open_on_task(pilot, world.parent)
        await pilot.press("r")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RollbackScreen)
        assert [f.path for f in dialog.plan.files] == ["app.py", "notes.md", "new.txt"]
        assert any(note.startswith("includes 1 sub-agent task by handoff") for note in dialog.plan.notes)
        assert world.read("app.py") == b"print('v1')\n"  # nothing written before confirming
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert world.read("app.py") == b"print('v0')\n"
        assert world.read("notes.md") == b"# notes 0\n"
        assert world.read("new.txt") is None
        with AgentStore.open(world.root, readonly=True) as store:
            [newest] = store.rollback_checkpoints(1)
        assert newest.label == "rollback" and newest.task_id == world.parent
        # The timeline of the task lists the rollback after its steps.
        steps = app.screen.query_one("#steps")
        assert steps.records[-1].tool == "↶ rollback" and steps.records[-1].checkpoint_id == newest.id
        # Reloaded from the store: the task shows pinned (the undo survives GC until unpinned).
        tree = app.screen.query_one("#tasks")
        assert next(n.data for n in tree_nodes(tree) if n.data.id == world.parent).pinned

        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, RollbackScreen) and app.screen.plan.label == "undo"
        await pilot.press("y")
        await settle(pilot)
        assert world.read("app.py") == b"print('v1')\n"
        assert world.read("new.txt") == b"made by the sub-agent\n"


async def test_conflicts_are_highlighted_and_left_alone_unless_forced(world, open_app):
    world.write("app.py", b"print('edited by hand')\n")
    async with open_app(world.root, size=SIZE, clock=lambda: FIXED) as pilot:
        app = pilot.app
        await open_on_task(pilot, world.parent)
        await pilot.press("r")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RollbackScreen)
        items = list(dialog.query("#rollback-files ListItem"))
        assert items[0].has_class("-conflict-kept") and not items[1].has_class("-conflict")
        why = str(dialog.query_one("#rollback-why").render())
        assert "conflict: the file changed on disk" in why
        view = dialog.query_one("#rollback-diff")
        assert view.diff.old_lines == ["print('v1')"] and view.diff.new_lines == ["print('edited by hand')"]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert world.read("notes.md") == b"# notes 1\n"  # cancelled: nothing written

        await pilot.press("r")
        await settle(pilot)
        await pilot.press("f")  # overwrite the conflict
        await pilot.pause()
        assert not app.screen.query("#rollback-files ListItem")[0].has_class("-conflict-kept")
        await pilot.press("y")
        await settle(pilot)
        assert world.read("app.py") == b"print('v0')\n"


async def test_r_on_a_file_rolls_back_only_that_entry(world, open_app):
    async with open_app(world.root, size=SIZE, clock=lambda: FIXED) as pilot:
        app = pilot.app
        await open_on_task(pilot, world.child)
        await pilot.press("4")  # the changed files of the step's checkpoint
        await settle(pilot)
        files = app.screen.query_one("#files")
        assert [e.path for e in files.records] == ["notes.md", "new.txt"]
        await pilot.press("r")
        await settle(pilot)
        assert [f.path for f in app.screen.plan.files] == ["notes.md"]
        await pilot.press("y")
        await settle(pilot)
        assert world.read("notes.md") == b"# notes 0\n"
        assert world.read("new.txt") == b"made by the sub-agent\n"


async def test_r_on_a_step_and_R_on_a_file_take_the_whole_checkpoint(world, open_app):
    async with open_app(world.root, size=SIZE, clock=lambda: FIXED) as pilot:
        app = pilot.app
        await open_on_task(pilot, world.child)
        await pilot.press("3")  # the step timeline: its step made one checkpoint of two files
        await pilot.press("r")
        await settle(pilot)
        assert app.screen.plan.scope == "checkpoint"
        assert [f.path for f in app.screen.plan.files] == ["notes.md", "new.txt"]
        await pilot.press("escape")
        await pilot.press("4")
        await pilot.press("R")
        await settle(pilot)
        assert app.screen.plan.scope == "checkpoint"
        await pilot.press("escape")
        await pilot.press("1")  # sessions: nothing to roll back there
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert world.read("notes.md") == b"# notes 1\n"


# ---------------------------------------------------------------- the dialog alone
class DialogHost(App):
    """The rollback dialog over an empty screen, with a plan built by hand (no store, no disk)."""

    CSS_PATH = [tcss_dir() / "rollback.tcss"]
    source = None  # no store: the dialog is offered as memtui's own store would offer it

    def __init__(self, plan: RollbackPlan, undo: str = "store") -> None:
        super().__init__()
        self.plan = plan
        self.undo = undo
        self.chosen: list = []

    def on_mount(self) -> None:
        self.push_screen(RollbackScreen(self.plan, "Roll back task 7 · Split the parser", undo=self.undo),
                         self.chosen.append)


def sample_plan(force: bool = False) -> RollbackPlan:
    root = Path("/workspace")
    files = (
        FilePlan("src/parser.py", (11, 14), root / "src/parser.py", target=b"def parse():\n    return 1\n",
                 recorded=b"def parse():\n    return 2\n", disk=b"def parse():\n    return 3  # by hand\n"),
        FilePlan("src/headers.py", (12,), root / "src/headers.py", target=None, recorded=b"x = 1\n",
                 disk=b"x = 1\n"),
        FilePlan("docs/old.md", (13,), root / "docs/old.md", target=b"# old\n", recorded=None, disk=None),
        FilePlan("README.md", (15,), root / "README.md", target=b"same\n", recorded=b"new\n", disk=b"same\n"),
        FilePlan(".agent/plan/PLAN.md", (16,), root / ".agent/plan/PLAN.md",
                 refusal="under .agent/: a rollback never writes there", recorded_action="write"),
    )
    plan = RollbackPlan("task", 7, 7, root, files, tasks=(7, 9), checkpoints=(3, 4, 5),
                        notes=("includes 1 sub-agent task by handoff: 9",))
    return plan.with_force(force)


async def test_dialog_force_toggle_and_confirm():
    app = DialogHost(sample_plan())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = app.screen
        assert dialog.query_one("#rollback-files").index == 0  # opens on the conflict
        summary = str(dialog.query_one("#rollback-summary").render())
        assert summary == "1 to create · 1 to delete · 1 conflict (left alone)"
        await pilot.press("f")
        await pilot.pause()
        assert "1 to write" in str(dialog.query_one("#rollback-summary").render())
        await pilot.press("y")
        await pilot.pause()
    assert app.chosen == [True]


async def test_dialog_refuses_an_escape():
    plan = sample_plan()
    escape = FilePlan("../outside.txt", (20,), None, refusal="'..' leads outside the workspace root", escapes=True)
    plan = rb.replace(plan, files=plan.files + (escape,))
    app = DialogHost(plan)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#rollback-confirm").disabled
        await pilot.press("y")
        await pilot.press("escape")
        await pilot.pause()
    assert app.chosen == [None]


async def test_dialog_offers_no_rollback_when_every_file_is_refused():
    """A transcript store that lacks the contents: every file an error, nothing to confirm,
    and no word about an undo (nothing is written, so there is nothing to undo)."""
    root = Path("/workspace")
    unknown = "stored content cannot be trusted: Codex records only the patch hunks of an updated file"
    files = tuple(FilePlan(name, (n,), root / name, error=unknown) for n, name in enumerate(["a.py", "b.py"]))
    app = DialogHost(RollbackPlan("checkpoint", "s:call_1", "s:1", root, files), undo="")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = app.screen
        assert not dialog.query_one("#rollback-confirm").display
        notes = str(dialog.query_one("#rollback-notes").render())
        assert "undo" not in notes and "replaced for good" not in notes
        await pilot.press("y")
        await pilot.press("escape")
        await pilot.pause()
    assert app.chosen == [None]


def test_snapshot_dialog_with_a_conflict(snap_compare):
    async def ready(pilot):
        await settle(pilot)

    assert snap_compare(DialogHost(sample_plan()), terminal_size=(120, 36), run_before=ready)


async def test_u_undoes_the_newest_rollback_of_the_store_whatever_is_selected(world, open_app):
    """After a restart nothing of this session is remembered: `u` still finds the store's most
    recent rollback (here of the sub-agent's task while the parent is selected) and says which."""
    async with open_app(world.root, size=SIZE, clock=lambda: FIXED) as pilot:
        app = pilot.app
        await open_on_task(pilot, world.child)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    assert world.read("notes.md") == b"# notes 0\n"
    async with open_app(world.root, size=SIZE, clock=lambda: FIXED) as pilot:  # a new run of the app
        app = pilot.app
        await open_on_task(pilot, world.parent)
        await pilot.press("u")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RollbackScreen) and dialog.plan.label == "undo"
        assert f"task {world.child}" in dialog.title_text
        await pilot.press("y")
        await settle(pilot)
    assert world.read("notes.md") == b"# notes 1\n"


async def test_a_refused_rollback_says_how_to_proceed():
    """Paths outside the workspace refuse the whole rollback: the dialog offers no "Roll back"
    and says what the user can do instead (file by file). It does not send the user to --root:
    a path outside the root stays outside whichever copy of the project is the root."""
    from memtui.core.rollback import ESCAPE_HINT

    root = Path("/workspace")
    files = (FilePlan("a.py", (1,), root / "a.py"),
             FilePlan("/home/dev/.bashrc", (2,), None, refusal="absolute path: outside the workspace root",
                      escapes=True))
    plan = RollbackPlan("checkpoint", "c1", "t1", root, files, notes=(f"refused: … {ESCAPE_HINT}",))
    app = DialogHost(plan, undo="state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = app.screen
        assert not dialog.query_one("#rollback-confirm").display
        summary = " ".join(str(dialog.query_one("#rollback-summary").render()).split())
        assert "leads outside /workspace" in summary and "one at a time" in summary
        notes = " ".join(str(dialog.query_one("#rollback-notes").render()).split())
        assert "rollback --entry ID" in notes and "--root" not in notes
        await pilot.press("escape")
        await pilot.pause()
    assert app.chosen == [None]


async def test_the_done_toast_leaves_the_undo_dialog_uncovered(world, app_for, shown):
    """At 80×24 the toast of a finished rollback ("…: done", "Undo with u") lay over the title
    of the undo dialog that `u` opened next."""
    app = app_for(world.root, clock=lambda: FIXED)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # toasts drawn
        await settle(pilot)
        await open_on_task(pilot, world.parent)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert "Undo with u" in shown(app)  # the done toast, on the main screen
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, RollbackScreen)
        text = shown(app)
        assert "Undo with u" not in text, text
        assert "Undo the rollback of task" in text, text
