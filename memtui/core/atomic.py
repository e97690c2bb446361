"""Atomic file writes, shared by the memory-document save and the rollback engine.

A reader (or the agent) sees the old file or the new one, never a half-written one: the
bytes go to a temp file in the same directory, are fsynced, and renamed over the target;
the directory is fsynced so the rename survives a power cut.

A process killed mid-write leaves at most its temp file, `.<name>.<pid>-<8 hex>.memtui-tmp`
(a new store is built as such a temp database: it may leave SQLite's `-wal`, `-shm` or
`-journal` beside it too). The next write into that directory (the opening of a workspace,
`sweep_workspace`; of a store for writing) removes such leftovers: only names of exactly that
pattern, regular files of this user, whose writer is gone. A whole tree built before it is
renamed into place goes to a `temp_dir` (`.<name>.<pid>-<8 hex>.memtui-tmpdir`), which
`remove_stale_temp_dirs` removes on the same terms; `put_in_place` swaps it with an existing
folder whole. Nothing else is ever removed.

"Gone" is told by the pid in the name, never by age: a memtui that runs for days keeps its
temp folder (an archived-session view, a big demo being built) however old it is. The pid is
gone when no process has it, or only a zombie; a live pid counts as reused — the writer gone —
when its process started after the entry last changed (st_ctime, which no utime can set back;
psutil reads the start: /proc/PID/stat on Linux, the kernel's process table on macOS and
Windows). Where a start time cannot be read, a live pid keeps its entry (a leftover of a
reused pid then stays until that process ends). Only the pid-less names of older versions go
by age, once older than STALE_AFTER.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import stat
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator

from memtui.core.errors import WritesForbidden

TEMP_SUFFIX = ".memtui-tmp"
STALE_AFTER = 3600.0  # seconds: the age at which a pid-less temp file (older versions) is taken as stale
START_SLACK = 1.0  # seconds: a process's start is read to the boot second (btime), a file's time to a tick
_TEMP_NAME = re.compile(r"\A\..+\.(?:(?P<pid>[0-9]+)-)?[0-9a-f]{8}\.memtui-tmp(?:-wal|-shm|-journal)?\Z", re.DOTALL)
_SIDE_SUFFIXES = (TEMP_SUFFIX, TEMP_SUFFIX + "-wal", TEMP_SUFFIX + "-shm", TEMP_SUFFIX + "-journal")
TEMP_DIR_SUFFIX = ".memtui-tmpdir"
_TEMP_DIR_NAME = re.compile(r"\A\..+\.(?P<pid>[0-9]+)-[0-9a-f]{8}\.memtui-tmpdir\Z", re.DOTALL)


_forbidden: str | None = None


def forbid_writes(reason: str | None) -> None:
    """From now on this process writes nothing: every write path asks `check_writes_allowed`
    (atomic file writes, the store's writer, a foreign database's write connection, file
    deletions of a rollback) and refuses with `reason`. None lifts it (tests). Set by
    `memtui open/serve --read-only` for the app's process."""
    global _forbidden
    _forbidden = reason


def check_writes_allowed(what: object = "") -> None:
    """Raise WritesForbidden when this process was told not to write."""
    if _forbidden is not None:
        raise WritesForbidden(f"not writing {what}: {_forbidden}" if what else f"not writing: {_forbidden}")


