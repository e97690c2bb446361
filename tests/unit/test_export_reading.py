"""Exports a reader can follow: everything of a task in the order it happened (prompt, thinking,
text, each call with its result, sub-agent rounds where they were handed off, compactions,
interrupts), arguments rendered by kind, long texts folded; checked against real transcripts
with counters that share no code with memtui (real_support)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from memtui.core.discovery import discover
from memtui.core.export import build_export, render_export
from memtui.core.export.document import walk
from memtui.core.store import AgentStore
from real_support import real_home, records

SESSION = "258c7280-ae70-4798-800f-63464d01a85d"  # claude-2.1.39-spotter: a sub-agent, a compaction, an interrupt


def _claude(tmp_path: Path, name: str = "claude-2.1.39-spotter"):
    home = real_home(name, tmp_path)
    return home, next(s for s in discover(home) if s.kind == "claude-code")


def transcript_order(path: Path) -> list[tuple[str, str]]:
    """What the assistant did, in the order the transcript has it: ("thinking", text),
    ("text", text), ("tool", name); a block written twice (same message) counted once."""
    out, seen = [], set()
    for rec in records(path):
        if rec.get("type") != "assistant" or not isinstance(rec.get("message", {}).get("content"), list):
            continue
        for block in rec["message"]["content"]:
            kind = block.get("type")
            if kind == "thinking" and block.get("thinking", "").strip():
                item = ("thinking", block["thinking"])
            elif kind == "text" and block.get("text", "").strip():
                item = ("text", block["text"])
            elif kind == "tool_use":
                item = ("tool", block["name"])
            else:
                continue
            key = (rec["message"].get("id"), block.get("id") or item)  # a call: by its own id
            if key not in seen:
                seen.add(key)
                out.append(item)
    return out


def export_order(task: dict, children: bool) -> list[tuple[str, str]]:
    """The same from an export's timeline (sub-agent rounds entered where they appear when
    `children`, else skipped)."""
    out = []
    kids = {c["id"]: c for c in task["children"]}
    for entry in task["timeline"]:
        if entry["kind"] == "subagent" and children:
            out += export_order(kids[entry["task"]], True)
        elif entry["kind"] == "thinking" and "thinking" in entry:
            out.append(("thinking", task["thinking"][entry["thinking"]]["content"]))
        elif "step" in entry:
            step = task["steps"][entry["step"]]
            if entry["kind"] in ("text", "thinking"):
                out.append((entry["kind"], step["result"]))
            elif entry["kind"] == "tool":
                out.append(("tool", step["tool"]))
    return out


def test_a_real_session_exports_in_its_transcripts_order_with_every_thinking_text(tmp_path):
    home, entry = _claude(tmp_path)
    project = next(home.glob(f"projects/*/{SESSION}.jsonl"))
    expected = transcript_order(project)
    thoughts = [text for kind, text in expected if kind == "thinking"]
    assert len(thoughts) == 19  # counted in the transcript, by hand once
    try:
        doc = build_export(entry.open(), session_id=SESSION)
    finally:
        entry.close()
    assert [e for root in doc["tasks"] for e in export_order(root, False)] == expected
    # The sub-agent's round is nested right after the call that handed off to it.
    main = doc["tasks"][0]
    at = next(n for n, e in enumerate(main["timeline"]) if e["kind"] == "subagent")
    before = main["steps"][main["timeline"][at - 1]["step"]]
    assert before["tool"] == "Task" and main["children"][0]["title"][:40] in before["args"]
    sub = transcript_order(next(home.glob(f"projects/*/{SESSION}/subagents/agent-a881341.jsonl")))
    assert export_order(main["children"][0], True) == sub
    kinds = [e["kind"] for e in main["timeline"]]
    assert kinds[0] == "prompt" and "compaction" in kinds and "interrupt" in kinds
    for fmt, fold in (("md", "<details><summary>Thinking</summary>"), ("html", "<details><summary>Thinking</summary>")):
        text = render_export(doc, fmt)
        assert text.count(fold) == len(thoughts), fmt
    md = render_export(doc, "md")
    # The first thinking text comes after the prompt and before the first reply, in the page too.
    first_reply = next(text for kind, text in expected if kind == "text")
    assert md.index("Implement spotter-gqc") < md.index(thoughts[0][:60]) < md.index(first_reply[:60])


def test_thinking_counts_of_every_real_claude_code_home(tmp_path):
    for name, expected in (("claude-2.0.28-agtrace", 6), ("claude-2.1.2-pai", 31), ("claude-2.1.38-spotter-small", 6)):
        home, entry = _claude(tmp_path, name)
        counted = sum(1 for path in home.rglob("*.jsonl") for kind, _ in transcript_order(path) if kind == "thinking")
        try:
            source = entry.open()
            exported = sum(len(task["thinking"]) + sum(1 for s in task["steps"] if s["tool"] == "thinking")
                           for session in source.sessions()
                           for _, task in walk(build_export(source, session_id=session.id)["tasks"]))
        finally:
            entry.close()
        assert exported == counted == expected, name


def _store_with_calls(root: Path) -> int:
    with AgentStore.open(root, clock=None) as store:
        sid = store.start_session("Calls")
        task = store.start_task(sid, "Write, edit, run")
        store.record_step(task, "Write", {"file_path": "pkg/f.py", "content": "def f():\n    return 1\n"}, "ok")
        store.record_step(task, "Edit", {"file_path": "pkg/f.py", "old_string": "    return 1\n",
                                         "new_string": "    return 2\n"}, "ok")
        store.record_step(task, "Bash", {"command": "pytest -q && echo \"done\""},
                          "\n".join(f"line {n}" for n in range(60)))
    return sid


def test_arguments_render_by_kind_and_long_results_fold(tmp_path):
    sid = _store_with_calls(tmp_path)
    with AgentStore.open(tmp_path, readonly=True) as store:
        doc = build_export(store, session_id=sid)
    md, page = render_export(doc, "md"), render_export(doc, "html")
    # Markdown: the file as code of its language, the edit as a diff, the command as shell.
    assert "```py\ndef f():\n    return 1\n\n```" in md and "\\n" not in md
    assert "```diff\n@@ -1 +1 @@\n-    return 1\n+    return 2\n```" in md
    assert '```sh\npytest -q && echo "done"\n```' in md and '"command":' not in md
    assert "<details><summary>Result (60 lines)</summary>" in md
    # HTML: highlighted by pygments (def a keyword), the long result folded, the short shown.
    assert '<span class="k">def</span>' in page and "&quot;command&quot;" not in page
    assert "<details><summary>Result (60 lines)</summary>" in page
    assert "<details open><summary>Result (1 line)</summary>" in page
    assert json.loads(render_export(doc, "json"))["tasks"][0]["steps"][2]["view"] == {
        "kind": "shell", "command": 'pytest -q && echo "done"'}


def rollout_order(path: Path) -> list[tuple[str, str]]:
    """A Codex rollout's reasoning summaries and calls, in the order written."""
    out = []
    for rec in records(path):
        payload = rec.get("payload") if rec.get("type") == "response_item" else None
        if not isinstance(payload, dict):
            continue
        if payload.get("type") == "reasoning":
            text = "\n\n".join(s["text"] for s in payload.get("summary") or [] if s.get("text", "").strip())
            if text:
                out.append(("thinking", text))
        elif payload.get("type") in ("function_call", "custom_tool_call"):
            out.append(("tool", payload["name"]))
    return out


