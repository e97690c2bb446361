"""memtui over HTTP: what every web view of memtui shares. `guard` (needs aiohttp, the `serve`
extra) stands in front of each; this module imports nothing beyond the standard library."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach `host` (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