def file_mode(path: Path) -> int | None:
    """The permission bits of the file at `path`, or None when there is no file."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def temp_path(path: Path) -> Path:
    """A fresh temp name beside `path` that `remove_stale_temps` recognises (pid + random);
    the name is cut so a long file name cannot push it past NAME_MAX."""
    path = Path(path)
    return path.parent / f".{path.name[:96]}.{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}"


def write_atomic(
    path: Path, content: bytes, mode: int | None = None, *, before_replace: Callable[[], object] | None = None,
    sweep: bool = True,
) -> None:
    """Temp file beside `path`, fsync, rename over it, fsync the directory.

    `mode` is the mode to give the file (an existing file's, to keep it); None gives the
    default mode under the process umask, as an ordinary create would. `before_replace`
    runs just before the rename and may raise to abandon the write (the temp file goes):
    the memory save re-checks there that the agent has not written the file meanwhile.
    `sweep` first removes stale temp files of crashed writes from the directory (a caller
    writing many files there sweeps once itself and passes False).
    """
    check_writes_allowed(path)
    path = Path(path)
    if sweep:
        remove_stale_temps(path.parent)
    tmp = temp_path(path)
    with naming_target(tmp, path):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
                handle.flush()
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            if before_replace is not None:
                before_replace()
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    fsync_dir(path.parent)


@contextmanager
def naming_target(tmp: Path, target: Path) -> Iterator[None]:
    """An OSError about memtui's temp file `tmp` is reported about `target`, the file the user
    asked for (`…/out.html: permission denied`, not `…/.out.html.<pid>-<hex>.memtui-tmp`)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or os.fsdecode(exc.filename) != str(tmp):
            raise
        raise OSError(exc.errno, exc.strerror, str(target)) from None  # PermissionError etc. as before


def fsync_dir(directory: Path) -> None:
    """Make a rename or unlink in `directory` durable, where the platform allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # some platforms cannot open a directory; the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories
    finally:
        os.close(fd)


def is_mine(st: os.stat_result) -> bool:
    """Whether the file `st` describes is this user's (on a system without user ids, always)."""
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def made_private(folder: Path) -> bool:
    """Make `folder` (and its parents) if missing, and 0700 when it is this user's real folder:
    True then; False for a link or someone else's folder (nothing goes there). OSError as raised."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.mkdir(mode=0o700, exist_ok=True)
    own = os.lstat(folder)
    if not stat.S_ISDIR(own.st_mode) or not is_mine(own):
        return False
    if stat.S_IMODE(own.st_mode) != 0o700:  # mkdir's mode passes through the umask; an older one may be looser
        os.chmod(folder, 0o700)
    return True


def writer_running(pid: int, changed: float) -> bool:
    """The process that wrote an entry last changed at `changed` may still run: `pid` is alive
    (not a zombie) and its process started before `changed` (else the pid was reused); True
    where that cannot be told (another user's process). Out of range: False."""
    import psutil  # only here: most sweeps find no temp file to ask about

    if pid < 1:
        return False  # 0 and -1 name process groups, no one writer
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False  # killed, not yet reaped: it holds nothing any more
        started = proc.create_time()
    except psutil.NoSuchProcess:  # ZombieProcess too
        return False
    except (psutil.Error, OSError, OverflowError):
        return True  # someone else's process: keep
    return changed >= started - START_SLACK  # else the pid was reused by a younger process


def is_stale_temp(path: Path, now: float | None = None) -> bool:
    """True for a temp file a crashed memtui write left behind (see the module docstring)."""
    return _is_stale(path, _TEMP_NAME, stat.S_ISREG, now)


def _is_stale(path: Path, pattern: re.Pattern[str], of_kind: Callable[[int], bool], now: float | None) -> bool:
    """`path` is named by `pattern`, is of the kind `of_kind` tells from its mode (never
    followed if a link), is this user's, and its writer is gone (for a pid-less name of older
    versions: it is older than STALE_AFTER)."""
    m = pattern.match(path.name)
    if m is None:
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not of_kind(st.st_mode) or not is_mine(st):
        return False
    pid = m.group("pid")
    if pid is None:
        return ((time.time() if now is None else now) - st.st_mtime) > STALE_AFTER
    return not writer_running(int(pid), max(st.st_ctime, st.st_mtime))


def remove_stale_temps(directory: Path) -> list[Path]:
    """Remove the stale memtui temp files directly in `directory`; the paths removed (none
    in a process that must not write)."""
    return _remove_stale(directory, _SIDE_SUFFIXES, _TEMP_NAME, stat.S_ISREG, os.unlink)


def _remove_stale(directory: Path, suffixes: tuple[str, ...], pattern: re.Pattern[str],
                  of_kind: Callable[[int], bool], remove: Callable[[Path], None]) -> list[Path]:
    """`remove` each entry directly in `directory` that `_is_stale` names; the paths removed
    (none in a process that must not write, or when `remove` failed)."""
    if _forbidden is not None:
        return []
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(directory) if n.endswith(suffixes)]
    except OSError:
        return removed  # a missing or unreadable directory has nothing of ours to clean
    now = time.time()
    for name in names:
        candidate = Path(directory) / name
        if _is_stale(candidate, pattern, of_kind, now):
            try:
                remove(candidate)
            except OSError:
                continue
            removed.append(candidate)
    return removed


def sweep_directories(directories: Iterable[Path]) -> list[Path]:
    """`remove_stale_temps` over several directories, each once."""
    removed: list[Path] = []
    for directory in dict.fromkeys(Path(d) for d in directories):
        removed += remove_stale_temps(directory)
    return removed


def temp_dir(path: Path) -> Path:
    """A fresh folder name beside `path` for building a whole tree that is then renamed into
    place (`.<name>.<pid>-<8 hex>.memtui-tmpdir`): `remove_stale_temp_dirs` removes it once its
    process is gone."""
    path = Path(path)
    return path.parent / f".{path.name[:96]}.{os.getpid()}-{secrets.token_hex(4)}{TEMP_DIR_SUFFIX}"


def remove_stale_temp_dirs(directory: Path) -> list[Path]:
    """Remove the folders `temp_dir` named directly in `directory` whose process is gone
    (whatever their age): only real folders of this user with exactly that name
    pattern, never a symlink. The paths removed (none in a process that must not write)."""
    return _remove_stale(directory, (TEMP_DIR_SUFFIX,), _TEMP_DIR_NAME, stat.S_ISDIR,
                         lambda path: shutil.rmtree(path, ignore_errors=True))


def put_in_place(built: Path, place: Path) -> None:
    """Make the folder `built` (a `temp_dir` beside `place`) be `place`, whole.

    A new `place` is one rename. An existing one (a folder) is swapped with `built` in one
    rename where the system can (Linux's renameat2 RENAME_EXCHANGE): `place` is the old tree
    or the new one at every instant, and the old one, now under `built`'s temp name, is
    removed. Elsewhere the old one is first renamed aside to a temp name, then `built` in: a
    kill between the two leaves no `place`, and running the job again builds it. Either way
    what a kill leaves under a temp name goes with the next `remove_stale_temp_dirs` once
    this process is gone, as does an old tree that cannot be removed now (the job has
    succeeded: `place` is the new folder). The new folder takes the old one's permission bits."""
    built, place = Path(built), Path(place)
    if not os.path.lexists(place):
        os.rename(built, place)
        fsync_dir(place.parent)
        return
    os.chmod(built, stat.S_IMODE(os.stat(place).st_mode))
    if _exchange(built, place):
        old = built
    else:
        old = temp_dir(place)
        os.rename(place, old)
        try:
            os.rename(built, place)
        except OSError:
            os.rename(old, place)  # the old folder back: `built` is the caller's to remove
            raise
    fsync_dir(place.parent)
    shutil.rmtree(old, ignore_errors=True)  # the new folder is in place: what stays goes with the sweep


def rename_fresh(built: Path, prefix: str) -> Path:
    """Rename the folder `built` to a fresh name beside it, `prefix` + 8 hex digits, never over
    anything there; the new path. One rename where the system can (renameat2
    RENAME_NOREPLACE); elsewhere a new empty folder that `built` is swapped into (a kill
    between the two leaves that empty folder)."""
    for _ in range(100):
        target = built.parent / f"{prefix}{secrets.token_hex(4)}"
        try:
            if _renameat2(built, target, _NOREPLACE):
                fsync_dir(built.parent)
                return target
            target.mkdir(mode=0o700)
        except FileExistsError:
            continue
        put_in_place(built, target)
        return target
    raise FileExistsError(f"no free name {prefix}… in {built.parent}")


_NOREPLACE, _EXCHANGE = 1, 2  # renameat2 flags


def _exchange(a: Path, b: Path) -> bool:
    """Swap the entries `a` and `b` in one rename; False where the system cannot."""
    return _renameat2(a, b, _EXCHANGE)


def _renameat2(a: Path, b: Path, flag: int) -> bool:
    """renameat2(a, b, flag) (Linux 3.15+): True once done, False where the system or the
    filesystem cannot; OSError for any other failure (FileExistsError: `b` exists, NOREPLACE)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:  # a C library older than glibc 2.28
        return False
    renameat2.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), flag) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # a filesystem or kernel without it
        return False
    raise OSError(err, os.strerror(err), str(b))
