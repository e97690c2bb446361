"""`memtui stats PATH`: file, page and freelist figures; bytes per table and index."""

from __future__ import annotations

from memtui.cli._common import add_json_flag, emit, open_store
from memtui.core.memory_source import Capability
from memtui.core.display import human_bytes, percent


def register(sub) -> None:
    p = sub.add_parser("stats", help="database size, freelist and per-table statistics")
    p.add_argument("path", help="workspace directory or agent.db, or an agent's SQLite store (OpenCode's data folder)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.resolve import resolve
    from memtui.core.stats import db_stats, sqlite_file_stats
    from memtui.core.store.paths import is_team_url

    if is_team_url(args.path):  # a team store: the server's figures, no freelist
        from memtui.core.store.team_stats import team_stats

        with resolve(args.path) as resolved:
            team = team_stats(resolved.source)  # type: ignore[arg-type]  # a TeamStore
        emit(team.to_json(), args.json, lambda _: team_text(team))
        return 0
    with resolve(args.path) as resolved:
        source = resolved.source
        files = [] if source.can(Capability.STATS) else list(source.sqlite_files())
        if not files and not source.can(Capability.STATS):
            files = _others_files(resolved.others)  # ~: Claude Code's home first, OpenCode's opencode.db too
    if files:  # another agent's SQLite files: read-only figures of each ({"files": [...]} in JSON)
        found = [sqlite_file_stats(f) for f in files]
        emit({"files": [s.to_json() for s in found]}, args.json, lambda _: "\n\n".join(stats_text(s) for s in found))
        return 0
    with open_store(args.path, Capability.STATS) as store:
        stats = db_stats(store)
    emit(stats.to_json(), args.json, lambda _: stats_text(stats))
    return 0


def _others_files(others) -> list:
    """The SQLite files of the other stores PATH holds (`memtui stats ~`: the first store found
    there, Claude Code's home, keeps none; OpenCode's and a Codex home's are measured)."""
    from memtui.core.errors import MemtuiError

    files: list = []
    for entry in others:
        try:
            store = entry.open()
        except MemtuiError:
            continue
        with store as other:
            files += [f for f in other.sqlite_files() if f not in files]
    return files


def stats_text(s) -> str:
    lines = [
        f"{s.path}",
        f"  file {human_bytes(s.file_bytes)}, WAL {human_bytes(s.wal_bytes)}; {s.page_count} pages of {s.page_size} B"
        f" ({s.journal_mode}, auto_vacuum {s.auto_vacuum})",
        f"  freelist {s.freelist_count} pages = {human_bytes(s.freelist_bytes)} ({percent(s.freelist_share)} of the file)",
    ]
    if s.content is not None:
        c = s.content
        lines.append(f"  contents: {human_bytes(c.raw_bytes)} described by {c.entries} entries,"
                     f" {human_bytes(c.unique_bytes)} distinct (dedup saves {human_bytes(c.dedup_saved)}),"
                     f" {human_bytes(c.stored_bytes)} stored ({percent(c.ratio)})")
    if s.vacuum_hint:
        lines.append(f"  hint: {s.vacuum_hint}")
    lines.append("")
    lines.append(f"  {'table':<20} {'rows':>10} {'bytes':>12}")
    for t in s.tables:
        lines.append(f"  {t.name:<20} {t.rows:>10} {human_bytes(t.bytes):>12}")
    lines.append("")
    lines.append(f"  {'index':<36} {'table':<18} {'bytes':>12}")
    for i in s.indexes:
        lines.append(f"  {i.name:<36} {i.table:<18} {human_bytes(i.bytes):>12}")
    if not s.dbstat:
        lines.append("  (this SQLite lacks dbstat: bytes per table and index are unknown)")
    return "\n".join(lines)


def team_text(s) -> str:
    c = s.content
    lines = [f"{s.url}",
             f"  database {human_bytes(s.database_bytes)}; {s.origins} pushed sessions from {s.machines} machines",
             f"  contents: {human_bytes(c.raw_bytes)} described by {c.entries} entries, {human_bytes(c.unique_bytes)}"
             f" distinct (dedup saves {human_bytes(c.dedup_saved)}), {human_bytes(c.stored_bytes)} stored ({percent(c.ratio)})",
             "  no freelist on a server: rows GC deleted stay as dead rows until VACUUM (autovacuum, or VACUUM (VERBOSE))",
             "",
             f"  {'table':<20} {'rows':>10} {'dead':>8} {'bytes':>12} {'out of line':>12}  last vacuum"]
    for t in s.tables:
        lines.append(f"  {t.name:<20} {t.rows:>10} {t.dead_rows:>8} {human_bytes(t.bytes):>12}"
                     f" {human_bytes(t.toast_bytes):>12}  {t.last_vacuum or 'never'}")
    return "\n".join(lines)
