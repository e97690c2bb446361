"""The agents whose tool uses are written in the model's text rather than made as tool calls:
Aider (SEARCH/REPLACE blocks it applies and commits) and the `cline` CLI (XML tool uses, one per
reply). Part of tests/agents/agents.py (the same `Agent` questions)."""

from __future__ import annotations

import dataclasses
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from .agents import Agent, run_env
from .scenario import Delete, Edit, MultiEdit, Read, Shell, Step, Turn, Usage, Write


class Aider(Agent):
    """Aider has no tools: the model's text carries SEARCH/REPLACE blocks, which it applies."""

    name = "aider"
    package = "aider-chat"
    model = "openai/stub"
    ops = (Read, Write, Edit, MultiEdit)

    def prefix(self, version, cache):
        return cache / f"aider-{version}"

    def binary(self, version, cache):
        return self.prefix(version, cache) / "bin" / "aider"

    def install(self, version, cache):
        prefix = self.prefix(version, cache)
        subprocess.run([sys.executable, "-m", "venv", str(prefix)], check=True)
        subprocess.run([str(prefix / "bin" / "pip"), "install", "-q", f"aider-chat=={version}"], check=True)

    def prepare(self, home, repo, url, settings):
        self.url = url
        return {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "stub"}

    def command(self, binary, turn, first, session):
        argv = [str(binary), "--openai-api-base", f"{self.url}/v1", "--model", "openai/stub", "--yes-always",
                "--edit-format", "diff", "--no-check-update", "--analytics-disable", "--no-show-release-notes",
                "--no-pretty", "--no-show-model-warnings", "--map-tokens", "0", "--message", turn.prompt]
        return argv if first else [*argv, "--restore-chat-history"]

    def side_request(self, body):
        system = " ".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system")
        return "commit message" in system

    def adapt(self, scenario):
        """Aider answers each prompt with one reply: a turn's steps become one step."""
        turns = []
        for turn in scenario.turns:
            if not turn.steps:
                turns.append(turn)
                continue
            calls = [op for s in turn.steps for op in s.calls if not isinstance(op, Read)]
            usage = Usage(**{k: sum(getattr(s.usage, k) for s in turn.steps) for k in ("input", "output", "cache_read", "cache_write")})
            turns.append(Turn(turn.prompt, [Step(calls, text=" ".join(s.text for s in turn.steps if s.text), usage=usage)],
                              resume=turn.resume))
        return dataclasses.replace(scenario, turns=tuple(turns))

    def render(self, step, repo):
        blocks = []
        for op in step.calls:
            edits = ((("", op.content),) if isinstance(op, Write) else
                     op.edits if isinstance(op, MultiEdit) else ((op.old, op.new),))
            for old, new in edits:
                blocks.append(f"{op.path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n")
        return "\n".join([step.text, *blocks]).strip() + "\n", []


