"""Codex's start-up instructions chain, as codex-rs/core/src/agents_md.rs builds it.

Global: `$CODEX_HOME/AGENTS.override.md`, else `AGENTS.md` — the first whose text is not
blank. Project: the root is the nearest ancestor of the working directory holding one of
`project_root_markers` (default `.git`; none found → only the working directory). In each
directory from the root down to the working directory the first existing file of
`AGENTS.override.md`, `AGENTS.md`, then `project_doc_fallback_filenames` is taken (even when
it is empty — an empty override hides that directory's AGENTS.md). The project files share one
budget of `project_doc_max_bytes` (32 KiB by default): a file larger than what is left is cut
at that byte, a blank file is skipped without using budget, and once the budget is spent the
remaining files are not read. The global file does not count against the budget.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Mapping

from memtui.core.memory.chain import AgentChain, ChainBuilder, agent_home, line_of_byte

DEFAULT_MAX_BYTES = 32 * 1024
OVERRIDE = "AGENTS.override.md"
DEFAULT = "AGENTS.md"


def codex_chain(root: Path, cwd: Path, env: Mapping[str, str]) -> AgentChain:
    b = ChainBuilder("codex", cwd)
    home = agent_home(env, "CODEX_HOME", ".codex")
    config = _config(b, home)
    if home is not None:
        _global(b, home)
    _project(b, cwd, config)
    return b.build(root)


def _config(b: ChainBuilder, home: Path | None) -> dict:
    """max_bytes, fallbacks and markers from `$CODEX_HOME/config.toml` (defaults otherwise;
    a broken file is reported and ignored, as Codex would refuse it)."""
    settings = {"max_bytes": DEFAULT_MAX_BYTES, "fallbacks": [], "markers": [".git"], "source": "default"}
    path = None if home is None else home / "config.toml"
    if path is None or not path.is_file():
        return settings
    read = b.read(path)
    if read.error is not None:
        b.problem(path, None, "config", f"config.toml {read.error}")
        return settings
    try:
        data = tomllib.loads(read.data[:1_000_000].decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        b.problem(path, None, "config", f"config.toml is not valid TOML ({exc}); using the defaults")
        return settings
    value = data.get("project_doc_max_bytes")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        settings["max_bytes"] = value
        settings["source"] = str(path)
    fallbacks = data.get("project_doc_fallback_filenames")
    if isinstance(fallbacks, list):
        settings["fallbacks"] = [name for name in fallbacks if isinstance(name, str) and name]
    markers = data.get("project_root_markers")
    if isinstance(markers, list):
        settings["markers"] = [m for m in markers if isinstance(m, str)]
    return settings


def _global(b: ChainBuilder, home: Path) -> None:
    chosen: Path | None = None
    for name in (OVERRIDE, DEFAULT):
        path = home / name
        if not path.is_file():
            continue
        if chosen is not None:
            b.add(path, "global", loaded_bytes=0, reason=f"not read: {chosen.name} is used instead")
            continue
        read = b.read(path)
        if read.error is None and read.text.strip():
            chosen = path
            b.add(path, "global", reason="global instructions for every project (not counted in the byte limit)")
        else:
            b.add(path, "global", loaded_bytes=0, reason="blank: skipped, the next candidate is tried")


def _project(b: ChainBuilder, cwd: Path, config: dict) -> None:
    names = [OVERRIDE, DEFAULT] + [n for n in config["fallbacks"] if n not in (OVERRIDE, DEFAULT)]
    max_bytes = config["max_bytes"]
    limit = f"project_doc_max_bytes = {max_bytes:,}" + ("" if config["source"] == "default" else " (config.toml)")
    remaining = max_bytes
    for directory in _search_dirs(cwd, config["markers"]):
        present = [directory / n for n in names if (directory / n).is_file()]
        if not present:
            continue
        chosen, shadowed = present[0], present[1:]
        read = b.read(chosen)
        if max_bytes == 0:
            b.add(chosen, "directory", loaded_bytes=0, reason="project_doc_max_bytes = 0 turns project docs off")
        elif remaining == 0:
            b.add(chosen, "directory", loaded_bytes=0, reason=f"past the byte limit ({limit}): not read")
            b.problem(chosen, 1, "past-limit",
                      f"never loaded: the files before it already used the whole {limit}")
        elif read.error is not None:
            b.add(chosen, "directory")
        elif not read.data[:remaining].decode("utf-8", "replace").strip():
            b.add(chosen, "directory", loaded_bytes=0, reason="blank: skipped (uses no budget)")
            _hidden_by_blank(b, chosen, shadowed)
        else:
            take = min(read.size, remaining)
            b.add(chosen, "directory", loaded_bytes=take,
                  reason="project instructions" + (f"; cut at byte {take:,} ({limit})" if take < read.size else ""))
            if take < read.size:
                line = line_of_byte(read.data, take)
                b.problem(chosen, line, "cut-off",
                          f"Codex stops reading at byte {take:,} of {read.size:,} (line {line}): the {limit} "
                          "is shared by every AGENTS.md from the project root down; the rest is never seen")
            remaining -= take
        for other in shadowed:
            b.add(other, "directory", loaded_bytes=0, reason=f"not read: {chosen.name} in the same directory wins")


def _hidden_by_blank(b: ChainBuilder, chosen: Path, shadowed: list[Path]) -> None:
    for other in shadowed:
        read = b.read(other)
        if read.error is None and read.text.strip():
            b.problem(chosen, None, "blank-override",
                      f"{chosen.name} is blank but still chosen, so {other.name} in the same directory is never read")
            return


def _search_dirs(cwd: Path, markers: list[str]) -> list[Path]:
    """The project root (nearest ancestor with a marker) down to `cwd`; only `cwd` without one."""
    if markers:
        for ancestor in (cwd, *cwd.parents):
            if any((ancestor / m).exists() or (ancestor / m).is_symlink() for m in markers):
                dirs = [cwd]
                while dirs[-1] != ancestor:
                    dirs.append(dirs[-1].parent)
                return list(reversed(dirs))
    return [cwd]
