"""`memtui export PATH (--session ID | --task ID) [--format md|html|json] [-o FILE] [--with-memory]`,
or `memtui export PATH (--all | --project DIR) -o FOLDER`: a page per session and an index."""

from __future__ import annotations

import sys
from pathlib import Path

from memtui.core.errors import MemtuiError


def register(sub) -> None:
    p = sub.add_parser("export", help="write one session or task as a Markdown, HTML or JSON document; --all / --project a folder of pages")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or a store (agent.db, agent home, transcript)")
    scope = p.add_mutually_exclusive_group(required=True)
    scope.add_argument("--session", metavar="ID", help="export this session, sub-agents included")
    scope.add_argument("--task", metavar="ID", help="export this task and the tasks it handed off to")
    scope.add_argument("--all", action="store_true",
                       help="every session at PATH: one HTML page each and index.html, into the new folder -o")
    scope.add_argument("--project", metavar="DIR",
                       help="as --all, for the sessions that ran in the folder DIR (a Claude Code or Codex project)")
    p.add_argument("--format", choices=("md", "html", "json"), default=None,
                   help="document format (default: from the -o file's extension, else md)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (refuses an existing file); default: stdout")
    p.add_argument("--with-memory", action="store_true", help="add the workspace's memory documents")
    p.add_argument("--kind", help="which store at PATH (memtui, claude-code, codex, …) when there are several")
    p.set_defaults(func=run)


EXTENSIONS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json"}
"""The -o extensions that name a format; .txt and none take --format (default md)."""
NAMES = {"md": "Markdown", "html": "HTML", "json": "JSON"}


def _format(args) -> str:
    """The format to write: --format, else the -o file's extension; an extension that names
    another format, or none memtui writes (x.pdf), is refused rather than written wrongly."""
    suffix = Path(args.output).suffix.lower() if args.output else ""
    named = EXTENSIONS.get(suffix)
    if named is None and suffix not in ("", ".txt"):
        raise MemtuiError(f"-o {args.output}: memtui writes Markdown (.md), HTML (.html) or JSON (.json), "
                          f"not {suffix[1:].upper() or suffix}; name the file for one of them")
    if args.format and named and named != args.format:
        raise MemtuiError(f"-o {args.output} names {NAMES[named]} but --format is {args.format}: "
                          "drop --format or name the file for it")
    return args.format or named or "md"


def run(args) -> int:
    from memtui.core.atomic import write_atomic
    from memtui.core.export import build_export, render_export
    from memtui.core.resolve import resolve
    from memtui.core.store.paths import is_team_url

    path = Path(args.path).expanduser()
    if args.all or args.project:
        return _site(args, path)
    fmt = _format(args)
    output = Path(args.output).expanduser() if args.output else None
    if output is not None and output.exists():
        raise MemtuiError(f"{output} exists; choose another file (export never overwrites)")
    if output is not None:
        _check_folder(output)
    with resolve(args.path if is_team_url(args.path) else path, kind=args.kind) as resolved:  # a team store's URL too
        doc = build_export(resolved.source, session_id=args.session, task_id=args.task,
                           with_memory=args.with_memory, memory_root=resolved.root)
    text = render_export(doc, fmt)
    if output is None:
        sys.stdout.write(text)
        return 0
    def still_free() -> None:  # the file may have appeared while the document was built
        if output.exists():
            raise MemtuiError(f"{output} exists; choose another file (export never overwrites)")

    write_atomic(output, text.encode("utf-8"), before_replace=still_free)
    count = sum(1 for _ in _all(doc["tasks"]))
    print(f"wrote {output} ({fmt}, {count} task{'s' if count != 1 else ''})")
    return 0


def _check_folder(output: Path) -> None:
    """The folder `output` is made in exists: said before anything is built (a write would
    otherwise fail naming the temp file it makes beside `output`)."""
    parent = output.absolute().parent
    if not parent.is_dir():
        why = "is not a folder" if parent.exists() else "does not exist"
        raise MemtuiError(f"cannot write {output}: {parent} {why}")


def _site(args, path: Path) -> int:
    """--all / --project: the sessions' pages and the index, into a new folder."""
    from memtui.core.export.site import INDEX, ORPHANS, build_site, select_sessions, write_site
    from memtui.core.resolve import resolve

    what = "--all" if args.all else "--project"
    if not args.output:
        raise MemtuiError(f"{what} writes a folder of pages: name a new one with -o FOLDER")
    if args.format not in (None, "html") or args.with_memory:
        raise MemtuiError(f"{what} writes HTML pages only (drop --format / --with-memory)")
    folder = Path(args.output).expanduser()
    if folder.exists():
        raise MemtuiError(f"{folder} exists; choose a new folder (export never overwrites)")
    _check_folder(folder)
    project = Path(args.project).expanduser() if args.project else None
    with resolve(path, kind=args.kind) as resolved:
        sessions = select_sessions(resolved.source, project)
        if not sessions and (project is not None or not resolved.source.tasks(None)):
            where = f" that ran in {project}" if project is not None else ""
            raise MemtuiError(f"no sessions{where} in {resolved.path}; nothing written")
        pages = build_site(resolved.source, sessions, include_orphans=project is None)
        others = resolved.others  # ~ holds several agents' homes: this export is the first one's
    write_site(folder, pages)
    orphans = f" and {ORPHANS} (tasks without a session)" if ORPHANS in pages else ""
    print(f"wrote {folder}/{INDEX}, {len(sessions)} session page{'s' if len(sessions) != 1 else ''}{orphans}"
          + (f" of {resolved.entry.kind} at {resolved.entry.path}" if others and resolved.entry is not None else ""))
    if others:
        scope = "--all" if args.all else f"--project {args.project}"
        print("also here, not in this export: " + "; ".join(f"{s.kind} at {s.path}" for s in others)
              + f" (export each from its path: memtui export PATH {scope} -o FOLDER)", file=sys.stderr)
    return 0


def _all(tasks):
    for task in tasks:
        yield task
        yield from _all(task["children"])
