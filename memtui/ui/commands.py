"""The one command table: every action memtui offers, with its key and description.

The table feeds three things, so a key or a description is written once:

* `bindings(scope)` — the `BINDINGS` of the app (scope "app") or of a screen (its scope name);
* the `?` help screen (`memtui.ui.screens.help`), grouped by scope;
* `CommandTable`, the command-palette Provider (ctrl+p), which offers every command
  whose scope is "app" or the active screen's `COMMAND_SCOPE`.

Adding a screen or command: append one `Command` row here and give the object the scope
names (the app for "app", the screen whose `COMMAND_SCOPE` matches otherwise) an
`action_<name>` method. Screens declare `BINDINGS = bindings("their-scope")`.
"""

from __future__ import annotations

from ast import literal_eval
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from memtui.core.memory_source import Capability, MemorySource

if TYPE_CHECKING:
    from textual.screen import Screen


@dataclass(frozen=True)
class Command:
    """One action: what it does, which key runs it, where it applies."""

    action: str
    """The action name (`action_<name>` on the app or on the screen of `scope`)."""
    key: str
    """Key(s) in Textual's binding syntax; comma-separated for alternatives."""
    description: str
    """Short text for the footer, the help screen and the palette."""
    scope: str = "app"
    """"app" (anywhere) or a screen's `COMMAND_SCOPE` ("main", "step", "diff" ...)."""
    show: bool = True
    """Show in the footer (the help screen and the palette list every command)."""
    key_display: str | None = None
    """How the key is written in the footer and help, when not the key itself."""
    palette: bool = True
    """Offer in the command palette (off only for pure navigation keys)."""
    priority: bool = False
    """Checked before focused widgets' own bindings (use sparingly: quit, escape)."""
    footer: str = ""
    """A shorter description for the footer ("" uses `description`)."""
    panes: tuple[str, ...] = ()
    """The panes of its screen where it applies (focus in one of them); () = anywhere on it.
    Elsewhere it is neither in the footer nor run (the help lists it with its scope)."""
    needs: Capability | tuple[Capability, ...] | None = None
    """What the open source must be able to do for the command to be offered at all (footer,
    palette, help) and to run (a tuple: any one of them); None: always."""

    def matches(self, action: str, parameters: tuple[object, ...]) -> bool:
        """True if this command is `action` with these parameters (as Textual parses them)."""
        name, wanted = _parsed(self.action)
        return name == action and tuple(parameters) == wanted

    @property
    def shown_key(self) -> str:
        """The key as people read it ("ctrl+p", "?", "]/["; escape as the footer writes it, "esc")."""
        key = self.key_display or self.key.split(",")[0]
        return "esc" if key == "escape" else key

    def binding(self) -> Binding:
        """This command as a Textual `Binding`."""
        return Binding(self.key, self.action, self.footer or self.description, show=self.show,
                       key_display=self.key_display, priority=self.priority)


# Scope titles, in the order the help screen lists them.
SCOPES: dict[str, str] = {
    "app": "Anywhere",
    "main": "Main screen",
    "diff": "Checkpoint diff",
    "step": "Step detail",
    "sources": "Source switcher",
    "items": "Memory items",
    "gc": "GC preview",
    "stats": "Database statistics",
    "rollback": "Rollback dialog",
    "confirm": "Yes/no questions",
    "memory": "Memory documents",
    "chain": "Loaded at start (memory documents, l)",
    "history": "Kept versions of a document",
    "decisions": "Decision log",
    "search": "Search",
    "export": "Export dialog",
    "resume": "Resume in agent",
    "cleanup": "Agent home cleanup",
    "usage": "Usage and cost",
}