class Cline(Agent):
    """The `cline` CLI. 2.x (the VS Code extension's task engine in a terminal): a tool use is XML
    in the model's text, one per reply, and a task ends with attempt_completion; yolo mode (-y)
    approves every tool; it writes the extension's task folders under `~/.cline/data/tasks/`.
    3.x (the Cline SDK): tool calls (read_files, editor, run_commands), a reply of text ends the
    task; it writes `~/.cline/data/sessions/<id>/` and leaves a hub daemon running."""

    name = "cline"
    package = "cline"
    model = "stub"
    ops = (Read, Write, Edit, Delete, Shell)
    _binary: Path | None = None
    sdk = False  # 3.x

    def binary(self, version, cache):
        self.sdk = int(version.split(".")[0]) >= 3
        self._binary = self.prefix(version, cache) / "node_modules" / ".bin" / "cline"
        return self._binary

    def prepare(self, home, repo, url, settings):
        # `cline auth` writes the provider (OpenAI-compatible, on the stub) into ~/.cline/data.
        subprocess.run([str(self._binary), "auth", "-p", "openai", "-k", "stub", "-m", self.model, "-b", f"{url}/v1"],
                       cwd=repo, env=run_env(home, {}), stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=120)
        return {}

    def command(self, binary, turn, first, session):
        if self.sdk:
            argv = [str(binary), "--json", "-P", "openai", "-m", self.model]
            return [*argv, turn.prompt] if first or not session else [*argv, "--id", session, turn.prompt]
        argv = [str(binary), "--json", "-y"]
        return [*argv, turn.prompt] if first or not session else [*argv, "-T", session, turn.prompt]

    def skips(self, version, scenario):
        if int(version.split(".")[0]) >= 3 and any(t.resume for t in scenario.turns):
            return "3.x resumes a session (--id) only with the prompt on a terminal or stdin, which the runner does not give"
        return ""

    def leave_out(self, rel):
        # 3.x: its logs, caches, locks (the hub daemon's) and its teams database: no memory of a session.
        return rel.startswith((".cline/data/logs/", ".cline/data/cache/", ".cline/data/locks/", ".cline/data/db/teams.db"))

    def after_run(self, home, repo):
        """3.x starts a hub daemon (`cline --cline-hub-daemon --cwd REPO`) that outlives the
        run: the one of this run's folder is stopped, by its pid."""
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"--cline-hub-daemon" in argv and str(repo).encode() in argv:
                try:
                    os.kill(int(proc.name), signal.SIGTERM)
                except OSError:
                    pass

    def session_of(self, stdout, home):
        if self.sdk:
            sessions = home / ".cline" / "data" / "sessions"
            found = sorted(sessions.iterdir(), key=lambda p: p.name) if sessions.is_dir() else []
            return found[-1].name if found else None
        tasks = home / ".cline" / "data" / "tasks"
        found = sorted(tasks.iterdir(), key=lambda p: p.name) if tasks.is_dir() else []
        return found[-1].name if found else None

    def adapt(self, scenario):
        """2.x: one tool use per reply: a step of several operations becomes one step each (the
        usage on the first); a step of text only becomes attempt_completion. write_to_file
        writes its content with the trailing newlines cut (trimEnd), so the scenario's are."""
        if self.sdk:
            return scenario
        turns = []
        for turn in scenario.turns:
            steps = []
            for step in turn.steps:
                calls = [dataclasses.replace(op, content=op.content.rstrip("\n")) if isinstance(op, Write) else op
                         for op in step.calls]
                if len(calls) <= 1:
                    steps.append(dataclasses.replace(step, calls=calls))
                    continue
                for n, op in enumerate(calls):
                    steps.append(Step([op], text=step.text if n == 0 else "",
                                      usage=step.usage if n == 0 else Usage(input=0, output=0)))
            turns.append(dataclasses.replace(turn, steps=steps))
        return dataclasses.replace(scenario, turns=tuple(turns))

    @property
    def text_calls(self):
        return None if self.sdk else (lambda step: 1)  # 2.x: a tool use, or attempt_completion

    def tool_names(self, op, repo):
        return [name for name, _ in self._calls(op, repo)] if self.sdk else [self._xml(op)[0]]

    @staticmethod
    def _calls(op, repo) -> list[tuple[str, dict]]:
        if isinstance(op, Read):
            return [("read_files", {"files": [{"path": str(repo / op.path)}]})]
        if isinstance(op, Write):
            return [("editor", {"path": str(repo / op.path), "new_text": op.content})]
        if isinstance(op, Edit):
            return [("editor", {"path": str(repo / op.path), "old_text": op.old, "new_text": op.new})]
        if isinstance(op, Delete):
            return [("run_commands", {"commands": [f"rm {shlex.quote(op.path)}"]})]
        if isinstance(op, Shell):
            return [("run_commands", {"commands": [op.command]})]
        raise TypeError(op)

    @staticmethod
    def _xml(op) -> tuple[str, dict[str, str]]:
        if isinstance(op, Read):
            return "read_file", {"path": op.path}
        if isinstance(op, Write):
            return "write_to_file", {"path": op.path, "content": op.content}
        if isinstance(op, Edit):
            return "replace_in_file", {"path": op.path, "diff": f"------- SEARCH\n{op.old}=======\n{op.new}+++++++ REPLACE\n"}
        if isinstance(op, Delete):
            return "execute_command", {"command": f"rm {shlex.quote(op.path)}", "requires_approval": "false"}
        if isinstance(op, Shell):
            return "execute_command", {"command": op.command, "requires_approval": "false"}
        raise TypeError(op)

    def render(self, step, repo):
        if self.sdk:
            return step.text, [c for op in step.calls for c in self._calls(op, repo)]
        if not step.calls:
            return f"<attempt_completion>\n<result>\n{step.text}\n</result>\n</attempt_completion>", []
        name, params = self._xml(step.calls[0])
        body = "".join(f"<{k}>\n{v}</{k}>\n" if k in ("content", "diff") else f"<{k}>{v}</{k}>\n" for k, v in params.items())
        return (f"{step.text}\n\n" if step.text else "") + f"<{name}>\n{body}</{name}>", []
