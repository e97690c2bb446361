"""Claude Code's start-up memory chain.

In load order: managed policy CLAUDE.md; the user's `<config>/CLAUDE.md` and
`<config>/rules/**/*.md` (`<config>` is $CLAUDE_CONFIG_DIR, else ~/.claude); then for each
directory from the filesystem root's child down to the working directory, its CLAUDE.md,
.claude/CLAUDE.md, .claude/rules/**/*.md and CLAUDE.local.md; then auto memory
`<config>/projects/<sanitized git root>/memory/MEMORY.md`, of which only the first 200 lines
(and at most 25,000 bytes) are loaded. `@path` imports (relative to the importing file, `~/`,
absolute; not inside code spans, fenced blocks or HTML comments) are listed right after the
file that imports them, at most 5 hops deep. Loaded on demand, not at start: rules with a
`paths:` frontmatter, auto-memory topic files, and CLAUDE.md files below the working directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Mapping

from memtui.core.memory.chain import SKIP_DIRS, AgentChain, ChainBuilder, agent_home, count_lines, folders_below, user_home
from memtui.core.memory.documents import iter_prose_lines

MAX_IMPORT_HOPS = 5
MEMORY_MAX_LINES = 200
MEMORY_MAX_BYTES = 25_000
_SKIP_DIRS = SKIP_DIRS | {".tox"}

_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)(?<!`)\1(?!`)")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_PATHLIKE_START = re.compile(r"[A-Za-z0-9._~/-]")
_TRUTHY = frozenset({"1", "true", "yes", "on"})


def managed_policy_paths() -> list[Path]:
    """Where this platform keeps the managed-policy CLAUDE.md."""
    if sys.platform == "darwin":
        return [Path("/Library/Application Support/ClaudeCode/CLAUDE.md")]
    if sys.platform.startswith("win"):
        return [Path(r"C:\Program Files\ClaudeCode\CLAUDE.md"), Path(r"C:\ProgramData\ClaudeCode\CLAUDE.md")]
    return [Path("/etc/claude-code/CLAUDE.md")]


def claude_chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None = None) -> AgentChain:
    b = ChainBuilder("claude-code", cwd)
    walk = _ClaudeWalk(b, user_home(env))
    config = agent_home(env, "CLAUDE_CONFIG_DIR", ".claude")
    for path in managed_policy_paths() if managed is None else managed:
        walk.top(Path(path), "managed", "managed policy: loaded for every user of this machine")
    if config is not None:
        walk.top(config / "CLAUDE.md", "user", "your instructions for every project")
        walk.rules(config / "rules", "user")
    for directory in _ancestors_down_to(cwd):
        where = "the working directory" if directory == cwd else "a parent of the working directory"
        walk.top(directory / "CLAUDE.md", "project", f"project instructions in {where}")
        walk.top(directory / ".claude" / "CLAUDE.md", "project", f"project instructions in {where}")
        walk.rules(directory / ".claude" / "rules", "project")
        local = directory / "CLAUDE.local.md"
        if walk.top(local, "local", f"your private instructions in {where}"):
            _check_local_ignored(b, local)
    git_root = canonical_git_root(cwd)
    if config is not None:
        _auto_memory(b, config, git_root or cwd, root, env)
    _nested(walk, cwd)
    return b.build(root)


class _ClaudeWalk:
    """Lists top-level chain files and expands their imports right after them."""

    def __init__(self, builder: ChainBuilder, home: Path | None) -> None:
        self.b = builder
        self.home = home
        self.seen: set[str] = set()  # real paths already listed (a file loads once)

    def top(self, path: Path, scope: str, reason: str, *, on_demand: bool = False) -> bool:
        if not _is_file(path) or not self._first(path):
            return False
        entry = self.b.add(path, scope, reason=reason, on_demand=on_demand)
        if entry.loaded_bytes:
            self.imports(path, 0, (os.path.realpath(path),))
        return True

    def rules(self, folder: Path, scope: str) -> None:
        if not folder.is_dir():
            return
        for path in sorted(p for p in folder.rglob("*.md") if _is_file(p)):
            head = self.b.read(path).text[:4096]
            if _has_paths_frontmatter(head):
                self.top(path, scope, "rule with paths: — loaded when Claude works on a matching file",
                         on_demand=True)
            else:
                self.top(path, scope, "rule without paths: — loaded at start")

    def imports(self, importer: Path, depth: int, stack: tuple[str, ...]) -> None:
        read = self.b.read(importer)
        for line, raw in import_targets(read.text):
            target = _resolve(raw, importer.parent, self.home)
            if target is None:
                continue
            real = os.path.realpath(target)
            if real in stack:
                self.b.problem(importer, line, "import-cycle",
                               f"@{raw} imports a file that is already importing it (a cycle); Claude Code loads it once")
                continue
            if real in self.seen:
                continue  # loaded once already, earlier in the chain
            if not os.path.lexists(target):
                if "/" in raw or "." in raw:
                    self.b.problem(importer, line, "import-missing",
                                   f"@{raw}: {target} does not exist; Claude Code skips it silently")
                continue
            self.seen.add(real)
            hop = depth + 1
            if self.b.too_deep(target, importer, line, raw, hop, MAX_IMPORT_HOPS, "Claude Code"):
                continue
            entry = self.b.add(target, "import", imported_by=importer, depth=hop,
                               reason=f"imported by {importer.name} (line {line})")
            if entry.loaded_bytes:
                self.imports(target, hop, (*stack, real))

    def _first(self, path: Path) -> bool:
        real = os.path.realpath(path)
        if real in self.seen:
            return False
        self.seen.add(real)
        return True


def import_targets(text: str) -> list[tuple[int, str]]:
    """(line, path) of each `@path` import, outside fenced code blocks, code spans and HTML
    comments, as Claude Code reads them."""
    text = _HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    found = []
    for number, line in iter_prose_lines(text):
        if "@" not in line:
            continue
        line = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for m in _IMPORT.finditer(line):
            raw = m.group(1).replace("\\ ", " ")
            if _PATHLIKE_START.match(raw):
                found.append((number, raw))
    return found


def sanitize_project_path(path: Path | str) -> str:
    """The folder name Claude Code gives a project under `<config>/projects/`: every
    character that is not an ASCII letter or digit becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def canonical_git_root(start: Path) -> Path | None:
    """The main working tree of the git repository holding `start` (a linked worktree maps to
    the repository it belongs to, so worktrees share one auto memory), or None."""
    for directory in (start, *start.parents):
        dotgit = directory / ".git"
        if dotgit.is_dir():
            return directory
        if dotgit.is_file():
            return _worktree_main(directory, dotgit) or directory
    return None


