"""`pytest tests/agents --regenerate`: rerun the real agents (tests.agents.run) before the tests,
so they check memtui against what the pinned versions write now. Without it the tests read the
committed fixtures."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--regenerate", action="store_true", default=False,
                     help="reinstall the pinned agents, rerun every scenario and rewrite tests/fixtures/live first")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # Once, in the process that starts the workers (xdist), before any test reads a fixture.
    if config.getoption("--regenerate", default=False) and not hasattr(config, "workerinput"):
        from .run import main

        if main([]) != 0:
            pytest.exit("regenerating the live fixtures failed (see above)", returncode=1)
