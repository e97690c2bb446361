"""OpenCode's start-up instructions, as OpenCode 1.18 builds them (its Instruction service).

In load order, each file once:
- global: the first that exists of `<config>/AGENTS.md` (`<config>` is
  `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`) and `~/.claude/CLAUDE.md` (the
  Claude Code fallback, off with OPENCODE_DISABLE_CLAUDE_CODE or
  OPENCODE_DISABLE_CLAUDE_CODE_PROMPT);
- project: the first of `AGENTS.md`, `CLAUDE.md` (same switch), `CONTEXT.md` found in the
  working directory or an ancestor up to the git worktree's top (the filesystem root outside
  git); every file of that name on the way is loaded, nearest first; the other names are not
  read (off with OPENCODE_DISABLE_PROJECT_CONFIG);
- `instructions` of the config files (`<config>/opencode.json[c]`, then every
  `opencode.json[c]` from the filesystem root down to the working directory, then
  `$OPENCODE_CONFIG`): `~/…` in the home folder, an absolute path as a glob in its folder,
  any other as a glob tried in each folder from the working directory up to the worktree's top;
  a URL is fetched at start (not a file: reported, never fetched here);
- on demand: the first of those names in a folder below the working directory, loaded when
  OpenCode reads a file there.
Files are loaded whole (no byte limit) and hold no imports.
"""

from __future__ import annotations

import glob
import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

from memtui.core.memory.chain import AgentChain, ChainBuilder, folders_below, user_home

CONFIG_NAMES = ("opencode.json", "opencode.jsonc")
_TRUTHY = frozenset({"1", "true"})


def config_dir(env: Mapping[str, str]) -> Path | None:
    """OpenCode's global config folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`."""
    xdg = env.get("XDG_CONFIG_HOME")
    home = user_home(env)
    if xdg:
        return Path(xdg).expanduser() / "opencode"
    return home / ".config" / "opencode" if home is not None else None


def opencode_chain(root: Path, cwd: Path, env: Mapping[str, str]) -> AgentChain:
    b = ChainBuilder("opencode", cwd)
    home = user_home(env)
    config = config_dir(env)
    claude = not (_on(env, "OPENCODE_DISABLE_CLAUDE_CODE") or _on(env, "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT"))
    project = not _on(env, "OPENCODE_DISABLE_PROJECT_CONFIG")
    worktree = git_worktree(cwd)
    top = worktree or Path(cwd.anchor)
    listed: set[str] = set()

    def add(path: Path, scope: str, reason: str, **kw: Any) -> None:
        real = os.path.realpath(path)
        if real not in listed:
            listed.add(real)
            b.add(path, scope, reason=reason, **kw)

    globals_ = [p for p in ([config / "AGENTS.md"] if config else []) +
                ([home / ".claude" / "CLAUDE.md"] if home is not None and claude else []) if _present(p)]
    for n, path in enumerate(globals_):
        if n == 0:
            add(path, "global", "your instructions for every project"
                + (" (Claude Code's, as no OpenCode AGENTS.md exists)" if path.name == "CLAUDE.md" else ""))
        else:
            add(path, "global", f"not read: {globals_[0]} is used instead", loaded_bytes=0)
    names = ["AGENTS.md", *(["CLAUDE.md"] if claude else []), "CONTEXT.md"]
    if project:
        chosen = None
        for name in names:
            found = find_up(name, cwd, top)
            if chosen is None and found:
                chosen = name
                for path in found:
                    add(path, "directory", f"project instructions in {_where(path.parent, cwd)}")
            elif found:
                for path in found:
                    add(path, "directory", f"not read: {chosen} is found first (OpenCode takes one name)",
                        loaded_bytes=0)
    for path, reason in _instructions(b, env, home, config, cwd, top, project):
        add(path, "project", reason)
    if project:
        for path in nested_files(cwd, names):
            add(path, "directory", "below the working directory: loaded when OpenCode reads a file in "
                f"{path.parent.relative_to(cwd).as_posix()}/", on_demand=True)
    return b.build(root)


