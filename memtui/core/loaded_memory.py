"""The memory documents each agent loads at start, for a workspace: the chain runner.

Each agent's rules live in its package (`memtui.core.agents.<agent>.chain`), found through the
registry; this module asks every agent that declares a chain and names the result for people.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping

from memtui.core.agents import all_agents
from memtui.core.errors import MemtuiError
from memtui.core.memory.chain import AgentChain

# Agents whose loaded memory memtui can list, by kind, named for people (from the registry).
AGENTS: dict[str, str] = {a.kind: a.chain_label for a in all_agents() if a.chain is not None}


def loaded_chains(
    workspace: Path,
    cwd: Path | None = None,
    agents: Iterable[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    managed_paths: Iterable[Path] | None = None,
) -> list[AgentChain]:
    """The start-up chain of each agent (all of AGENTS by default) for `workspace`, with the
    agent started in `cwd` (default: the workspace; must be inside it).

    `env` replaces os.environ (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME,
    CLAUDE_CODE_DISABLE_AUTO_MEMORY); `managed_paths` replaces the platform's managed-policy
    CLAUDE.md locations. Raises MemtuiError for a bad workspace, cwd or agent name.
    """
    root = Path(workspace).expanduser()
    if not root.is_dir():
        raise MemtuiError(f"{workspace} is not a directory")
    root = root.resolve()
    here = root if cwd is None else (root / Path(cwd).expanduser()).resolve()
    if not here.is_dir():
        raise MemtuiError(f"--cwd {cwd} is not a directory")
    try:
        here.relative_to(root)
    except ValueError:
        raise MemtuiError(f"--cwd {here} is outside the workspace {root}") from None
    env = dict(os.environ if env is None else env)
    wanted = list(AGENTS) if agents is None else list(agents)
    for name in wanted:
        if name not in AGENTS:
            raise MemtuiError(f"unknown agent {name!r}; one of {', '.join(AGENTS)}")
    hooks = {a.kind: a.chain for a in all_agents() if a.chain is not None}
    return [replace(hooks[name](root, here, env, managed_paths), label=AGENTS[name]) for name in wanted]
