"""The reliability harness (not collected by the default run): `pytest tests/reliability -s`.

MEMTUI_TRIALS sets the kill -9 trials per operation (default 30); MEMTUI_FUZZ the hypothesis
examples per fuzz target (default 300). The figures are printed as a table at the end.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import harness  # noqa: E402

TRIALS = int(os.environ.get("MEMTUI_TRIALS", "30"))
FUZZ = int(os.environ.get("MEMTUI_FUZZ", "300"))


def pytest_terminal_summary(terminalreporter) -> None:
    text = harness.summary()
    if text:
        terminalreporter.write_sep("=", "reliability figures")
        terminalreporter.write_line(text)
