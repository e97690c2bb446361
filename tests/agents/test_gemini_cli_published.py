"""Chats Gemini CLI wrote in other people's projects, published with their tools
(tests/fixtures/real/gemini-cli-*, PROVENANCE.md): memtui's sessions, prompts, tool calls, file
changes and tokens against a counter that reads a chat by Gemini CLI's format alone, sharing no
code with memtui's reader; and reading them writes nothing.

gemini-cli-vibecodingtracker: a JSONL chat of April 2026 holding an `/init` (typed as `/init`,
sent as Gemini CLI's long analysis prompt), a "System: Please continue." that Gemini CLI sent
after a tool call of the model's, and a typed follow-up; the model wrote GEMINI.md with
write_file and changed it with replace. VibeCodingTracker's own parser counted the same chat
(`vibecodingtracker.expected.json`, published beside it): the counter is checked against it.

gemini-cli-agtrace: an older one-document `session-*.json` of December 2025 (two prompts, shell
commands, a write_file that created a file, no file contents in the result display)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import zstandard

from memtui.core.discovery import discover

from .live_support import NOT_CALLS, fingerprint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"
REAL = FIXTURES / "gemini-cli-vibecodingtracker"
OLDER = FIXTURES / "gemini-cli-agtrace"
MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")


def unpacked(dest: Path, real: Path = REAL) -> Path:
    """A published Gemini home (`tmp/<project>/chats/…`), its chats (decompressed)."""
    for path in sorted(real.rglob("session-*")):
        target = dest / path.relative_to(real)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".zst":
            target.with_suffix("").write_bytes(zstandard.ZstdDecompressor().decompress(path.read_bytes(), max_output_size=1 << 24))
        else:
            target.write_bytes(path.read_bytes())
    return dest


def text_of(parts) -> str:
    """The text parts of a Gemini `PartListUnion` (a string, a part, or a list of parts)."""
    if isinstance(parts, str):
        return parts
    if isinstance(parts, dict):
        parts = [parts]
    return "".join(p["text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("text"), str))


def count_chat(path: Path) -> list[dict]:
    """Per prompt, by the format: a JSONL chat is a header, message records and `$set` patches;
    a message id written again (as its tool calls are added) counts once, as last written, in
    the place of its first write; an older `.json` chat is one document whose `messages` are
    the records. A user message is a prompt when what Gemini CLI shows of it —
    the text of `displayContent`, else of `content` — is not empty (a message of
    `functionResponse` parts alone shows nothing: it is a tool result). Until the next prompt:
    the tool calls of the gemini messages (name, status, args, result display) and their
    `tokens` (input, output, cached, thoughts) by `model`."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        lines = json.loads(text)["messages"]
    else:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    messages: dict[str, dict] = {}
    for record in lines:
        if "$set" in record:
            assert "messages" not in record["$set"], "this counter reads chats whose $set patches restate no messages"
        elif record.get("type") in MESSAGE_TYPES:
            messages[record["id"]] = record
    prompts: list[dict] = []
    for m in messages.values():
        if m["type"] == "user":
            shown = text_of(m.get("displayContent")) or text_of(m["content"])
            if shown.strip():
                prompts.append({"prompt": shown, "calls": [], "tokens": Counter(), "by_model": {}})
        elif m["type"] == "gemini" and prompts:
            turn = prompts[-1]
            turn["calls"] += m.get("toolCalls") or []
            tokens = {k: m["tokens"].get(k, 0) for k in ("input", "output", "cached", "thoughts")} if m.get("tokens") else {}
            turn["tokens"].update(tokens)
            turn["by_model"].setdefault(m.get("model"), Counter()).update(tokens)
    return prompts


def published_figures() -> dict:
    """What VibeCodingTracker's own parser counted of this chat (its test's expected output)."""
    [record] = json.loads((REAL / "vibecodingtracker.expected.json").read_text(encoding="utf-8"))["records"]
    return record


def test_the_counter_gives_what_was_counted_by_hand_and_by_vibecodingtracker(tmp_path):
    """Three prompts (`/init`, Gemini CLI's "System: Please continue.", a typed follow-up, as
    `grep '"type":"user"'` shows them once), 10 + 0 + 2 tool calls; and the same reads, writes,
    edits and tokens per model as VibeCodingTracker counted."""
    [chat] = unpacked(tmp_path / "gemini").glob("tmp/*/chats/session-*.jsonl")
    counted = count_chat(chat)
    assert [c["prompt"] for c in counted][:2] == ["/init", "System: Please continue."]
    assert counted[2]["prompt"].startswith("幫我做一個小修改")
    assert [len(c["calls"]) for c in counted] == [10, 0, 2]
    names = Counter(call["name"] for c in counted for call in c["calls"])
    theirs = published_figures()
    assert (names["read_file"], names["write_file"], names["replace"]) == (
        theirs["toolCallCounts"]["Read"], theirs["toolCallCounts"]["Write"], theirs["toolCallCounts"]["Edit"]) == (7, 1, 1)
    by_model: dict[str, Counter] = {}
    for c in counted:
        for model, tokens in c["by_model"].items():
            by_model.setdefault(model, Counter()).update(tokens)
    # VibeCodingTracker's input_tokens leave out the cached part of Gemini's prompt count.
    assert {model: (t["input"] - t["cached"], t["cached"], t["output"], t["thoughts"]) for model, t in by_model.items()} == {
        model: (u["input_tokens"], u["cache_read_input_tokens"], u["output_tokens"], u["thoughts_tokens"])
        for model, u in theirs["conversationUsage"].items()}


