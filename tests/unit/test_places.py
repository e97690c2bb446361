"""Every folder of memtui's own follows one XDG rule (memtui.core.places): an absolute value is
used, a relative one is ignored (the spec says so) and HOME's default is taken instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.store.paths import team_folder
from memtui.ui.settings import config_path

URL = "postgresql://team@db/memtui"


@pytest.mark.parametrize("value, under", [("ABS", "abs"), ("relative/cache", "home")])
def test_the_settings_and_a_team_stores_index_follow_the_xdg_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  value: str, under: str) -> None:
    home, absolute = tmp_path / "home", tmp_path / "xdg"
    monkeypatch.setenv("HOME", str(home))
    given = str(absolute) if value == "ABS" else value
    monkeypatch.setenv("XDG_CACHE_HOME", given)
    monkeypatch.setenv("XDG_CONFIG_HOME", given)
    cache, config = (absolute, absolute) if under == "abs" else (home / ".cache", home / ".config")
    assert team_folder(URL).parent == cache / "memtui" / "team"
    assert config_path() == config / "memtui" / "config.toml"
