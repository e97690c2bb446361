"""The memory pane with Pilot: browse, edit, save, conflict, undo, history, read-only."""

from __future__ import annotations

from memory_workspace import make_workspace
from textual.widgets import Button, ContentSwitcher, TextArea

from memtui.core.memory import list_history
from memtui.ui.screens.conflict import ConflictScreen
from memtui.ui.screens.memory import MemoryScreen
from pilot_support import settle
from memtui.ui.widgets.document_list import DocumentList
from conftest import notifications

SIZE = (120, 40)


def workspace(tmp_path):
    return make_workspace(tmp_path / "ws")


def saved_once(tmp_path):
    """A workspace whose MEMORY.md memtui saved once ("v2"): (root, path, the text it replaced)."""
    from memtui.core.memory import read_document, save_document

    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    original = path.read_text()
    save_document(root, path, "v2\n", read_document(path).version)
    return root, path, original


async def test_lists_documents_with_lint_badges_and_opens_markdown(tmp_path, open_memory):
    root = workspace(tmp_path)
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.current == "MEMORY.md"
        assert screen.query_one(ContentSwitcher).current == "memory-markdown"
        doc_list = screen.query_one(DocumentList)
        prompts = [str(doc_list.get_option_at_index(i).prompt) for i in range(doc_list.option_count)]
        assert any("04-decision-log.md ⚠ 1" in p for p in prompts)
        assert "Long-term memory" in prompts


async def test_jsonl_shows_a_table_and_the_malformed_line(tmp_path, open_memory):
    root = workspace(tmp_path)
    async with open_memory(root, select="SESSION.jsonl", size=SIZE) as pilot:
        app = pilot.app
        assert app.screen.query_one(ContentSwitcher).current == "memory-jsonl"
        notice = str(app.screen.query_one("#jsonl-problems").render())
        assert "1 malformed line skipped: 3" in notice
        assert app.screen.query_one("#jsonl-records").row_count == 3


async def test_edit_and_save_keeps_the_previous_version_and_undo_restores_it(tmp_path, open_memory):
    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    original = path.read_text()
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("e")
        editor = app.screen.query_one("#memory-editor", TextArea)
        assert app.screen.editing and editor.has_focus and editor.text == original
        editor.insert("- New fact\n", (0, 0))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not app.screen.editing
        assert path.read_text() == "- New fact\n" + original
        assert list_history(root, path)[0].read().decode() == original
        await pilot.press("u")
        await settle(pilot)
        assert path.read_text() == original


