"""The cycle collector paused while the app starts comes back: once the first frame is drawn,
or after the wait if nothing is ever drawn (a failed opening), never staying off."""

from __future__ import annotations

import gc
import threading
import time

from memtui.ui.collector import pause, resume_after


def _enabled_within(seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if gc.isenabled():
            return True
        time.sleep(0.01)
    return gc.isenabled()


def test_the_collector_resumes_once_the_first_frame_is_drawn() -> None:
    drawn = threading.Event()
    pause()
    try:
        resume_after(drawn, 60)
        time.sleep(0.05)
        assert not gc.isenabled()  # still starting
        drawn.set()
        assert _enabled_within(60)  # only bounds a collector that never comes back
    finally:
        gc.enable()
        gc.unfreeze()


def test_the_collector_resumes_when_nothing_is_ever_drawn() -> None:
    pause()
    try:
        resume_after(threading.Event(), 0.1)
        assert _enabled_within(60)  # only bounds a collector that never comes back
    finally:
        gc.enable()
        gc.unfreeze()


def test_memtui_open_refused_before_the_app_starts_leaves_the_collector_on(tmp_path, capsys) -> None:
    """`memtui open` pauses the collector first; a refusal before the app starts (a --root that
    is no folder, standard input not a terminal) turns it back on at once: a program calling
    memtui's CLI in-process must not go on without cycle collection."""
    from memtui.cli import main

    gc.enable()
    assert main(["open", str(tmp_path), "--root", str(tmp_path / "no-such-copy")]) == 2
    assert gc.isenabled()
    assert main(["open", str(tmp_path)]) != 0  # pytest's standard input is not a terminal
    assert gc.isenabled()
    assert "memtui:" in capsys.readouterr().err
