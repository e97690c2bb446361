"""Gemini CLI's own checkpoints, made by the real CLI in its terminal UI.

    python -m tests.agents.gemini_checkpoints            # writes tests/fixtures/live/gemini-cli-<v>/checkpoints/

Gemini CLI snapshots the project into its shadow git repository (`~/.gemini/history/<project>/`)
and writes a checkpoint file (`~/.gemini/tmp/<project>/checkpoints/<time>-<file>-<tool>.json`:
the commit, the tool call, the prompt id) only for a `write_file` or `replace` call that is
*awaiting approval* in the interactive UI (its useGeminiStream hook, `processRestorableToolCalls`):
a headless `gemini -p`, or `--yolo`, approves every call at once and makes none. So this runner
plays its scenario in the terminal UI, in a tmux server of its own (its own socket, killed by
name at the end), with the default approval mode: it types each prompt, waits for each edit's
approval dialog *and* for that call's checkpoint file (the snapshot is taken while the dialog is
up; approving sooner could snapshot the edit itself), answers "Allow once", waits for the turn's
last reply, and ends with /quit. Everything else is the headless runner's (tests.agents.run):
the run's place under /tmp/memtui-live, HOME, GEMINI_CLI_HOME and every XDG folder inside it,
the scripted model on 127.0.0.1, the fixture layout, truth.json from the scenario alone.

Left out of the fixture (listed in truth.json's `left_out`): the sample hooks git copies into a
new repository's `hooks/` (git's own templates, not Gemini's data).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from .agents import AGENTS, run_env, versions
from .run import FIXTURES, RUNS, RunFailed, _fixed_owner, cache_dir, make_repo, workspace_files
from .scenario import Edit, Read, Scenario, Step, Turn, Usage, Write
from .stub import Script, StubModel
from .truth import apply_op, truth_of

NOTES = "# Notes\n\nalpha\nbeta\ngamma\n"
SCENARIO = Scenario("checkpoints", files={"notes.md": NOTES}, only=("gemini-cli",), turns=(
    Turn("Checkpoint prompt one: write greet.py, then rename beta to delta in notes.md.", [
        Step([Write("greet.py", 'def greet(name):\n    return "Hello, " + name\n')], text="Writing greet.py.",
             usage=Usage(input=1000, output=40, cache_read=0)),
        Step([Read("notes.md")], usage=Usage(input=70, output=12, cache_read=900)),
        Step([Edit("notes.md", "beta\n", "delta\n")], usage=Usage(input=90, output=23, cache_read=950)),
        Step(text="Wrote greet.py and renamed beta to delta.", usage=Usage(input=60, output=17, cache_read=1000)),
    ]),
    # The same session (the UI stays open): a file of the first prompt edited again, one rewritten, one added.
    Turn("Checkpoint prompt two: add epsilon to notes.md, rewrite greet.py, add done.txt.", resume=True, steps=[
        Step([Edit("notes.md", "gamma\n", "gamma\nepsilon\n")], usage=Usage(input=300, output=26, cache_read=1100)),
        Step([Write("greet.py", 'def greet(name):\n    return f"Hi, {name}"\n')], usage=Usage(input=310, output=30, cache_read=1150)),
        Step([Write("done.txt", "done\n")], usage=Usage(input=320, output=11, cache_read=1200)),
        Step(text="Added epsilon, rewrote greet.py and wrote done.txt.", usage=Usage(input=45, output=12, cache_read=1250)),
    ]),
))
SOCKET = "memtui-gemini-checkpoints"  # this runner's own tmux server
TIMEOUT = 120
APPROVAL = "Apply this change?"
INPUT_READY = "Type your message"


def tmux(*args: str, check: bool = True) -> str:
    done = subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=check)
    return done.stdout


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", "run", "-S", "-200")


def running() -> bool:
    return subprocess.run(["tmux", "-L", SOCKET, "has-session", "-t", "run"], capture_output=True).returncode == 0


def wait_for(what: str, test, timeout: float = TIMEOUT):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = test()
        if found:
            return found
        time.sleep(0.3)
    raise RunFailed(f"gemini-cli checkpoints: waited {timeout:.0f} s for {what}; the screen:\n{screen()[-3000:]}")


def type_line(text: str) -> None:
    tmux("send-keys", "-t", "run", "-l", text)
    time.sleep(0.5)
    tmux("send-keys", "-t", "run", "Enter")


def files_at_each_turn(scenario: Scenario) -> list[dict[str, str]]:
    """The workspace's files at the start of each turn, from the scenario alone."""
    files, out = dict(scenario.files), []
    for turn in scenario.turns:
        out.append(dict(files))
        for step in turn.steps:
            for op in step.calls:
                apply_op(files, op)
    return out


