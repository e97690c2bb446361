"""Safe cleanup of agent homes (Claude Code, Codex): inventory, plan with reasons, archive
(byte-exact, still browsable), restore, delete.

    inv = take_inventory(Path("~/.claude").expanduser())
    plan = plan_cleanup(inv, keep_days=30, keep_last=5, pins=load_pins())
    result = apply_cleanup(plan, archive_dir())          # archive, then remove originals
    restore_session("<session id>", archive_dir())       # byte-exact, mtime and mode

Nothing here imports a UI; the CLI verbs `cleanup` / `restore` and the preview screen call
these same functions. The names below are imported from their modules when first asked for:
a reader that needs one small module (`memtui.core.places`, for memtui's state folder) does not load the
archive, restore and apply machinery with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.core.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from memtui.core.cleanup.apply import CleanupProgress, CleanupResult, apply_cleanup
    from memtui.core.cleanup.archive_read import find_units, iter_files, list_archived, read_file, unpacked_view
    from memtui.core.cleanup.inventory import Inventory, OrphanRecord, SessionRecord
    from memtui.core.cleanup.manifest import ArchiveError, Manifest
    from memtui.core.cleanup.pins import load_pins, resolve_session, set_pinned
    from memtui.core.places import archive_dir, cache_dir, state_dir, view_cache_dir
    from memtui.core.cleanup.plan import CleanupPlan, Decision, ProjectPreview, plan_cleanup, plan_json, preview_by_project
    from memtui.core.cleanup.recover import pending, recover
    from memtui.core.cleanup.restore import RestoreConflict, RestoreResult, restore_session

_MODULE_OF = {
    "ArchiveError": "manifest",
    "CleanupPlan": "plan",
    "CleanupProgress": "apply",
    "CleanupResult": "apply",
    "Decision": "plan",
    "Inventory": "inventory",
    "Manifest": "manifest",
    "OrphanRecord": "inventory",
    "ProjectPreview": "plan",
    "RestoreConflict": "restore",
    "RestoreResult": "restore",
    "SessionRecord": "inventory",
    "apply_cleanup": "apply",
    "archive_dir": "memtui.core.places",
    "cache_dir": "memtui.core.places",
    "find_units": "archive_read",
    "iter_files": "archive_read",
    "list_archived": "archive_read",
    "load_pins": "pins",
    "pending": "recover",
    "plan_cleanup": "plan",
    "plan_json": "plan",
    "preview_by_project": "plan",
    "read_file": "archive_read",
    "recover": "recover",
    "resolve_session": "pins",
    "restore_session": "restore",
    "set_pinned": "pins",
    "state_dir": "memtui.core.places",
    "unpacked_view": "archive_read",
    "view_cache_dir": "memtui.core.places",
}


__getattr__ = lazy_getattr("memtui.core.cleanup", _MODULE_OF)


__all__ = [
    "ArchiveError", "ProjectPreview", "preview_by_project", "CleanupPlan", "CleanupProgress", "CleanupResult", "Decision", "Inventory", "Manifest",
    "OrphanRecord", "RestoreConflict", "RestoreResult", "SessionRecord", "apply_cleanup", "archive_dir", "cache_dir",
    "find_units", "iter_files", "list_archived", "load_pins", "pending", "plan_cleanup", "plan_json", "read_file",
    "recover", "resolve_session", "restore_session", "set_pinned", "state_dir", "unpacked_view", "view_cache_dir",
]
