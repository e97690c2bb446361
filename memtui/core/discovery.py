"""Finding the agent memory in a path: `discover(path) -> list[Source]`.

PATH may be a workspace (project folder) or a store itself: an agent.db or `.agent/`, a
`.ra-aid` folder or pk.db, a JSONL session store, a Claude Code home / projects folder /
project folder / transcript, a Codex home / sessions folder / rollout. For a workspace we
look inside it and for the transcripts Claude Code and Codex kept of it, matched by the
working directory recorded in them. Nothing is written anywhere.

Each agent says where its stores are (`Agent.discovery`, in its package); this module only
asks every agent of the registry in turn, so adding an agent needs no edit here.
"""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.agents import all_agents
from memtui.core.places import archive_dir
from memtui.core.errors import no_such_path, not_a_store
from memtui.core.sources.found import Looking, Source

__all__ = ["Source", "discover", "discover_given", "store_kind_at"]


def _looking(env: dict[str, str], user_home: bool = False) -> Looking:
    return Looking(env=env, archive=archive_dir(env), user_home=user_home)


def _store_at(path: Path, looking: Looking) -> list[Source] | None:
    """The store `path` itself is, or None if it is not one (then it is a workspace): every
    agent is asked in registry order, those that claim whatever others leave last."""
    if not (path.is_file() or path.is_dir()):
        return None
    hooks = [a.discovery for a in all_agents() if a.discovery is not None and a.discovery.store_at is not None]
    for hook in sorted(hooks, key=lambda h: h.claims_last):
        found = hook.store_at(path, looking)  # type: ignore[misc]  # filtered above
        if found is not None:
            return found
    return None


def store_kind_at(path: Path | str, *, env: dict[str, str] | None = None) -> str | None:
    """The kind of store `path` itself is ("claude-code" for a Claude Code home holding
    transcripts, "codex", "memtui" for an agent.db…), or None where it is a workspace: a project
    with a `projects/` or `sessions/` folder of its own is no agent's home."""
    found = _store_at(Path(path).expanduser().resolve(), _looking(dict(os.environ if env is None else env)))
    return found[0].kind if found else None


def discover(path: Path | str, *, env: dict[str, str] | None = None) -> list[Source]:
    """Every agent store at or for `path`: the store PATH itself is, else those a workspace
    keeps inside it (memtui's own first, then its memory documents, RA.Aid, a JSONL store),
    then those the agents keep of it in their homes (Claude Code, Codex) — registry order
    within each. Empty when nothing is found.

    `env` replaces os.environ for `CLAUDE_CONFIG_DIR` / `CODEX_HOME` / `HOME` (tests).
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise no_such_path(path)
    path = path.resolve()
    env = dict(os.environ if env is None else env)
    store = _store_at(path, _looking(env))
    if store is not None:
        return store
    if not path.is_dir():
        return []
    # The user's own home folder is where the agents keep their homes, not one project:
    # every session of ~/.claude and ~/.codex is "for" it (`cd ~ && memtui`).
    looking = _looking(env, user_home=_user_home(env) == path)
    agents = [a.discovery for a in all_agents() if a.discovery is not None]
    found: list[Source] = []
    for hooks in agents:
        if hooks.inside is not None:
            found += hooks.inside(path, looking)
    for hooks in agents:
        if hooks.for_workspace is not None:
            found += hooks.for_workspace(path, looking)
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
