"""`memtui serve [PATH] [--host 127.0.0.1] [--port 8000] [--read-only]`: the app in a browser.

textual-serve runs one `memtui open PATH` process per browser tab and relays its screen over
a websocket. It comes with the `serve` extra (`pip install 'memtui[serve]'`): only people who
serve need aiohttp and its friends. memtui.web.guard stands in front of every route: the
printed URL's token, the Origin check, the cap on tabs.
"""

from __future__ import annotations

import asyncio
import shlex
import socket
import sys
from pathlib import Path

from memtui.core.errors import MemtuiError
from memtui.web import is_loopback

DEFAULT_MAX_TABS = 4


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve the app to a web browser (needs memtui[serve])")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or a store")
    p.add_argument("--root", help="workspace root, for an agent.db outside its workspace")
    p.add_argument("--team", nargs="?", const="", metavar="URL",
                   help="serve the team store at URL (postgresql://…; without URL: $MEMTUI_TEAM_URL), read-only")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--read-only", action="store_true",
                   help="no writing action at all: no pin, rollback, GC, vacuum, edit or cleanup")
    p.add_argument("--public-url", metavar="URL",
                   help="the address browsers use, when it differs from http://HOST:PORT (a proxy)")
    p.add_argument("--allow-writes-from-network", action="store_true",
                   help="serve a non-loopback --host without --read-only: whoever has the URL can change the memory")
    p.add_argument("--max-tabs", type=int, default=DEFAULT_MAX_TABS, metavar="N",
                   help=f"browser tabs open at once, each running its own memtui (default {DEFAULT_MAX_TABS})")
    p.set_defaults(func=run)


def app_command(path: Path | str, root: str | None, read_only: bool) -> str:
    """The shell command textual-serve runs for each browser tab: this Python, this memtui. A
    team store's URL reaches each tab through $MEMTUI_TEAM_URL (`open --team`), not its command
    line, where any user of the machine could read a password in it."""
    argv = [sys.executable, "-m", "memtui", "open", *(["--team"] if isinstance(path, str) else [str(path)])]
    if root:
        argv += ["--root", str(Path(root).expanduser().resolve())]
    if read_only:
        argv.append("--read-only")
    return shlex.join(argv)


def public_url(host: str, port: int) -> str:
    """Where a browser finds the server: a wildcard address is named by this machine's name."""
    name = host.strip("[]")
    if name in ("0.0.0.0", "::", ""):
        name = socket.getfqdn()
    if ":" in name:
        name = f"[{name}]"
    return f"http://{name}:{port}"


def _check_store(path: Path | str) -> None:
    """Refuse here, in one line, a path each tab's `memtui open` would refuse (a file that is
    no store, a damaged database): the browser would only show a splash that never goes."""
    from memtui.cli.open import check_openable

    store = check_openable(path, kept=False)
    if store is not None:
        store.close()


def _served(args) -> Path | str:
    """What is served: PATH, or a team store's URL (`--team [URL]`, or PATH given as one). A team
    store is served read-only: the web view of a shared store writes nothing."""
    from memtui.core.resolve import team_url
    from memtui.core.store.paths import is_team_url

    url = (team_url(args.team or None) if args.team is not None else None) or (
        args.path if is_team_url(args.path) else None)
    if args.team is not None and url is None:
        raise MemtuiError("--team needs a URL (postgresql://…) or $MEMTUI_TEAM_URL set")
    if url is None:
        return Path(args.path).expanduser().resolve()
    if not is_team_url(url):
        raise MemtuiError(f"--team takes a postgresql:// URL, not {url!r}")
    args.read_only = True
    return url


def _title(path: Path | str) -> str:
    if isinstance(path, str):
        from memtui.core.store.team import shown_url

        return shown_url(path)
    return path.name or str(path)


CHUNK_WAIT_S = 30  # seconds the server waits for each chunk of a file the app delivers


