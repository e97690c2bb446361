"""The export document as JSON: the data exactly, nothing a terminal or browser would act on."""

from __future__ import annotations

import json
import re
from typing import Any

# json.dumps escapes C0 controls; C1 controls, bidi overrides and the Unicode line
# separators pass through unless escaped too (a terminal `cat`-ing the file would act on
# them). Escaped, the data parse back identical.
_RISKY = re.compile("[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def render_json(doc: dict[str, Any]) -> str:
    """Indented JSON, UTF-8 text kept readable, every risky code point \\u-escaped."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    return _RISKY.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