def test_a_real_codex_rollout_exports_its_reasoning_summaries_in_order(tmp_path):
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    [rollout] = home.rglob("rollout-*.jsonl")
    expected = rollout_order(rollout)
    assert sum(kind == "thinking" for kind, _ in expected) == 6
    entry = next(s for s in discover(home) if s.kind == "codex")
    try:
        source = entry.open()
        [session] = source.sessions()
        doc = build_export(source, session_id=session.id)
    finally:
        entry.close()
    got = [e for root in doc["tasks"] for e in export_order(root, False) if e[0] != "text"]
    assert got == expected
    md = render_export(doc, "md")
    assert md.count("<details><summary>Thinking</summary>") == 6


def test_hostile_arguments_stay_inert_in_every_kind(tmp_path):
    evil = "</summary></details></pre><script>alert(1)</script>\x1b[30;40mhidden\x1b[0m\u202e"
    with AgentStore.open(tmp_path, clock=None) as store:
        sid = store.start_session("Hostile")
        task = store.start_task(sid, "Hostile calls")
        store.record_step(task, "Write", {"file_path": f"{evil}.py", "content": evil}, evil)
        store.record_step(task, "Edit", {"file_path": f"{evil}.md", "old_string": evil, "new_string": "x"}, "ok")
        store.record_step(task, "Bash", {"command": evil}, "\n".join([evil] * 40))
        store.record_step(task, "apply_patch", f"*** Begin Patch\n+{evil}\n*** End Patch", "ok")
    with AgentStore.open(tmp_path, readonly=True) as store:
        doc = build_export(store, session_id=sid)
    page, md = render_export(doc, "html"), render_export(doc, "md")
    for text in (page, md):
        assert "\x1b" not in text and "\u202e" not in text
    assert "<script" not in page and "</summary></details></pre>" not in page
    assert page.count("<details") == page.count("</details>")
    # Markdown: agent text only inside fences (inert there); outside, no tag of its own.
    outside = re.sub(r"(?ms)^(`{3,})[^\n]*\n.*?^\1$", "", md)
    assert "<script" not in outside and "alert" not in outside.replace("&lt;script&gt;alert", "")
    assert outside.count("<details>") == outside.count("</details>") == md.count("<details>")