COMMANDS: tuple[Command, ...] = (
    # ---- anywhere
    Command("help", "question_mark", "Keys and commands", key_display="?", footer="Help"),
    Command("command_palette", "ctrl+p", "Command palette", show=False),
    Command("refresh_data", "ctrl+r", "Reload from the store", show=False),
    Command("quit", "q", "Quit", priority=False),
    Command("switch_source", "S", "Switch source: every store found here", show=False),
    Command("memory_items", "i", "Memory items: RA.Aid facts, snippets, notes; history", show=False,
            needs=Capability.ITEMS),
    # The preview only reads (like the statistics), so a store opened --read-only shows it too;
    # collecting (apply) needs GC, which --read-only withholds.
    Command("gc", "g", "GC preview: what is live, what may go, and why", footer="GC", needs=Capability.STATS),
    Command("stats", "s", "Database size, freelist and per-table statistics", footer="Stats",
            needs=(Capability.STATS, Capability.SQLITE_STATS)),
    Command("memory", "m", "Memory documents (view, edit, lint)", footer="Memory"),
    Command("decisions", "D", "Decision log", footer="Decisions"),
    Command("search", "ctrl+f", "Search memory and sessions", footer="Search"),
    Command("usage", "dollar_sign", "Usage and cost by day, model, project; costliest sessions",
            key_display="$", footer="Cost", show=False),
    Command("cleanup", "C", "Clean up the Claude Code / Codex home (preview, archive)",
            footer="Cleanup", show=False, needs=Capability.CLEANUP),
    # ---- main screen
    Command("filter", "slash", "Filter the focused list", scope="main", key_display="/",
            footer="Filter"),
    Command("clear_filter", "escape", "Clear the filter / leave a zoomed pane", scope="main",
            show=False, palette=False),
    Command("open_step", "o", "Open the highlighted step in full", scope="main", footer="Step",
            panes=("steps",)),
    Command("focus_pane('sessions')", "1", "Go to Sessions", scope="main", show=False),
    Command("focus_pane('tasks')", "2", "Go to Tasks", scope="main", show=False),
    Command("focus_pane('steps')", "3", "Go to Steps", scope="main", show=False),
    Command("focus_pane('files')", "4", "Go to changed files", scope="main", show=False),
    Command("focus_pane('diff')", "5", "Go to the diff", scope="main", show=False),
    Command("zoom", "z", "Zoom the focused pane", scope="main", footer="Zoom"),
    Command("toggle_pin", "p", "Pin / unpin the highlighted task (GC keeps pinned tasks)", scope="main",
            footer="Pin", panes=("tasks",), needs=Capability.PIN),
    Command("filter_origin('machine')", "M", "Sessions of one machine (next machine; past the last, all)",
            scope="main", footer="Machine", panes=("sessions",), needs=Capability.ORIGIN),
    Command("filter_origin('agent')", "A", "Sessions of one agent (next agent; past the last, all)",
            scope="main", footer="Agent", show=False, panes=("sessions",), needs=Capability.ORIGIN),
    Command("toggle_sessions", "ctrl+b", "Show/hide the sessions pane", scope="main", show=False),
    Command("toggle_tail", "F", "Tail: stay on a running task's newest step as steps arrive (on/off)",
            scope="main", footer="Tail", show=False),
    # ---- diff (main screen, acting on the diff pane)
    Command("toggle_split", "v", "Unified / side-by-side diff", scope="main", footer="Split",
            panes=("files", "diff"), needs=Capability.DIFF),
    Command("next_hunk", "right_square_bracket,n", "Next hunk", scope="main", key_display="]",
            footer="Hunk", panes=("files", "diff"), needs=Capability.DIFF),
    Command("previous_hunk", "left_square_bracket,N", "Previous hunk", scope="main", key_display="[",
            show=False, panes=("files", "diff"), needs=Capability.DIFF),
    Command("cycle_file_view", "f", "Diff / whole file after / before", scope="main",
            footer="Whole file", panes=("files", "diff"), needs=Capability.DIFF),
    # ---- rollback (main screen: the focused pane says what; then the dialog)
    Command("rollback", "r", "Roll back the selected file, step's checkpoint or task (+ sub-agents)",
            scope="main", footer="Roll back", panes=("tasks", "steps", "files", "diff"),
            needs=Capability.ROLLBACK),
    Command("rollback(True)", "R", "Roll back the whole checkpoint of the selected step", scope="main",
            footer="Checkpoint", panes=("files", "diff"), needs=Capability.ROLLBACK),
    Command("undo_rollback", "u", "Undo the last rollback", scope="main", footer="Undo",
            needs=Capability.ROLLBACK),
    Command("export", "x", "Export the highlighted session (sessions pane) or task: Markdown, HTML, JSON",
            scope="main", footer="Export", show=False),
    Command("resume", "a", "Resume the highlighted session in its agent (claude --resume, codex resume)",
            scope="main", footer="Resume", show=False, needs=Capability.RESUME),
    Command("confirm", "y", "Roll back as listed", scope="rollback", needs=Capability.ROLLBACK),
    Command("toggle_force", "f", "Overwrite conflicting files / leave them alone", scope="rollback",
            footer="Force", needs=Capability.ROLLBACK),
    Command("cancel", "escape,n", "Cancel: write nothing", scope="rollback", key_display="esc"),
    # ---- yes/no questions (GC apply, VACUUM, deleting memory items)
    Command("answer(True)", "y", "Yes: do it", scope="confirm", footer="Yes", palette=False),
    Command("answer(False)", "n,escape", "No: leave everything as it is", scope="confirm", key_display="n",
            footer="No", palette=False),
    # ---- step detail
    Command("close", "escape", "Back", scope="step"),
    Command("show_checkpoint", "c", "Back to the main screen, on this step's changed files and diff",
            scope="step", footer="Changed files"),
    Command("step(1)", "n,right_square_bracket", "Next step of the task", scope="step", key_display="n",
            footer="Next step"),
    Command("step(-1)", "p,left_square_bracket", "Previous step of the task", scope="step", key_display="p",
            footer="Previous step"),
    # ---- source switcher
    Command("close", "escape", "Keep the current source", scope="sources"),
    # ---- memory items
    Command("close", "escape", "Back", scope="items"),
    Command("toggle_mark", "space", "Mark / unmark the item for deletion", scope="items", footer="Mark",
            palette=False, needs=Capability.CURATE),
    Command("curate", "d", "Delete the marked items (asks first)", scope="items", footer="Delete",
            needs=Capability.CURATE),
    # ---- GC preview
    Command("toggle_pin", "p", "Pin / unpin the selected task (a pinned task is a GC root)", scope="gc",
            footer="Pin", needs=Capability.PIN),
    Command("apply_gc", "a", "Collect the reclaimable tasks (asks first)", scope="gc", footer="Apply",
            needs=Capability.GC),
    Command("cancel_gc", "c", "Cancel the running collection (between tasks)", scope="gc", footer="Cancel",
            needs=Capability.GC),
    # ---- agent home cleanup
    Command("archive", "a", "Archive what the plan lets go, then remove it from the home (asks first)",
            scope="cleanup", footer="Archive"),
    Command("delete", "x", "Delete what the plan lets go, for good (typed confirmation)", scope="cleanup",
            footer="Delete"),
    Command("toggle_pin", "p", "Pin / unpin the selected session (cleanup keeps pinned sessions)",
            scope="cleanup", footer="Pin"),
    Command("restore", "r", "Restore the selected archived session (byte-exact)", scope="cleanup",
            footer="Restore"),
    Command("cancel_cleanup", "c", "Cancel the running cleanup", scope="cleanup", footer="Cancel"),
    Command("close", "escape", "Back", scope="cleanup"),
    Command("close", "escape", "Back", scope="gc"),
    # ---- database statistics
    Command("vacuum", "v", "VACUUM: give free pages back to the disk (asks first)", scope="stats",
            footer="VACUUM", needs=Capability.VACUUM),
    Command("incremental_vacuum", "i", "Incremental vacuum (no extra space needed)", scope="stats",
            footer="Incremental", needs=Capability.VACUUM),
    Command("wal_checkpoint", "w", "WAL checkpoint: copy the log into the file", scope="stats",
            footer="Checkpoint", needs=Capability.VACUUM),
    Command("cancel_vacuum", "c", "Cancel the running VACUUM", scope="stats", show=False),
    Command("close", "escape", "Back", scope="stats"),
    # ---- memory documents
    Command("edit", "e", "Edit the document", scope="memory", footer="Edit", needs=Capability.EDIT_MEMORY),
    Command("save", "ctrl+s", "Save the edit (conflict-checked; previous version kept)", scope="memory",
            footer="Save", priority=True, needs=Capability.EDIT_MEMORY),
    Command("back", "escape", "Leave the editor / filter / screen", scope="memory", footer="Back"),
    Command("undo_save", "u", "Undo memtui's last save of the document", scope="memory", footer="Undo save",
            needs=Capability.EDIT_MEMORY),
    Command("history", "h", "Kept versions: restore one", scope="memory", footer="History"),
    Command("toggle_source", "v", "View rendered / source with line numbers", scope="memory", footer="Source"),
    Command("toggle_toc", "t", "Show/hide the table of contents", scope="memory", show=False),
    Command("toggle_loaded", "l", "What each agent loads at start: chain in order, cut-offs, problems",
            scope="memory", footer="Loaded"),
    Command("next_agent", "a", "Next agent: Claude Code, Codex, memtui (init.d)", scope="chain", footer="Agent"),
    Command("filter", "slash", "Filter the documents", scope="memory", key_display="/", footer="Filter"),
    Command("edit_external", "E", "Edit in $EDITOR", scope="memory", footer="$EDITOR",
            needs=Capability.EDIT_MEMORY),
    # ---- kept versions of a memory document (h)
    Command("restore", "enter", "Restore the highlighted version (the current one is kept)", scope="history",
            footer="Restore this version", key_display="enter", priority=True),
    Command("dismiss(None)", "escape", "Close: restore nothing", scope="history", footer="Close",
            palette=False),
    # ---- decision log
    Command("add", "a", "Add a decision", scope="decisions", footer="Add", needs=Capability.EDIT_MEMORY),
    Command("filter", "slash", "Filter decisions", scope="decisions", key_display="/", footer="Filter"),
    Command("toggle_missing_why", "w", "Only decisions without a why", scope="decisions", footer="No why"),
    Command("back", "escape", "Back", scope="decisions"),
    # ---- search
    Command("dismiss(None)", "escape", "Back", scope="search", palette=False),
    Command("focus_results", "down", "From the query to the results", scope="search", show=False,
            palette=False),
    # ---- usage and cost
    Command("next_grouping", "b", "Group by day, week, month, model, project, machine (a team store's) (next)", scope="usage",
            footer="By …"),
    Command("toggle_tokens", "t", "Chart cost / tokens per day", scope="usage", footer="Cost/tokens"),
    Command("close", "escape", "Back", scope="usage"),
    # ---- export and resume dialogs
    Command("close", "escape", "Cancel: export nothing", scope="export", key_display="esc"),
    Command("close", "escape", "Back", scope="resume", key_display="esc"),
    Command("copy", "c", "Copy the command to the clipboard", scope="resume", footer="Copy"),
)


