"""What Aider reads at start: the files `read:` names in its `.aider.conf.yml`.

Aider loads no memory document of its own accord: CONVENTIONS.md (or any file) reaches the
model only through `--read` or `read:` in a `.aider.conf.yml`. Aider looks for that file in the
home folder, the git root and the working directory, loaded in that order, the last one
taking priority (aider.chat/docs/config/aider_conf.html); `read:` is one file or a list
(`[a, b]` or `- a` lines), paths relative to the working directory. A CONVENTIONS.md that no
`read:` names is listed as not loaded, with the reason.

Only the `read:` key is taken from the YAML (a scalar, a flow list or a block list); a value
in any other shape is reported, not guessed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from memtui.core.memory.chain import AgentChain, ChainBuilder, user_home

CONFIG = ".aider.conf.yml"
CONVENTIONS = "CONVENTIONS.md"


def aider_chain(root: Path, cwd: Path, env: Mapping[str, str]) -> AgentChain:
    b = ChainBuilder("aider", cwd)
    git_root = next((p for p in (cwd, *cwd.parents) if (p / ".git").exists()), None)
    places = [user_home(env), git_root, cwd]
    configs = list(dict.fromkeys(p / CONFIG for p in places if p is not None and (p / CONFIG).is_file()))
    setting = [(config, entries) for config in configs if (entries := _read_entries(b, config)) is not None]
    home = user_home(env)
    for n, (config, entries) in enumerate(reversed(setting)):  # the last one that sets read: wins
        for entry in entries:
            path = home / entry[2:] if home is not None and entry.startswith("~/") else \
                Path(entry).expanduser() if entry.startswith("~") else cwd / entry  # `~`: the home of `env`
            if n > 0:
                if path.is_file() and not b.listed(path):
                    b.add(path, "user" if config.parent == home else "project", loaded_bytes=0,
                          reason=f"not loaded: read: in {setting[-1][0]} replaces the one in {config}")
                continue
            if not path.is_file():
                b.problem(config, None, "missing-file", f"read: {entry} is not a file: Aider starts without it")
                continue
            scope = "user" if home is not None and path.is_relative_to(home) and not path.is_relative_to(root) else "project"
            b.add(path, scope, reason=f"read-only context: read: in {config}")
    for folder in dict.fromkeys(p for p in (cwd, git_root) if p is not None):
        conventions = folder / CONVENTIONS
        if conventions.is_file() and not b.listed(conventions):
            b.add(conventions, "project", loaded_bytes=0,
                  reason="not loaded: Aider reads it only when --read or read: in .aider.conf.yml names it")
    return b.build(root)


def _read_entries(b: ChainBuilder, config: Path) -> list[str] | None:
    """The `read:` entries of one config file, or None when it sets none."""
    read = b.read(config)
    if read.error is not None:
        b.problem(config, None, "unreadable", read.error)
        return None
    lines = read.text.splitlines()
    for n, line in enumerate(lines):
        if not line.startswith("read:"):
            continue
        value = line[len("read:"):].split(" #", 1)[0].strip()
        if value.startswith("[") and value.endswith("]"):
            return [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
        if value:
            return [_unquote(value)]
        entries = []
        for item in lines[n + 1:]:
            stripped = item.strip()
            if stripped.startswith("- "):
                entries.append(_unquote(stripped[2:].split(" #", 1)[0]))
            elif stripped and not stripped.startswith("#"):
                break
        if not entries:
            b.problem(config, n + 1, "config", "read: holds no file memtui can make out")
        return entries
    return None


def _unquote(value: str) -> str:
    value = value.strip()
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" else value
