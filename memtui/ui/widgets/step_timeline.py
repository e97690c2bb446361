"""The step timeline of one task: time, tool, short arguments, status, duration, tokens, cost.

Steps come from the store a page at a time (`StepTimeline.NeedMore` asks for the next);
the totals line is computed over all steps by the store, not over the loaded page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.message import Message

from memtui.core.model import Id, StepInfo
from memtui.core.display import counted
from memtui.ui.text import clock_time, human_cost, human_duration, human_tokens, one_line, safe_text
from memtui.ui.widgets.record_table import RecordTable

STEP_PAGE = 500
"""Steps fetched from the store at a time."""
ARGS_SHOWN = 300
"""Characters of a step's arguments given to the Arguments column, which cuts them (…) at its
width: a wide terminal shows more of them."""
VALUE_LEAST = 8
"""Characters of each later argument's value kept when an earlier one could take the room."""


def short_args(args: Any, width: int = 60) -> str:
    """One line of a step's arguments: `path=src/x.py cmd="pytest -q"`."""
    if args is None:
        return ""
    if isinstance(args, dict):
        return one_line(" ".join(f"{key}={one_line(value, 40)}" for key, value in arg_values(args)), width)
    if isinstance(args, str):
        return one_line(args, width)
    return one_line(json.dumps(args, ensure_ascii=False), width)


def arg_values(args: dict) -> list[tuple[str, str]]:
    """(key, value as text) of each argument."""
    return [(str(key), value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
            for key, value in args.items()]


class ArgsInView:
    """A step's arguments fitted to the cell they are drawn in (`fitted_args`): a wide column
    shows every argument, the first ones (a path, a command) given the room the others leave."""

    def __init__(self, args: dict) -> None:
        self.values = [(key, one_line(value, ARGS_SHOWN)) for key, value in arg_values(args)]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, sum(len(key) + len(value) + 2 for key, value in self.values))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield fitted_args(self.values, options.max_width)


def fitted_args(values: list[tuple[str, str]], width: int) -> Text:
    """`key=value key=value` in `width` characters: the values in order, each as whole as
    the room allows while every later one keeps VALUE_LEAST characters; where they cannot all
    be shown, the first ones are (a path, a command) and the line is cut with `…`."""
    keys = [len(key) + 1 for key, _ in values]  # "key="
    least = [min(len(value), VALUE_LEAST) for _, value in values]
    room, parts = width, []
    for i, (key, value) in enumerate(values):
        room -= keys[i] + (1 if i else 0)
        later = sum(keys[j] + 1 + least[j] for j in range(i + 1, len(values)))
        give = max(0, min(len(value), room - later if room - later >= least[i] else room))
        parts.append(f"{key}={one_line(value, give)}")
        room -= give
    text = safe_text(" ".join(parts))
    text.truncate(width, overflow="ellipsis")
    return text