async def test_conflict_offers_reload_diff_overwrite(tmp_path, open_memory):
    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("e")
        app.screen.query_one("#memory-editor", TextArea).insert("mine\n", (0, 0))
        path.write_text("the agent wrote this meanwhile\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConflictScreen)
        assert path.read_text() == "the agent wrote this meanwhile\n"  # not overwritten
        await pilot.press("d")
        assert app.screen.query_one("#conflict-diff").display
        diff = app.screen.diff
        assert "-the agent wrote this meanwhile" in diff and "+mine" in diff
        await pilot.press("escape")  # hides the diff, back to the dialog
        assert isinstance(app.screen, ConflictScreen) and not app.screen.query_one("#conflict-diff").display
        await pilot.press("escape")  # keep editing
        assert isinstance(app.screen, MemoryScreen) and app.screen.editing
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("o")  # overwrite
        await settle(pilot)
        assert path.read_text().startswith("mine\n")
        assert list_history(root, path)[0].read() == b"the agent wrote this meanwhile\n"


async def test_conflict_reload_takes_the_disk_version_and_keeps_the_edit(tmp_path, open_memory):
    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("e")
        app.screen.query_one("#memory-editor", TextArea).insert("mine\n", (0, 0))
        path.write_text("agent\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("r")
        await settle(pilot)
        assert not app.screen.editing and path.read_text() == "agent\n"
        kept = list_history(root, path)[0]
        assert kept.reason == "discarded" and kept.read().startswith(b"mine\n")
        assert app.screen.query_one("#memory-source", TextArea).text == "agent\n"


async def test_esc_after_show_diff_returns_to_the_dialog_and_the_next_key_chooses(tmp_path, open_memory):
    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("e")
        app.screen.query_one("#memory-editor", TextArea).insert("mine\n", (0, 0))
        path.write_text("agent\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.click("#diff")  # "Show diff (d)"
        await pilot.pause()
        assert app.screen.query_one("#conflict-diff").display
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConflictScreen)
        assert str(app.screen.query_one("#diff", Button).label) == "Show diff (d)"
        await pilot.press("r")  # meant as reload: never typed into the document
        await settle(pilot)
        assert not app.screen.editing and path.read_text() == "agent\n"
        assert "r" not in app.screen.query_one("#memory-source", TextArea).text


async def test_escape_with_unsaved_changes_asks_twice(tmp_path, open_memory):
    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    original = path.read_text()
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("e")
        app.screen.query_one("#memory-editor", TextArea).insert("draft\n", (0, 0))
        await pilot.press("escape")
        assert app.screen.editing
        await pilot.press("escape")
        assert not app.screen.editing and path.read_text() == original
        assert list_history(root, path)[0].reason == "discarded"


async def test_a_write_that_fails_is_a_message_and_the_edit_stays(tmp_path, open_memory):
    """Where memtui cannot write its history (here `.agent/.memtui` is a file, so the folder
    cannot be made: the same OSError a read-only workspace gives), escape-escape on an edit
    says why and keeps the editor open with the text; nothing crashes."""
    root = workspace(tmp_path)
    (root / ".agent" / ".memtui").write_text("not a folder")
    path = root / "MEMORY.md"
    original = path.read_text()
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("e")
        app.screen.query_one("#memory-editor", TextArea).insert("draft\n", (0, 0))
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, MemoryScreen)
        assert app.screen.editing and app.screen.query_one("#memory-editor", TextArea).text.startswith("draft\n")
        errors = [n for n in notifications(app) if n.severity == "error"]
        assert errors and "MEMORY.md" in errors[-1].message
        assert path.read_text() == original


async def test_invalid_utf8_is_read_only(tmp_path, open_memory):
    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    data = b"# Memory\ncaf\xe9\n"
    path.write_bytes(data)
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        assert "invalid UTF-8" in str(app.screen.query_one("#memory-notice").render())
        assert app.screen.query_one(ContentSwitcher).current == "memory-source"
        await pilot.press("e")
        assert not app.screen.editing
        assert path.read_bytes() == data


async def test_history_restores_a_version(tmp_path, open_memory, shown):
    root, path, original = saved_once(tmp_path)
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("h")
        await settle(pilot)
        assert "enter Restore this version" in shown(app)  # the footer says what enter does
        await pilot.press("enter")
        await settle(pilot)
        assert path.read_text() == original


async def test_filter_and_jump_to_line(tmp_path, open_memory):
    root = workspace(tmp_path)
    async with open_memory(root, select="PROJECT_MEMORY.md", line=7, size=SIZE) as pilot:
        app = pilot.app
        assert app.screen.query_one(ContentSwitcher).current == "memory-source"
        assert app.screen.query_one("#memory-source", TextArea).cursor_location == (6, 0)
        await pilot.press("escape")  # back to rendered
        assert app.screen.query_one(ContentSwitcher).current == "memory-markdown"
        await pilot.press("slash")
        await pilot.press(*"skill")
        doc_list = app.screen.query_one(DocumentList)
        ids = [doc_list.get_option_at_index(i).id for i in range(doc_list.option_count)]
        assert ids == [None, ".agent/skills/bisect/SKILL.md"]


async def test_external_editor_saves_through_the_conflict_check(tmp_path, monkeypatch, open_memory):
    import sys

    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    script = tmp_path / "editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write('- added in $EDITOR\\n')\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        app.suspend = _no_suspend  # headless tests cannot suspend a terminal
        await pilot.press("E")
        await settle(pilot)
        assert path.read_text().endswith("- added in $EDITOR\n")
        assert list_history(root, path)[0].reason == "save"


class _NoSuspend:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _no_suspend():
    return _NoSuspend()


async def test_a_write_by_the_agent_is_picked_up(tmp_path, open_memory):
    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        path.write_text("# Memory\n\n- the agent added this\n")
        app.screen.check_disk()
        await settle(pilot)
        assert app.screen.query_one("#memory-source", TextArea).text.endswith("the agent added this\n")
        await pilot.press("e")
        path.write_text("# Memory\n\n- and again\n")
        app.screen.check_disk()
        await pilot.pause()
        assert "changed on disk" in str(app.screen.query_one("#memory-notice").render())
        assert app.screen.editing


async def test_without_a_terminal_to_hand_over_the_builtin_editor_is_offered(tmp_path, open_memory):
    """$EDITOR needs the terminal (not there in a browser, nor under a headless driver): the
    action says so and offers memtui's own editor."""
    from textual.widgets import TextArea

    from memtui.ui.screens.confirm import ConfirmScreen

    root = workspace(tmp_path)
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "cannot hand itself over to $EDITOR" in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("y")
        await settle(pilot)
        assert app.screen.editing
        assert app.screen.query_one("#memory-editor", TextArea).text == (root / "MEMORY.md").read_text()


async def test_yaml_front_matter_is_a_key_value_block_above_the_body(tmp_path, open_memory, shown):
    """A skill's front matter is a small block of fields; the body below renders as markdown
    (not as a heading made of the fields), and is visible at 160 columns."""
    root = workspace(tmp_path)
    skill = root / ".agent/skills/bisect/SKILL.md"
    skill.write_text("---\nname: bisect\ndescription: Find the commit that broke a test\n---\n"
                     "# Bisect a flaky test\n\n1. Pin the seed\n2. Halve the range\n")
    async with open_memory(root, select=".agent/skills/bisect/SKILL.md", size=(160, 48)) as pilot:
        app = pilot.app
        text = shown(app)
        assert "description  Find the commit that broke a test" in text
        assert "Pin the seed" in text and "Bisect a flaky test" in text
        headings = [h.name for h in app.screen.query("MarkdownH2")]
        assert headings == []  # "name: … ---" read as a setext heading before
        assert "description:" not in text


async def test_undo_and_history_read_and_write_off_the_ui_thread(tmp_path, open_memory, monkeypatch, shown):
    """u and h touch the disk in a worker (a slow disk never freezes the screen); what the
    user sees is unchanged: the versions, the preview, the restore, the undo and their toasts."""
    import threading

    import memtui.ui.screens.memory as history
    from memtui.core.memory.save import HistoryEntry

    on_ui_thread: dict[str, list[bool]] = {}

    def watched(name, real):
        def call(*args, **kwargs):
            on_ui_thread.setdefault(name, []).append(threading.current_thread() is threading.main_thread())
            return real(*args, **kwargs)
        return call

    for name in ("list_history", "restore_version", "undo_last_save"):
        monkeypatch.setattr(history, name, watched(name, getattr(history, name)))
    monkeypatch.setattr(HistoryEntry, "read", watched("read", HistoryEntry.read))
    root, path, original = saved_once(tmp_path)
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("h")
        await settle(pilot)
        assert type(app.screen).__name__ == "HistoryScreen"
        assert app.screen.query_one("#history-preview", TextArea).text == original
        assert "History of MEMORY.md — 1 kept version" in shown(app)
        await pilot.press("enter")
        await settle(pilot)
        assert path.read_text() == original
        assert "Restored version 1 of MEMORY.md." in [n.message for n in notifications(app)]
        await pilot.press("u")
        await settle(pilot)
        assert path.read_text() == "v2\n"
        assert "Undid the last save of MEMORY.md (u again redoes it)." in [n.message for n in notifications(app)]
        assert app.screen.query_one("#memory-source", TextArea).text == "v2\n"
    assert set(on_ui_thread) == {"list_history", "restore_version", "undo_last_save", "read"}
    assert not any(any(calls) for calls in on_ui_thread.values()), on_ui_thread


async def test_history_with_nothing_kept_says_so(tmp_path, open_memory):
    root = workspace(tmp_path)
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MemoryScreen)
        assert [n.message for n in notifications(pilot.app)] == [
            "No kept versions of MEMORY.md yet: memtui keeps one at every save."]


async def test_an_editor_that_changes_nothing_saves_nothing_and_keeps_crlf(tmp_path, monkeypatch, open_memory):
    """A CRLF document left as it was in $EDITOR (quit without a change) is not saved again:
    it read back with its line ends turned into LF, counted as an edit and rewritten."""
    import sys

    root = workspace(tmp_path)
    path = root / "MEMORY.md"
    path.write_bytes(b"# Memory\r\n\r\n- kept with CRLF\r\n")
    script = tmp_path / "editor.py"
    script.write_text("import sys\n")  # opens the file, changes nothing
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        pilot.app.suspend = _no_suspend
        await pilot.press("E")
        await settle(pilot)
        assert path.read_bytes() == b"# Memory\r\n\r\n- kept with CRLF\r\n"
        assert [h.reason for h in list_history(root, path)] == []


async def test_the_document_title_counts_its_lines_in_words(tmp_path, open_memory):
    from conftest import screen_text

    root = workspace(tmp_path)
    (root / "MEMORY.md").write_text("One line only.\n")
    async with open_memory(root, select="MEMORY.md", size=SIZE) as pilot:
        text = screen_text(pilot.app)
        assert "MEMORY.md  ·  1 line  ·  15 B" in text and "1 lines" not in text