def bindings(scope: str) -> list[Binding]:
    """The `BINDINGS` of the app ("app") or of the screen whose `COMMAND_SCOPE` is `scope`."""
    return [command.binding() for command in COMMANDS if command.scope == scope]


def commands_for(scopes: set[str], source: MemorySource | None = None, *, offered_only: bool = True) -> list[Command]:
    """Commands usable where these scopes apply, table order: with `offered_only`, only the
    ones the open `source` can do (what the footer, the palette and the help offer)."""
    return [command for command in COMMANDS
            if command.scope in scopes and (not offered_only or offered(command, source))]


@lru_cache(maxsize=None)
def _parsed(action: str) -> tuple[str, tuple[object, ...]]:
    # check_action asks for every key at every bindings update: parse each action string once.
    name, _, args = action.partition("(")
    return name, tuple(literal_eval(f"({args.rstrip(')')},)")) if args else ()


SCOPE_NEEDS: dict[str, Capability | tuple[Capability, ...]] = {
    "gc": Capability.STATS, "stats": (Capability.STATS, Capability.SQLITE_STATS),
                                       "rollback": Capability.ROLLBACK, "items": Capability.ITEMS,
                                       "cleanup": Capability.CLEANUP, "resume": Capability.RESUME}
"""Screens only a source with this capability opens: none of their commands is offered otherwise."""


