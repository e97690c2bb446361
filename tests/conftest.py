"""Fixtures every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _own_xdg_folders(tmp_path_factory, monkeypatch):
    """memtui's own folders (archive, pins, caches under XDG_DATA/STATE/CACHE_HOME) point
    into a temp folder: no test reads or writes the real user's."""
    base = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(base / var.lower()))
