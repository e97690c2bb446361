"""`memtui serve`: loopback by default; any other address is refused unless read-only (or the
user lets writes in from the network) and warned about before listening."""

from __future__ import annotations

import os
import shlex
import socket
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


def _serving_lines(argv: list[str], tmp_path, count: int) -> list[str]:
    """The first `count` lines a real `memtui serve …` prints on stderr while it listens; the
    server is stopped after."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    server = subprocess.Popen([sys.executable, "-m", "memtui", "serve", *argv], stderr=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        assert server.stderr is not None
        return [server.stderr.readline().rstrip("\n") for _ in range(count)]
    finally:
        server.kill()
        server.wait()


def test_a_non_loopback_host_is_warned_about_and_each_serve_prints_its_own_token(tmp_path):
    port = free_port()
    browse = _serving_lines([str(tmp_path), "--host", "0.0.0.0", "--port", str(port), "--read-only"], tmp_path, 2)
    assert browse[0].startswith("memtui: serving ") and "/?token=" in browse[0]
    assert browse[1].startswith(f"memtui: WARNING: listening on 0.0.0.0: anyone who can reach port {port} "
                                "and has this address can browse the agent memory")
    assert "change" not in browse[1]
    argv = [str(tmp_path), "--host", "0.0.0.0", "--port", str(free_port()), "--allow-writes-from-network"]
    change = _serving_lines(argv, tmp_path, 2)
    assert "can browse and change (pin, roll back, GC, edit)" in change[1]
    tokens = {lines[0].split("?token=")[1].split()[0] for lines in (browse, change)}
    assert len(tokens) == 2 and all(len(t) >= 32 for t in tokens)


def test_an_address_nothing_can_listen_on_is_one_line_and_no_url(tmp_path, capsys):
    # 192.0.2.1 (TEST-NET-1) is no address of this machine; the port below is another server's.
    assert main(["serve", str(tmp_path), "--host", "192.0.2.1", "--port", "8765", "--read-only"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("memtui: cannot listen on 192.0.2.1:8765: ")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", str(tmp_path), "--port", str(port)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"memtui: cannot listen on 127.0.0.1:{port}: Address already in use; nothing is served"]
    assert main(["serve", str(tmp_path), "--host", "nosuch.invalid", "--read-only"]) == 2  # no such name
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("memtui: cannot listen on nosuch.invalid:8000: ") and "-2" not in err[0]


def test_a_tab_cap_below_one_is_refused(tmp_path, capsys):
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
