"""`memtui usage`: tokens and cost per group from the stores at or for a path."""

from __future__ import annotations

import json
import sqlite3

import pytest

from memtui.cli import main


@pytest.fixture
def scratch_homes(tmp_path, monkeypatch):
    """HOME and the agents' homes point into the test's folder: nothing real is read."""
    for name in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(name, str(folder))
    monkeypatch.setenv("TZ", "UTC")
    import time
    time.tzset()
    return tmp_path


@pytest.fixture
def demo(scratch_homes, capsys):
    path = scratch_homes / "demo"
    assert main(["demo", str(path), "--seed", "3", "--no-open"]) == 0
    capsys.readouterr()
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def any_demo(request, scratch_homes, capsys) -> str:
    """The demo's story as `memtui usage` is given it: a workspace (SQLite), or a team store on the
    test PostgreSQL cluster the same story was recorded into; the tests below run on each."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("demo"))
    from memtui.core.demo import DEMO_START, DemoClock, record_demo
    from memtui.core.store.team import TeamStore

    url = request.getfixturevalue("team_url")
    clock = DemoClock(DEMO_START, seed=3)
    with TeamStore.open(url, clock=clock) as team:
        record_demo(team, clock, seed=3)
    return url


def _json(capsys, *argv) -> dict:
    assert main(["usage", *map(str, argv), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_memtuis_own_store_is_costed_by_what_it_recorded(demo, capsys):
    with sqlite3.connect(demo / ".agent" / "agent.db") as db:
        recorded, tokens_in, tokens_out = db.execute(
            "SELECT SUM(cost), SUM(tokens_in), SUM(tokens_out) FROM step").fetchone()
    report = _json(capsys, demo, "--by", "model")
    total = report["total"]
    assert total["cost"] == pytest.approx(recorded, abs=1e-5)
    assert (total["input"], total["output"]) == (tokens_in, tokens_out)
    assert total["unpriced"] == [] and report["rows"][0]["agents"] == ["memtui"]
    assert report["prices"]["name"] == "genai-prices"


def test_a_team_store_is_costed_as_the_same_store_on_this_machine(demo, capsys, team_url):
    from memtui.core.demo import DEMO_START, DemoClock, record_demo
    from memtui.core.store.team import TeamStore

    clock = DemoClock(DEMO_START, seed=3)
    with TeamStore.open(team_url, clock=clock) as team:
        record_demo(team, clock, seed=3)
    local, shared = _json(capsys, demo, "--by", "model"), _json(capsys, team_url, "--by", "model")
    # The figures (not when: the demo was made relative to today; nor its folder: a server has none).
    figures = ("key", "input", "output", "cache_read", "cache_write", "reasoning", "cost", "replies", "sessions")
    assert [{k: row[k] for k in figures} for row in shared["rows"]] == [
        {k: row[k] for k in figures} for row in local["rows"]]
    assert shared["total"]["cost"] == local["total"]["cost"] > 0


def test_the_table_has_a_row_per_day_a_total_and_the_price_table(any_demo, capsys):
    assert main(["usage", str(any_demo)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["day", "input", "output", "cache", "read", "cache", "write", "cost"]
    assert any(line.startswith("total") and "$" in line for line in out)
    assert out[-1].startswith("prices: genai-prices ")


def test_days_outside_since_until_are_left_out(any_demo, capsys):
    days = [row["key"] for row in _json(capsys, any_demo, "--by", "day")["rows"]]
    assert len(days) >= 2
    kept = [row["key"] for row in _json(capsys, any_demo, "--since", days[-1])["rows"]]
    assert kept == [days[-1]]
    assert _json(capsys, any_demo, "--until", days[0])["rows"][-1]["key"] == days[0]
    assert _json(capsys, any_demo, "--agent", "codex")["rows"] == []


def test_sessions_by_cost_with_their_titles(any_demo, capsys):
    rows = _json(capsys, any_demo, "--by", "session")["rows"]
    costs = [row["cost"] for row in rows]
    assert costs == sorted(costs, reverse=True) and all(row["title"] for row in rows)


@pytest.mark.parametrize("argv, says", [
    (["--since", "2026-13-01"], "'2026-13-01' is not a date"),
    (["--since", "2026-02-02", "--until", "2026-02-01"], "--since 2026-02-02 is after --until 2026-02-01"),
    (["--by", "year"], "invalid choice: 'year'"),
])
def test_bad_arguments_are_one_line(any_demo, capsys, argv, says):
    with pytest.raises(SystemExit) if argv[0] == "--by" or "13" in argv[1] else _nothing():
        assert main(["usage", str(any_demo), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err and "Traceback" not in err


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
