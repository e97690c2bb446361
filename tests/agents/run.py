"""Regenerate the live fixtures: install the pinned agents, run every scenario through every
agent that can express it against the scripted model, and write each run's home as a fixture.

    python -m tests.agents.run                          # everything in versions.txt
    python -m tests.agents.run --agent codex --scenario resume
    python -m tests.agents.run --list

Installs go to ~/.cache/memtui-live (MEMTUI_LIVE_CACHE), runs to /tmp/memtui-live/<agent>-<version>/
<scenario>/ (a fixed place: the transcripts record the workspace path), fixtures to
tests/fixtures/live/<agent>-<version>/<scenario>/ (home/, truth.json). Each agent run gets HOME,
CLAUDE_CONFIG_DIR, CODEX_HOME and XDG_* inside the run folder; only npm's own cache uses the
real HOME. The stub's request log of each run stays in the cache folder (logs/).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import tarfile
import subprocess
import sys
import time
from pathlib import Path

from .agents import AGENTS, Agent, run_env, versions
from .scenario import Scenario
from .scenarios import SCENARIOS
from .stub import Script, StubModel
from .truth import truth_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "live"
RUNS = Path("/tmp/memtui-live")
TURN_TIMEOUT = 180
GIT_ENV = {"GIT_AUTHOR_NAME": "memtui", "GIT_AUTHOR_EMAIL": "memtui@example.invalid",
           "GIT_COMMITTER_NAME": "memtui", "GIT_COMMITTER_EMAIL": "memtui@example.invalid",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


class RunFailed(Exception):
    """A run did not end as its scenario says (an agent error, a file not as scripted)."""


def cache_dir() -> Path:
    return Path(os.environ.get("MEMTUI_LIVE_CACHE", Path.home() / ".cache" / "memtui-live"))


def make_repo(repo: Path, files: dict[str, str], home: Path) -> None:
    """The workspace: a git repository holding `files`, one commit, fixed dates."""
    repo.mkdir(parents=True)
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    env = {**os.environ, **GIT_ENV, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "config", "user.name", "memtui"],
                 ["git", "config", "user.email", "memtui@example.invalid"], ["git", "add", "-A"],
                 ["git", "commit", "-q", "-m", "start"]):
        subprocess.run(argv, cwd=repo, env=env, check=True)


def workspace_files(repo: Path) -> dict[str, str]:
    """The workspace's files as the scenario sees them (git's and agents' dot-files aside)."""
    out = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if path.is_file() and not rel.startswith(".") and "/." not in rel:
            out[rel] = path.read_text(errors="replace")
    return out


def settle_sqlite(home: Path) -> list[str]:
    """Fold each SQLite write-ahead log of the home into its database, as SQLite does when the
    last connection closes (the agents exit without closing): the same rows, without a WAL
    that is mostly unused pages. The databases so settled."""
    settled = []
    for wal in sorted(home.rglob("*-wal")):
        db = wal.with_name(wal.name[:-4])
        if db.is_file():
            with sqlite3.connect(db) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()
            settled.append(db.relative_to(home).as_posix())
    return settled


def copy_home(agent: Agent, home: Path, target: Path) -> list[str]:
    """Copy the run's home into the fixture, leaving out what `agent.leave_out` names (and
    sockets, links); the paths left out. A folder named `.git` (a shadow repository) becomes
    `.git.tar` beside where it was: git keeps no folder of that name in a commit."""
    left_out = []
    for git_dir in sorted(home.rglob(".git")):
        if git_dir.is_dir():
            dest = target / git_dir.relative_to(home).parent
            dest.mkdir(parents=True, exist_ok=True)
            with tarfile.open(dest / ".git.tar", "w") as tar:
                tar.add(git_dir, arcname=".git", filter=_fixed_owner)
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home).as_posix()
        if ".git" in path.relative_to(home).parts:
            continue
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            left_out.append(rel)
            continue
        if agent.leave_out(rel + ("/" if path.is_dir() else "")):
            if path.is_file():
                left_out.append(rel)
            continue
        dest = target / rel
        if path.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)
    return left_out


def _fixed_owner(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def keep_workspace(repo: Path, files_after: dict[str, str], target: Path) -> list[str]:
    """What the agent wrote into the workspace beside the scenario's files (Aider's chat
    history…) goes to the fixture's workspace/, and the workspace's git history (an agent's
    commits) to workspace.bundle when the agent committed; the paths kept."""
    kept = []
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo)
        if path.is_file() and ".git" not in rel.parts and rel.as_posix() not in files_after:
            (target / "workspace" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / "workspace" / rel)
            kept.append(rel.as_posix())
    commits = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True)
    if commits.stdout.strip() not in ("", "1"):
        subprocess.run(["git", "bundle", "create", "-q", str(target / "workspace.bundle"), "--all"], cwd=repo, check=True)
        kept.append("workspace.bundle")
    return kept