def _check_listenable(host: str, port: int) -> None:
    """Refuse, before any address is printed, a host and port nothing can listen on now (a port
    another server holds, an address of another machine): the user never gets a URL that leads
    nowhere. The probe binds as the server will (SO_REUSEADDR) and lets go at once."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
            probe.listen()
    except OSError as exc:
        raise MemtuiError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; nothing is served") from None


def run(args) -> int:
    try:
        from textual_serve import download_manager
        from textual_serve.server import Server
    except ImportError:
        raise MemtuiError("serving needs textual-serve: pip install 'memtui[serve]'") from None
    from memtui.web.guard import WebGuard

    # textual-serve ends a download when the app sends no chunk for 4 s; the app renders an export
    # in its own process, which on a busy machine can take longer, and the browser then reports the
    # download "canceled". A stalled app still ends the download, after a wait a person accepts.
    download_manager.DOWNLOAD_TIMEOUT = max(download_manager.DOWNLOAD_TIMEOUT, CHUNK_WAIT_S)
    path = _served(args)
    if isinstance(path, Path) and not path.exists():
        raise MemtuiError(f"{args.path} does not exist")
    if isinstance(path, str):  # each tab's `memtui open --team` reads it there
        import os

        from memtui.core.resolve import TEAM_URL_VARIABLE

        os.environ[TEAM_URL_VARIABLE] = path
    _check_store(path)
    if not 0 < args.port < 65536:
        raise MemtuiError(f"--port {args.port} is not a port number (1–65535)")
    if args.max_tabs < 1:
        raise MemtuiError(f"--max-tabs {args.max_tabs}: at least 1 tab must be allowed")
    loopback = is_loopback(args.host)
    if not loopback and not args.read_only and not args.allow_writes_from_network:
        raise MemtuiError(f"--host {args.host} lets other machines in: add --read-only to let them browse only, "
                          "or --allow-writes-from-network to let whoever has the URL change the memory")
    _check_listenable(args.host, args.port)
    base = args.public_url or public_url(args.host, args.port)
    guard = WebGuard.for_address(args.host, args.port, args.public_url, max_apps=args.max_tabs, home=base)
    url = guard.url(base)
    shown = _title(path) if isinstance(path, str) else path  # a URL without its password
    if loopback:
        print(f"memtui: serving {shown} at {url} — loopback only: browsers on this machine that have "
              "this address can connect", file=sys.stderr)
    else:
        can = "browse" if args.read_only else "browse and change (pin, roll back, GC, edit)"
        print(f"memtui: serving {shown} at {url}", file=sys.stderr)
        print(f"memtui: WARNING: listening on {args.host}: anyone who can reach port {args.port} and has "
              f"this address can {can} the agent memory at {shown}", file=sys.stderr)

    class GuardedServer(Server):
        """textual-serve's server with the guard in front of every route."""

        async def on_startup(self, app) -> None:
            # Called before aiohttp freezes the application: its middlewares can still be set.
            # textual-serve's own banner is left out: it shows the address without the token.
            app.middlewares.append(guard.middleware)
            app.on_cleanup.append(_end_tabs)

    server = GuardedServer(app_command(path, args.root, args.read_only), host=args.host, port=args.port,
                           title=f"memtui — {_title(path)}", public_url=base)
    # textual-serve runs on asyncio.get_event_loop(): give it a fresh one (a closed loop left by
    # an earlier run in this process, or none at all on newer Pythons, would fail).
    asyncio.set_event_loop(asyncio.new_event_loop())
    try:
        server.serve()
    except OSError as exc:
        raise MemtuiError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    finally:
        sys.unraisablehook = _quiet_closed_loop
    return 0


async def _end_tabs(_app) -> None:
    """Each open tab's `memtui open` ended as the server stops (Ctrl+C), while its event loop
    still runs: textual-serve leaves a tab's process and pipes to the garbage collector."""
    import gc

    import psutil

    tabs = psutil.Process().children(recursive=True)
    for tab in tabs:
        try:
            tab.terminate()
        except psutil.Error:
            pass
    _, alive = await asyncio.to_thread(psutil.wait_procs, tabs, timeout=3)  # the loop goes on meanwhile
    for tab in alive:
        try:
            tab.kill()
        except psutil.Error:
            pass
    await asyncio.sleep(0.05)  # the transports see their processes exit
    gc.collect()


def _quiet_closed_loop(unraisable) -> None:
    """After the server's loop is closed, a tab's subprocess transport the garbage collector
    finds only then cannot close its pipes ('Event loop is closed'); its process has ended
    (_end_tabs), so that is no news to print as a traceback on exit. Anything else is printed."""
    exc, where = unraisable.exc_value, repr(unraisable.object)  # "<function BaseSubprocessTransport.__del__ at …>"
    if isinstance(exc, RuntimeError) and str(exc) == "Event loop is closed" and "Transport.__del__ " in where:
        return
    sys.__unraisablehook__(unraisable)
