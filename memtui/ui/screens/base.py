"""The one base of every memtui screen and modal: a failed worker is reported once, and the
screen leaves its loading state.

Textual posts `Worker.StateChanged` to the node that started the worker and does not bubble
it, so each screen handles its own workers here: the app's `report_worker` turns the failure
into one notification naming what failed ("Failed: read database statistics"), then the
screen's `worker_failed` hook puts the pane that waited into a failed state. The default hook
stops every loading indicator of the screen; a screen that shows its own waiting text
("reading the database…") overrides it and replaces that text with the reason.

A new screen subclasses `MemtuiScreen` (a modal: `MemtuiModal`) and runs its workers with
`exit_on_error=False` and a `description` saying what they do. A widget that runs workers
hands their state changes to its screen (memtui.ui.workers.forward_worker_state).
"""

from __future__ import annotations

from typing import TypeVar

from textual import events, on
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from memtui.ui.commands import action_offered, command_for, refusal

T = TypeVar("T")


class MemtuiScreen(Screen[T]):
    """A memtui screen: its failed workers are reported by the app, then `worker_failed` runs;
    a command the open source can't do (memtui.ui.commands, `needs`) is neither shown nor run."""

    COMMAND_SCOPE: str | None = None
    """The screen's scope in memtui.ui.commands (its bindings, palette entries and help)."""
    busy: bool = False
    """True while the screen is still loading what it shows (tests and screenshots wait)."""
    _resumed = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first resume follows the screen's mount, which styled every widget of it with
        app.tcss: Textual's restyle of them all (for a screen coming back) would only repeat
        that. (A screen with a stylesheet of its own, read as it is pushed, needs it.)"""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = bool(self.CSS_PATH)

    @on(events.Mount)
    def _bindings_once_mounted(self) -> None:
        """The footer asks check_action again once the screen counts as mounted (until then
        it offers nothing)."""
        self.call_after_refresh(self.refresh_bindings)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        self.app.report_worker(event.worker)  # type: ignore[attr-defined]
        self.worker_failed(event.worker)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A command of the table is hidden (footer) and not run where it does not apply: when
        the open source can't do what it needs, or outside the panes it applies in (the footer
        shows what the keys do where the focus is). Nothing runs before the screen is mounted:
        a key typed as a dialog is pushed would act on widgets not there yet (a crash), or
        answer a question the user has not seen."""
        if not self.is_mounted:
            return False
        if not action_offered(action, parameters, self.COMMAND_SCOPE, self.app.source):  # type: ignore[attr-defined]
            return False
        command = command_for(self.COMMAND_SCOPE, action, parameters)
        if command is not None and command.panes and self.focused_pane() not in command.panes:
            return False
        return True

    def on_key(self, event: events.Key) -> None:
        """A key whose command the source can't do ran nothing (check_action): say why, and
        what to do instead, rather than nothing at all."""
        why = refusal(self.COMMAND_SCOPE, event.key, self.app.source, self.focused_pane())  # type: ignore[attr-defined]
        if why is not None:
            event.stop()
            self.notify(why[:1].upper() + why[1:], severity="warning", timeout=10, markup=False)

    def focused_pane(self) -> str | None:
        """The name of the pane the focus is in (screens with panes say; None elsewhere)."""
        return None

    def refresh_data(self) -> None:
        """Reload what the screen shows (after a write, or when the store changed); the app
        asks every screen on the stack."""

    def worker_failed(self, worker: Worker) -> None:
        """Leave the loading state after `worker` failed (the user was already told why).

        The default stops every loading indicator on the screen; override to also replace a
        waiting text with `failure_reason(worker)`, calling super()."""
        for widget in self.query("*"):
            if widget.loading:
                widget.loading = False


class MemtuiModal(ModalScreen[T], MemtuiScreen[T]):
    """A memtui screen shown over the current one (dims it; its bindings come first).

    ModalScreen comes first: Textual takes a widget's CSS type names and default styles
    along the first base only."""

    ASKS: bool = False
    """A dialog that asks for a decision (a rollback, a yes/no): the toasts of earlier actions
    go as it opens — over a dialog they would cover its title (at 80×24, the whole of
    "Roll back …: done" lay over the undo dialog it offered)."""

    @on(events.Mount)
    def _clear_earlier_toasts(self) -> None:
        if self.ASKS:
            self.app.clear_notifications()