@pytest.fixture
def scratch_home(tmp_path, monkeypatch):
    """HOME and the XDG folders in scratch folders: nothing is looked up or written elsewhere."""
    for var, folder in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
                        ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache")):
        (tmp_path / folder).mkdir()
        monkeypatch.setenv(var, str(tmp_path / folder))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    return tmp_path


@pytest.fixture
def published(scratch_home):
    return unpacked(scratch_home / "gemini")


def test_each_prompt_counts_its_tool_calls_changes_and_tokens_once(published):
    compare_with_the_count(published, "0ab84937-9fe7-4284-986a-33c832af0b6a")


def test_the_older_one_document_chat_counts_each_prompt_call_change_and_token_once(scratch_home):
    """By hand (`jq`): two prompts, 3 + 2 calls (four run_shell_command, one write_file whose
    result says it created myapp/hoge.py), output tokens 52+38+53+19 and 50+71+17."""
    published = unpacked(scratch_home / "older", OLDER)
    [chat] = published.glob("tmp/*/chats/session-*.json")
    counted = count_chat(chat)
    assert [c["prompt"] for c in counted] == [
        "add myapp directory and create myapp/hoge.py which shows result of print(1+1).",
        "cd to myapp and run python hoge.py"]
    assert [[call["name"] for call in c["calls"]] for c in counted] == [
        ["run_shell_command", "write_file", "run_shell_command"], ["run_shell_command", "run_shell_command"]]
    assert [c["tokens"]["output"] for c in counted] == [52 + 38 + 53 + 19, 50 + 71 + 17]
    compare_with_the_count(published, "f0a689a6-b0ac-407f-afcc-4fafa9e14e8a")


def file_change(call: dict) -> tuple[str | None, str]:
    """A successful write_file / replace's file before and after, by the format: the result
    display's originalContent / newContent where it holds them (None before a new file), else a
    write_file whose result says it created a new file: nothing before, its content after."""
    shown = call.get("resultDisplay")
    if isinstance(shown, dict) and isinstance(shown.get("newContent"), str):
        return (None if shown.get("isNewFile") else shown["originalContent"]), shown["newContent"]
    [part] = call["result"]
    assert call["name"] == "write_file" and part["functionResponse"]["response"]["output"].startswith(
        "Successfully created and wrote to new file"), "no other shape in these chats"
    return None, call["args"]["content"]


def compare_with_the_count(published: Path, session_id: str) -> None:
    before = fingerprint(published)
    [chat] = published.glob("tmp/*/chats/session-*.json*")
    expected = count_chat(chat)
    [found] = discover(published)
    assert found.kind == "gemini-cli"
    source = found.open()
    [session] = source.sessions()
    assert session.id == session_id
    tasks = list(source.tasks(session.id))
    assert [m.content for t in tasks for m in source.messages(t.id) if m.role == "user"] == [c["prompt"] for c in expected]
    for task, counted in zip(tasks, expected):
        steps = list(source.steps(task.id))
        calls = [s for s in steps if s.tool not in NOT_CALLS]
        assert [(s.tool, s.status, s.args) for s in calls] == [
            (c["name"], {"success": "ok"}.get(c["status"], c["status"]), c["args"]) for c in counted["calls"]], task.title
        assert sum(s.tokens_in for s in steps) == counted["tokens"]["input"], task.title
        assert sum(s.tokens_out for s in steps) == counted["tokens"]["output"] + counted["tokens"]["thoughts"], task.title
        assert sum(s.usage.cache_read for s in steps if s.usage) == counted["tokens"]["cached"], task.title
        # Each successful write_file / replace is a change of the file the call names, from and
        # to what the chat says it held (file_change).
        edits = [c for c in counted["calls"] if c["name"] in ("write_file", "replace") and c["status"] == "success"]
        entries = [e for cp in source.checkpoints(task.id) for e in source.checkpoint_entries(cp.id)]
        assert len(entries) == len(edits), task.title
        for entry, call in zip(entries, edits):
            assert entry.path == call["args"]["file_path"]
            was, now = file_change(call)
            before_bytes, after_bytes = source.read_entry(entry.id)
            assert (None if before_bytes is None else before_bytes.decode()) == was
            assert after_bytes is not None and after_bytes.decode() == now
    assert [p.message for p in source.problems()] == []
    assert fingerprint(published) == before, "reading wrote into the published home"


def test_the_init_prompt_is_what_was_typed_not_what_was_sent(published):
    """`/init` is shown as typed; Gemini CLI's expansion of it (what the model got) is not the prompt."""
    [found] = discover(published)
    source = found.open()
    [session] = source.sessions()
    first = list(source.tasks(session.id))[0]
    assert first.title == "/init"
    [chat] = published.glob("tmp/*/chats/session-*.jsonl")
    sent = next(json.loads(line) for line in chat.read_text(encoding="utf-8").splitlines() if '"/init"' in line)
    assert text_of(sent["content"]).lstrip().startswith("You are an AI agent") and text_of(sent["displayContent"]) == "/init"