class StepTimeline(RecordTable[StepInfo]):
    """Steps of a task, paged from the store."""

    COLUMNS = (
        ("seq", "#", 4),
        ("time", "Time", 8),
        ("tool", "Tool", 14),
        ("args", "Arguments", None),
        ("status", "Status", 6),
        ("duration", "Took", 7),
        ("tokens", "Tokens", 7),
        ("cost", "Cost", 7),
        ("cp", "Δ", 2),
    )
    SHED = ("time", "tokens", "duration")  # narrow (80 columns): the arguments stay readable, no sideways scroll
    MIN_FLEX = 16
    RIGHT = frozenset({"seq", "duration", "tokens", "cost"})
    COMPONENT_CLASSES: ClassVar[set[str]] = RecordTable.COMPONENT_CLASSES | {
        "step-timeline--ok",
        "step-timeline--error",
        "step-timeline--checkpoint",
    }
    """
    | Class | Description |
    | :- | :- |
    | `step-timeline--ok` | Status of a step that succeeded. |
    | `step-timeline--error` | Status of a step that failed. |
    | `step-timeline--checkpoint` | The mark of a step that made a checkpoint. |
    """

    @dataclass
    class NeedMore(Message):
        """The cursor reached the last loaded step and the task has more."""

        timeline: "StepTimeline"
        task_id: Id
        offset: int

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.task_id: Id | None = None
        self.total: int = 0
        """Steps the task has in the store (loaded or not)."""
        self._requested: int | None = None

    def show_steps(self, task_id: Id, steps: list[StepInfo], total: int) -> None:
        """Start the list of a task with its first page."""
        self.task_id = task_id
        self.total = total
        self._requested = None
        self.set_records(steps)

    def add_steps(self, task_id: Id, offset: int, steps: list[StepInfo]) -> None:
        """Append a further page (ignored if it is stale or already there)."""
        if task_id != self.task_id or offset != len(self.records):
            return
        self._requested = None
        self.extend_records(steps)

    def at_end(self) -> bool:
        """True when the cursor is on the task's last step (every page loaded)."""
        return bool(self.records) and not self.more_available() and self.current_key() == self.last_key()

    def last_key(self) -> str:
        """The key of the last listed step ("" when none)."""
        return self.row_key(self.matching[-1]) if self.matching else ""

    def more_available(self) -> bool:
        return self.task_id is not None and len(self.records) < self.total

    def request_more(self) -> None:
        if self._requested == len(self.records) or self.task_id is None:
            return
        self._requested = len(self.records)
        self.post_message(self.NeedMore(self, self.task_id, len(self.records)))

    def filter_key(self, record: StepInfo) -> str:
        return f"{record.tool} {short_args(record.args, 200)} {record.status}"

    def row_cells(self, record: StepInfo) -> Iterable[Any]:
        failed = record.status not in ("ok", "success") or bool(record.error)
        status_style = self.get_component_rich_style(
            "step-timeline--error" if failed else "step-timeline--ok", partial=True)
        tokens = record.tokens_in + record.tokens_out
        return (
            self.number(record.seq) if record.seq >= 0 else Text(""),  # a rollback: no step of the agent
            Text(clock_time(record.created_at)),
            safe_text(record.tool),
            ArgsInView(record.args) if isinstance(record.args, dict)  # fitted to the column
            else safe_text(short_args(record.args, ARGS_SHOWN)),  # the column cuts it to its width
            safe_text(record.status, style=status_style),
            self.number(human_duration(record.duration_ms)),
            self.number(human_tokens(tokens) if tokens else "—"),
            self.number(human_cost(record.cost)),
            Text("◆" if record.checkpoint_id is not None else "",
                 style=self.get_component_rich_style("step-timeline--checkpoint", partial=True)),
        )


def totals_line(totals: dict[str, float] | None, loaded: int) -> Text:
    """"255 steps · 1.2M tokens in / 80k out · $3.14 · 12m05s" (over the whole task)."""
    if not totals:
        return Text("")
    steps = int(totals.get("steps", 0))
    parts = [counted(steps, "step") + (f" ({loaded} loaded)" if loaded < steps else "")]
    tokens_in, tokens_out = int(totals.get("tokens_in", 0)), int(totals.get("tokens_out", 0))
    parts.append(f"{human_tokens(tokens_in)} tokens in / {human_tokens(tokens_out)} out"
                 if tokens_in or tokens_out else "tokens —")  # none recorded: unknown, as each row says
    parts.append(human_cost(float(totals.get("cost", 0.0))) if totals.get("cost") else "cost —")  # unknown, not free
    rounds = float(totals.get("cost_with_rounds") or 0.0)
    if rounds > float(totals.get("cost") or 0.0) + 0.005:
        parts[-1] += f" ({human_cost(rounds)} with sub-agents)"
    duration = totals.get("duration_ms")
    parts.append(human_duration(duration) if duration is not None else "duration —")
    return Text(" · ".join(parts))
