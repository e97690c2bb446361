"""What each agent loads at session start: its memory chain, in order, with what is cut off.

Claude Code, Codex and an init.d agent (memtui's own layout) each build the text they start
with from several files — managed policy, user files, every CLAUDE.md from the filesystem
root down to the working directory, imports, auto memory; Codex's global AGENTS.md and one
AGENTS.md per directory under a byte budget; init.d files in name order. `loaded_chains`
lists those files for a workspace (and a working directory inside it) the way the agent
itself would find them: order, scope, size, how much is loaded and why, who imported it,
and the problems that make an agent "forget" (a cut-off MEMORY.md, an AGENTS.md past the
byte limit, a missing import, …), plus the memory lint rules applied to each file.

Nothing here writes. Every read is bounded: only regular files are opened (never a FIFO or
/dev/zero), never more than their size at open time, and at most READ_LIMIT bytes are kept.
The per-agent rules live in each agent package (`memtui.core.agents.<agent>.chain`), found
through the registry.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from memtui.core.memory.chain_lint import lint_chain_files
from memtui.core.memory.chain_records import ChainFile, ChainProblem, FileRead
from memtui.core.memory.discover import count_lines

SCOPES = ("managed", "user", "project", "local", "import", "auto-memory", "global", "directory")

READ_LIMIT = 16 * 1024 * 1024  # bytes kept per file for analysis; larger files are only counted
_CHUNK = 1024 * 1024
BYTES_PER_TOKEN = 4  # the usual rough estimate (≈ 4 characters per token for English text)


@dataclass(frozen=True)
class AgentChain:
    """The chain of one agent for one working directory."""

    agent: str
    cwd: Path
    files: tuple[ChainFile, ...]
    problems: tuple[ChainProblem, ...]
    label: str = ""  # the agent's name for people (set by memtui.core.loaded_memory)

    @property
    def total_loaded_bytes(self) -> int:
        return sum(f.loaded_bytes for f in self.files)

    @property
    def total_tokens(self) -> int:
        return sum(f.tokens for f in self.files)

    def file(self, path: Path) -> ChainFile | None:
        return next((f for f in self.files if f.path == Path(path)), None)

    def to_json(self) -> dict:
        return {
            "agent": self.agent, "files": [f.to_json() for f in self.files],
            "total_loaded_bytes": self.total_loaded_bytes, "total_tokens": self.total_tokens,
            "problems": [p.to_json() for p in self.problems],
        }


def read_bounded(path: Path, limit: int = READ_LIMIT) -> FileRead:
    """Read a chain file without ever hanging: regular files only, at most their size when
    opened (a file growing meanwhile is not chased), `limit` bytes kept, lines counted to the
    end in chunks."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        return FileRead(path, error=_os_reason(exc))
    if not stat.S_ISREG(st.st_mode):
        return FileRead(path, error=f"not a regular file ({_kind(st.st_mode)}); not read")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return FileRead(path, size=st.st_size, error=_os_reason(exc))
    try:
        st = os.fstat(fd)  # the file actually opened (it may have been swapped since the stat)
        if not stat.S_ISREG(st.st_mode):
            return FileRead(path, error=f"not a regular file ({_kind(st.st_mode)}); not read")
        kept: list[bytes] = []
        kept_size = newlines = total = 0
        last = b""
        while total < st.st_size:
            chunk = os.read(fd, min(_CHUNK, st.st_size - total))
            if not chunk:
                break
            total += len(chunk)
            newlines += chunk.count(b"\n")
            last = chunk[-1:]
            if kept_size < limit:
                part = chunk[: limit - kept_size]
                kept.append(part)
                kept_size += len(part)
    except OSError as exc:
        return FileRead(path, size=st.st_size, error=_os_reason(exc))
    finally:
        os.close(fd)
    lines = newlines + (1 if total and last != b"\n" else 0)
    return FileRead(path, b"".join(kept), total, lines, complete=kept_size == total)


