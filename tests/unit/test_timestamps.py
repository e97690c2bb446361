"""Foreign timestamps: anything that is not a usable time is None, never an exception."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memtui.core.sources.timestamps import parse_time


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", 10 ** 400, -10 ** 400,
                                   float("nan"), float("inf"), True, False, "2025-13-45T99:99:99Z", b"2025", [], {}])
def test_unusable_values_are_none(value):
    assert parse_time(value) is None


def test_usable_values_still_parse():
    assert parse_time("2025-05-01T08:00:00.000Z") == datetime(2025, 5, 1, 8, tzinfo=timezone.utc)
    assert parse_time(1717000000000) == datetime.fromtimestamp(1717000000, timezone.utc)
