"""Safe cleanup of agent homes (Claude Code, Codex): inventory, plan with reasons, archive
(byte-exact, still browsable), restore, delete.

    inv = take_inventory(Path("~/.claude").expanduser())
    plan = plan_cleanup(inv, keep_days=30, keep_last=5, pins=load_pins())
    result = apply_cleanup(plan, archive_dir())          # archive, then remove originals
    restore_session("<session id>", archive_dir())       # byte-exact, mtime and mode

Nothing here imports a UI; the CLI verbs `cleanup` / `restore` and the preview screen call
these same functions.
"""

from __future__ import annotations

from memtui.core.cleanup.apply import CleanupProgress, CleanupResult, apply_cleanup
from memtui.core.cleanup.archive_read import find_units, iter_files, list_archived, read_file, unpacked_view
from memtui.core.cleanup.inventory import Inventory, OrphanRecord, SessionRecord
from memtui.core.cleanup.manifest import ArchiveError, Manifest
from memtui.core.cleanup.pins import load_pins, resolve_session, set_pinned
from memtui.core.cleanup.places import archive_dir, cache_dir, state_dir, view_cache_dir
from memtui.core.cleanup.plan import CleanupPlan, Decision, ProjectPreview, plan_cleanup, plan_json, preview_by_project
from memtui.core.cleanup.recover import pending, recover
from memtui.core.cleanup.restore import RestoreConflict, RestoreResult, restore_session

__all__ = [
    "ArchiveError", "ProjectPreview", "preview_by_project", "CleanupPlan", "CleanupProgress", "CleanupResult", "Decision", "Inventory", "Manifest",
    "OrphanRecord", "RestoreConflict", "RestoreResult", "SessionRecord", "apply_cleanup", "archive_dir", "cache_dir",
    "find_units", "iter_files", "list_archived", "load_pins", "pending", "plan_cleanup", "plan_json", "read_file",
    "recover", "resolve_session", "restore_session", "set_pinned", "state_dir", "unpacked_view", "view_cache_dir",
]
