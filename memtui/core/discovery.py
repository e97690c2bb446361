"""Finding the agent memory in a path: `discover(path) -> list[Source]`.

PATH may be a workspace (project folder) or a store itself: an agent.db or `.agent/`, a
`.ra-aid` folder or pk.db, a JSONL session store, a Claude Code home / projects folder /
project folder / transcript, a Codex home / sessions folder / rollout. For a workspace we
look inside it and for the transcripts Claude Code and Codex kept of it, matched by the
working directory recorded in them. Nothing is written anywhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from memtui.core.errors import MemtuiError, no_such_path, not_a_store
from memtui.core.model import Problem
from memtui.core.agents.claude_code import source as claude_code
from memtui.core.agents.codex import source as codex
from memtui.core.memory_source import Capability, MemorySource
from memtui.core.sources.jsonl import first_record
from memtui.core.agents.jsonl.source import JsonlSessionsSource, is_jsonl_store
from memtui.core.agents.memtui.memory_files import MemoryFilesSource, find_memory_files
from memtui.core.agents.ra_aid.source import RaAidSource, is_ra_aid_db
from memtui.core.cleanup.places import archive_dir
from memtui.core.sources.archived import with_archived
from memtui.core.sqlite_readonly import is_sqlite
from memtui.core.store.paths import AGENT_DIR, store_in, store_of

KINDS: tuple[str, ...] = ("memtui", "memory-files", "ra-aid", "jsonl-sessions", "claude-code", "codex")


@dataclass
class Source:
    """One store found by `discover`: its kind, where it is, and how to open it.

    `counts()` and `problems()` read the store (once, cached); `open()` returns the
    adapter (or the native AgentStore) that implements MemorySource.
    """

    kind: str
    path: Path
    opener: Callable[[], MemorySource] = field(repr=False, compare=False)
    label: str = ""
    _opened: MemorySource | None = field(default=None, repr=False, compare=False)
    _problems: list[Problem] = field(default_factory=list, repr=False, compare=False)

    def open(self) -> MemorySource:
        """The MemorySource for this store, opened read-only (cached)."""
        if self._opened is None:
            self._opened = self.opener()
        return self._opened

    def counts(self) -> dict[str, int]:
        store = self.open()
        return dict(store.counts())

    def problems(self) -> list[Problem]:
        return [*self._problems, *self.open().problems()]

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What the opened source declares it can do."""
        return self.open().capabilities

    def close(self) -> None:
        if self._opened is not None:
            self._opened.close()
        self._opened = None

    def to_json(self) -> dict:
        """The `memtui sources --json` shape of this source."""
        try:
            counts = self.counts()
            problems = self.problems()
            capabilities = sorted(c.value for c in self.capabilities)
        except MemtuiError as exc:
            counts, problems, capabilities = {}, [Problem(str(self.path), None, str(exc))], []
        return {
            "kind": self.kind,
            "path": str(self.path),
            "counts": counts,
            "capabilities": capabilities,
            "problems": [{"file": p.file, "line": p.line, "message": p.message} for p in problems],
        }


def _open_native(path: Path) -> MemorySource:
    from memtui.core.store import AgentStore  # the store imports sources lazily, not back

    return AgentStore.open(path, readonly=True)


def _native(path: Path) -> Source:
    return Source("memtui", path, lambda: _open_native(path), label="memtui")


def _ra_aid(db: Path) -> Source:
    return Source("ra-aid", db, lambda: RaAidSource(db), label="RA.Aid")


def _jsonl(root: Path) -> Source:
    return Source("jsonl-sessions", root, lambda: JsonlSessionsSource(root), label="JSONL sessions")


@dataclass(frozen=True)
class _Archive:
    """Where memtui's archive is, and whose archived sessions a source lists beside its own:
    the whole home's (`project` None) or one project's."""

    root: Path
    project: Path | None = None


def _claude(path: Path, transcripts: list[Path], home: Path | None, archive: _Archive | None = None,
            relist: Callable[[], list[Path]] | None = None) -> Source:
    def opener():
        live = claude_code.ClaudeCodeSource(transcripts, home=home, path=path, relist=relist)
        return _with_archived(live, home, archive, claude_code.ClaudeCodeSource.from_path)
    return Source("claude-code", path, opener, label="Claude Code")


def _codex(path: Path, rollouts: list[Path], home: Path | None, archive: _Archive | None = None,
           relist: Callable[[], list[Path]] | None = None) -> Source:
    def opener():
        live = codex.CodexSource(rollouts, home=home, path=path, relist=relist)
        return _with_archived(live, home, archive, codex.CodexSource.from_path)
    return Source("codex", path, opener, label="Codex")


def _with_archived(live, home: Path | None, archive: _Archive | None, open_view):
    if archive is None or home is None:
        return live  # a single transcript or rollout: its own sessions only
    return with_archived(live, home, open_view, project=archive.project, archive_root=archive.root)


def _archived_here(home: Path, agent: str, archive: _Archive) -> bool:
    """Whether memtui's archive holds sessions of this home (of this project)."""
    from memtui.core.cleanup.archive_read import list_archived

    manifests = list_archived(archive.root, agent, home=os.path.realpath(home))
    if archive.project is not None:
        target = os.path.realpath(archive.project)
        manifests = [m for m in manifests if m.project and os.path.realpath(m.project) == target]
    return any(m.kind == "session" for m in manifests)


