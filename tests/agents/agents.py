"""The agents: how each one is installed, pointed at the stub, run for a turn, and how the
scenario's operations become its tool calls.

Each `Agent` answers four questions: `install(version, cache)`; `prepare(home, repo, url)`
(configs it needs, written into the scratch home); `command(turn, first, ...)` (the argv of
one turn); `render(step, where)` (a step as the model's text and tool calls in this agent's
tools). `can_express(scenario)` says whether its tools can play every operation.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .scenario import Delete, Edit, MultiEdit, Op, Read, Scenario, Shell, Step, SubAgent, Turn, Write
from .side_questions import ask_side_question

QUIET = {  # every agent: no telemetry, no update checks, no colour
    "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "NO_COLOR": "1", "CI": "1",
}


def npm_install(package: str, version: str, prefix: Path) -> None:
    """`npm install --prefix` of one exact version (npm's own cache stays in the real HOME)."""
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error",
                    f"{package}@{version}"], check=True, stdout=subprocess.DEVNULL)


class Agent:
    name = ""
    package = ""
    ops: tuple[type, ...] = ()  # the operations it can play
    asides = False  # whether it can be asked a side question (Turn kind "aside")

    def can_express(self, scenario: Scenario) -> bool:
        if scenario.only and self.name not in scenario.only:
            return False
        if any(t.kind == "aside" for t in scenario.turns) and not self.asides:
            return False
        return all(isinstance(op, self.ops) for op in scenario.ops())

    def prefix(self, version: str, cache: Path) -> Path:
        return cache / f"{self.name}-{version}"

    def installed(self, version: str, cache: Path) -> bool:
        return self.binary(version, cache).exists()

    def binary(self, version: str, cache: Path) -> Path:
        raise NotImplementedError

    def install(self, version: str, cache: Path) -> None:
        npm_install(self.package, version, self.prefix(version, cache))

    def prepare(self, home: Path, repo: Path, url: str, settings: dict[str, str]) -> dict[str, str]:
        """Write the configs the run needs into `home` (with the scenario's `settings` where the
        agent has such); the extra environment."""
        return {}

    def command(self, binary: Path, turn: Turn, first: bool, session: str | None) -> list[str]:
        raise NotImplementedError

    def session_of(self, stdout: str, home: Path) -> str | None:
        """The session a turn ran in (for the next turn's resume)."""
        return None

    def render(self, step: Step, repo: Path) -> tuple[str, list[tuple[str, dict]]]:
        calls: list[tuple[str, dict]] = []
        for op in step.calls:
            calls += self.calls_for(op, repo)
        return step.text, calls

    def calls_for(self, op: Op, repo: Path) -> list[tuple[str, dict]]:
        raise NotImplementedError

    def tool_names(self, op: Op, repo: Path) -> list[str]:
        """The agent's tools an operation is played with (the truth's tool calls)."""
        return [name for name, _ in self.render(Step([op]), repo)[1]]

    # Tool uses written in the reply's text (Cline's XML) rather than as tool calls: how many a
    # step makes, for the stub to count the results that come back; None for tool calls.
    text_calls = None

    def adapt(self, scenario: Scenario) -> Scenario:
        """The scenario as this agent plays it (most: as it is)."""
        return scenario

    def side_request(self, body: dict) -> bool:
        """Whether a model request is the agent's own errand (a title, a commit message), which
        the stub answers with a plain text instead of the script."""
        return False

    def command_request(self, body: dict) -> str | None:
        """The slash command a model request is made for (its compaction summary…), or None."""
        return None

    def ask_aside(self, binary: Path, turn: Turn, session: str | None, **run) -> subprocess.CompletedProcess:
        """Ask the session a side question (`run`: cwd, env, timeout of subprocess.run)."""
        raise NotImplementedError

    def leave_out(self, rel: str) -> bool:
        """Whether a file of the run's home stays out of the fixture (caches, binaries)."""
        return False

    def skips(self, version: str, scenario: Scenario) -> str:
        """Why this version does not play `scenario` here ("" when it does)."""
        return ""

    def after_run(self, home: Path, repo: Path) -> None:
        """Stop what the agent left running after the scenario's turns (a background daemon)."""


