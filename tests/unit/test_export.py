"""`memtui export`: Markdown, HTML and JSON of a native session with sub-agents and diffs and
of a real-format Claude Code session; long text cut with a marker; hostile text inert."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.demo import build_demo
from memtui.core.export import build_export, render_export
from memtui.core.export.document import TEXT_LIMIT, walk
from memtui.core.store import AgentStore

FIXTURES = Path(__file__).parent.parent / "fixtures"
CLAUDE_SESSION = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("export") / "workspace"
    build_demo(root, seed=1)
    return root


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def demo_store(request, demo) -> str:
    """The demo's store as `memtui export` is given it: the workspace (SQLite), or a team store on
    the test PostgreSQL cluster the same story was recorded into (the same ids and contents)."""
    if request.param == "sqlite":
        return str(demo)
    from memtui.core.demo import DEMO_START, DemoClock, record_demo
    from memtui.core.store.team import TeamStore

    url = request.getfixturevalue("pg_cluster").new_database()
    clock = DemoClock(DEMO_START, seed=1)
    with TeamStore.open(url, clock=clock) as team:
        record_demo(team, clock, seed=1)
    return url


def _export(argv: list[str], capsys) -> str:
    assert main(["export", *argv]) == 0
    return capsys.readouterr().out


def _tree(tasks: list[dict]) -> list[tuple]:
    return [(t["id"], _tree(t["children"])) for t in tasks]


def test_json_is_the_read_model_with_the_handoff_tree(demo_store, capsys):
    doc = json.loads(_export([demo_store, "--session", "4", "--format", "json"], capsys))
    assert (doc["format"], doc["version"]) == ("memtui-export", 2)
    assert doc["source"]["kind"] == "memtui" and doc["scope"] == {"session": 4}
    # Task 8 handed off to 9 and 10; 10 handed off to 11 (sub-agents in other sessions).
    assert _tree(doc["tasks"]) == [(8, [(9, []), (10, [(11, [])])])]
    task8 = doc["tasks"][0]
    step = task8["steps"][0]
    assert {"seq", "tool", "args", "result", "status", "tokens_in", "tokens_out", "cost"} <= step.keys()
    assert step["tool"] == "read_file" and step["status"] == "ok" and step["tokens_in"] > 0 and step["cost"] > 0
    headers = task8["children"][0]
    assert headers["title"] == "Move header folding into headers.py"
    entries = [e for cp in headers["checkpoints"] for e in cp["entries"]]
    added = next(e for e in entries if e["path"] == "src/tinyhttp/headers.py")
    assert added["kind"] == "added" and added["added"] == 10 and added["removed"] == 0
    assert added["diff"].startswith("@@ -0,0 +1,10 @@\n+\"\"\"Header handling")


def test_markdown_has_tree_steps_and_plain_unified_diffs(demo_store, capsys):
    md = _export([demo_store, "--session", "4"], capsys)
    assert "- task 8: Split the parser into modules (completed, 4 steps)" in md
    assert "    - task 11: Build a fuzz corpus for the parser" in md
    assert "- handed off from task 8" in md and "- handed off to: task 9, task 10" in md
    assert "#### 1. read\\_file — ok · 2,112 in / 496 out tokens · $0.0138 · 2,916 ms" in md
    assert "```diff\n@@ -5,6 +5,9 @@\n from dataclasses import dataclass, field\n \n \n+MAX_HEADERS = 100\n" in md


def test_html_is_self_contained_and_highlighted(demo_store, capsys):
    page = _export([demo_store, "--session", "4", "--format", "html"], capsys)
    assert page.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in page and "<script" not in page
    assert "http://" not in page and "https://" not in page  # no remote asset
    # pygments classes on the diff's code: `def` is a keyword, the docstring a string.
    assert '<tr class="add"><td class="n"></td><td class="n">6</td><td>+<span class="k">def</span>' in page
    assert '<span class="sd">&quot;&quot;&quot;Header handling, split out of parser.py.&quot;&quot;&quot;</span>' in page
    assert '<a href="#task-1">task 9</a>' in page


def _where(store) -> str:
    """What `memtui export` is given for `store`: its workspace (SQLite) or its URL (a team store)."""
    return getattr(store, "url", None) or str(store.workspace)


def test_a_task_exports_with_its_sub_agents_and_long_results_are_cut(open_new_store, capsys):
    store = open_new_store()
    sid = store.start_session("Long output")
    parent = store.start_task(sid, "Parent")
    child = store.start_task(sid, "Child", parent_task_id=parent)
    store.record_step(child, "bash", {"command": "yes"}, "y\n" * 5000, tokens_in=10, tokens_out=2, cost=0.5)
    where = _where(store)
    doc = json.loads(_export([where, "--task", str(parent), "--format", "json"], capsys))
    assert _tree(doc["tasks"]) == [(parent, [(child, [])])]
    step = doc["tasks"][0]["children"][0]["steps"][0]
    assert step["result_truncated"] and step["result_chars"] == 10_000
    assert step["result"].endswith(f"… [{10_000 - TEXT_LIMIT:,} more characters not exported]")
    md = _export([where, "--task", str(parent)], capsys)
    assert "<summary>Result (truncated, 2,002 lines)</summary>" in md and "more characters not exported]" in md


def test_claude_code_session_exports_with_its_sub_agent_and_diffs(capsys):
    home = str(FIXTURES / "claude_home")
    doc = json.loads(_export([home, "--session", CLAUDE_SESSION, "--format", "json"], capsys))
    assert doc["source"]["kind"] == "claude-code"
    first = doc["tasks"][0]
    assert first["title"] == "Add a --verbose flag to the tally CLI"
    assert [c["title"] for c in first["children"]] == ["Review the change"]
    tools = [s["tool"] for s in first["steps"]]  # the prompt's file-history checkpoint, then the calls
    assert tools[:5] == ["checkpoint", "Read", "Edit", "Write", "Edit"] and first["steps"][4]["status"] == "error"
    diffs = [e["diff"] for cp in first["checkpoints"] for e in cp["entries"] if e["diff"]]
    assert any('+    parser.add_argument("-v", "--verbose", action="store_true")' in d for d in diffs)
    for fmt in ("md", "html"):
        text = _export([home, "--session", CLAUDE_SESSION, "--format", fmt], capsys)
        assert "Review the change" in text and "verbose" in text


def test_output_file_format_from_extension_never_overwrites(demo, tmp_path, capsys):
    out = tmp_path / "s.html"
    assert main(["export", str(demo), "--session", "4", "-o", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert "wrote" in capsys.readouterr().out
    assert main(["export", str(demo), "--session", "4", "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["export", str(demo), "--session", "999"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no session" in err


def test_with_memory_adds_the_workspace_documents(demo, capsys):
    doc = json.loads(_export([str(demo), "--task", "18", "--format", "json", "--with-memory"], capsys))
    paths = {m["path"] for m in doc["memory"]}
    assert {"MEMORY.md", "SESSION_SUMMARY.md"} <= paths
    assert json.loads(_export([str(demo), "--task", "18", "--format", "json"], capsys))["memory"] is None


# ---------------------------------------------------------------------------- hostile content
SCRIPT = "<script>alert('x')</script>"
JS_LINK = "[click](javascript:alert(1)) <a href=\"javascript:alert(2)\" onclick=\"x()\">a</a>"
RICH = "[bold red]pwned[/] [link=https://evil.example]l[/link]"
ANSI = "\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07osc\x1b]8;;\x07 \x9b2J bell\x07"
BIDI = "admin\u202e\u2066 evil"
HOSTILE = f"{SCRIPT} {JS_LINK} {RICH} {ANSI} {BIDI} ``` ~~~"


@pytest.fixture
def hostile(tmp_path) -> Path:
    with AgentStore.open(tmp_path) as store:
        sid = store.start_session(HOSTILE)
        tid = store.start_task(sid, HOSTILE)
        step = store.record_step(tid, HOSTILE, {"cmd": HOSTILE}, HOSTILE, error=None)
        store.record_checkpoint(tid, step, {f"x{SCRIPT}.py": (None, (HOSTILE + "\n").encode())})
        store.finish_task(tid, "completed", summary=HOSTILE)
    (tmp_path / "MEMORY.md").write_text(HOSTILE)
    return tmp_path


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_hostile_text_stays_inert_in_html(hostile, capsys):
    page = _export([str(hostile), "--session", "1", "--format", "html", "--with-memory"], capsys)
    parser = _Elements()
    parser.feed(page)
    tags = {tag for tag, _ in parser.tags}
    assert not tags & {"script", "iframe", "object", "embed", "img", "link", "form", "base"}
    for tag, attrs in parser.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        if "href" in attrs:
            assert attrs["href"].startswith("#task-"), attrs  # only the page's own anchors
    assert "&lt;script&gt;" in page and "javascript:alert(1)" in page  # shown, as text
    assert not any(c in page for c in "\x1b\x07\x9b\u202e\u2066")
    # An escape is shown by name in a box: the control pictures (␛) are boxes in DejaVu and
    # Liberation, the fonts Debian's browsers draw with. Only the page's title keeps the picture.
    esc = '<span class="ctl" title="control character ESC (0x1B)">ESC</span>'
    assert f"{esc}[31mred" in page
    body = page[page.index("<body>"):]
    assert not re.search("[\u2400-\u241f\u2421]", body)


def test_hostile_text_stays_inert_in_markdown(hostile, capsys):
    md = _export([str(hostile), "--session", "1", "--with-memory"], capsys)
    assert not any(c in md for c in "\x1b\x07\x9b\u202e\u2066")
    assert "␛[31mred" in md
    # Outside code blocks nothing is markup: no raw tag, no link syntax, no emphasis.
    prose = _outside_fences(md)
    assert "<script" not in prose and "<a " not in prose
    assert not re.search(r"(?<!\\)\]\(javascript", prose) and "\\[click\\](javascript:alert(1))" in prose
    # Inside, a fence longer than any backtick run keeps the text in its block.
    assert "````text\n" in md


def test_hostile_text_is_kept_exactly_in_json_but_escaped(open_new_store, capsys):
    store = open_new_store()
    sid = store.start_session(HOSTILE)
    tid = store.start_task(sid, HOSTILE)
    step = store.record_step(tid, HOSTILE, {"cmd": HOSTILE}, HOSTILE, error=None)
    store.record_checkpoint(tid, step, {f"x{SCRIPT}.py": (None, (HOSTILE + "\n").encode())})
    store.finish_task(tid, "completed", summary=HOSTILE)
    text = _export([_where(store), "--session", str(sid), "--format", "json"], capsys)
    assert not any(c in text for c in "\x1b\x07\x9b\u202e\u2066")
    doc = json.loads(text)
    assert doc["session"]["title"] == HOSTILE and doc["tasks"][0]["steps"][0]["result"] == HOSTILE


def _outside_fences(md: str) -> str:
    out, fence = [], None
    for line in md.split("\n"):
        stripped = line.lstrip("`")
        run = len(line) - len(stripped)
        if fence is None and run >= 3:
            fence = run
        elif fence is not None and run >= fence and not stripped:
            fence = None
        elif fence is None:
            out.append(line)
    return "\n".join(out)


def test_render_export_refuses_an_unknown_format(demo):
    with AgentStore.open(demo, readonly=True) as store:
        doc = build_export(store, task_id=18)
    with pytest.raises(ValueError, match="unknown export format"):
        render_export(doc, "pdf")


def test_real_claude_code_sessions_export_every_file_change(tmp_path):
    """Transcripts Claude Code 2.1.39 wrote (tests/fixtures/real, see PROVENANCE.md): every
    file change the independent counter finds is in the exports, diffs included."""
    from memtui.core.discovery import discover
    from real_support import claude_counts, real_home

    home = real_home("claude-2.1.39-spotter", tmp_path)
    entry = next(s for s in discover(home) if s.kind == "claude-code")
    source = entry.open()
    try:
        changes = 0
        for session in source.sessions():
            doc = build_export(source, session_id=session.id)
            tasks = list(walk(doc["tasks"]))
            assert {t["session_id"] for _, t in tasks} >= {session.id}
            entries = [e for _, t in tasks for cp in t["checkpoints"] for e in cp["entries"]]
            changes += len(entries)
            assert all(e["diff"] is not None or e["note"] for e in entries)
            md, page = render_export(doc, "md"), render_export(doc, "html")
            assert "\x1b" not in md and "\x1b" not in page and "<script" not in page
            assert json.loads(render_export(doc, "json")) == doc
        assert changes == claude_counts(home)["file_changes"]
    finally:
        entry.close()


def test_codex_session_exports_the_patches_it_recorded(capsys):
    home = str(FIXTURES / "codex_home")
    md = _export([home, "--session", "0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f"], capsys)
    assert "_the store's own diff; tally/cli.py: Codex records only the patch hunks" in md
    assert "```diff\n@@" in md


def test_an_output_file_named_for_another_format_is_refused_before_writing(demo, tmp_path, capsys):
    from memtui.cli import main

    for name, extra, said in (("x.pdf", [], "memtui writes Markdown (.md), HTML (.html) or JSON (.json), not PDF"),
                              ("x.html", ["--format", "md"], "names HTML but --format is md")):
        assert main(["export", str(demo), "--session", "1", "-o", str(tmp_path / name), *extra]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
        assert not (tmp_path / name).exists()
    for name, starts in (("x.html", "<!DOCTYPE html>"), ("x.txt", "# memtui export"), ("x.JSON", "{")):
        assert main(["export", str(demo), "--session", "1", "-o", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_text().startswith(starts), name
