"""`memtui serve`: loopback by default; any other address is refused unless read-only (or the
user lets writes in from the network) and warned about before listening."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from memtui.cli import main
from memtui.cli.serve import app_command, is_loopback, public_url
from browser_support import free_port


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.8.9.10", True), ("localhost", True), ("::1", True), ("[::1]", True),
    ("0.0.0.0", False), ("::", False), ("192.0.2.1", False), ("example.org", False),
])
def test_loopback_addresses(host, loopback):
    assert is_loopback(host) is loopback


def test_each_browser_tab_runs_this_memtui_read_only_when_asked(tmp_path):
    argv = shlex.split(app_command(tmp_path / "a b", None, read_only=True))
    assert argv[:4] == [sys.executable, "-m", "memtui", "open"]
    assert argv[4:] == [str(tmp_path / "a b"), "--read-only"]
    assert "--read-only" not in app_command(tmp_path, None, read_only=False)
    assert public_url("::1", 8000) == "http://[::1]:8000"


def test_a_non_loopback_host_is_warned_about_and_a_failed_bind_is_one_line(tmp_path, capsys):
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: binding fails, nothing is sent.
    assert main(["serve", str(tmp_path), "--host", "192.0.2.1", "--port", "8765", "--read-only"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("memtui: serving ") and "/?token=" in err[0]
    assert err[1].startswith("memtui: WARNING: listening on 192.0.2.1: anyone who can reach port 8765 "
                             "and has this address can browse the agent memory")
    assert "change" not in err[1]
    assert err[-1].startswith("memtui: cannot listen on 192.0.2.1:8765")
    argv = ["serve", str(tmp_path), "--host", "192.0.2.1", "--port", "8765", "--allow-writes-from-network"]
    assert main(argv) == 2
    warning = capsys.readouterr().err.splitlines()[1]
    assert "can browse and change (pin, roll back, GC, edit)" in warning


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1"])
def test_a_network_address_without_read_only_is_refused_before_listening(tmp_path, capsys, host):
    assert main(["serve", str(tmp_path), "--host", host, "--port", "8765"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"memtui: --host {host} lets other machines in: add --read-only to let them browse only, "
                   "or --allow-writes-from-network to let whoever has the URL change the memory"]


def test_each_serve_prints_its_own_token_and_a_cap_below_one_is_refused(tmp_path, capsys):
    tokens = set()
    for _ in range(2):
        main(["serve", str(tmp_path), "--host", "192.0.2.1", "--port", "8765", "--read-only"])
        line = capsys.readouterr().err.splitlines()[0]
        tokens.add(line.split("?token=")[1].split()[0])
    assert len(tokens) == 2 and all(len(t) >= 32 for t in tokens)
    assert main(["serve", str(tmp_path), "--max-tabs", "0"]) == 2
    assert "--max-tabs 0" in capsys.readouterr().err


def test_a_missing_path_is_refused_before_serving(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def _serve_fails_at_once(argv: list[str], tmp_path) -> subprocess.CompletedProcess:
    """`memtui serve …` run as a user would; a server that starts listening instead of refusing
    is stopped after a few seconds (the test then fails on its exit code)."""
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    try:
        return subprocess.run([sys.executable, "-m", "memtui", "serve", *argv], capture_output=True, text=True,
                              timeout=20, env=env)
    except subprocess.TimeoutExpired as served:
        raise AssertionError(f"memtui serve {argv} started serving: {served.stderr!r}") from None


@pytest.mark.parametrize("layout", ["text file named agent.db", "workspace whose .agent/agent.db is text"])
def test_a_path_that_is_no_store_is_refused_before_serving(tmp_path, layout):
    if layout.startswith("text file"):
        given = tmp_path / "agent.db"
        given.write_text("not a database\n")
    else:
        given = tmp_path / "ws"
        (given / ".agent").mkdir(parents=True)
        (given / ".agent" / "agent.db").write_text("not a database\n")
    done = _serve_fails_at_once([str(given), "--port", str(free_port())], tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: ") and "agent.db" in lines[0], lines
    assert "serving" not in done.stderr and "Traceback" not in done.stderr
