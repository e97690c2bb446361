"""Usage grouped by day, week, month, model, project and session; filters; unknown models."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from memtui.core.usage import Reply, Tokens, by_task, cost_text, price, summarise, unpriced_note


def reply(day: int, model: str = "claude-opus-4-6", *, session: str = "s1", task: str = "t1", agent: str = "claude-code",
          project: str = "/p/a", cost: float | None = None, hour: int = 12, **tokens: int) -> Reply:
    return Reply(agent, session, task, datetime(2026, 2, day, hour, tzinfo=UTC), model,
                 Tokens(**(tokens or {"input": 100_000})), cost, project, f"title {session}")


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    import time
    time.tzset()


def test_by_day_sums_tokens_and_cost_in_date_order():
    report = summarise(price([reply(11), reply(9), reply(11, output=1_000, input=1)]), "day")
    assert [r.key for r in report.rows] == ["2026-02-09", "2026-02-11"]
    assert report.rows[1].tokens == Tokens(input=100_001, output=1_000)
    assert report.rows[1].cost == pytest.approx(0.5 + 5e-6 + 0.025)
    assert report.total.cost == pytest.approx(1.0 + 5e-6 + 0.025)
    assert report.total.replies == 3 and len(report.total.sessions) == 1


def test_week_starts_on_monday_and_month_is_year_month():
    items = price([reply(8), reply(9), reply(15), reply(16)])  # Sun 8, Mon 9, Sun 15, Mon 16 Feb 2026
    assert [r.key for r in summarise(items, "week").rows] == ["2026-02-02", "2026-02-09", "2026-02-16"]
    assert [(r.key, r.replies) for r in summarise(items, "month").rows] == [("2026-02", 4)]


def test_by_model_project_and_session_most_expensive_first():
    items = price([reply(9, "claude-haiku-4-5-20251001", session="cheap", project="/p/b"),
                   reply(9, "claude-opus-4-6", session="dear")])
    assert [r.key for r in summarise(items, "model").rows] == ["claude-opus-4-6", "claude-haiku-4-5-20251001"]
    assert [r.key for r in summarise(items, "project").rows] == ["/p/a", "/p/b"]
    sessions = summarise(items, "session").rows
    assert [(r.key, r.title, r.project) for r in sessions] == [("dear", "title dear", "/p/a"), ("cheap", "title cheap", "/p/b")]


def test_since_until_are_inclusive_days_and_agent_filters():
    items = price([reply(9), reply(10, agent="codex", model="gpt-5.3-codex"), reply(11), reply(12)])
    report = summarise(items, "day", since=date(2026, 2, 10), until=date(2026, 2, 11))
    assert [r.key for r in report.rows] == ["2026-02-10", "2026-02-11"]
    assert [r.key for r in summarise(items, "day", agent="codex").rows] == ["2026-02-10"]


def test_days_are_local_days(monkeypatch):
    import time
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    assert [r.key for r in summarise(price([reply(10, hour=2)]), "day").rows] == ["2026-02-09"]


def test_an_unknown_model_is_named_never_zero():
    report = summarise(price([reply(9, "acme-coder-9000", input=5, output=7)]), "day")
    row = report.rows[0]
    assert row.cost is None and row.unpriced == {"acme-coder-9000": 12}
    assert cost_text(row.cost, row.unpriced) == "—"
    assert "acme-coder-9000 (12 tokens)" in unpriced_note(row.unpriced)
    mixed = summarise(price([reply(9, "acme-coder-9000"), reply(9)]), "day").rows[0]
    assert mixed.cost == pytest.approx(0.5) and cost_text(mixed.cost, mixed.unpriced) == "$0.50+"


def test_a_recorded_cost_wins_over_the_table():
    report = summarise(price([reply(9, "", agent="memtui", cost=0.125, input=800, output=40)]), "model")
    assert report.rows[0].cost == 0.125 and report.rows[0].key == "(no model recorded)" and not report.rows[0].unpriced


def test_sub_agent_rounds_roll_into_the_turn_that_caused_them_once():
    items = price([reply(9, task="turn-1"), reply(9, task="turn-1", input=1, output=100), reply(9, task="turn-2")])
    tasks = by_task(items)
    assert tasks["turn-1"].replies == 2 and tasks["turn-2"].replies == 1
    assert sum(t.cost for t in tasks.values()) == pytest.approx(summarise(items).total.cost)


def test_the_json_rows_name_every_count_and_the_price_table():
    data = json.loads(json.dumps(summarise(price([reply(9, cache_read=10, cache_write_1h=4, input=1)]), "day").as_dict()))
    row = data["rows"][0]
    assert {k: row[k] for k in ("key", "input", "output", "cache_read", "cache_write", "cache_write_1h")} == {
        "key": "2026-02-09", "input": 1, "output": 0, "cache_read": 10, "cache_write": 4, "cache_write_1h": 4}
    assert data["prices"]["name"] == "genai-prices" and data["total"]["total_tokens"] == 15
    assert data["by"] == "day" and row["unpriced"] == []


def test_an_unknown_grouping_is_refused():
    with pytest.raises(ValueError, match="day, week, month"):
        summarise([], "year")
