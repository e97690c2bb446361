"""Applying the hunks other agents record, to rebuild a file's after-content exactly.

Claude Code's `structuredPatch` is a list of hunks (`oldStart`, `oldLines`, `lines` with
' ', '-', '+' prefixes) computed from the file before and after an edit; applied to the
recorded before-text it gives the after-text, or fails loudly if the context disagrees.
"""

from __future__ import annotations

from typing import Any


class PatchMismatch(ValueError):
    """A hunk's context or removed lines differ from the text it is applied to."""


def apply_hunks(before: str, hunks: list[dict[str, Any]]) -> str:
    """`before` with `hunks` applied; raises PatchMismatch when a hunk does not fit."""
    source = before.split("\n")
    out: list[str] = []
    pos = 0
    for hunk in hunks:
        old_start = int(hunk.get("oldStart", 0))
        old_lines = int(hunk.get("oldLines", 0))
        start = old_start if old_lines == 0 else old_start - 1
        if start < pos or start > len(source):
            raise PatchMismatch(f"hunk at line {old_start} is out of order or past the end")
        out.extend(source[pos:start])
        index = start
        for line in hunk.get("lines", []):
            if not line:
                tag, text = " ", ""
            else:
                tag, text = line[0], line[1:]
            if tag == "\\":  # "\ No newline at end of file"
                continue
            if tag in (" ", "-"):
                if index >= len(source) or source[index] != text:
                    raise PatchMismatch(f"line {index + 1} differs from the hunk's context")
                if tag == " ":
                    out.append(text)
                index += 1
            elif tag == "+":
                out.append(text)
            else:
                raise PatchMismatch(f"unknown hunk line prefix {tag!r}")
        pos = index
    out.extend(source[pos:])
    return "\n".join(out)


def replace_strings(before: str, edits: list[dict[str, Any]]) -> str:
    """`before` with each {old_string|oldString, new_string|newString, replace_all} applied."""
    text = before
    for edit in edits:
        old = edit.get("old_string", edit.get("oldString"))
        new = edit.get("new_string", edit.get("newString"))
        if not isinstance(old, str) or not isinstance(new, str):
            raise PatchMismatch("an edit lacks its strings")
        if old == "":
            if text:
                raise PatchMismatch("an empty old string only creates a new file")
            text = new
            continue
        if old not in text:
            raise PatchMismatch("an edit's old string is not in the text")
        replace_all = edit.get("replace_all", edit.get("replaceAll", False))
        text = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    return text
