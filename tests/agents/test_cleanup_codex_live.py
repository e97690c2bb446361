"""Cleaning up a Codex home the real Codex 0.171 wrote: its rollouts open with a `session_meta`
line longer than the head the inventory reads (the model's whole instructions, 22 KiB), and each
session is still filed under the folder it ran in, titled by its first prompt and dated from its
start — as `memtui log` shows it — rather than an untitled session of no project."""

from __future__ import annotations

import shutil

import pytest

from memtui.core.cleanup.files import HEAD_BYTES
from memtui.core.homes import take_inventory

from .live_support import LIVE, fingerprint, truth_of

CODEX = sorted(p.parent for p in LIVE.glob("codex-0.171*/*/truth.json"))


@pytest.mark.skipif(not CODEX, reason="no Codex 0.171 live fixtures")
@pytest.mark.parametrize("fixture", CODEX, ids=lambda p: p.name)
def test_each_session_has_its_folder_title_and_start(fixture, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    home = shutil.copytree(fixture / "home" / ".codex", tmp_path / ".codex", symlinks=True)
    for name in home.glob("state_*.sqlite*"):  # Codex's own thread names: the title must come from the rollout
        name.unlink()
    [rollout, *_] = sorted(home.glob("sessions/**/rollout-*.jsonl"))
    assert len(rollout.read_bytes().split(b"\n", 1)[0]) > HEAD_BYTES  # what made the head hold no line
    truth = truth_of(fixture)
    before = fingerprint(home)
    inventory = take_inventory(home, cache=tmp_path / "cache")
    assert len(inventory.sessions) == truth["sessions"]
    for session in inventory.sessions:
        assert session.project == truth["workspace"]
        assert truth["prompts"][0].startswith(session.title.rstrip("…")), session.title
        assert session.first_activity is not None and session.first_activity <= session.last_activity
    assert fingerprint(home) == before