def estimate_tokens(data: bytes) -> int:
    """Rough token estimate of loaded text: characters / 4, rounded up."""
    if not data:
        return 0
    return -(-len(data.decode("utf-8", "replace")) // BYTES_PER_TOKEN)


def line_of_byte(data: bytes, offset: int) -> int:
    """1-based line holding byte `offset`."""
    return data.count(b"\n", 0, offset) + 1


def utf8_problem(read: FileRead) -> ChainProblem | None:
    """An invalid-utf8 problem for the first bad byte, or None (a multi-byte character cut by
    the READ_LIMIT is not an error)."""
    try:
        read.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not read.complete and exc.start >= len(read.data) - 3 and exc.reason == "unexpected end of data":
            return None
        return ChainProblem(read.path, line_of_byte(read.data, exc.start), "invalid-utf8",
                            f"invalid UTF-8 at byte {exc.start}; the agent sees replacement characters there")
    return None


class ChainBuilder:
    """Collects an agent's files in load order (numbering them) and its problems, and keeps
    the bounded reads so each file is read once."""

    def __init__(self, agent: str, cwd: Path) -> None:
        self.agent = agent
        self.cwd = cwd
        self.files: list[ChainFile] = []
        self.problems: list[ChainProblem] = []
        self.reads: dict[Path, FileRead] = {}

    def read(self, path: Path) -> FileRead:
        path = Path(path)
        if path not in self.reads:
            self.reads[path] = read_bounded(path)
        return self.reads[path]

    def listed(self, path: Path) -> bool:
        return any(f.path == Path(path) for f in self.files)

    def problem(self, file: Path, line: int | None, rule: str, message: str) -> None:
        self.problems.append(ChainProblem(Path(file), line, rule, message))

    def too_deep(self, target: Path, importer: Path, line: int | None, raw: str, hop: int, limit: int,
                 agent: str) -> bool:
        """An `@raw` import `hop` hops deep, past the `limit` the agent (named `agent`) follows:
        listed as not loaded, with an `import-too-deep` problem (True); False within the limit."""
        if hop <= limit:
            return False
        self.add(target, "import", loaded_bytes=0, imported_by=importer, depth=hop,
                 reason=f"import {hop} hops deep: {agent} follows at most {limit}; not loaded")
        self.problem(importer, line, "import-too-deep",
                     f"@{raw} is hop {hop}; {agent} follows imports at most {limit} hops deep, so it is never loaded")
        return True

    def add(self, path: Path, scope: str, *, loaded_bytes: int | None = None, loaded_lines: int | None = None,
            on_demand: bool = False, reason: str = "", imported_by: Path | None = None, depth: int = 0) -> ChainFile:
        """List `path`. By default the whole file is loaded; pass `loaded_bytes` (and
        optionally `loaded_lines`) for a part, 0 for nothing. An unreadable file is listed as
        not loaded, with the read error as its reason and an `unreadable` problem."""
        read = self.read(path)
        if read.error is not None:
            self.problem(path, None, "unreadable", read.error)
            loaded_bytes, loaded_lines, reason = 0, 0, read.error
        if on_demand:
            loaded_bytes = 0
        if loaded_bytes is None:
            loaded_bytes = read.size
        loaded_bytes = max(0, min(loaded_bytes, read.size))
        head = read.data[:loaded_bytes]
        if loaded_lines is None:
            loaded_lines = read.lines if loaded_bytes == read.size else count_lines(head)
        tokens = estimate_tokens(head) + (max(0, loaded_bytes - len(head)) + 3) // BYTES_PER_TOKEN
        entry = ChainFile(Path(path), scope, len(self.files) + 1, read.size, read.lines, tokens, loaded_bytes,
                          loaded_lines, on_demand, reason, None if imported_by is None else Path(imported_by), depth)
        self.files.append(entry)
        if read.error is None:
            bad = utf8_problem(read)
            if bad is not None:
                self.problems.append(bad)
            if read.size == 0 or not read.data.strip():
                self.problem(path, None, "empty-file", "empty: the agent gets nothing from it")
        return entry

    def build(self, lint_root: Path | None) -> AgentChain:
        problems = list(self.problems)
        if lint_root is not None:
            problems += lint_chain_files(lint_root, self.files, self.reads, problems)
        order = {f.path: f.order for f in self.files}
        problems.sort(key=lambda p: (order.get(p.file, len(order) + 1), str(p.file), p.line or 0, p.rule))
        return AgentChain(self.agent, self.cwd, tuple(self.files), tuple(_unique(problems)))


NESTED_MAX_DIRS = 2000
NESTED_MAX_DEPTH = 8
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".hg", ".svn", "dist", "build"})


def folders_below(cwd: Path, skip: frozenset[str] = SKIP_DIRS) -> Iterator[Path]:
    """Each folder below `cwd` (not `cwd` itself), in sorted order, where an agent looks for
    context files loaded on demand: hidden and `skip` folders are not entered, symlinked
    folders are not followed, and the walk stops at NESTED_MAX_DIRS folders or NESTED_MAX_DEPTH."""
    visited = 0
    for dirpath, dirnames, _ in os.walk(cwd):
        visited += 1
        depth = len(Path(dirpath).relative_to(cwd).parts)
        dirnames[:] = sorted(d for d in dirnames if d not in skip and not d.startswith("."))
        if visited > NESTED_MAX_DIRS or depth >= NESTED_MAX_DEPTH:
            dirnames[:] = []
        if depth:
            yield Path(dirpath)


def user_home(env: Mapping[str, str]) -> Path | None:
    value = env.get("HOME") or env.get("USERPROFILE")
    return Path(value) if value else None


def agent_home(env: Mapping[str, str], variable: str, default: str) -> Path | None:
    """`$variable` if set, else `~/default` (CLAUDE_CONFIG_DIR → ~/.claude, CODEX_HOME → ~/.codex)."""
    value = env.get(variable)
    if value:
        home = user_home(env)
        return Path(str(home) + value[1:]) if value.startswith("~") and home else Path(value)
    home = user_home(env)
    return home / default if home else None


def chain_paths(chains: Iterable[AgentChain]) -> set[Path]:
    """Every file listed in `chains` (the only files outside a workspace memtui may write)."""
    return {f.path for chain in chains for f in chain.files}


def _unique(problems: list[ChainProblem]) -> list[ChainProblem]:
    seen: set[tuple] = set()
    out = []
    for p in problems:
        key = (p.file, p.line, p.rule)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _os_reason(exc: OSError) -> str:
    return f"unreadable: {exc.strerror or exc}"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "special file"


__all__ = [
    "SCOPES", "AgentChain", "ChainBuilder", "ChainFile", "ChainProblem", "FileRead",
    "agent_home", "chain_paths", "count_lines", "estimate_tokens", "line_of_byte",
    "read_bounded", "user_home",
]
