"""Objects of a git object store another agent keeps (Gemini CLI's shadow repository, OpenCode's
snapshot store), read without writing: loose objects with zlib, those of the repositories its
`objects/info/alternates` names too; an object git has packed, when asked (`packed`), by
`git cat-file --batch` with no optional locks, no fsmonitor, no system or global config and
nothing asked on a terminal. A file is found in a tree by walking its trees."""

from __future__ import annotations

import os
import subprocess
import zlib
from pathlib import Path

__all__ = ["GitObjects", "is_sha"]

_HEX = frozenset("0123456789abcdef")
_ALTERNATES_DEPTH = 3
"""How many repositories deep `objects/info/alternates` is followed."""


def is_sha(text: str) -> bool:
    """Whether `text` is a full object name (40 lower-case hex digits)."""
    return len(text) == 40 and set(text) <= _HEX


class GitObjects:
    """The objects of one git folder (`objects/` under it); `packed`: read packed objects too (by
    running git), else only loose ones are (nothing is run)."""

    def __init__(self, git_dir: Path, packed: bool = True) -> None:
        self.git_dir = Path(git_dir)
        self.packed = packed
        self._cache: dict[str, tuple[bytes, bytes] | None] = {}

    def object(self, sha: str) -> tuple[bytes, bytes] | None:
        """(type, body) of an object, or None when the repository does not hold it."""
        if not is_sha(sha):
            return None
        if sha not in self._cache:
            self._cache[sha] = self._loose(self.git_dir, sha, 0) or (self._from_pack(sha) if self.packed else None)
        return self._cache[sha]

    def _loose(self, git_dir: Path, sha: str, depth: int) -> tuple[bytes, bytes] | None:
        try:
            raw = zlib.decompress((git_dir / "objects" / sha[:2] / sha[2:]).read_bytes())
        except (OSError, zlib.error):
            raw = b""
        if raw:
            head, _, body = raw.partition(b"\0")
            kind, _, size = head.partition(b" ")
            return (kind, body) if size.isdigit() and int(size) == len(body) else None
        try:
            alternates = (git_dir / "objects" / "info" / "alternates").read_text().split()
        except OSError:
            return None
        for other in alternates if depth < _ALTERNATES_DEPTH else []:
            found = self._loose(Path(other).parent, sha, depth + 1)
            if found is not None:
                return found
        return None

    def _from_pack(self, sha: str) -> tuple[bytes, bytes] | None:
        try:
            if not any(p.suffix == ".pack" for p in (self.git_dir / "objects" / "pack").iterdir()):
                return None
        except OSError:
            return None
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0",
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C", "HOME": os.devnull}
        try:
            done = subprocess.run(["git", "--no-optional-locks", "--git-dir", str(self.git_dir), "-c", "core.fsmonitor=false",
                                   "-c", f"safe.directory={self.git_dir}", "cat-file", "--batch"],
                                  input=f"{sha}\n".encode(), capture_output=True, env=env, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        head, _, body = done.stdout.partition(b"\n")
        parts = head.split(b" ")
        if done.returncode != 0 or len(parts) != 3 or parts[0].decode() != sha or not parts[2].isdigit():
            return None
        size = int(parts[2])
        return (parts[1], body[:size]) if len(body) >= size else None

    def file_at(self, commit: str, rel: str) -> tuple[bool, bytes | None]:
        """(read, contents) of the file `rel` (a path under the work tree) in `commit` (see
        `file_in_tree`)."""
        obj = self.object(commit)
        if obj is None or obj[0] != b"commit":
            return False, None
        first = obj[1].split(b"\n", 1)[0]
        if not first.startswith(b"tree "):
            return False, None
        return self.file_in_tree(first[5:].decode("ascii", "replace"), rel)

    def file_in_tree(self, tree: str, rel: str) -> tuple[bool, bytes | None]:
        """(read, contents) of the file `rel` (a path under the work tree) in the tree `tree`:
        contents None when the tree has no such file; read False when the repository does not
        hold the objects to say (or `rel` names a folder, or no plain path)."""
        names = rel.split("/")
        if any(n in ("", ".", "..", ".git") for n in names):
            return False, None
        sha = tree
        for depth, name in enumerate(names):
            obj = self.object(sha)
            if obj is None or obj[0] != b"tree":
                return False, None
            found = _entry(obj[1], name.encode("utf-8", "surrogateescape"))
            if found is None:
                return True, None  # not in the tree: the file did not exist (or git ignored it)
            mode, sha = found
            if depth < len(names) - 1 and mode != b"40000":
                return True, None
            if depth == len(names) - 1 and mode == b"40000":
                return False, None  # a folder where a file was asked for
        blob = self.object(sha)
        return (True, blob[1]) if blob is not None and blob[0] == b"blob" else (False, None)


def _entry(body: bytes, name: bytes) -> tuple[bytes, str] | None:
    """(mode, sha) of `name` in a tree object's body."""
    at = 0
    while at < len(body):
        space = body.find(b" ", at)
        nul = body.find(b"\0", space)
        if space < 0 or nul < 0 or nul + 21 > len(body):
            return None
        if body[space + 1:nul] == name:
            return body[at:space], body[nul + 1:nul + 21].hex()
        at = nul + 21
    return None
