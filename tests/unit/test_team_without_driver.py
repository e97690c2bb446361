"""`pip install memtui` without the `team` extra: every verb aimed at a team store says in one
line that PostgreSQL's driver is missing and how to install it (exit 2), not a peewee traceback
("Postgres driver not installed") from deep inside the store."""

from __future__ import annotations

import json
import subprocess
import sys

URL = "postgresql://someone@127.0.0.1:1/team"

# psycopg hidden as an install without the extra lacks it: `None` in sys.modules makes its import
# fail (ImportError) in this process, before memtui or peewee are imported.
RUN = f"""
import contextlib, io, json, sys
sys.modules["psycopg"] = None
sys.modules["psycopg2"] = None
from memtui.cli import main
for argv in ([{URL!r}], ["open", "--team", {URL!r}], ["usage", "--team", {URL!r}],
             ["push", "--team", {URL!r}, "--dry-run"], ["search", "--team", {URL!r}, "x"], ["log", {URL!r}]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    print(json.dumps([argv, code, err.getvalue()]))
"""


def test_each_team_verb_names_the_missing_driver_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == 6, done.stdout
    for argv, code, err in results:
        assert (code, err) == (2, "memtui: the team store needs psycopg, PostgreSQL's driver:"
                                  " pip install 'memtui[team]'\n"), argv