def auto_memory_dir(config: Path, project_root: Path) -> Path:
    """`<config>/projects/<sanitized project root>/memory`; for a name longer than 200
    characters Claude Code adds a hash, so the one existing folder with that prefix is used."""
    name = sanitize_project_path(project_root)
    projects = config / "projects"
    if len(name) > 200 and projects.is_dir():
        matches = [p for p in projects.iterdir() if p.name.startswith(name[:200])]
        if len(matches) == 1:
            return matches[0] / "memory"
    return projects / name / "memory"


def memory_cut(data: bytes) -> int:
    """Bytes of MEMORY.md Claude Code loads: the first 200 lines, cut back to whole lines
    if that exceeds 25,000 bytes."""
    cut = 0
    for _ in range(MEMORY_MAX_LINES):
        nl = data.find(b"\n", cut)
        if nl < 0:
            cut = len(data)
            break
        cut = nl + 1
    if cut > MEMORY_MAX_BYTES:
        nl = data.rfind(b"\n", 0, MEMORY_MAX_BYTES)
        cut = nl + 1 if nl >= 0 else MEMORY_MAX_BYTES
    return cut


def _auto_memory(b: ChainBuilder, config: Path, project_root: Path, root: Path, env: Mapping[str, str]) -> None:
    folder = auto_memory_dir(config, project_root)
    index = folder / "MEMORY.md"
    off = _auto_memory_off(config, project_root, env)
    if _is_file(index):
        read = b.read(index)
        if off:
            b.add(index, "auto-memory", loaded_bytes=0, reason=f"auto memory is off ({off}); not loaded")
        elif read.error is None:
            cut = memory_cut(read.data)
            loaded_lines = count_lines(read.data[:cut])
            b.add(index, "auto-memory", loaded_bytes=cut, loaded_lines=loaded_lines,
                  reason=f"auto memory index: the first {MEMORY_MAX_LINES} lines (at most 25 KB) are loaded")
            if cut < read.size:
                if loaded_lines >= MEMORY_MAX_LINES and read.lines > MEMORY_MAX_LINES:
                    why = (f"{read.lines} lines; Claude Code loads only the first {MEMORY_MAX_LINES}: "
                           f"lines {MEMORY_MAX_LINES + 1}–{read.lines} are never seen at start")
                else:
                    why = (f"{read.size} bytes; Claude Code loads at most {MEMORY_MAX_BYTES:,} bytes: "
                           f"everything after line {loaded_lines} is never seen at start")
                b.problem(index, loaded_lines + 1, "cut-off", why + " — move details into topic files")
        else:
            b.add(index, "auto-memory")
    if folder.is_dir():
        for topic in sorted(p for p in folder.rglob("*.md") if p != index and _is_file(p)):
            b.add(topic, "auto-memory", on_demand=True, reason="auto-memory topic file: read on demand, not at start")


