"""The scenario language: what the scripted model says and does, agent-neutral.

A scenario is a list of turns. A turn is a prompt and the steps the model answers it with;
a step is one model reply: the tool calls it makes (file operations, a shell command, a
sub-agent), the text it says, and the usage it reports. The last step of a turn makes no
calls. Each agent maps the operations onto its own tools (agents.py); an agent that cannot
express an operation does not run the scenario.

    Scenario("edit", files={"notes.txt": "one\\n"}, turns=[
        Turn("Append two to notes.txt", [
            Step([Edit("notes.txt", "one\\n", "one\\ntwo\\n")], usage=Usage(output=30)),
            Step(text="Done.")]),
    ])
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Usage:
    """Tokens a reply reports: fresh input, output, and prompt-cache reads and writes."""

    input: int = 100
    output: int = 10
    cache_read: int = 0
    cache_write: int = 0


@dataclass(frozen=True)
class Write:
    """Create (or overwrite) a file with `content`."""

    path: str
    content: str


@dataclass(frozen=True)
class Edit:
    """Replace `old` (once, it must be there) by `new` in a file."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class MultiEdit:
    """Several replacements in one file, applied in order, in one call."""

    path: str
    edits: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Read:
    """Read a file (agents that edit only what they have read need one before an edit)."""

    path: str


@dataclass(frozen=True)
class Delete:
    """Remove a file (a shell `rm` where the agent has no delete tool)."""

    path: str


@dataclass(frozen=True)
class Shell:
    """Run a shell command in the workspace; `fails` when it exits non-zero (an error result)."""

    command: str
    fails: bool = False


@dataclass(frozen=True)
class SubAgent:
    """Hand `prompt` to a sub-agent, which answers it with its own `steps`."""

    prompt: str
    steps: tuple["Step", ...]
    description: str = "helper"


Op = Read | Write | Edit | MultiEdit | Delete | Shell | SubAgent


@dataclass(frozen=True)
class Step:
    """One model reply: calls (run in order), then the text; the usage it reports."""

    calls: tuple[Op, ...] = ()
    text: str = ""
    usage: Usage = Usage()

    def __init__(self, calls=(), text: str = "", usage: Usage = Usage()) -> None:
        object.__setattr__(self, "calls", tuple(calls))
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "usage", usage)


@dataclass(frozen=True)
class Turn:
    """A prompt and the steps the model answers it with. `resume`: the prompt is given to the
    session before it (the agent's resume), not to a new one. `kind`: "prompt" (the default
    with steps); "command", a slash command the agent runs itself (e.g. /compact; the default
    without steps), whose steps, if any, answer the request the command makes of the model (the
    compaction's summary); "aside", a side question asked of the session as the turn before it
    left it, answered by one text step without tools and kept out of the conversation."""

    prompt: str
    steps: tuple[Step, ...] = ()
    resume: bool = False
    kind: str = "prompt"

    def __init__(self, prompt: str, steps=(), resume: bool = False, kind: str | None = None) -> None:
        object.__setattr__(self, "prompt", prompt)
        object.__setattr__(self, "steps", tuple(steps))
        object.__setattr__(self, "resume", resume)
        object.__setattr__(self, "kind", kind or ("prompt" if steps else "command"))


@dataclass(frozen=True)
class Scenario:
    """A named list of turns over a workspace holding `files` at the start.

    `env`: extra environment for the agent (e.g. file checkpointing on); `settings`: extra
    settings of the agent's own configuration (Codex: config.toml keys); `only`: the agents that
    run it when not every agent that can express its operations should; `versions`: the pinned
    versions that run it (none: every one), for a shape only some releases write."""

    name: str
    turns: tuple[Turn, ...]
    files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    only: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    compaction: Step | None = None  # the answer to the agent's own (automatic) compaction request

    def scripts(self) -> dict[str, tuple[Step, ...]]:
        """Every prompt the model answers (turns, side questions and sub-agents), with its steps."""
        found: dict[str, tuple[Step, ...]] = {}

        def add(prompt: str, steps: tuple[Step, ...]) -> None:
            found[prompt] = steps
            for step in steps:
                for op in step.calls:
                    if isinstance(op, SubAgent):
                        add(op.prompt, op.steps)

        for turn in self.turns:
            if turn.steps and turn.kind != "command":
                add(turn.prompt, turn.steps)
        return found

    def commands(self) -> dict[str, tuple[Step, ...]]:
        """The slash commands whose own request to the model is scripted, with its answer."""
        found = {turn.prompt: turn.steps for turn in self.turns if turn.kind == "command" and turn.steps}
        return {"/compact": (self.compaction,), **found} if self.compaction else found

    def ops(self) -> list[Op]:
        """Every operation of the scenario, sub-agents' included, in the order they run."""
        out: list[Op] = []

        def walk(steps) -> None:
            for step in steps:
                for op in step.calls:
                    out.append(op)
                    if isinstance(op, SubAgent):
                        walk(op.steps)

        for turn in self.turns:
            walk(turn.steps)
        return out
