"""What discovery finds, and what it tells an agent's discovery hooks.

`Source` is one store found at or for a path (its kind, where it is, how to open it); `Looking`
is what every agent's hooks are given: the user's environment, memtui's archive, whether the
path is the user's home folder. memtui.core.discovery asks each agent of the registry in turn
(`Agent.discovery`); the agents build their `Source`s with these pieces and never import
discovery or each other.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability, MemorySource
from memtui.core.model import Problem

if TYPE_CHECKING:
    from memtui.core.sources.transcript_root import RecordedRoot


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


@dataclass(frozen=True)
class Looking:
    """What an agent's discovery hooks are told about the search.

    env: the environment (os.environ, or a test's) naming the agents' homes.
    archive: memtui's archive folder (archived sessions are listed beside live ones).
    user_home: the path looked at is the user's home folder itself (`cd ~ && memtui`): it is
        no one project, so every session of an agent's home is "for" it.
    """

    env: Mapping[str, str]
    archive: Path
    user_home: bool = False

    def archived_here(self, home: Path, kind: str, project: Path | None = None) -> bool:
        """Whether memtui's archive holds sessions of the `kind` home at `home` (of `project`)."""
        if not (self.archive / kind).is_dir():  # nothing archived of that agent: the archive's reader is not imported
            return False
        from memtui.core.cleanup.archive_read import list_archived

        manifests = list_archived(self.archive, kind, home=os.path.realpath(home))
        if project is not None:
            target = os.path.realpath(project)
            manifests = [m for m in manifests if m.project and os.path.realpath(m.project) == target]
        return any(m.kind == "session" for m in manifests)

    def home(self, variable: str, default: str) -> Path | None:
        """An agent's home: $variable when set, else ~/default (None without HOME)."""
        value = self.env.get(variable)
        if value:
            return Path(value).expanduser()
        user_home = self.env.get("HOME")
        return Path(user_home) / default if user_home else None


def archived_too(live: RecordedRoot[Any], home: Path | None, open_view: Callable[[Path], RecordedRoot[Any]],
                 archive: Path | None, project: Path | None = None) -> MemorySource:
    """`live` with the sessions memtui archived of its home (of `project` when given) listed
    beside its own; `live` alone without an archive or a home (a single transcript's store)."""
    if archive is None or home is None:
        return live
    from memtui.core.sources.archived import with_archived

    return with_archived(live, home, open_view, project=project, archive_root=archive)
