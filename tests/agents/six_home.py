"""A user's home folder holding six agents' homes, built from the live fixtures the real CLIs
wrote (tests/fixtures/live): Claude Code 2.1.332 (~/.claude), Codex 0.171.0 (~/.codex), Gemini
CLI 0.61.0 (~/.gemini), OpenCode 1.18.33 (~/.local/share/opencode/opencode.db), Cline CLI
2.18.0 (~/.cline/data) and Aider 0.86.2 (its history in repositories under ~/src/).

`make_six_agent_home(folder, copies)` places every scenario's session of each agent `copies`
times; each further copy is the same files under new ids (written into the file names and the
records, the OpenCode rows and the Aider start lines), so a home of any size is made of what
the tools wrote. Each scenario is one session (its truth.json says so), so the home holds
`copies × scenarios` sessions of each agent: `expected_sessions` counts them from the truths,
not from memtui.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import uuid
from datetime import datetime, timedelta
from pathlib import Path

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live"
AGENTS = {  # agent label → its fixture folder
    "Claude Code": "claude-code-2.1.332",
    "Codex": "codex-0.171.0",
    "Gemini CLI": "gemini-cli-0.61.0",
    "OpenCode": "opencode-1.18.33",
    "Aider": "aider-0.86.2",
    "Cline": "cline-2.18.0",
}


def scenarios(label: str) -> list[Path]:
    return sorted(p for p in (LIVE / AGENTS[label]).iterdir() if (p / "truth.json").is_file())


def expected_sessions(copies: int) -> dict[str, int]:
    """Sessions of each agent in the home, from the scenarios' truths."""
    return {label: copies * sum(json.loads((s / "truth.json").read_text())["sessions"] for s in scenarios(label))
            for label in AGENTS}


def _uid(old: str, n: int) -> str:
    """Copy n's id for a uuid-shaped id (copy 0 keeps it)."""
    return old if n == 0 else str(uuid.uuid5(uuid.NAMESPACE_OID, f"{old}/{n}"))


def _copy_tree(src: Path, dst: Path, swap: dict[str, str]) -> None:
    """`src` into `dst`, every id of `swap` replaced in names and in text files' bytes."""
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        rel = str(path.relative_to(src))
        for old, new in swap.items():
            rel = rel.replace(old, new)
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        if path.suffix in (".jsonl", ".json", ".md"):
            for old, new in swap.items():
                data = data.replace(old.encode(), new.encode())
        target.write_bytes(data)


def _claude(user: Path, copies: int) -> None:
    for scenario in scenarios("Claude Code"):
        claude = scenario / "home" / ".claude"
        sids = [p.stem for p in claude.glob("projects/*/*.jsonl")]
        for n in range(copies):
            swap = {sid: _uid(sid, n) for sid in sids}
            for part in ("projects", "file-history"):
                if (claude / part).is_dir():
                    _copy_tree(claude / part, user / ".claude" / part, swap)


def _codex(user: Path, copies: int) -> None:
    pattern = re.compile(r"rollout-.*-([0-9a-f]{8}-[0-9a-f-]{27})\.jsonl$")
    for scenario in scenarios("Codex"):
        codex = scenario / "home" / ".codex"
        ids = [m.group(1) for p in codex.glob("sessions/**/*.jsonl") if (m := pattern.search(p.name))]
        for n in range(copies):
            _copy_tree(codex / "sessions", user / ".codex" / "sessions", {i: _uid(i, n) for i in ids})
    (user / ".codex" / "config.toml").write_text("")


def _gemini(user: Path, copies: int) -> None:
    for scenario in scenarios("Gemini CLI"):
        gemini = scenario / "home" / ".gemini"
        chats = next(gemini.glob("tmp/*/chats"))
        sids = [json.loads(p.open().readline())["sessionId"] for p in chats.glob("session-*.jsonl")]
        subs = [json.loads(p.open().readline())["sessionId"] for p in chats.glob("*/*.jsonl")]  # sub-agents' chats
        for n in range(copies):
            swap = {sub: _uid(sub, n) for sub in subs}  # each copy's sub-agents are its own, as its sessions are
            for sid in sids:
                new = _uid(sid, n)
                swap[sid] = new
                swap[f"-{sid[:8]}.json"] = f"-{new[:8]}.json"  # session-<date>-<sid8>.jsonl
            _copy_tree(chats.parent, user / ".gemini" / "tmp" / chats.parent.name, swap)
        shutil.copy2(gemini / "projects.json", user / ".gemini" / "projects.json")


