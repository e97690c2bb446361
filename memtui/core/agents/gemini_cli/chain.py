"""Gemini CLI's start-up memory chain, as Gemini CLI 0.61 builds it (packages/core
memoryDiscovery, memoryContextManager, memoryImportProcessor).

Context file names: `GEMINI.md`; `context.fileName` in settings (a name or a list) puts its
names before `GEMINI.md` — both are still read, in that order. Settings are the user's
`<gemini home>/settings.json` and the workspace's `.gemini/settings.json` (the workspace wins).

In load order:
- global: `<gemini home>/<name>` for each name (`<gemini home>` is `$GEMINI_CLI_HOME/.gemini`,
  else `~/.gemini`);
- project (only in a trusted folder): from the working directory up to the nearest ancestor
  holding a `context.memoryBoundaryMarkers` entry (default `.git`) — only the working directory
  when none holds one — every existing context file, sorted by path, one file loaded once;
- the private project memory `<gemini home>/tmp/<project>/memory/MEMORY.md` (else the context
  names there);
- then, on demand: context files in folders below the working directory are loaded when a tool
  reads or edits a file there.
Each file's `@path` imports (an `@` at a line's start or after white space, the path up to the
next white space, starting with `.`, `/` or a letter; not inside backticks) are inlined where
they stand, at most 5 hops deep, and only from inside the importing file's project root (the
nearest ancestor holding a boundary marker, else its own folder). Folder trust: off unless
`security.folderTrust.enabled`; then `trustedFolders.json` decides (the longest rule naming the
folder or a parent; no rule: not trusted) unless GEMINI_CLI_TRUST_WORKSPACE says otherwise.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

from memtui.core.memory.chain import AgentChain, ChainBuilder, folders_below

DEFAULT_NAME = "GEMINI.md"
MEMORY_INDEX = "MEMORY.md"
MAX_IMPORT_HOPS = 5
_CODE = re.compile(r"(`+)([\s\S]*?)\1")
_WHITE = " \t\n\r"


def gemini_dir(env: Mapping[str, str]) -> Path | None:
    """`$GEMINI_CLI_HOME/.gemini`, else `$HOME/.gemini` (None without either)."""
    base = env.get("GEMINI_CLI_HOME") or env.get("HOME") or env.get("USERPROFILE")
    return Path(base).expanduser() / ".gemini" if base else None


def gemini_chain(root: Path, cwd: Path, env: Mapping[str, str]) -> AgentChain:
    b = ChainBuilder("gemini-cli", cwd)
    home = gemini_dir(env)
    settings = _settings(b, home, cwd)
    names = context_names(settings.get("fileName"))
    markers = _markers(settings.get("markers"))
    walk = _GeminiWalk(b, markers)
    if home is not None:
        for name in names:
            path = home / name
            if _readable(path):
                walk.top(path, "global", _global_reason(b, path))
    trusted, why = _trust(env, settings, home, cwd)
    for path in project_files(cwd, names, markers, home):
        if trusted:
            walk.top(path, "directory", f"project context in {_where(path.parent, cwd)}")
        elif walk.first(path):
            b.add(path, "directory", loaded_bytes=0, reason=f"not loaded: {why}")
    if home is not None:
        _project_memory(walk, home, cwd, names)
    if trusted:
        _nested(walk, cwd, names)
    return b.build(root)


def context_names(setting: Any) -> list[str]:
    """The context file names in the order Gemini CLI tries them: `context.fileName`'s, then
    GEMINI.md (0.61 keeps the default beside a configured name)."""
    given = setting if isinstance(setting, list) else [setting]
    names = [os.path.normpath(n.strip()) for n in given if isinstance(n, str) and n.strip()]
    return list(dict.fromkeys([*names, DEFAULT_NAME]))


def project_files(cwd: Path, names: list[str], markers: list[str], home: Path | None) -> list[Path]:
    """The context files from `cwd` up to its project root (only `cwd` without a marker above),
    sorted by path as Gemini CLI sorts them; a file reached twice (a link) counted once."""
    ceiling = project_root(cwd, markers) or cwd
    found: list[Path] = []
    here = cwd
    while True:
        if home is not None and here == home:
            break
        found += [here / n for n in names if _readable(here / n)]
        if here == ceiling or here.parent == here:
            break
        here = here.parent
    seen: set[tuple[int, int]] = set()
    unique = []
    for path in found:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            unique.append(path)
    return sorted(unique, key=str)


def project_root(start: Path, markers: list[str]) -> Path | None:
    """The nearest ancestor of `start` (itself included) holding one of `markers`, or None."""
    usable = [m for m in markers if m and not os.path.isabs(m) and ".." not in m]
    for directory in (start, *start.parents):
        if any(os.path.lexists(directory / m) for m in usable):
            return directory
    return None


class _GeminiWalk:
    """Lists top-level context files and the files they import, right after them."""

    def __init__(self, builder: ChainBuilder, markers: list[str]) -> None:
        self.b = builder
        self.markers = markers
        self.seen: set[str] = set()

    def first(self, path: Path) -> bool:
        real = os.path.realpath(path)
        if real in self.seen:
            return False
        self.seen.add(real)
        return True

    def top(self, path: Path, scope: str, reason: str, *, on_demand: bool = False) -> None:
        if not self.first(path):
            return
        entry = self.b.add(path, scope, reason=reason, on_demand=on_demand)
        if entry.loaded_bytes:
            root = project_root(path.parent, self.markers) or path.parent
            self.imports(path, root, 0, (os.path.realpath(path),))

    def imports(self, importer: Path, root: Path, depth: int, stack: tuple[str, ...]) -> None:
        text = self.b.read(importer).text
        for line, raw in import_targets(text):
            target = Path(os.path.normpath(importer.parent / raw))
            real = os.path.realpath(target)
            if re.match(r"(file|https?)://", raw) or not _inside(real, os.path.realpath(root)):
                self.b.problem(importer, line, "import-outside",
                               f"@{raw} lies outside {root}: Gemini CLI refuses it (\"path traversal attempt\")")
                continue
            if real in stack:
                self.b.problem(importer, line, "import-cycle",
                               f"@{raw} imports a file that is already importing it (a cycle); Gemini CLI stops there")
                continue
            if not os.path.lexists(target):
                self.b.problem(importer, line, "import-missing",
                               f"@{raw}: {target} does not exist; Gemini CLI leaves an \"Import failed\" comment")
                continue
            hop = depth + 1
            if self.b.too_deep(target, importer, line, raw, hop, MAX_IMPORT_HOPS, "Gemini CLI"):
                continue
            again = real in self.seen
            self.seen.add(real)
            entry = self.b.add(target, "import", imported_by=importer, depth=hop,
                               reason=f"imported by {importer.name} (line {line})"
                                      + ("; inlined again (it is loaded elsewhere too)" if again else ""))
            if entry.loaded_bytes:
                self.imports(target, root, hop, (*stack, real))


def import_targets(text: str) -> list[tuple[int, str]]:
    """(line, path) of each `@path` import outside backtick spans, as Gemini CLI finds them."""
    code = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    found: list[tuple[int, str]] = []
    i = 0
    while True:
        i = text.find("@", i)
        if i < 0:
            return found
        if i > 0 and text[i - 1] not in _WHITE:
            i += 1
            continue
        j = i + 1
        while j < len(text) and text[j] not in _WHITE:
            j += 1
        raw = text[i + 1:j]
        if raw and (raw[0] in "./" or ("A" <= raw[0] <= "Z") or ("a" <= raw[0] <= "z")) \
                and not any(s <= i < e for s, e in code):
            found.append((text.count("\n", 0, i) + 1, raw))
        i = j + 1


def _project_memory(walk: _GeminiWalk, home: Path, cwd: Path, names: list[str]) -> None:
    folder = _project_tmp(home, cwd)
    if folder is None:
        return
    memory = folder / "memory"
    index = memory / MEMORY_INDEX
    reason = "your private memory of this project, kept in the Gemini home: loaded at start"
    if _readable(index):
        walk.top(index, "auto-memory", reason)
        return
    for name in names:
        if _readable(memory / name):
            walk.top(memory / name, "auto-memory", reason + " (an older layout: no MEMORY.md beside it)")


def _project_tmp(home: Path, cwd: Path) -> Path | None:
    """The `tmp/<project>` folder of `cwd` (projects.json's name, else the older sha256 name)."""
    from memtui.core.agents.gemini_cli.home import project_folders

    found = project_folders(home, cwd, need="memory")
    return found[0] if found else None


def _nested(walk: _GeminiWalk, cwd: Path, names: list[str]) -> None:
    """Context files below the working directory: loaded when a tool touches a file there."""
    for here in folders_below(cwd):
        for name in names:
            if _readable(here / name):
                walk.top(here / name, "directory", "below the working directory: loaded when Gemini CLI reads or "
                         f"edits a file in {here.relative_to(cwd).as_posix()}/", on_demand=True)


def _settings(b: ChainBuilder, home: Path | None, cwd: Path) -> dict[str, Any]:
    """context.fileName, context.memoryBoundaryMarkers and security.folderTrust.enabled from the
    user's settings, then the workspace's (which win); a broken file is reported and skipped."""
    out: dict[str, Any] = {}
    for path in ([home / "settings.json"] if home is not None else []) + [cwd / ".gemini" / "settings.json"]:
        data = _json_file(b, path)
        context, security = _object(data.get("context")), _object(data.get("security"))
        if "fileName" in context:
            out["fileName"] = context["fileName"]
        if isinstance(context.get("memoryBoundaryMarkers"), list):
            out["markers"] = context["memoryBoundaryMarkers"]
        trust = security.get("folderTrust")
        if isinstance(trust, dict) and isinstance(trust.get("enabled"), bool) and path.parent == home:
            out["folderTrust"] = trust["enabled"]
    return out


def _json_file(b: ChainBuilder, path: Path) -> dict:
    if not path.is_file():
        return {}
    read = b.read(path)
    if read.error is not None:
        b.problem(path, None, "config", f"settings {read.error}")
        return {}
    text = _strip_comments(read.text)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        b.problem(path, None, "config", f"settings.json is not valid JSON ({exc}); Gemini CLI would refuse it")
        return {}
    return data if isinstance(data, dict) else {}


def _strip_comments(text: str) -> str:
    """JSON with // and /* */ comments (Gemini CLI accepts them) as plain JSON."""
    return re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*[\s\S]*?\*/', lambda m: m.group(1) or "", text)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _markers(value: Any) -> list[str]:
    if isinstance(value, list):
        return [m for m in value if isinstance(m, str)]
    return [".git"]


def _trust(env: Mapping[str, str], settings: dict, home: Path | None, cwd: Path) -> tuple[bool, str]:
    """Whether Gemini CLI loads project context in `cwd`, and why not."""
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
        return False, "the environment marks the workspace untrusted (GEMINI_CLI_TRUST_WORKSPACE / GEMINI_RESTRICTED_MODE)"
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true" or not settings.get("folderTrust"):
        return True, ""
    rules_file = Path(env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"]) if env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") else \
        (home / "trustedFolders.json" if home is not None else None)
    try:
        rules = json.loads(_strip_comments(rules_file.read_text(encoding="utf-8"))) if rules_file else {}
    except (OSError, ValueError, RecursionError):
        rules = {}
    best, level = -1, None
    here = os.path.realpath(cwd)
    for rule, value in (rules.items() if isinstance(rules, dict) else []):
        base = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        if _inside(here, os.path.realpath(base)) and len(rule) > best:
            best, level = len(rule), value
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return True, ""
    return False, f"folder trust is on and {cwd} is not a trusted folder ({rules_file})"


def _global_reason(b: ChainBuilder, path: Path) -> str:
    reason = "your context for every project"
    if "## Gemini Added Memories" in b.read(path).text:
        reason += "; holds the memories saved with /memory add (## Gemini Added Memories)"
    return reason


def _where(directory: Path, cwd: Path) -> str:
    return "the working directory" if directory == cwd else "a parent of the working directory"


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _readable(path: Path) -> bool:
    """There for Gemini CLI's access check: anything but a folder (a link, a named pipe: listed,
    and the bounded read says why it is not loaded)."""
    try:
        return os.path.lexists(path) and not path.is_dir()
    except OSError:
        return False