class ClaudeCode(Agent):
    name = "claude-code"
    package = "@anthropic-ai/claude-code"
    ops = (Read, Write, Edit, MultiEdit, Delete, Shell, SubAgent)
    model = "claude-sonnet-4-5"
    asides = True
    SUMMARY_REQUEST = "Your task is to create a detailed summary of the conversation so far"

    def binary(self, version, cache):
        return self.prefix(version, cache) / "node_modules" / ".bin" / "claude"

    def prepare(self, home, repo, url, settings):
        return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-stub", "IS_SANDBOX": "1",
                "CLAUDE_CONFIG_DIR": str(home / ".claude")}

    def command(self, binary, turn, first, session):
        argv = [str(binary), "-p", turn.prompt, "--output-format", "json", "--model", self.model,
                "--dangerously-skip-permissions"]
        if session and not first:
            argv += ["--resume", session]
        return argv

    def session_of(self, stdout, home):
        try:
            return json.loads(stdout.strip().splitlines()[-1]).get("session_id")
        except (ValueError, IndexError, AttributeError):
            return None

    def command_request(self, body):
        messages = body.get("messages") or [{}]
        content = messages[-1].get("content")
        texts = content if isinstance(content, str) else " ".join(
            b.get("text", "") for b in content or [] if isinstance(b, dict))
        return "/compact" if self.SUMMARY_REQUEST in texts else None

    def leave_out(self, rel):
        # 2.1.8x-9x asks npm for its global folder (an update check): npm's own logs.
        return rel.startswith(".npm/")

    def ask_aside(self, binary, turn, session, **run):
        argv = [str(binary), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                "--model", self.model, "--dangerously-skip-permissions", "--resume", session or ""]
        return ask_side_question(argv, turn.prompt, **run)

    def adapt(self, scenario):
        """The MultiEdit tool is gone from 2.1.3xx: a MultiEdit is played as one Edit per change,
        all in the same reply."""
        def steps(of):
            return tuple(dataclasses.replace(s, calls=tuple(c for op in s.calls for c in split(op))) for s in of)

        def split(op):
            if isinstance(op, MultiEdit):
                return [Edit(op.path, old, new) for old, new in op.edits]
            if isinstance(op, SubAgent):
                return [dataclasses.replace(op, steps=steps(op.steps))]
            return [op]

        return dataclasses.replace(scenario, turns=tuple(dataclasses.replace(t, steps=steps(t.steps)) for t in scenario.turns))

    def calls_for(self, op, repo):
        path = lambda p: str(repo / p)  # noqa: E731 (Claude Code's tools take absolute paths)
        if isinstance(op, Read):
            return [("Read", {"file_path": path(op.path)})]
        if isinstance(op, Write):
            return [("Write", {"file_path": path(op.path), "content": op.content})]
        if isinstance(op, Edit):
            return [("Edit", {"file_path": path(op.path), "old_string": op.old, "new_string": op.new})]
        if isinstance(op, Delete):
            return [("Bash", {"command": f"rm {shlex.quote(op.path)}", "description": f"Delete {op.path}"})]
        if isinstance(op, Shell):
            return [("Bash", {"command": op.command, "description": "Run a command"})]
        if isinstance(op, SubAgent):
            return [("Agent", {"description": op.description, "prompt": op.prompt, "subagent_type": "general-purpose"})]
        raise TypeError(op)


