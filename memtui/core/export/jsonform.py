"""The export document as JSON: the data exactly, nothing a terminal or browser would act on."""

from __future__ import annotations

import json
from typing import Any

from memtui.core.display import json_safe


def render_json(doc: dict[str, Any]) -> str:
    """Indented JSON, UTF-8 text kept readable, every risky code point \\u-escaped."""
    return json_safe(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"
