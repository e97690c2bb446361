"""The git commits Aider made, read with git's plumbing (cat-file, diff-tree, log): read-only.

Aider commits each edit it applies ("> Commit 321958b <message>" in its chat history, a
`Co-authored-by: aider (<model>)` trailer or an "aider: " subject in the commit): the commit is
the diff. Every git call here only reads objects — no index refresh, no optional locks
(`GIT_OPTIONAL_LOCKS=0`), no fsmonitor or pager run, nothing asked on a terminal — so reading
a repository changes no byte of it.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

ZERO = "0" * 40
_KINDS = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}


class GitError(Exception):
    """git could not be run, or refused the repository (the message says why, on one line)."""


@dataclass(frozen=True)
class FileChange:
    """One file a commit changed: its path from the repository root and its blobs (None: absent)."""

    path: str
    kind: str  # "added" | "modified" | "deleted"
    before: str | None
    after: str | None


@dataclass
class Commit:
    sha: str
    parents: tuple[str, ...]
    committed_at: datetime | None
    message: str
    files: list[FileChange] = field(default_factory=list)

    @property
    def by_aider(self) -> bool:
        """The commit says aider made it (its co-author trailer or its subject)."""
        lower = self.message.lower()
        return "co-authored-by: aider" in lower or lower.startswith("aider: ")


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """The output of a read-only git command in `repo` (GitError when it fails)."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", "--no-optional-locks", "-c", "core.fsmonitor=false", "-C", str(repo), *args],
                              input=stdin, capture_output=True, env=env, timeout=60)
    except FileNotFoundError:
        raise GitError("git is not installed: Aider's commits cannot be read") from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git could not be run: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[0] if message else f"git {args[0]} failed")
    return done.stdout


def _bare_or_elsewhere(dot_git: Path) -> bool:
    """Whether a repository's config makes it bare or puts its work tree elsewhere (then only
    git can say where its top is)."""
    try:
        config = (dot_git / "config").read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return False
    squeezed = config.replace(" ", "").replace("\t", "")
    return "bare=true" in squeezed or "worktree=" in squeezed


def toplevel(folder: Path) -> Path | None:
    """The root of the git work tree holding `folder`, or None (not a repository, no git). A
    folder with no `.git` in it or above it is none, without running git (many histories below
    the home folder are looked at at once)."""
    here = Path(folder).absolute()
    if "GIT_DIR" not in os.environ and not any((p / ".git").exists() for p in (here, *here.parents)):
        return None
    if "GIT_DIR" not in os.environ and "GIT_WORK_TREE" not in os.environ and (here / ".git").is_dir() \
            and (here / ".git" / "HEAD").is_file() and not _bare_or_elsewhere(here / ".git"):
        return Path(os.path.realpath(here))  # its own .git: the top of its work tree, as git says
    try:
        out = git(folder, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    except GitError:
        return None
    return Path(out) if out else None


def read_commits(repo: Path, shas: list[str]) -> tuple[dict[str, Commit], list[str]]:
    """The commits named by (short) `shas`, each with the files it changed against its first
    parent, keyed by the name given; and the names the repository does not hold (an undone
    commit pruned since, another clone). GitError when git cannot read the repository."""
    names = list(dict.fromkeys(shas))
    if not names:
        return {}, []
    checked = git(repo, "cat-file", "--batch-check", stdin="".join(f"{s}^{{commit}}\n" for s in names).encode())
    full: dict[str, str] = {}
    missing: list[str] = []
    for name, line in zip(names, checked.decode("utf-8", "replace").splitlines()):
        parts = line.split()
        if len(parts) == 3 and parts[1] == "commit":
            full[name] = parts[0]
        else:
            missing.append(name)
    if not full:
        return {}, missing
    shas_found = list(dict.fromkeys(full.values()))
    commits = _metadata(repo, shas_found)
    _files(repo, shas_found, commits)
    return {name: commits[sha] for name, sha in full.items() if sha in commits}, missing


def _metadata(repo: Path, shas: list[str]) -> dict[str, Commit]:
    out = git(repo, "log", "--no-walk=unsorted", "--format=%H%x00%P%x00%ct%x00%B%x1e", *shas)
    commits = {}
    for record in out.decode("utf-8", "replace").split("\x1e"):
        fields = record.lstrip("\n").split("\x00")
        if len(fields) < 4:
            continue
        sha, parents, stamp, message = fields[:4]
        when = datetime.fromtimestamp(int(stamp), tz=timezone.utc) if stamp.isdigit() else None
        commits[sha] = Commit(sha, tuple(parents.split()), when, message.strip())
    return commits


def _files(repo: Path, shas: list[str], commits: dict[str, Commit]) -> None:
    out = git(repo, "diff-tree", "--stdin", "-r", "-z", "--no-renames", "--root", stdin="".join(f"{s}\n" for s in shas).encode())
    tokens = out.split(b"\0")
    current: Commit | None = None
    n = 0
    while n < len(tokens):
        token = tokens[n].decode("utf-8", "surrogateescape")
        n += 1
        if len(token) == 40 and all(c in "0123456789abcdef" for c in token):
            current = commits.get(token)
        elif token.startswith(":") and current is not None and n < len(tokens):
            _old_mode, _new_mode, old, new, status = token[1:].split(" ")[:5]
            path = tokens[n].decode("utf-8", "surrogateescape")
            n += 1
            kind = _KINDS.get(status[:1], "modified")
            current.files.append(FileChange(path, kind, None if old == ZERO else old, None if new == ZERO else new))


def read_blob(repo: Path, blob: str) -> bytes:
    """A blob's bytes (GitError when the repository does not hold it)."""
    return git(repo, "cat-file", "blob", blob)


def blob_sizes(repo: Path, blobs: list[str]) -> dict[str, int]:
    """The size of each blob the repository holds (one `cat-file --batch-check`)."""
    if not blobs:
        return {}
    out = git(repo, "cat-file", "--batch-check", stdin="".join(f"{b}\n" for b in blobs).encode())
    sizes = {}
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            sizes[parts[0]] = int(parts[2])
    return sizes