def apply_patch_text(op: Op) -> str:
    """An operation as a Codex patch (`*** Begin Patch` … `*** End Patch`)."""
    def lines(text: str, mark: str) -> str:
        return "".join(f"{mark}{line}\n" for line in text.splitlines())

    if isinstance(op, Write):
        body = f"*** Add File: {op.path}\n" + lines(op.content, "+")
    elif isinstance(op, Delete):
        body = f"*** Delete File: {op.path}\n"
    else:
        edits = op.edits if isinstance(op, MultiEdit) else ((op.old, op.new),)
        body = f"*** Update File: {op.path}\n" + "".join("@@\n" + lines(o, "-") + lines(n, "+") for o, n in edits)
    return f"*** Begin Patch\n{body}*** End Patch\n"


class Codex(Agent):
    name = "codex"
    package = "@openai/codex"
    model = "gpt-5-codex"
    ops = (Read, Write, Edit, MultiEdit, Delete, Shell)

    def binary(self, version, cache):
        return self.prefix(version, cache) / "node_modules" / ".bin" / "codex"

    def prepare(self, home, repo, url, settings):
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(
            "".join(f"{key} = {value}\n" for key, value in settings.items()) +
            f'model = "{self.model}"\nmodel_provider = "stub"\napproval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n\n'
            "[model_providers.stub]\nname = \"stub\"\n"
            f'base_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "STUB_API_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n\n"
            "[analytics]\nenabled = false\n\n[otel]\nexporter = \"none\"\n")
        return {"CODEX_HOME": str(codex_home), "STUB_API_KEY": "stub"}

    def leave_out(self, rel):
        # The skills Codex unpacks from its own package on every start (its files, not the session's).
        return rel.startswith(".codex/skills/.system/")

    def command(self, binary, turn, first, session):
        if first:
            return [str(binary), "exec", "--skip-git-repo-check", turn.prompt]
        return [str(binary), "exec", "resume", "--skip-git-repo-check", session or "--last", turn.prompt]

    def session_of(self, stdout, home):
        rollouts = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        return rollouts[-1].stem.split("-", 6)[-1] if rollouts else None

    def calls_for(self, op, repo):
        if isinstance(op, Shell):
            return [("exec_command", {"cmd": op.command, "workdir": str(repo)})]
        if isinstance(op, Read):
            return [("exec_command", {"cmd": f"cat {shlex.quote(op.path)}", "workdir": str(repo)})]
        patch = apply_patch_text(op)
        return [("exec_command", {"cmd": f"apply_patch <<'EOF'\n{patch}EOF\n", "workdir": str(repo)})]


class GeminiCli(Agent):
    """A sub-agent is Gemini CLI's `invoke_agent` of its generalist agent, which ends its run by
    calling `complete_task` with its answer: a sub-agent's last, text-only step is played so."""

    name = "gemini-cli"
    package = "@google/gemini-cli"
    ops = (Read, Write, Edit, Delete, Shell, SubAgent)
    model = "gemini-2.5-flash"

    def __init__(self) -> None:
        self.finals: set[int] = set()  # the steps (by id) that end a sub-agent's run

    def adapt(self, scenario):
        def mark(steps):
            for step in steps:
                for op in step.calls:
                    if isinstance(op, SubAgent) and op.steps:
                        mark(op.steps)
                        if not op.steps[-1].calls:
                            self.finals.add(id(op.steps[-1]))
        for turn in scenario.turns:
            mark(turn.steps)
        return scenario

    def render(self, step, repo):
        if id(step) in self.finals:
            return "", [("complete_task", {"result": {"response": step.text}})]
        return super().render(step, repo)

    def binary(self, version, cache):
        return self.prefix(version, cache) / "node_modules" / ".bin" / "gemini"

    def prepare(self, home, repo, url, settings):
        folder = home / ".gemini"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "settings.json").write_text(json.dumps({
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "checkpointing": {"enabled": True}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "ide": {"enabled": False},
        }, indent=2))
        return {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "stub", "GEMINI_CLI_TRUST_WORKSPACE": "true"}

    def command(self, binary, turn, first, session):
        argv = [str(binary), "-p", turn.prompt, "--yolo", "-m", self.model, "--output-format", "json"]
        return argv if first else [*argv, "--resume", "latest"]

    def calls_for(self, op, repo):
        if isinstance(op, Read):
            return [("read_file", {"file_path": str(repo / op.path)})]
        if isinstance(op, Write):
            return [("write_file", {"file_path": str(repo / op.path), "content": op.content})]
        if isinstance(op, Edit):
            return [("replace", {"file_path": str(repo / op.path), "old_string": op.old, "new_string": op.new,
                                 "instruction": "Apply the change."})]
        if isinstance(op, Delete):
            return [("run_shell_command", {"command": f"rm {shlex.quote(op.path)}", "description": f"Delete {op.path}"})]
        if isinstance(op, Shell):
            return [("run_shell_command", {"command": op.command, "description": "Run a command"})]
        if isinstance(op, SubAgent):
            return [("invoke_agent", {"agent_name": "generalist", "prompt": op.prompt})]
        raise TypeError(op)