def offered(command: Command, source: MemorySource | None) -> bool:
    """Whether `command` is offered with `source` open: it (and its screen) needs nothing, or
    capabilities the source declares. With no source (yet) there is nothing to restrict by:
    the app hides what needs a store itself (MemtuiApp.NEEDS_SOURCE), and the actions check."""
    needs = [n for n in (command.needs, SCOPE_NEEDS.get(command.scope)) if n is not None]
    return source is None or all(can_any(source, n) for n in needs)


def can_any(source: MemorySource, need: Capability | tuple[Capability, ...]) -> bool:
    """Whether `source` can do `need` (a tuple: any one of them)."""
    return any(source.can(n) for n in need) if isinstance(need, tuple) else source.can(need)


def action_offered(action: str, parameters: tuple[object, ...], scope: str | None,
                   source: MemorySource | None) -> bool:
    """`check_action` for the app (scope "app") and the screens (their `COMMAND_SCOPE`): an
    action of the table is refused, and its key hidden, when the source can't do what it needs."""
    for wanted in (scope, "app"):
        command = command_for(wanted, action, parameters) or next(
            (c for c in COMMANDS if c.scope == wanted and c.action.partition("(")[0] == action), None)
        if command is not None:
            return offered(command, source)
    return True


def refusal(scope: str | None, key: str, source: MemorySource | None, pane: str | None) -> str | None:
    """What to say when `key` is pressed where its command applies but the open source can't
    do what it needs (the key is neither shown nor run): the source's one line "… can't roll
    files back: … open the project folder, or this store with --root DIR". None when the key
    runs a command here, or none of the table."""
    from memtui.core.memory_source import Unsupported

    if source is None:
        return None
    for wanted in (scope, "app"):
        for command in COMMANDS:
            if command.scope != wanted or key not in command.key.split(","):
                continue
            if command.panes and pane not in command.panes:
                continue
            missing = [n for n in (command.needs, SCOPE_NEEDS.get(command.scope)) if n and not can_any(source, n)]
            if not missing:
                return None
            return str(Unsupported(source, missing[0][0] if isinstance(missing[0], tuple) else missing[0]))
    return None