def _auto_memory_off(config: Path, project_root: Path, env: Mapping[str, str]) -> str | None:
    value = (env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY") or "").strip().lower()
    if value in _TRUTHY:
        return "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
    enabled = None
    for settings in (config / "settings.json", project_root / ".claude" / "settings.json",
                     project_root / ".claude" / "settings.local.json"):
        try:
            data = json.loads(settings.read_bytes()[:1_000_000]) if settings.is_file() else None
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("autoMemoryEnabled"), bool):
            enabled = (data["autoMemoryEnabled"], settings)
    if enabled is not None and not enabled[0]:
        return f"autoMemoryEnabled is false in {enabled[1]}"
    return None


def _nested(walk: _ClaudeWalk, cwd: Path) -> None:
    """CLAUDE.md files below the working directory: loaded when Claude reads a file there.
    Symlinked directories are not entered; the walk is bounded."""
    for here in folders_below(cwd, _SKIP_DIRS):
        for path in (here / "CLAUDE.md", here / ".claude" / "CLAUDE.md", here / "CLAUDE.local.md"):
            walk.top(path, "local" if path.name == "CLAUDE.local.md" else "project",
                     "below the working directory: loaded when Claude reads a file in "
                     f"{here.relative_to(cwd).as_posix()}/", on_demand=True)


def _check_local_ignored(b: ChainBuilder, path: Path) -> None:
    """A CLAUDE.local.md that git does not ignore would be committed and shared."""
    if canonical_git_root(path.parent) is None:
        return
    try:
        done = subprocess.run(["git", "-C", str(path.parent), "check-ignore", "-q", "--", path.name],
                              capture_output=True, timeout=5,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError):
        return
    if done.returncode == 1:
        b.problem(path, None, "local-not-ignored",
                  "git does not ignore CLAUDE.local.md: it would be committed and shared; add it to .gitignore")


def _ancestors_down_to(cwd: Path) -> list[Path]:
    """The filesystem root's child down to `cwd` (the root itself is not read)."""
    chain = [p for p in (cwd, *cwd.parents) if p.parent != p]
    return list(reversed(chain))


def _resolve(raw: str, base: Path, home: Path | None) -> Path | None:
    if raw.startswith("~/") or raw == "~":
        if home is None:
            return None
        return Path(os.path.normpath(home / raw[2:]))
    return Path(os.path.normpath(raw if raw.startswith("/") else base / raw))


def _has_paths_frontmatter(head: str) -> bool:
    if not head.startswith("---"):
        return False
    end = head.find("\n---", 3)
    block = head[3:end] if end >= 0 else ""
    return any(line.strip().startswith("paths:") for line in block.splitlines())


def _is_file(path: Path) -> bool:
    """Present as a file for the agent's search: a regular file, or a symlink (read through;
    a link to a device or a directory is reported, never opened)."""
    try:
        return path.is_file() or path.is_symlink()
    except OSError:
        return False


def _worktree_main(directory: Path, dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text("utf-8", "replace")[:4096]
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = Path(text[len("gitdir:"):].strip().splitlines()[0])
    gitdir = gitdir if gitdir.is_absolute() else directory / gitdir
    try:
        common = (gitdir / (gitdir / "commondir").read_text("utf-8").strip()).resolve()
    except OSError:
        return None
    return common.parent if common.name == ".git" else None
