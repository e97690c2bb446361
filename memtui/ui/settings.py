"""The user's settings, kept between runs: `$XDG_CONFIG_HOME/memtui/config.toml`
(`~/.config/memtui/config.toml` without it).

    theme = "textual-light"
    sessions_pane = false
    tail = true

Read with tomllib; written whole and atomically when a setting changes. A missing or
unreadable file means the defaults: settings never stop the app from starting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memtui.core.atomic import write_atomic
from memtui.core.places import config_dir

DEFAULTS: dict[str, Any] = {"theme": "textual-dark", "sessions_pane": True, "tail": True}


def config_path() -> Path:
    """Where the settings live."""
    return config_dir() / "config.toml"


def load_settings(path: Path | None = None) -> dict[str, Any]:
    """The settings (defaults for what the file lacks, has wrong, or when it is unreadable)."""
    settings = dict(DEFAULTS)
    try:
        text = (path or config_path()).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return settings
    import tomllib  # only with a file to read: the app starts without importing it otherwise

    try:
        found = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return settings
    for key, default in DEFAULTS.items():
        if isinstance(found.get(key), type(default)):
            settings[key] = found[key]
    return settings


def save_settings(settings: dict[str, Any], path: Path | None = None) -> None:
    """Write the settings (known keys only). Raises OSError when the folder is not writable."""
    path = path or config_path()
    lines = []
    for key in DEFAULTS:
        value = settings.get(key, DEFAULTS[key])
        text = ("true" if value else "false") if isinstance(value, bool) else '"' + str(value).replace(
            "\\", "\\\\").replace('"', '\\"') + '"'
        lines.append(f"{key} = {text}")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))


def remember(app: Any, **changes: Any) -> None:
    """Keep a setting of `app` for the next run; a failure to write is a message, not a crash."""
    if all(app.settings.get(k) == v for k, v in changes.items()):
        return
    app.settings.update(changes)
    try:
        save_settings(app.settings)
    except OSError as exc:
        app.notify_error(f"could not keep the setting in {config_path()}: {exc.strerror or exc}")