def command_for(scope: str | None, action: str, parameters: tuple[object, ...] = ()) -> Command | None:
    """The command of `scope` that runs `action` with `parameters`, if the table has one."""
    return next((c for c in COMMANDS if c.scope == scope and c.matches(action, parameters)), None)


def screen_scopes(screen: "Screen") -> set[str]:
    """The scopes active on `screen`: "app" plus the screen's `COMMAND_SCOPE`, if any."""
    scopes = {"app"}
    scope = getattr(screen, "COMMAND_SCOPE", None)  # any screen: Textual's own have none
    if scope:
        scopes.add(scope)
    return scopes


class CommandTable(Provider):
    """Command-palette provider over the command table: one hit per applicable command."""

    def _commands(self) -> list[Command]:
        source = self.app.source  # type: ignore[attr-defined]
        return [c for c in commands_for(screen_scopes(self.screen), source)
                if c.palette and c.action != "command_palette"]

    async def _run(self, command: Command) -> None:
        # "app" actions live on the app; screen-scoped ones on the screen the palette was
        # opened from (the palette itself is a screen, so `self.screen` is captured here).
        target = self.app if command.scope == "app" else self.screen
        await self.app.run_action(command.action, target)

    async def discover(self) -> Hits:
        """Every applicable command, as listed in the table."""
        for command in self._commands():
            yield DiscoveryHit(command.description, partial(self._run, command),
                               help=f"key: {command.shown_key}")

    async def search(self, query: str) -> Hits:
        """Commands whose description matches `query` (fuzzy)."""
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.description)
            if score > 0:
                yield Hit(score, matcher.highlight(command.description), partial(self._run, command),
                          help=f"key: {command.shown_key}")
