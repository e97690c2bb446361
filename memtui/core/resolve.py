"""Which store does PATH mean: `resolve(path, need=None, root=None) -> Resolved`.

The app (`memtui PATH`), every CLI verb, rollback and `memtui.open` go from a path to a source
here, so they agree on the store a path means and on its root, and refuse in the same words:

- a PATH that does not exist: "PATH does not exist" (`errors.no_such_path`);
- a file that holds no store: "PATH is not a SQLite database or a transcript …" (`not_a_store`);
- a folder that holds none: "no memtui store and no other agent's store in PATH …" (`no_store`);
- a postgresql:// URL: the team store on that server (memtui.core.store.team), read-only;
- a store that cannot do what the verb needs: `Unsupported`, "the Claude Code store at P can't
  collect garbage (GC): it works on memtui's own store only; …" (the capability's own wording).

The store PATH means is memtui's own when PATH is or holds one, else the first other agent's
store discovery finds for it (a folder of memory documents alone is no store). A verb never
falls through to another store at PATH that could do what it needs: it works on the store
`memtui PATH` shows, or says what that store can't do and what to open instead — as the app
offers only what the store it shows can do. `kind` picks another store at PATH by name
(`memtui export --kind`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from memtui.core.errors import no_store, no_such_path
from memtui.core.memory_source import Capability, MemorySource

if TYPE_CHECKING:
    from memtui.core.sources.found import Source

__all__ = ["Resolved", "open_source", "resolve", "team_url", "TEAM_URL_VARIABLE"]

TEAM_URL_VARIABLE = "MEMTUI_TEAM_URL"
"""The environment variable naming the team store (`--team` without a URL, `memtui push`)."""


@dataclass
class Resolved:
    """What PATH means: the store (open, read-only), its kind and the folder it is rooted in.

    Close it when done (`with resolve(path) as resolved:`), or hand `source` on to what keeps it.
    """

    path: Path
    """PATH as given, made absolute."""
    source: MemorySource
    """The store, open."""
    entry: Source | None = None
    """Discovery's entry for another agent's store (None for memtui's own, opened directly)."""
    found: list[Source] = field(default_factory=list)
    """Every store discovery found at or for PATH, `entry` first (empty for memtui's own store:
    other agents' stores are not looked for then)."""

    @property
    def others(self) -> list[Source]:
        """The other stores discovery found at or for PATH (`~`: the other agents' homes), in
        its order: what a verb names beside the one it shows, or looks in when that one lacks
        an id."""
        return self.found[1:]

    @property
    def kind(self) -> str:
        """"memtui", "claude-code", "codex", "ra-aid", "jsonl-sessions"."""
        return self.source.kind

    @property
    def root(self) -> Path:
        """The folder the store is rooted in: its workspace (`--root` when given, else the one
        folder its recorded paths are relative to), else the folder PATH is or is in. Memory
        documents are read there and the app names it in its header."""
        workspace = self.source.workspace
        if workspace is not None:
            return Path(workspace)
        return self.path if self.path.is_dir() else self.path.parent

    def close(self) -> None:
        self.source.close()

    def __enter__(self) -> Resolved:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve(path: Path | str, need: Capability | None = None, *, root: Path | str | None = None,
            kind: str | None = None, env: Mapping[str, str] | None = None) -> Resolved:
    """The store PATH means, open, bound to `root` when given (`--root`: where its recorded
    paths are restored), and able to do `need` when given.

    Raises StoreNotFound (PATH missing, or a folder holding no store), NotAStore (a file that
    is none, or a damaged memtui store), Unsupported (the store can't do `need`). `env`
    replaces os.environ where agents' homes are looked for (tests). Nothing is created: a
    verb that writes does so through the source's writer().
    """
    from memtui.core.store.paths import is_team_url, store_of

    if is_team_url(path):  # a team store: memtui's store on a PostgreSQL server
        return _resolve_team(str(path), need, root)
    given = Path(path).expanduser()
    if not given.exists():
        raise no_such_path(given)
    given = given.absolute()
    entry: Source | None = None
    found: list[Source] = []
    native = store_of(given) if kind in (None, "memtui") else None
    if native is not None:  # memtui's own: opened without importing every other agent's reader
        from memtui.core.store import AgentStore

        source: MemorySource = AgentStore.open(native, readonly=True)
    else:
        from memtui.core.discovery import discover_given  # every other agent's reader: only when needed

        found = [s for s in discover_given(given, env=env) if s.kind != "memory-files" and kind in (None, s.kind)]
        if not found:
            raise no_store(given, kind)
        entry = found[0]
        source = entry.open()
    return Resolved(given, _bound(source, need, root), entry, found)


def _resolve_team(url: str, need: Capability | None, root: Path | str | None) -> Resolved:
    from memtui.core.store.team import TeamStore

    source = _bound(TeamStore.open(url, readonly=True), need, root)
    return Resolved(source.path, source)


def _bound(source: MemorySource, need: Capability | None, root: Path | str | None) -> MemorySource:
    """`source` bound to `root` when given and checked able to do `need`; closed if not."""
    try:
        if root is not None:
            source = source.with_root(Path(root).expanduser())
        if need is not None:
            source.require(need)
    except BaseException:
        source.close()
        raise
    return source


def team_url(given: str | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The team store a verb is pointed at: `--team URL` when given, else $MEMTUI_TEAM_URL
    (None: neither)."""
    import os

    return given or (os.environ if env is None else env).get(TEAM_URL_VARIABLE) or None


def open_source(path: Path | str, kind: str | None = None, *, env: Mapping[str, str] | None = None) -> MemorySource:
    """`memtui.open(PATH)`: the store `memtui PATH` shows (or the one of `kind`), open read-only.
    Close it when done (`with memtui.open(path) as source:`)."""
    return resolve(path, kind=kind, env=env).source