def _opencode(user: Path, copies: int) -> None:
    """One opencode.db holding every scenario's sessions, `copies` times (ids suffixed)."""
    data = user / ".local" / "share" / "opencode"
    data.mkdir(parents=True, exist_ok=True)
    first = scenarios("OpenCode")[0] / "home" / ".local" / "share" / "opencode" / "opencode.db"
    target = data / "opencode.db"
    shutil.copy2(first, target)
    out = sqlite3.connect(target)
    for table in ("session", "message", "part", "event", "event_sequence"):
        out.execute(f"DELETE FROM {table}")
    ident = re.compile(r"\b(ses|msg|prt)_[A-Za-z0-9]+")
    for scenario in scenarios("OpenCode"):
        src = sqlite3.connect(f"file:{scenario / 'home/.local/share/opencode/opencode.db'}?immutable=1", uri=True)  # writes no -shm/-wal beside the fixture
        for project in src.execute("SELECT * FROM project"):  # the same worktree in every scenario
            marks = ", ".join("?" * len(project))
            out.execute(f"INSERT OR IGNORE INTO project VALUES ({marks})", project)
        for n in range(copies):
            def swap(value, n=n):
                return ident.sub(lambda m: m.group(0) + (f"x{n:04d}" if n else ""), value) \
                    if isinstance(value, str) else value
            for table in ("session", "message", "part"):
                for row in src.execute(f"SELECT * FROM {table}"):
                    marks = ", ".join("?" * len(row))
                    out.execute(f"INSERT INTO {table} VALUES ({marks})", [swap(v) for v in row])
        src.close()
    out.commit()
    out.close()
    shutil.copytree(scenarios("OpenCode")[0] / "home" / ".config", user / ".config", dirs_exist_ok=True)


PER_REPOSITORY = 10
"""Aider keeps one history per repository, appended to by each session: copies of a scenario go
into one repository's history, ten to a repository."""


def _aider(user: Path, copies: int) -> None:
    started = re.compile(rb"# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
    for scenario in scenarios("Aider"):
        for n in range(copies):
            repo = user / "src" / f"aider-{scenario.name}-{n // PER_REPOSITORY:03d}"
            if not repo.exists():  # the repository with the commits Aider made (its bundle)
                subprocess.run(["git", "clone", "-q", str(scenario / "workspace.bundle"), str(repo)], check=True,
                               capture_output=True)
            for name in (".aider.chat.history.md", ".aider.input.history"):
                data = (scenario / "workspace" / name).read_bytes()
                if name.endswith(".md"):  # a session's id is its start time: each copy starts n minutes later
                    data = started.sub(lambda m: b"# aider chat started at " + (datetime.strptime(
                        m.group(1).decode(), "%Y-%m-%d %H:%M:%S") + timedelta(minutes=n)).strftime(
                        "%Y-%m-%d %H:%M:%S").encode(), data)
                with open(repo / name, "ab") as out:
                    out.write(data)


def _cline(user: Path, copies: int) -> None:
    history: list[dict] = []
    data = user / ".cline" / "data"
    for scenario in scenarios("Cline"):
        src = scenario / "home" / ".cline" / "data"
        tasks = [p.name for p in (src / "tasks").iterdir()]
        entries = json.loads((src / "state" / "taskHistory.json").read_text())
        for n in range(copies):
            swap = {t: str(int(t) + 1000 * n) for t in tasks}  # task ids are start times in ms
            _copy_tree(src / "tasks", data / "tasks", swap)
            history += [json.loads(json.dumps(e).replace(e["id"], swap.get(e["id"], e["id"]))) for e in entries]
        for part in ("settings", "globalState.json"):
            if not (data / part).exists():
                (shutil.copytree if (src / part).is_dir() else shutil.copy2)(src / part, data / part)
    (data / "state").mkdir(parents=True, exist_ok=True)
    (data / "state" / "taskHistory.json").write_text(json.dumps(history))


def make_six_agent_home(folder: Path, copies: int = 1) -> Path:
    """The user's home folder `folder`/user holding the six agents' homes, each scenario's
    session `copies` times. Returns that home folder."""
    user = Path(folder) / "user"
    for make in (_claude, _codex, _gemini, _opencode, _aider, _cline):
        make(user, copies)
    return user