class OpenCode(Agent):
    name = "opencode"
    package = "opencode-ai"
    model = "stub/stub-model"
    ops = (Read, Write, Edit, Delete, Shell, SubAgent)

    def binary(self, version, cache):
        return self.prefix(version, cache) / "node_modules" / ".bin" / "opencode"

    def prepare(self, home, repo, url, settings):
        folder = home / ".config" / "opencode"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "opencode.json").write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"stub": {"npm": "@ai-sdk/openai-compatible", "name": "Stub",
                                  "options": {"baseURL": f"{url}/v1", "apiKey": "stub"},
                                  "models": {"stub-model": {"name": "Stub model"}}}},
            "model": "stub/stub-model", "small_model": "stub/stub-model",
            "autoupdate": False, "share": "disabled", "permission": {"edit": "allow", "bash": "allow"},
        }, indent=2))
        return {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1"}

    def command(self, binary, turn, first, session):
        argv = [str(binary), "run", turn.prompt]
        return argv if first else [*argv, "--continue"]

    def calls_for(self, op, repo):
        if isinstance(op, Read):
            return [("read", {"filePath": str(repo / op.path)})]
        if isinstance(op, Write):
            return [("write", {"filePath": str(repo / op.path), "content": op.content})]
        if isinstance(op, Edit):
            return [("edit", {"filePath": str(repo / op.path), "oldString": op.old, "newString": op.new})]
        if isinstance(op, Delete):
            return [("bash", {"command": f"rm {shlex.quote(op.path)}", "description": f"Delete {op.path}"})]
        if isinstance(op, Shell):
            return [("bash", {"command": op.command, "description": "Run a command"})]
        if isinstance(op, SubAgent):
            return [("task", {"description": op.description, "prompt": op.prompt, "subagent_type": "general"})]
        raise TypeError(op)

    def side_request(self, body):
        return not body.get("tools")  # the session title

    def leave_out(self, rel):
        # Its own copies of node packages and binaries (provider SDKs it installs, ripgrep).
        return rel.startswith((".npm/", ".cache/opencode/", ".local/share/opencode/bin/", ".config/opencode/node_modules/"))


def versions(path: Path | None = None) -> list[tuple[str, str]]:
    """The pinned (agent, version) pairs of versions.txt, one a line."""
    path = path or Path(__file__).with_name("versions.txt")
    pairs = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            agent, version = line.split()
            pairs.append((agent, version))
    return pairs


def run_env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    """The environment of one agent run: everything of the agent's lives under `home`."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM", "TZ", "USER", "SHELL")}
    env.update(QUIET)
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state"),
                "CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex"), "TZ": "UTC"})
    env.update(extra)
    return env


# The agents whose tool uses are in the model's text (Aider's edit blocks, Cline's XML), in their
# own module; imported last, as they build on what is above.
from .text_agents import Aider, Cline  # noqa: E402

AGENTS: dict[str, Agent] = {a.name: a for a in (ClaudeCode(), Codex(), GeminiCli(), OpenCode(), Aider(), Cline())}
