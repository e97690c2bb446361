"""Editing a memory document in the user's own editor ($VISUAL, $EDITOR, else vi).

The app is suspended while the editor runs on a copy in a scratch folder of memtui's own
(core.scratch: removed afterwards, or by the next memtui once a killed one is gone); the text
comes back to the memory screen, which saves it with the same conflict check as its own editor.
"""

from __future__ import annotations

import os
import shlex
import subprocess

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
