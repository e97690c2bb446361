"""The one path rule: a recorded path is workspace-relative POSIX, never absolute, never `..`.

`relative_parts` checks a path as recorded (untrusted: by an agent, in a transcript) and
`normalise_path` gives its one spelling ("./a//b.txt" and "a/b.txt" are one file);
`inside_workspace` resolves a path on disk and refuses one that leads out (symlinks too).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Iterable

from memtui.core.errors import PathEscape


def stat_key(path: Path | str) -> tuple[int, int, int] | None:
    """A file's (size, mtime in ns, inode): what changes when it is written, or replaced by
    another file (a rename over it). None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def files_key(paths: Iterable[Path | str], known: dict[str, tuple[int, int, int]] | None = None) -> tuple[int, str]:
    """The bytes of the `paths` still there, and a digest of their stat keys: it changes when
    any of them is written (even in place, keeping its size), replaced, added or removed.
    `known`: stat keys taken already (by a walk just made), by path as text: not taken again."""
    total = 0
    digest = hashlib.blake2b(digest_size=16)
    known = known or {}
    for path in paths:
        key = known.get(path) if path.__class__ is str and path in known else stat_key(path)
        if key is not None:
            total += key[0]
            digest.update(f"{path}\0{key}\0".encode("utf-8", "surrogateescape"))
    return total, digest.hexdigest()


_DRIVE = re.compile(r"^[a-z]:[\\/]")


def recorded_folder(cwd: str) -> str:
    """A working folder as an agent recorded it, in one spelling: a Windows drive letter upper
    case. `c:\\Users\\me` and `C:\\Users\\me` are one folder; Claude Code records both (even
    in one session) and keeps a project folder for each (`c--Users-me`, `C--Users-me`)."""
    return cwd[0].upper() + cwd[1:] if _DRIVE.match(cwd) else cwd


def plain_name(name: object) -> bool:
    """One plain path component, as the ids and file names an agent records in place of a path
    are (a session id, a backup's or a project's name): not empty, `.` or `..`, no separator or
    NUL. A recorded name that is not one is never joined to a path."""
    return (isinstance(name, str) and name not in ("", ".", "..")
            and not any(c in name for c in ("/", "\\", "\0")))


def relative_parts(path: str, root: Path | None = None) -> list[str]:
    """The components of a recorded workspace-relative path ("." and empty ones dropped).

    PathEscape (a ValueError) says why a path is refused: not a string, empty, NUL byte,
    absolute (POSIX or a Windows drive), or holding ".." (naming `root` when given).
    """
    if not isinstance(path, str) or "\x00" in path:
        raise PathEscape(f"invalid path {path!r}")
    raw = path.replace("\\", "/")
    where = "the workspace root" if root is None else f"the workspace root {root}"
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise PathEscape(f"absolute path: outside {where}")
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise PathEscape(f"'..' leads outside {where}")
    if not parts or not path.strip():
        raise PathEscape("empty path")
    return parts


def normalise_path(path: str) -> str:
    """A recorded path's one spelling: workspace-relative POSIX ("./a//b" → "a/b");
    PathEscape naming the path when it is refused."""
    try:
        return "/".join(relative_parts(path))
    except PathEscape as exc:
        raise PathEscape(f"{exc}: {path!r}") from None


def inside_workspace(root: Path, path: Path | str) -> Path:
    """`path` (absolute, or relative to the resolved `root`) resolved; PathEscape when it
    leads outside the workspace (through `..` or a symlink)."""
    path = Path(path)
    resolved = (path if path.is_absolute() else root / path).resolve()
    if resolved != root and root not in resolved.parents:
        raise PathEscape(f"{path} is outside the workspace {root}")
    return resolved
