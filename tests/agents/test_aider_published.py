"""A history Aider 0.86.2 wrote in someone else's repository, published with it
(tests/fixtures/real/aider-0.86.2-mozgoslav, PROVENANCE.md): memtui's sessions, prompts,
applied edits, commits and output tokens against a counter that reads the file by Aider's
format alone, sharing no code with memtui's reader; and reading it writes nothing.

The repository's history was rewritten after the file was committed, so the two commits the
history names are in no repository: memtui says the folder is not a git repository here and
shows the commit steps without their files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import zstandard

from memtui.core.discovery import discover

from .live_support import fingerprint

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "aider-0.86.2-mozgoslav"
STARTED = "# aider chat started at "
TOKENS = re.compile(r"^> Tokens: .*?([\d.]+)([kM]?) received")


def unpacked(dest: Path) -> Path:
    """The published files, decompressed, in a folder of their own (the repository's root)."""
    dest.mkdir()
    for packed in sorted(REAL.glob("*.zst")):
        data = zstandard.ZstdDecompressor().decompress(packed.read_bytes(), max_output_size=1 << 24)
        (dest / packed.stem).write_bytes(data)
    return dest


def count_history(path: Path) -> list[dict]:
    """Per session, by the format: a `# aider chat started at` line starts one, unless its
    opening (before its first prompt) says "Restored previous conversation history.", which
    continues the one before; a run of consecutive `#### ` lines is one prompt (a line each);
    `> Applied edit to` an edit, `> Commit <sha>` a commit, `> Tokens: … N received` the
    reply's output tokens (1.8k = 1,800). A start with no prompt is no session."""
    sessions: list[dict] = []
    current: dict | None = None
    in_prompt = False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith(STARTED):
            current = {"prompts": [], "edits": 0, "commits": 0, "output_tokens": 0, "opening": True}
            sessions.append(current)
            in_prompt = False
            continue
        if current is None:
            continue
        if line.startswith("####"):
            text = line[5:].rstrip()
            if in_prompt:
                current["prompts"][-1].append(text)
            else:
                current["prompts"].append([text])
            in_prompt, current["opening"] = True, False
            continue
        in_prompt = False
        if current["opening"] and line.startswith("> Restored previous conversation history.") and len(sessions) > 1:
            sessions.pop()
            current = sessions[-1]
        elif line.startswith("> Applied edit to "):
            current["edits"] += 1
        elif re.match(r"> Commit [0-9a-f]{7,40}\b", line):
            current["commits"] += 1
        elif (m := TOKENS.match(line)) is not None:
            current["output_tokens"] += round(float(m[1]) * {"": 1, "k": 1_000, "M": 1_000_000}[m[2]])
    return [s for s in sessions if s["prompts"]]


def words(text: str) -> list[str]:
    return text.split()


def test_the_counter_gives_what_was_counted_by_hand(tmp_path):
    """The file as published: 3 starts, each with prompts (1, 8, 12 runs of `####` lines, as
    `awk` counted them once), 3 applied edits and 2 commits, all in the last session."""
    counted = count_history(unpacked(tmp_path / "repo") / ".aider.chat.history.md")
    assert [len(s["prompts"]) for s in counted] == [1, 8, 12]
    assert [(s["edits"], s["commits"]) for s in counted] == [(0, 0), (0, 0), (3, 2)]


@pytest.fixture
def published(tmp_path, monkeypatch):
    for var, folder in (("HOME", "home"), ("CLAUDE_CONFIG_DIR", "claude"), ("CODEX_HOME", "codex")):
        (tmp_path / folder).mkdir()
        monkeypatch.setenv(var, str(tmp_path / folder))
    return unpacked(tmp_path / "mozgoslav")


def test_each_session_counts_each_prompt_edit_commit_and_token_once(published):
    before = fingerprint(published)
    expected = count_history(published / ".aider.chat.history.md")
    [found] = discover(published)
    assert found.kind == "aider"
    source = found.open()
    sessions = sorted(source.sessions(), key=lambda s: s.created_at)
    assert len(sessions) == len(expected)
    for session, counted in zip(sessions, expected):
        tasks = list(source.tasks(session.id))
        steps = [s for t in tasks for s in source.steps(t.id)]
        assert [words(t.summary) for t in tasks] == [words(" ".join(p)) for p in counted["prompts"]], session.id
        assert sum(s.tool == "edit" for s in steps) == counted["edits"], session.id
        assert sum(s.tool == "commit" for s in steps) == counted["commits"], session.id
        assert sum(s.tokens_out or 0 for s in steps) == counted["output_tokens"], session.id
    assert [p.message for p in source.problems()] == [
        "not in a git repository here: the commits aider made are not shown"]
    assert fingerprint(published) == before, "reading wrote into the repository"
