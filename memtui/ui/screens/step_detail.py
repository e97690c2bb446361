"""One step in full: arguments and result (JSON pretty-printed and highlighted), error,
and the checkpoint it made."""

from __future__ import annotations

import json
from typing import Any, Sequence

from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.highlight import highlight
from textual.visual import Visual, visualize
from textual.widgets import Static
from textual.worker import Worker, get_current_worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.model import EntryInfo, StepInfo
from memtui.ui.commands import bindings
from memtui.ui.pane_reads import checkpoint_files
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.messages import EntriesLoaded
from memtui.ui.text import (
    ansi_text,
    clock_time,
    human_bytes,
    human_cost,
    human_duration,
    human_tokens,
    safe_text,
    sanitize,
)
from memtui.ui.widgets.workspace_bar import WorkspaceBar
from memtui.ui.workers import failure_reason

HIGHLIGHT_LIMIT = 200_000
"""Characters above which a value is shown plain (highlighting is for reading, not for megabytes)."""


def render_value(value: Any, background: tuple[int, int, int] = (0, 0, 0),
                 palette: TerminalTheme | None = None) -> Content | Text:
    """A step argument or result for display: text as text, anything else as highlighted JSON.
    Colours the text sets itself (ANSI escapes) are kept only where readable on `background`."""
    if value is None:
        return Text("(none)", style="dim")
    if isinstance(value, str):
        try:  # a result that is itself JSON text reads better pretty-printed
            parsed = json.loads(value)
        except ValueError:
            return ansi_text(value, background, palette)
        if not isinstance(parsed, (dict, list)):
            return ansi_text(value, background, palette)
        value = parsed
    code = sanitize(json.dumps(value, indent=2, ensure_ascii=False), multiline=True)
    if len(code) > HIGHLIGHT_LIMIT:
        return safe_text(code, multiline=True)
    return highlight(code, language="json")


class StepValue(Static):
    """A step's arguments or result, drawn for the background it is shown on (the agent's
    colours are judged against it, whatever the theme)."""

    def __init__(self, value: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value = value
        self._drawn: tuple[tuple, Visual] | None = None

    def render(self) -> Visual:
        background = self.background_colors[1].rgb
        palette = self.app.ansi_theme
        if self._drawn is None or self._drawn[0] != (background, palette):
            self._drawn = ((background, palette), visualize(self, render_value(self.value, background, palette)))
        return self._drawn[1]


class StepDetailScreen(MemtuiScreen[str | None]):
    """Everything recorded about one step. Dismissed with "files" when the user asks for the
    step's checkpoint (the main screen then shows its changed files and diff)."""

    COMMAND_SCOPE = "step"
    BINDINGS = bindings("step")

    def __init__(self, step: StepInfo, steps: Sequence[StepInfo] = ()) -> None:
        """`steps`: the task's steps as listed (n / p move through them)."""
        super().__init__()
        self.step = step
        self.steps = list(steps)

    def compose(self) -> ComposeResult:
        step = self.step
        yield WorkspaceBar(id="workspace-bar")
        with VerticalScroll(id="step-detail"):
            yield Static(self._summary(), id="step-summary")
            if step.error:
                yield Static(Text("Error"), classes="step-section -error")
                yield Static(safe_text(step.error, multiline=True), id="step-error", classes="step-body")
            yield Static(Text("Arguments"), classes="step-section")
            yield StepValue(step.args, id="step-args", classes="step-body")
            yield Static(Text("Result"), classes="step-section")
            yield StepValue(step.result, id="step-result", classes="step-body")
            yield Static(Text("Checkpoint"), classes="step-section")
            yield Static(Text("This step made no checkpoint." if step.checkpoint_id is None else "Reading…"),
                         id="step-checkpoint", classes="step-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#step-detail").focus()
        if self.step.checkpoint_id is not None:
            self.load_checkpoint(self.step.checkpoint_id)

    def _summary(self) -> Text:
        step = self.step
        text = Text.assemble(
            ("Step ", "bold"), (f"#{step.seq}", "bold"), "  ", safe_text(step.tool, style="bold"),
            "  ", safe_text(step.status),
        )
        facts = [f"at {clock_time(step.created_at)}",
                 f"took {human_duration(step.duration_ms)}",
                 # no count recorded is unknown, not zero: "—" as in the step list
                 f"tokens {human_tokens(step.tokens_in)} in / {human_tokens(step.tokens_out)} out"
                 if step.tokens_in or step.tokens_out else "tokens —",
                 f"cost {human_cost(step.cost)}", f"task {step.task_id}", f"step id {step.id}"]
        text.append("\n" + " · ".join(facts))
        return text

    @work(thread=True, exclusive=True, group="step-checkpoint", exit_on_error=False,
          description="load the step's checkpoint")
    def load_checkpoint(self, checkpoint_id: Any) -> None:
        with self.app.reading() as source:
            checkpoint, entries = checkpoint_files(source, checkpoint_id)
        if not get_current_worker().is_cancelled:
            self.post_message(EntriesLoaded(self.step.id, checkpoint, entries, {}))

    def worker_failed(self, worker: Worker) -> None:
        super().worker_failed(worker)
        if worker.group == "step-checkpoint":
            self.query_one("#step-checkpoint", Static).update(
                safe_text(f"Cannot read the checkpoint: {failure_reason(worker)}"))

    @on(EntriesLoaded)
    def _entries(self, event: EntriesLoaded) -> None:
        self.query_one("#step-checkpoint", Static).update(checkpoint_text(event.checkpoint, event.entries))

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)

    async def action_step(self, offset: int) -> None:
        """The next (1) or previous (-1) step of the task, as listed on the main screen."""
        ids = [s.id for s in self.steps]
        at = ids.index(self.step.id) + offset if self.step.id in ids else -1
        if not 0 <= at < len(self.steps):
            self.app.bell()
            return
        self.step = self.steps[at]
        await self.recompose()
        self.on_mount()

    def action_show_checkpoint(self) -> None:
        """Back to the main screen, on the changed files (and diff) of this step's checkpoint."""
        if self.step.checkpoint_id is None:
            self.notify("This step made no checkpoint.", markup=False)
            return
        self.dismiss("files")


def checkpoint_text(checkpoint: Any, entries: list[EntryInfo]) -> Text:
    """"checkpoint 12 · 3 files" then one line per file: mark, path, sizes."""
    title = f"checkpoint {checkpoint.id}" if checkpoint is not None else "checkpoint"
    if checkpoint is not None and checkpoint.label:
        title += f" ({checkpoint.label})"
    text = Text(f"{title} · {len(entries)} file{'s' if len(entries) != 1 else ''}")
    for entry in entries:
        mark = {"added": "A", "modified": "M", "deleted": "D"}.get(entry.kind, "?")
        text.append(f"\n  {mark} ")
        text.append_text(safe_text(entry.path))
        text.append(f"  {human_bytes(entry.before_size)} → {human_bytes(entry.after_size)}")
    return text
