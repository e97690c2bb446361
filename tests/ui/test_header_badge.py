"""The header's read-only badge says whether anything here can write: not on a store whose
files memtui can roll back, collect or edit, but with `--read-only`."""

from __future__ import annotations

from pathlib import Path


def _header(shown, app) -> str:
    return shown(app).splitlines()[0]


async def test_the_demo_is_not_called_read_only_while_it_offers_rollback(demo_path: Path, open_app, shown) -> None:
    async with open_app(demo_path) as pilot:
        header, footer = _header(shown, pilot.app), shown(pilot.app).splitlines()[-1]
        assert "read-only" not in header, header
        await pilot.press("2")
        assert "Roll back" in shown(pilot.app).splitlines()[-1] or "Roll back" in footer


async def test_read_only_is_said_when_every_write_is_withheld(demo_path: Path, open_app, shown) -> None:
    async with open_app(demo_path, browse_only=True) as pilot:
        assert "read-only" in _header(shown, pilot.app)