def play_turns(agent: Agent, version: str, binary: Path, scenario: Scenario, repo: Path, env: dict, logs: Path,
               home: Path) -> str | None:
    """Run each turn of `scenario` (a resumed one in the session before); the last session."""
    session = None
    for i, turn in enumerate(scenario.turns):
        if turn.kind == "aside":
            done = agent.ask_aside(binary, turn, session, cwd=repo, env=env, timeout=TURN_TIMEOUT)
            argv = done.args
        else:
            argv = agent.command(binary, turn, i == 0 or not turn.resume, session)
            done = subprocess.run(argv, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=TURN_TIMEOUT)
        (logs / f"{scenario.name}.turn{i}.out").write_text(
            f"$ {' '.join(argv)}\nexit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}")
        if done.returncode != 0:
            raise RunFailed(f"{agent.name} {version} {scenario.name} turn {i}: exit {done.returncode}: "
                            f"{(done.stderr or done.stdout).strip()[-400:]}")
        session = agent.session_of(done.stdout, home) or session
    return session


def run_one(agent: Agent, version: str, scenario: Scenario, *, cache: Path, out: Path = FIXTURES) -> dict:
    """Run `scenario` through `agent` `version`; write its fixture; a summary of the run."""
    started = time.monotonic()
    binary = agent.binary(version, cache)
    scenario = agent.adapt(scenario)
    place = RUNS / f"{agent.name}-{version}" / scenario.name
    shutil.rmtree(place, ignore_errors=True)
    home, repo = place / "home", place / "repo"
    home.mkdir(parents=True)
    make_repo(repo, scenario.files, home)
    logs = cache / "logs" / f"{agent.name}-{version}"
    logs.mkdir(parents=True, exist_ok=True)
    request_log = logs / f"{scenario.name}.requests.jsonl"
    request_log.unlink(missing_ok=True)
    script = Script(scenario, lambda step, where: agent.render(step, repo), side_request=agent.side_request,
                    text_calls=agent.text_calls, command_request=agent.command_request)
    with StubModel(script, request_log) as model:
        env = run_env(home, {**agent.prepare(home, repo, model.url, scenario.settings), **scenario.env})
        try:
            play_turns(agent, version, binary, scenario, repo, env, logs, home)
        finally:
            agent.after_run(home, repo)
    truth = truth_of(scenario, agent, repo, getattr(agent, "model", "stub"))
    found = workspace_files(repo)
    if found != truth["files_after"]:
        raise RunFailed(f"{agent.name} {version} {scenario.name}: workspace is {sorted(found)} "
                        f"not {sorted(truth['files_after'])} (or their contents differ)")
    target = out / f"{agent.name}-{version}" / scenario.name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    settled = settle_sqlite(home)
    left_out = copy_home(agent, home, target / "home")
    extra = keep_workspace(repo, truth["files_after"], target)
    truth.update({"agent": agent.name, "version": version, "left_out": left_out, "sqlite_wal_folded": settled, "workspace_files": extra})
    (target / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    return {"agent": agent.name, "version": version, "scenario": scenario.name, "seconds": time.monotonic() - started,
            "bytes": size}


def plan(agent_names: list[str] | None, scenario_names: list[str] | None,
         version_names: list[str] | None = None) -> list[tuple[Agent, str, Scenario]]:
    """Every (agent, version, scenario) to run: pinned versions × scenarios the agent can express."""
    out = []
    for name, version in versions():
        if agent_names and name not in agent_names or version_names and version not in version_names:
            continue
        agent = AGENTS[name]
        for scenario in SCENARIOS:
            if scenario.versions and version not in scenario.versions:
                continue
            if (not scenario_names or scenario.name in scenario_names) and agent.can_express(scenario) \
                    and not agent.skips(version, scenario):
                out.append((agent, version, scenario))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.agents.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", action="append", help="only this agent (repeatable)")
    parser.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    parser.add_argument("--version", action="append", help="only this pinned version (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the runs and stop")
    parser.add_argument("--no-install", action="store_true", help="use what the cache holds")
    args = parser.parse_args(argv)
    cache = cache_dir()
    runs = plan(args.agent, args.scenario, args.version)
    if args.list:
        for agent, version, scenario in runs:
            print(f"{agent.name}-{version} {scenario.name}")
        return 0
    started = time.monotonic()
    for agent, version in sorted({(a.name, v) for a, v, _ in runs}):
        if not args.no_install and not AGENTS[agent].installed(version, cache):
            print(f"installing {agent} {version} into {cache}", flush=True)
            AGENTS[agent].install(version, cache)
    failed = 0
    for agent, version, scenario in runs:
        try:
            done = run_one(agent, version, scenario, cache=cache)
            print(f"ok   {agent.name}-{version} {scenario.name}: {done['seconds']:.1f} s, {done['bytes'] // 1024} KiB",
                  flush=True)
        except (RunFailed, subprocess.TimeoutExpired) as exc:
            failed += 1
            print(f"FAIL {exc}", flush=True)
    print(f"{len(runs) - failed} of {len(runs)} runs in {time.monotonic() - started:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
