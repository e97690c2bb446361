"""memtui.web.guard: which pages count as the served host's own (no server needed)."""

from __future__ import annotations

import pytest

pytest.importorskip("aiohttp", reason="textual-serve is not installed (pip install -e '.[serve]')")

from memtui.web.guard import WebGuard  # noqa: E402


@pytest.mark.parametrize("origin, host_header, allowed", [
    ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
    ("http://localhost:8000", "localhost:8000", True),
    ("http://[::1]:8000", "[::1]:8000", True),
    ("HTTP://LOCALHOST:8000", "localhost:8000", True),
    ("http://127.0.0.1:8001", "127.0.0.1:8000", False),  # another server on this machine
    ("https://127.0.0.1:8000", "127.0.0.1:8000", False),
    ("http://evil.example", "127.0.0.1:8000", False),
    ("http://evil.example:8000", "evil.example:8000", False),  # a name re-pointed at 127.0.0.1
    ("null", "127.0.0.1:8000", False),  # a sandboxed frame, a file:// page
    ("", "127.0.0.1:8000", False),
])
def test_on_loopback_only_this_machines_names_on_this_port_are_the_served_host(origin, host_header, allowed):
    guard = WebGuard.for_address("127.0.0.1", 8000)
    assert guard.origin_allowed(origin, host_header) is allowed


def test_a_wildcard_address_accepts_its_public_name_and_an_address_it_was_reached_at():
    guard = WebGuard.for_address("0.0.0.0", 8000, "http://box.lan:8000")
    assert guard.origin_allowed("http://box.lan:8000", "box.lan:8000")
    assert guard.origin_allowed("http://192.0.2.7:8000", "192.0.2.7:8000")  # an IP cannot be re-pointed
    assert not guard.origin_allowed("http://192.0.2.7:8000", "192.0.2.8:8000")
    assert not guard.origin_allowed("http://other.lan:8000", "other.lan:8000")
    assert guard.origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000")  # it listens on loopback too
    assert not guard.origin_allowed("https://192.0.2.7:8000", "192.0.2.7:8000")


def test_behind_a_proxy_the_public_url_is_the_origin_and_the_url_carries_the_token():
    guard = WebGuard.for_address("127.0.0.1", 8000, "https://memory.example.org/")
    assert guard.origin_allowed("https://memory.example.org", "127.0.0.1:8000")
    assert guard.url("https://memory.example.org/") == f"https://memory.example.org/?token={guard.token}"
    assert WebGuard.for_address("127.0.0.1", 8000).token != guard.token
