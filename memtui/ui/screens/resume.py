"""Resume in agent (key a): back into Claude Code or Codex at the highlighted session.

The app is suspended and the agent runs attached to the terminal, in the directory the
session recorded (memtui.core.resume); memtui comes back when it exits and reloads, so the
turns just added show. Where that cannot happen — the binary is not on PATH, the directory is
gone, the app is served to a browser — `ResumeScreen` says why and shows the command to copy.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult, SuspendNotSupported
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from memtui.core.display import sanitize
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Unsupported
from memtui.core.model import Id
from memtui.core.resume import ResumePlan, plan_resume, run_resume
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiModal

IN_BROWSER = "memtui runs in a browser here: the agent needs a terminal on this machine."


class ResumeScreen(MemtuiModal[None]):
    """Why the agent cannot be started from here, and the command to run instead."""

    COMMAND_SCOPE = "resume"
    BINDINGS = bindings("resume")

    def __init__(self, plan: ResumePlan, why: str) -> None:
        super().__init__()
        self.plan = plan
        self.why = why

    def compose(self) -> ComposeResult:
        with Vertical(id="resume-dialog"):
            yield Static(Content(sanitize(f"Resume in {self.plan.argv[0]}")), id="resume-title")
            yield Static(Content(sanitize(self.why)), id="resume-why")
            yield Static("Run it yourself:", id="resume-label")
            # The whole line, wrapped (in a one-line box the start, `cd DIR`, scrolled out of
            # sight at 120 columns); selectable, and nothing here runs it.
            yield Static(Content(sanitize(self.plan.shell_line)), id="resume-command")
            with Horizontal(id="resume-buttons"):
                yield Button("Copy", variant="primary", id="resume-copy")
                yield Button("Close", id="resume-close")

    def on_mount(self) -> None:
        self.query_one("#resume-copy", Button).focus()  # so c and escape act on the dialog

    @on(Button.Pressed, "#resume-copy")
    def action_copy(self) -> None:
        """Put the command on the clipboard (OSC 52: terminals that allow it)."""
        self.app.copy_to_clipboard(self.plan.shell_line)
        self.notify("Command copied to the clipboard.", markup=False)

    @on(Button.Pressed, "#resume-close")
    def action_close(self) -> None:
        """Back to the sessions."""
        self.dismiss(None)


def resume_session(app: Any, session_id: Id | None) -> None:
    """Resume `session_id` in its agent with the app suspended, or say why not."""
    if session_id is None or app.source is None:
        app.bell()
        return
    try:
        plan = plan_resume(app.source, session_id)
    except Unsupported as exc:
        app.notify(str(exc), title="Resume", markup=False)
        return
    except KeyError as exc:  # UnknownId: a session that went away meanwhile
        app.notify(str(exc), title="Resume", severity="error", markup=False)
        return
    except MemtuiError as exc:  # an archived session: restore it first (the message says how)
        app.notify(str(exc), title="Resume", severity="warning", timeout=10, markup=False)
        return
    if app.is_web:
        app.push_screen(ResumeScreen(plan, IN_BROWSER))
        return
    if plan.problem:
        app.push_screen(ResumeScreen(plan, plan.problem[0].upper() + plan.problem[1:] + "."))
        return
    binary = plan.argv[0]
    try:
        with app.suspend():
            print(f"memtui: {plan.shell_line}", flush=True)
            code = run_resume(plan)
    except SuspendNotSupported:
        app.push_screen(ResumeScreen(plan, "This terminal cannot hand itself over to another program."))
        return
    except OSError as exc:
        app.notify(f"{binary} could not start: {exc.strerror or exc}", title="Resume", severity="error",
                   markup=False)
        return
    app.notify(f"{binary} exited with code {code}; memtui reloaded the session.", title="Resume", markup=False)
    app.source.reload()  # the agent appended to the transcript: read it again
    app.refresh_data()
