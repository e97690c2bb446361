"""Gemini CLI chats memtui must read beyond what one run writes, made from the real chats of
tests/fixtures/live/gemini-cli-0.61.0 (copied, then changed as the case needs): a record type
memtui does not know, a line cut off mid-write, the older one-document `session-*.json`, and a
write_file / replace whose result display lost the file's contents (before rebuilt from the
session's own read, or said to be unknown)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.core.discovery import discover
from memtui.core.sources.base import ContentUnknown

from .live_support import LIVE, fingerprint, sessions, truth_of

FIXTURE = LIVE / "gemini-cli-0.61.0" / "create-edit"
pytestmark = pytest.mark.skipif(not FIXTURE.is_dir(), reason="no Gemini CLI live fixture")


def home_copy(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the fixture's Gemini home and its one chat file."""
    home = tmp_path / ".gemini"
    shutil.copytree(FIXTURE / "home" / ".gemini", home)
    [chat] = sorted(home.glob("tmp/*/chats/session-*.jsonl"))
    return home, chat


def records(chat: Path) -> list[dict]:
    return [json.loads(line) for line in chat.read_text().splitlines() if line.strip()]


def write(chat: Path, rows: list[dict]) -> None:
    chat.write_text("".join(json.dumps(r) + "\n" for r in rows))


def open_home(home: Path):
    [found] = discover(home, env={"HOME": str(home.parent / "nohome")})
    assert found.kind == "gemini-cli"
    return found.open()


def test_an_unknown_record_type_is_counted_and_reported_not_dropped(tmp_path):
    home, chat = home_copy(tmp_path)
    rows = records(chat)
    rows.insert(3, {"id": "x1", "type": "compression", "timestamp": "2026-12-01T16:32:45.200Z"})
    write(chat, rows)
    source = open_home(home)
    assert source.counts()["unknown_records"] == 1
    [problem] = source.problems()
    assert problem.line == 4 and "compression" in problem.message
    [session] = sessions(source)
    assert [t.title for t in session.prompts] == truth_of(FIXTURE)["prompts"]


def test_a_line_cut_off_mid_write_is_a_problem_with_its_line(tmp_path):
    home, chat = home_copy(tmp_path)
    text = chat.read_text()
    chat.write_text(text + '{"id":"cut","type":"gemini","content":"Half')
    source = open_home(home)
    [problem] = source.problems()
    assert problem.line == len(text.splitlines()) + 1 and "not a JSON record" in problem.message
    assert sessions(source)[0].output_tokens() == truth_of(FIXTURE)["output_tokens"]


def test_the_older_one_document_json_chat_reads_the_same(tmp_path):
    """Gemini CLI before the JSONL form kept a chat as one JSON document whose messages are
    final (each id once): the same prompts, tool calls, tokens and file bytes."""
    home, chat = home_copy(tmp_path)
    rows = records(chat)
    header = rows[0]
    messages: dict[str, dict] = {}
    for r in rows[1:]:
        for m in r.get("$set", {}).get("messages", []):
            messages.setdefault(m["id"], m)
        if "type" in r:
            messages[r["id"]] = r
    document = {**header, "messages": list(messages.values())}
    chat.unlink()
    (chat.parent / (chat.stem + ".json")).write_text(json.dumps(document, indent=2))
    truth = truth_of(FIXTURE)
    source = open_home(home)
    [session] = sessions(source)
    assert [t.title for t in session.prompts] == truth["prompts"]
    assert session.calls(session.prompts[0].id) == truth["tool_calls"]
    assert session.output_tokens() == truth["output_tokens"]
    assert [source.read_entry(e.id)[1] for e in session.changes(session.prompts[0])] == \
        [c["after"].encode() for c in truth["file_changes"]]


def _strip_display(rows: list[dict], drop_read: bool = False) -> list[dict]:
    out = []
    for r in rows:
        for call in r.get("toolCalls", []):
            if isinstance(call.get("resultDisplay"), dict):
                call["resultDisplay"] = "done"
        if drop_read and any(c.get("name") == "read_file" for c in r.get("toolCalls", [])):
            r["toolCalls"] = [c for c in r["toolCalls"] if c["name"] != "read_file"]
        out.append(r)
    return out


def test_a_replace_without_recorded_contents_is_rebuilt_from_the_sessions_read(tmp_path):
    home, chat = home_copy(tmp_path)
    write(chat, _strip_display(records(chat)))
    source = open_home(home)
    [session] = sessions(source)
    entries = {e.path: e for e in session.changes(session.prompts[0])}
    notes = next(c for c in truth_of(FIXTURE)["file_changes"] if c["path"] == "notes.md")
    assert entries["notes.md"].before_known and entries["notes.md"].after_known
    assert source.read_entry(entries["notes.md"].id) == (notes["before"].encode(), notes["after"].encode())


def test_a_change_whose_before_nothing_recorded_says_so(tmp_path):
    """No contents in the display and no read of the file: the before is unknown (with the
    reason), and the diff still holds the replaced lines; a write_file that created its file
    (its result says so) is an added file whose after is its content."""
    home, chat = home_copy(tmp_path)
    write(chat, _strip_display(records(chat), drop_read=True))
    before = fingerprint(home)
    source = open_home(home)
    [session] = sessions(source)
    entries = {e.path: e for e in session.changes(session.prompts[0])}
    notes = entries["notes.md"]
    assert not notes.before_known and notes.unknown_reason
    assert {"-beta", "+delta"} <= set(notes.diff.splitlines())
    with pytest.raises(ContentUnknown):
        source.read_entry(notes.id)
    greet = entries["greet.py"]
    assert greet.kind == "added" and greet.after_known
    assert source.read_entry(greet.id) == (None, truth_of(FIXTURE)["files_after"]["greet.py"].encode())
    assert fingerprint(home) == before
