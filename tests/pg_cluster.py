"""A private PostgreSQL cluster for the team-store tests: `initdb` + `pg_ctl` in a temp folder,
listening on a Unix socket in that folder only (no TCP port), stopped and removed at the end.

    with PgCluster.start() as cluster:        # or the `pg_cluster` fixture (one per test process)
        url = cluster.new_database()          # postgresql://memtui@/db_1?host=/tmp/memtui-pg-…

initdb refuses to run as root: as root, the cluster's files belong to `nobody` and its programs
run as that user (runuser); the tests connect over the socket as the cluster's superuser
`memtui` (trust authentication: only this machine's processes can reach the socket folder).
`PgCluster.missing()` says why there is no cluster to start (no PostgreSQL installed).
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "memtui"
RUN_AS = "nobody"


def _binaries() -> Path | None:
    """The folder of initdb/pg_ctl/postgres: on PATH, else Debian's /usr/lib/postgresql/N/bin."""
    found = shutil.which("pg_ctl")
    candidates = [str(Path(found).resolve().parent)] if found else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if all(Path(folder, name).exists() for name in ("initdb", "pg_ctl", "postgres")):
            return Path(folder)
    return None


class PgCluster:
    def __init__(self, folder: Path, bin_dir: Path) -> None:
        self.folder = folder
        self.bin_dir = bin_dir
        self._numbers = itertools.count(1)

    @staticmethod
    def missing() -> str | None:
        """Why no cluster can be started here, or None."""
        try:
            import psycopg  # noqa: F401
        except ImportError:
            return "psycopg is not installed (pip install -e '.[test]' brings it)"
        if _binaries() is None:
            return ("PostgreSQL is not installed (no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin);"
                    " `apt-get install postgresql` (.ci/run does so as root)")
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            return "running as root without runuser: initdb refuses to run as root"
        return None

    @classmethod
    def start(cls) -> "PgCluster":
        bin_dir = _binaries()
        assert bin_dir is not None, cls.missing()
        # Short: the socket's path must fit in 107 bytes.
        folder = Path(tempfile.mkdtemp(prefix="memtui-pg-", dir="/tmp"))
        if os.geteuid() == 0:
            shutil.chown(folder, RUN_AS)
        cluster = cls(folder, bin_dir)
        cluster._run("initdb", "-D", str(folder / "data"), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                     "--no-instructions", "-N")
        cluster._run("pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "log"), "-w", "-t", "60", "-o",
                     f"-k {folder} -c listen_addresses='' -c fsync=off -c synchronous_commit=off"
                     " -c full_page_writes=off -c max_connections=200", "start")
        return cluster

    def _run(self, program: str, *args: str) -> None:
        argv = [str(self.bin_dir / program), *args]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", RUN_AS, "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=self.folder)
        if done.returncode:
            log = (self.folder / "log").read_text() if (self.folder / "log").exists() else ""
            raise RuntimeError(f"{program} failed: {done.stderr or done.stdout}\n{log[-2000:]}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.folder}"

    def admin(self, sql: str) -> None:
        """One statement as the superuser, outside a transaction (CREATE DATABASE, roles)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self) -> str:
        """The URL of a new, empty database (one per test: nothing leaks between tests)."""
        name = f"db_{os.getpid()}_{next(self._numbers)}"
        self.admin(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "PgCluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