def git_worktree(start: Path) -> Path | None:
    """The top of the git worktree holding `start` (a `.git` folder or file), or None."""
    for directory in (start, *start.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return None


def find_up(name: str, start: Path, stop: Path) -> list[Path]:
    """`name` in `start` and each parent up to `stop` (or the filesystem root), nearest first."""
    found = []
    here = start
    while True:
        if _present(here / name):
            found.append(here / name)
        if here == stop or here.parent == here:
            return found
        here = here.parent


def nested_files(cwd: Path, names: list[str]) -> list[Path]:
    """Per folder below `cwd`, the first of `names` it holds (a bounded walk)."""
    out = []
    for here in folders_below(cwd):
        first = next((here / n for n in names if _present(here / n)), None)
        if first is not None:
            out.append(first)
    return out


def _instructions(b: ChainBuilder, env: Mapping[str, str], home: Path | None, config: Path | None, cwd: Path,
                  top: Path, project: bool) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    for source, entry in _instruction_entries(b, env, config, cwd):
        if entry.startswith(("https://", "http://")):
            b.problem(source, None, "remote-instructions",
                      f"instructions entry {entry} is fetched from the web at each start (5 s timeout); "
                      "memtui does not fetch it")
            continue
        pattern = os.path.join(str(home), entry[2:]) if entry.startswith("~/") and home is not None else entry
        if os.path.isabs(pattern):
            matches = _glob(Path(pattern).parent, Path(pattern).name)
        else:
            matches = []
            here = cwd if project else (config or cwd)
            stop = top if project else here
            while True:
                matches += _glob(here, pattern)
                if here == stop or here.parent == here:
                    break
                here = here.parent
        if not matches:
            b.problem(source, None, "instructions-missing", f"instructions entry {entry!r} matches no file")
        out += [(m, f"named by instructions in {source.name} ({entry})") for m in matches]
    return out


def _instruction_entries(b: ChainBuilder, env: Mapping[str, str], config: Path | None,
                         cwd: Path) -> list[tuple[Path, str]]:
    """(config file, entry) of every `instructions` entry, in the order OpenCode merges them."""
    files = [config / n for n in CONFIG_NAMES] if config is not None else []
    for directory in reversed([cwd, *cwd.parents]):
        files += [directory / n for n in CONFIG_NAMES]
    if env.get("OPENCODE_CONFIG"):
        files.append(Path(env["OPENCODE_CONFIG"]))
    out: list[tuple[Path, str]] = []
    for path in dict.fromkeys(files):
        if not path.is_file():
            continue
        read = b.read(path)
        try:
            data = json.loads(_strip_comments(read.text)) if read.error is None else None
        except (ValueError, RecursionError) as exc:
            b.problem(path, None, "config", f"{path.name} is not valid JSON ({exc}); OpenCode would refuse it")
            continue
        entries = data.get("instructions") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, str) and entry and entry not in (e for _, e in out):
                out.append((path, entry))
    return out


def _glob(folder: Path, pattern: str) -> list[Path]:
    try:
        found = glob.glob(pattern, root_dir=folder, recursive=True, include_hidden=True)
    except (OSError, ValueError):
        return []
    return sorted(folder / f for f in found if (folder / f).is_file())


def _strip_comments(text: str) -> str:
    return re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*[\s\S]*?\*/', lambda m: m.group(1) or "", text)


def _present(path: Path) -> bool:
    """There for OpenCode's exists check: anything but a folder (a named pipe is listed, and the
    bounded read says why it is not loaded)."""
    try:
        return os.path.lexists(path) and not path.is_dir()
    except OSError:
        return False


def _on(env: Mapping[str, str], name: str) -> bool:
    return (env.get(name) or "").strip().lower() in _TRUTHY


def _where(directory: Path, cwd: Path) -> str:
    return "the working directory" if directory == cwd else "a parent of the working directory"