def play(scenario: Scenario, repo: Path, home: Path, checkpoints: Path, files_after_turn: list[dict[str, str]]) -> None:
    wait_for("the input box", lambda: INPUT_READY in screen())
    made = 0
    for n, turn in enumerate(scenario.turns):
        type_line(turn.prompt)
        edits = sum(isinstance(op, (Write, Edit)) for step in turn.steps for op in step.calls)
        last_text = turn.steps[-1].text
        for _ in range(edits):
            wait_for("an approval dialog", lambda: APPROVAL in screen())
            made += 1
            wait_for(f"checkpoint file {made}", lambda: len(list(checkpoints.glob("*.json"))) >= made)
            time.sleep(1.0)  # the file is written after the snapshot's commit; let the UI settle
            tmux("send-keys", "-t", "run", "Enter")  # 1. Allow once
            wait_for("the dialog to close", lambda: APPROVAL not in screen().rsplit(turn.prompt, 1)[-1]
                     or len(list(checkpoints.glob("*.json"))) > made)  # or the next one is up
        wait_for(f"turn {n}'s last reply", lambda: last_text in screen().rsplit(turn.prompt, 1)[-1]
                 and workspace_files(repo) == files_after_turn[n])
        wait_for("the turn to end", lambda: "esc to cancel" not in screen())
        time.sleep(1.5)
    type_line("/quit")
    wait_for("gemini to exit", lambda: not running(), timeout=60)


def tar_git(git_dir: Path, dest: Path, home: Path) -> list[str]:
    """`.git` as `.git.tar` beside where it was, without git's sample hooks (the paths left out)."""
    left_out = []

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if info.name.startswith(".git/hooks/") and info.name.endswith(".sample"):
            left_out.append((git_dir.relative_to(home) / info.name[len(".git/"):]).as_posix())
            return None
        return _fixed_owner(info)

    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(dest / ".git.tar", "w") as tar:
        tar.add(git_dir, arcname=".git", filter=keep)
    return sorted(left_out)


def run(version: str) -> Path:
    agent = AGENTS["gemini-cli"]
    cache = cache_dir()
    if not agent.installed(version, cache):
        print(f"installing gemini-cli {version} into {cache}", flush=True)
        agent.install(version, cache)
    scenario = agent.adapt(SCENARIO)
    place = RUNS / f"gemini-cli-{version}" / scenario.name
    shutil.rmtree(place, ignore_errors=True)
    home, repo = place / "home", place / "repo"
    home.mkdir(parents=True)
    make_repo(repo, scenario.files, home)
    logs = cache / "logs" / f"gemini-cli-{version}"
    logs.mkdir(parents=True, exist_ok=True)
    request_log = logs / f"{scenario.name}.requests.jsonl"
    request_log.unlink(missing_ok=True)
    at_turn = files_at_each_turn(scenario)
    after_turn = [*at_turn[1:], truth_of(scenario, agent, repo, agent.model)["files_after"]]
    script = Script(scenario, lambda step, where: agent.render(step, repo), side_request=agent.side_request)
    tmux("kill-server", check=False)
    with StubModel(script, request_log) as model:
        env = run_env(home, {**agent.prepare(home, repo, model.url, scenario.settings), "GEMINI_CLI_HOME": str(home)})
        env.pop("CI", None)  # with CI set Gemini CLI will not start its terminal UI
        launcher = place / "gemini.sh"
        launcher.write_text("#!/bin/sh\nexec env -i " + " ".join(f"{k}='{v}'" for k, v in sorted(env.items())) +
                            f" '{agent.binary(version, cache)}' -m {agent.model}\n")
        launcher.chmod(0o755)
        tmux("new-session", "-d", "-s", "run", "-x", "160", "-y", "50", "-c", str(repo), str(launcher))
        try:
            play(scenario, repo, home, home / ".gemini" / "tmp" / repo.name / "checkpoints", after_turn)
        finally:
            (logs / f"{scenario.name}.screen.txt").write_text(screen() if running() else "")
            tmux("kill-server", check=False)
    truth = truth_of(scenario, agent, repo, agent.model)
    if workspace_files(repo) != truth["files_after"]:
        raise RunFailed(f"gemini-cli {version} checkpoints: the workspace is not the truth's files-after")
    target = FIXTURES / f"gemini-cli-{version}" / scenario.name
    shutil.rmtree(target, ignore_errors=True)
    (target / "home").mkdir(parents=True)
    left_out = []
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home)
        if ".git" in rel.parts:
            if path.name == ".git" and path.is_dir():
                left_out += tar_git(path, target / "home" / rel.parent, home)
            continue
        if path.is_dir():
            (target / "home" / rel).mkdir(parents=True, exist_ok=True)
        elif path.is_file() and not path.is_symlink():
            shutil.copy2(path, target / "home" / rel)
        else:
            left_out.append(rel.as_posix())
    truth.update({"agent": "gemini-cli", "version": version, "left_out": left_out, "sqlite_wal_folded": [],
                  "workspace_files": [], "interactive": True, "files_at_turn": at_turn})
    (target / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    return target


def main() -> int:
    [version] = [v for a, v in versions() if a == "gemini-cli"]
    target = run(version)
    print(f"ok   {target}: {sum(p.stat().st_size for p in target.rglob('*') if p.is_file()) // 1024} KiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
