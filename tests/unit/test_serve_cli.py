"""`memtui serve`: loopback by default; any other address is warned about before listening."""

from __future__ import annotations

import shlex
import sys

import pytest

from memtui.cli import main
from memtui.cli.serve import app_command, is_loopback, public_url


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
    assert main(["serve", str(tmp_path), "--host", "192.0.2.1", "--port", "8765"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("memtui: WARNING: listening on 192.0.2.1: anyone who can reach port 8765 "
                             "can browse and change (pin, roll back, GC, edit)")
    assert "add --read-only" in err[0]
    assert err[-1].startswith("memtui: cannot listen on 192.0.2.1:8765")
    assert main(["serve", str(tmp_path), "--host", "192.0.2.1", "--port", "8765", "--read-only"]) == 2
    warning = capsys.readouterr().err.splitlines()[0]
    assert "can browse the agent memory" in warning and "change" not in warning


def test_a_missing_path_is_refused_before_serving(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err
