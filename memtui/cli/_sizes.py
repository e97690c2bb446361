"""Human-readable byte counts for the text output of verbs."""

from __future__ import annotations


def human_bytes(n: int | None) -> str:
    """1536 → '1.5 KiB'; None → '—'."""
    if n is None:
        return "—"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"
