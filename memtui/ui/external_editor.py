"""Editing a memory document in the user's own editor ($VISUAL, $EDITOR, else vi).

The app is suspended while the editor runs on a copy in a scratch folder of memtui's own
(core.scratch: removed afterwards, or by the next memtui once a killed one is gone); the text
comes back to the memory screen, which saves it with the same conflict check as its own editor.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported


class EditorUnavailable(Exception):
    """$EDITOR cannot run here (the message says why)."""


def edit_externally(app: App, text: str, name: str) -> str | None:
    """The text after the user edited it in $EDITOR (a copy named `name`), or None (the reason
    is notified). Raises EditorUnavailable in a browser or a terminal that cannot be handed over."""
    from memtui.core.scratch import scratch_folder

    if app.is_web:
        raise EditorUnavailable("memtui runs in a browser here: $EDITOR needs a terminal on this machine.")
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        with scratch_folder("edit") as folder:
            copy = folder / (name if name not in ("", ".", "..") else "document")
            with open(copy, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            with app.suspend():
                subprocess.call([*shlex.split(editor), str(copy)])
            with open(copy, encoding="utf-8", newline="") as handle:  # line ends as the editor left them
                return handle.read()
    except SuspendNotSupported:
        raise EditorUnavailable("This terminal cannot hand itself over to $EDITOR.") from None
    except (OSError, UnicodeDecodeError) as exc:
        app.notify_error(f"editor failed: {exc}")
    return None


def offer_builtin_editor(screen: Any, why: str) -> None:
    """$EDITOR cannot run here: say so and offer memtui's own editor (the memory screen's e)."""
    from memtui.ui.screens.confirm import ConfirmScreen

    def answered(yes: bool | None) -> None:
        if yes:
            screen.action_edit()

    body = f"{why}\nEdit {screen.current} in memtui's own editor instead? ctrl+s saves it, with the same conflict check."
    screen.app.push_screen(ConfirmScreen("$EDITOR is not available here", body, yes="Edit here", no="Cancel"),
                           answered)


def edit_in_editor(screen: Any) -> None:
    """The memory screen's E: edit the open document in $EDITOR (the app is suspended); the
    text that comes back is saved with the same conflict check as memtui's own editor."""
    opened, current = screen.opened, screen.current
    if opened is None or current is None or opened.readonly:
        screen.app.bell()
        return
    try:
        text = edit_externally(screen.app, opened.text or "", Path(current).name)
    except EditorUnavailable as why:
        offer_builtin_editor(screen, str(why))
        return
    if text is not None and text != opened.text:
        screen.save(text, opened.version)
