"""Where the recorded paths of a Claude Code or Codex store are restored.

Their edits name files by absolute paths under the working directory the sessions recorded
(`cwd`). Opened from anywhere — the agent's home, a projects folder, one transcript — the
store still restores into that recorded folder, and says so; `--root DIR` (memtui PATH
--root DIR) maps the recorded folder to another copy of the project instead.
"""

from __future__ import annotations

from pathlib import Path

from memtui.core.memory_source import Capability


class RecordedRoot:
    """Mixin for transcript adapters: `workspace` is the `--root` folder if one was given,
    else the recorded working directory (`recorded_workspace`, from the adapter)."""

    _root: Path | None = None

    @property
    def recorded_workspace(self) -> Path | None:
        raise NotImplementedError

    @property
    def workspace(self) -> Path | None:
        return self._root or self.recorded_workspace

    @workspace.setter
    def workspace(self, value: Path | str | None) -> None:
        self._root = Path(value).expanduser() if value is not None else None

    def rollback_note(self) -> str:
        """One line for the rollback dialog: which folder recorded paths are restored under."""
        recorded = self.recorded_workspace
        if self._root is not None and recorded is not None and self._root != recorded:
            return f"Paths recorded under {recorded} are restored under {self._root} (--root)."
        if recorded is not None:
            return (f"Paths are restored under {recorded}, the working directory the sessions recorded; "
                    "to restore into another copy of the project, open it with --root DIR.")
        return ""

    def instead(self, capability: Capability) -> str:
        if capability is Capability.ROLLBACK and capability not in getattr(self, "withheld", ()):
            recorded = self.recorded_workspace
            if recorded is None:
                return ("its sessions worked in different folders; open the project folder (memtui PROJECT)"
                        " to roll back its files")
            return (f"its sessions worked in {recorded}, which is not a folder on this machine; open the project"
                    " folder, or this store with --root DIR (memtui PATH --root DIR) to restore into a copy of it")
        return super().instead(capability)  # type: ignore[misc]
