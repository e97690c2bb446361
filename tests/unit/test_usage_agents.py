"""Each agent's usage fields as memtui reads them from real files: Claude Code's cache reads
and 5-minute/1-hour writes, Codex's cached input and reasoning; models as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main
from tests.unit.real_support import real_home


@pytest.fixture(autouse=True)
def scratch(monkeypatch, tmp_path):
    monkeypatch.setenv("TZ", "UTC")
    import time
    time.tzset()
    for name in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.setenv(name, str(tmp_path / f"no-{name.lower()}"))


def _usage(capsys, home: Path, by: str = "session") -> dict:
    assert main(["usage", str(home), "--by", by, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _claude_counts(home: Path) -> dict[str, dict[str, int]]:
    """Independently: per session, each reply (message.id + requestId) once, its largest counts."""
    replies: dict[tuple, tuple[str, dict[str, int]]] = {}
    for path in sorted(home.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("type") != "assistant" or not isinstance(record.get("message"), dict):
                continue
            usage = record["message"].get("usage") or {}
            split = usage.get("cache_creation") or {}
            counts = {"input": usage.get("input_tokens", 0), "output": usage.get("output_tokens", 0),
                      "cache_read": usage.get("cache_read_input_tokens", 0),
                      "cache_write_1h": split.get("ephemeral_1h_input_tokens", 0)}
            counts["cache_write_5m"] = usage.get("cache_creation_input_tokens", 0) - counts["cache_write_1h"]
            key = (record["message"].get("id"), record.get("requestId"), str(path))
            old = replies.get(key, ("", {}))[1]
            replies[key] = (record["sessionId"], {k: max(v, old.get(k, 0)) for k, v in counts.items()})
    sessions: dict[str, dict[str, int]] = {}
    for session, counts in replies.values():
        total = sessions.setdefault(session, dict.fromkeys(counts, 0))
        for k, v in counts.items():
            total[k] += v
    return sessions


def test_claude_code_cache_reads_and_one_hour_writes_per_session(tmp_path, capsys):
    home = real_home("claude-2.1.39-spotter", tmp_path)
    expected = _claude_counts(home)
    rows = {row["key"]: row for row in _usage(capsys, home)["rows"]}
    assert sorted(rows) == sorted(expected)
    for session, counts in expected.items():
        assert {k: rows[session][k] for k in counts} == counts
    assert sum(r["cache_write_1h"] for r in rows.values()) > 0  # this home writes 1-hour cache entries


def test_claude_code_models_as_the_transcripts_name_them(tmp_path, capsys):
    home = real_home("claude-2.1.39-spotter", tmp_path)
    models = {row["key"] for row in _usage(capsys, home, "model")["rows"]}
    assert models == {"claude-opus-4-6", "claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"}


def test_codex_cached_input_and_reasoning_from_the_last_cumulative_count(tmp_path, capsys):
    home = real_home("codex-0.104-localpush", tmp_path)
    expected = {"input": 0, "output": 0, "cache_read": 0, "reasoning": 0}
    for path in home.rglob("*.jsonl"):
        last = None
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            payload = record.get("payload") or {}
            if payload.get("type") == "token_count" and payload.get("info"):
                last = payload["info"]["total_token_usage"]
        expected["input"] += last["input_tokens"] - last["cached_input_tokens"]
        expected["cache_read"] += last["cached_input_tokens"]
        expected["output"] += last["output_tokens"]
        expected["reasoning"] += last["reasoning_output_tokens"]
    total = _usage(capsys, home)["total"]
    assert {k: total[k] for k in expected} == expected
    assert total["cache_write"] == 0 and total["models"] == ["gpt-5.3-codex"]


def _transcript(home: Path, model: str, session: str) -> None:
    folder = home / "projects" / "-work-p"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "user", "sessionId": session, "uuid": "u1", "cwd": "/work/p", "timestamp": "2026-02-10T10:00:00Z",
         "message": {"role": "user", "content": "hello"}},
        {"type": "assistant", "sessionId": session, "uuid": "a1", "parentUuid": "u1", "requestId": "req_1",
         "timestamp": "2026-02-10T10:00:05Z",
         "message": {"id": "msg_1", "model": model, "role": "assistant", "content": [{"type": "text", "text": "hi"}],
                     "usage": {"input_tokens": 1000, "output_tokens": 2000, "cache_read_input_tokens": 50_000,
                               "cache_creation_input_tokens": 3000}}},
    ]
    (folder / f"{session}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_an_unknown_model_is_named_and_a_dated_id_costs_as_its_model(tmp_path, capsys):
    home = tmp_path / "claude"
    _transcript(home, "acme-coder-9000", "11111111-0000-0000-0000-000000000001")
    _transcript(home, "claude-sonnet-4-5-20250929", "11111111-0000-0000-0000-000000000002")
    _transcript(home, "claude-sonnet-4-5", "11111111-0000-0000-0000-000000000003")
    rows = {row["key"]: row for row in _usage(capsys, home, "model")["rows"]}
    assert rows["acme-coder-9000"]["cost"] is None
    assert rows["acme-coder-9000"]["unpriced"] == [{"model": "acme-coder-9000", "tokens": 56_000}]
    assert rows["claude-sonnet-4-5-20250929"]["cost"] == pytest.approx(rows["claude-sonnet-4-5"]["cost"])
    # $3 in, $15 out, $0.30 cache reads, $3.75 five-minute writes per million
    assert rows["claude-sonnet-4-5"]["cost"] == pytest.approx(0.003 + 0.03 + 0.015 + 0.01125)
    assert main(["usage", str(home)]) == 0
    out = capsys.readouterr().out
    assert "not priced (no price in the table): acme-coder-9000 (56,000 tokens)" in out


def test_exports_carry_the_session_cost_and_the_price_table(tmp_path, capsys):
    home = real_home("claude-2.1.39-spotter", tmp_path)
    session = "258c7280-ae70-4798-800f-63464d01a85d"
    row = next(r for r in _usage(capsys, home)["rows"] if r["key"] == session)
    for fmt in ("json", "md", "html"):
        out = tmp_path / f"export.{fmt}"
        assert main(["export", str(home), "--session", session, "-o", str(out)]) == 0
        capsys.readouterr()
        text = out.read_text(encoding="utf-8")
        if fmt == "json":
            doc = json.loads(text)
            assert doc["cost"]["usd"] == pytest.approx(row["cost"], abs=1e-5)
            assert doc["prices"]["name"] == "genai-prices"
            root = doc["tasks"][0]
            assert root["cost_with_subagents"]["usd"] > root["cost"]["usd"]  # its sub-agent's round
            priced = [s for s in root["steps"] if s["usage"]]
            assert priced and all(s["model"] for s in priced) and any(s["usage"]["cache_write_1h"] for s in priced)
        else:
            assert f"${row['cost']:,.2f} (genai-prices " in text
