"""Back into the agent: resume a Claude Code or Codex session where it was recorded.

A source with `Capability.RESUME` answers `resume_command(session_id)` with the agent's own
command (`claude --resume ID`, `codex resume ID`) and the working directory the session
recorded. `plan_resume` checks what running it needs (the binary on PATH, the directory
still there) and says in one line what is missing; the UI runs it with the app suspended,
or shows the command to copy where it cannot (a browser, a missing binary).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from memtui.core.memory_source import Capability, MemorySource
from memtui.core.model import Id


@dataclass(frozen=True)
class ResumePlan:
    """A resume ready to run (`problem` == "") or what stops it, with the line to copy."""

    argv: tuple[str, ...]
    cwd: Path | None
    executable: str | None
    """The binary found on PATH (None: missing)."""
    problem: str = ""

    @property
    def shell_line(self) -> str:
        """The command as a person would type it: `cd DIR && claude --resume ID`."""
        command = shlex.join(self.argv)
        return f"cd {shlex.quote(str(self.cwd))} && {command}" if self.cwd else command


def plan_resume(source: MemorySource, session_id: Id, *, path: str | None = None) -> ResumePlan:
    """What resuming `session_id` takes; `Unsupported` when the source cannot resume.

    `path` is the PATH to look the binary up in (default: the environment's).
    """
    source.require(Capability.RESUME)
    command = source.part(Capability.RESUME).resume_command(session_id)
    binary = command.argv[0]
    executable = shutil.which(binary, path=path)
    problems = []  # each, when several: the command shown to copy would fail on any
    if command.open:
        problems.append(f"the session is open in a running {binary}: close it there first, "
                        "or two would write to one transcript")
    if executable is None:
        problems.append(f"{binary} is not on PATH: install it, or run the command yourself")
    if command.cwd is not None and not command.cwd.is_dir():
        problems.append(f"the session's directory {command.cwd} is not on this machine")
    return ResumePlan(command.argv, command.cwd, executable, "; ".join(problems))


def run_resume(plan: ResumePlan, *, env: dict[str, str] | None = None) -> int:
    """Run the agent in the session's directory, attached to this terminal; its exit code.

    Call it with the terminal handed over (the app suspended): the agent is interactive.
    """
    if plan.problem or plan.executable is None:
        raise ValueError(f"cannot resume: {plan.problem}")
    argv: Sequence[str] = (plan.executable, *plan.argv[1:])
    return subprocess.run(argv, cwd=plan.cwd, env=env, check=False).returncode
