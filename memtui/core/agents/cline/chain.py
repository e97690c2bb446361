"""What Cline reads at the start of a task: its rules.

Global rules: every file of `Cline/Rules/` in the user's documents folder (`~/Documents`; the
CLI uses the home folder itself when there is no Documents folder). Workspace rules: a
`.clinerules` file at the workspace root, or every file of a `.clinerules/` folder (its
`workflows/`, `hooks/` and `skills/` are not rules). Cline sends the enabled ones with each task
(a rule turned off in its rules panel is not sent; memtui does not read those toggles). A
`memory-bank/` folder is read only when the rules or the user tell Cline to, so its files are
listed as not loaded, with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from memtui.core.memory.chain import AgentChain, ChainBuilder, user_home

NOT_RULES = frozenset({"workflows", "hooks", "skills"})


def _files(folder: Path, skip: frozenset[str] = frozenset()) -> list[Path]:
    try:
        return sorted(p for p in folder.rglob("*") if p.is_file() and not (set(p.relative_to(folder).parts[:1]) & skip))
    except OSError:
        return []


def cline_chain(root: Path, cwd: Path, env: Mapping[str, str]) -> AgentChain:
    b = ChainBuilder("cline", cwd)
    home = user_home(env)
    if home is not None:
        for rules in dict.fromkeys((home / "Documents" / "Cline" / "Rules", home / "Cline" / "Rules")):
            for path in _files(rules):
                b.add(path, "global", reason="global rule: sent with every task")
    rules = root / ".clinerules"
    if rules.is_file():
        b.add(rules, "project", reason="workspace rules")
    elif rules.is_dir():
        for path in _files(rules, NOT_RULES):
            b.add(path, "project", reason="workspace rule: sent with every task of this workspace")
    for path in _files(root / "memory-bank"):
        if path.suffix == ".md":
            b.add(path, "project", loaded_bytes=0, reason="not loaded: Cline reads the memory bank when its rules or you ask it to")
    return b.build(root)
