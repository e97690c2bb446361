"""Every read path leaves a consolidated store and its workspace byte-for-byte as they were."""

from __future__ import annotations

import harness as h
from readonly import changes, cli_reads, consolidated_demo, library_reads, pilot_tour


def _check(before: h.Fingerprint, root, label: str) -> list[str]:
    found = changes(before, root)
    h.report(f"| read-only {label} | side files / changes: {len(found)} | " + ", ".join(found[:6]) + " |")
    return found


def test_library_reads_change_nothing(tmp_path):
    root = consolidated_demo(tmp_path / "ws")
    before = h.Fingerprint.of(root)
    assert library_reads(root) > 50
    assert _check(before, root, "library (every public read)") == []


def test_cli_read_verbs_change_nothing(tmp_path):
    from readonly import CLI_READS

    root = consolidated_demo(tmp_path / "ws")
    before = h.Fingerprint.of(root)
    assert cli_reads(root) == []
    assert _check(before, root, f"CLI ({len(CLI_READS)} runs)") == []


async def test_a_pilot_tour_of_every_screen_changes_nothing(tmp_path):
    root = consolidated_demo(tmp_path / "ws")
    before = h.Fingerprint.of(root)
    seen = await pilot_tour(root)
    assert len(set(seen)) >= 6, seen
    assert _check(before, root, f"Pilot tour ({len(set(seen))} screens)") == []