def _store_at(path: Path, env: dict[str, str]) -> list[Source] | None:
    """The store `path` itself is, or None if it is not one (then it is a workspace)."""
    whole = _Archive(archive_dir(env))
    if path.is_file():
        if is_sqlite(path):
            return [_ra_aid(path)] if is_ra_aid_db(path) else [_native(path)]
        if path.suffix == ".jsonl":
            record = first_record(path) or {}
            if codex.looks_like_rollout(path):
                home = next((p.parent for p in path.parents if p.name in ("sessions", "archived_sessions")), None)
                return [_codex(path, [path], home)]
            if claude_code.looks_like_transcript(path):
                home = next((p.parent for p in path.parents if p.name == "projects"), None)
                return [_claude(path, [path], home)]
            if "key" in record and path.parent.name == "sessions":
                return [_jsonl(path.parent.parent)]
        return None
    if not path.is_dir():
        return None
    if path.name == ".ra-aid" and (path / "pk.db").is_file():
        return [_ra_aid(path / "pk.db")]
    if path.name == AGENT_DIR and (native := store_of(path)) is not None:  # memtui's .agent folder
        return [_native(native)]
    if (path / "pk.db").is_file() and is_ra_aid_db(path / "pk.db"):  # --project-state-dir DIR
        return [_ra_aid(path / "pk.db")]
    # The stores below list their sessions again at each reload (`relist`).
    if (path / "projects").is_dir():
        relist = claude_code.session_lister(path / "projects")
        transcripts = relist()
        if any(claude_code.looks_like_transcript(t) for t in transcripts[:5]) or _archived_here(path, "claude-code", whole):
            return [_claude(path, transcripts, path, whole, relist)]
    if path.name == "projects" or path.parent.name == "projects":
        relist = claude_code.session_lister(path)
        transcripts = relist()
        if any(claude_code.looks_like_transcript(t) for t in transcripts[:5]):
            home = path.parent if path.name == "projects" else path.parent.parent
            return [_claude(path, transcripts, home, whole if path.name == "projects" else None, relist)]
    relist = codex.rollout_lister(path)
    rollouts = relist() if ((path / "sessions").is_dir() or path.name in ("sessions", "archived_sessions")) else []
    if rollouts or ((path / "sessions").is_dir() and _archived_here(path, "codex", whole)):
        home = path if (path / "sessions").is_dir() else path.parent
        return [_codex(path, rollouts, home, whole if home == path else None, relist)]
    return None


def store_kind_at(path: Path | str, *, env: dict[str, str] | None = None) -> str | None:
    """The kind of store `path` itself is ("claude-code" for a Claude Code home holding
    transcripts, "codex", "memtui" for an agent.db…), or None where it is a workspace: a project
    with a `projects/` or `sessions/` folder of its own is no agent's home."""
    found = _store_at(Path(path).expanduser().resolve(), dict(os.environ if env is None else env))
    return found[0].kind if found else None


def discover(path: Path | str, *, env: dict[str, str] | None = None) -> list[Source]:
    """Every agent store at or for `path`, in the order memtui, memory-files, ra-aid,
    jsonl-sessions, claude-code, codex. Empty when nothing is found.

    `env` replaces os.environ for `CLAUDE_CONFIG_DIR` / `CODEX_HOME` / `HOME` (tests).
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise no_such_path(path)
    path = path.resolve()
    env = dict(os.environ if env is None else env)
    store = _store_at(path, env)
    if store is not None:
        return store
    mine = _Archive(archive_dir(env), project=path)  # this project's archived sessions
    found: list[Source] = []
    native = store_in(path)
    if native.is_file():
        found.append(_native(native))
    files = find_memory_files(path)
    if files:
        found.append(Source("memory-files", path, lambda: MemoryFilesSource(path, files), label="memory files"))
    ra = path / ".ra-aid" / "pk.db"
    if ra.is_file() and is_ra_aid_db(ra):
        found.append(_ra_aid(ra))
    if is_jsonl_store(path):
        found.append(_jsonl(path))
    # The user's own home folder is where the agents keep their homes, not one project:
    # every session of ~/.claude and ~/.codex is "for" it (`cd ~ && memtui`).
    whole = _user_home(env) == path
    home = _home(env, "CLAUDE_CONFIG_DIR", ".claude")
    if home is not None and whole and home.is_dir():
        found += _store_at(home.resolve(), env) or []
    elif home is not None:
        relist = claude_code.workspace_lister(path, home)  # listed again at each reload
        transcripts = relist()
        if transcripts or _archived_here(home, "claude-code", mine):
            found.append(_claude(home / "projects", transcripts, home, mine, relist))
    home = _home(env, "CODEX_HOME", ".codex")
    if home is not None and whole and home.is_dir():
        found += _store_at(home.resolve(), env) or []
    elif home is not None:
        relist = codex.workspace_lister(path, home)
        rollouts = relist()
        if rollouts or _archived_here(home, "codex", mine):
            found.append(_codex(home / "sessions", rollouts, home, mine, relist))
    return found


def discover_given(path: Path | str, *, env: dict[str, str] | None = None) -> list[Source]:
    """`discover(path)` for a PATH the user gave: a file that holds no store is refused
    (`not_a_store`); a folder may hold none (empty list)."""
    found = discover(path, env=env)
    if not found and Path(path).expanduser().is_file():
        raise not_a_store(Path(path).expanduser())
    return found


def _user_home(env: dict[str, str]) -> Path | None:
    value = env.get("HOME")
    if not value:
        return None
    try:
        return Path(value).expanduser().resolve()
    except (OSError, RuntimeError):
        return None


def _home(env: dict[str, str], variable: str, default: str) -> Path | None:
    value = env.get(variable)
    if value:
        return Path(value).expanduser()
    user_home = env.get("HOME")
    return Path(user_home) / default if user_home else None
