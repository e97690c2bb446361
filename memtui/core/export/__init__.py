"""`memtui export`: one session or task as a self-contained Markdown, HTML or JSON document.

    from memtui.core.export import build_export, render_export
    doc = build_export(source, session_id=4, with_memory=True, memory_root=workspace)
    text = render_export(doc, "html")

The JSON form is the document itself (its shape is documented in `document.py`); Markdown
and HTML render it with every piece of agent-written text made inert.
"""

from __future__ import annotations

from typing import Any

from memtui.core.export.document import EXPORT_VERSION, build_export

FORMATS: tuple[str, ...] = ("md", "html", "json")


def render_export(doc: dict[str, Any], fmt: str) -> str:
    """The document in one of FORMATS."""
    if fmt == "md":
        from memtui.core.export.markdown import render_markdown

        return render_markdown(doc)
    if fmt == "html":
        from memtui.core.export.html import render_html

        return render_html(doc)
    if fmt == "json":
        from memtui.core.export.jsonform import render_json

        return render_json(doc)
    raise ValueError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")


__all__ = ["EXPORT_VERSION", "FORMATS", "build_export", "render_export"]
