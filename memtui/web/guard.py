"""The guard in front of every memtui web view: a token, an Origin check, a cap on open apps.

A page in the user's own browser can reach a server on loopback: any site it opens may send
requests and open WebSockets to 127.0.0.1 (cross-site WebSocket hijacking). So, as Jupyter does,
each serve makes a random token and prints it in its URL; every request without it, in the
query or in the cookie set by the first page that carried it, is refused with 403. A browser
names the page that opened a WebSocket in its `Origin` header: one that names another site is
refused too, token or not. Each app connection starts a whole process: past `max_apps` at once,
the next is refused with a page that says why.

    guard = WebGuard.for_address("127.0.0.1", 8000)
    app = web.Application(middlewares=[guard.middleware])
    print(guard.url("http://127.0.0.1:8000"))   # http://127.0.0.1:8000/?token=…

Needs aiohttp (the `serve` extra).
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import secrets
from dataclasses import dataclass, field
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web

from memtui.web import is_loopback

TOKEN_PARAM = "token"
DEFAULT_MAX_APPS = 4
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def _origin(url: str) -> str:
    """scheme://host[:port] of a URL, lower case, without a default port."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        return ""
    if port is None or (scheme, port) in (("http", 80), ("https", 443)):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        return False


def _page(status: int, title: str, text: str) -> web.Response:
    body = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>memtui — {html.escape(title)}</title>"
            f"</head><body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>")
    return web.Response(status=status, text=body, content_type="text/html")


@dataclass
class WebGuard:
    """Who may use a served memtui: whoever has the token, from a page of the served host,
    while fewer than `max_apps` apps run. One guard per server; `middleware` goes in front of
    every route of an aiohttp application."""

    token: str
    origins: frozenset[str]
    """The origins (scheme://host:port) a browser page of this server has."""
    max_apps: int = DEFAULT_MAX_APPS
    app_paths: frozenset[str] = frozenset({"/ws"})
    """Requests that start an app process (counted against `max_apps`)."""
    page_paths: frozenset[str] = frozenset({"/"})
    """Pages that open an app: refused up front once `max_apps` run."""
    cookie: str = "memtui-token"
    home: str = ""
    """The origin of the printed address: the page's script and WebSocket are fetched from it, so
    a page opened by another of the served host's names (localhost for 127.0.0.1) is sent there,
    where its token cookie then belongs."""
    running: int = field(default=0, init=False)
    """Apps running now."""

    @classmethod
    def for_address(cls, host: str, port: int, public_url: str | None = None, *,
                    max_apps: int = DEFAULT_MAX_APPS, token: str | None = None, home: str = "") -> "WebGuard":
        """A guard with a fresh token for a server listening on host:port, seen by browsers
        at `public_url` (a proxy's address) or at http://host:port. On loopback, the usual
        names of this machine (127.0.0.1, localhost, [::1]) are the served host too. `home`: the
        address printed (the page's own requests go there)."""
        name = host.strip("[]")
        shown = f"[{name}]" if ":" in name else name
        origins = {_origin(f"http://{shown}:{port}")}
        if public_url:
            origins.add(_origin(public_url))
        if is_loopback(name):
            origins |= {_origin(f"http://{n}:{port}") for n in LOOPBACK_NAMES}
        return cls(token=token or secrets.token_hex(24), origins=frozenset(o for o in origins if o),
                   max_apps=max_apps, cookie=f"memtui-token-{port}", home=_origin(home) if home else "")

    def url(self, base: str) -> str:
        """The address to open: `base` with the token in its query (as Jupyter prints it)."""
        return f"{base.rstrip('/')}/?{TOKEN_PARAM}={self.token}"

    def origin_allowed(self, origin: str, host_header: str = "", scheme: str = "http") -> bool:
        """Whether a page at `origin` is one of this server's: a served origin, or the very
        address the request was sent to when that is an IP address (a wildcard --host reached
        by its address; an IP cannot be re-pointed at another site as a name can)."""
        seen = _origin(origin)
        if seen in self.origins:
            return True
        host = urlsplit(seen).hostname or ""
        return bool(host) and _is_ip(host) and seen == _origin(f"{scheme}://{host_header}")

    def _has_token(self, request: web.Request) -> tuple[bool, bool]:
        """(the request carries the token, it came in the query)."""
        given = request.query.get(TOKEN_PARAM)
        if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
            return True, True
        kept = request.cookies.get(self.cookie)
        return kept is not None and hmac.compare_digest(kept.encode(), self.token.encode()), False

    def refusal(self, request: web.Request) -> web.Response | None:
        """The page refusing `request`, or None when it may go on."""
        origin = request.headers.get("Origin")
        if origin is not None and not self.origin_allowed(origin, request.host, request.scheme):
            return _page(403, "Refused", f"memtui does not answer pages of {origin}: open the address "
                                         "memtui serve printed.")
        has_token, _ = self._has_token(request)
        if not has_token:
            return _page(403, "Token needed", "This memtui needs the token it printed when it started: "
                                              "open the whole address it printed (…/?token=…).")
        if request.path in self.app_paths | self.page_paths and self.running >= self.max_apps:
            return _page(503, "Too many open tabs",
                         f"memtui already runs {self.running} app(s) for this server, the most it allows "
                         f"(--max-tabs {self.max_apps}): close a memtui tab, then reload this one.")
        return None

    @web.middleware
    async def middleware(self, request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        """Refuse what `refusal` refuses; count running apps; keep the token in a cookie once a
        page came with it, so the page's own requests (its script, its WebSocket) carry it."""
        refused = self.refusal(request)
        if refused is not None:
            return refused
        _, in_query = self._has_token(request)
        if in_query and request.path in self.page_paths and self.home and self.home in self.origins:
            seen = _origin(f"{request.scheme}://{request.host}")
            if seen != self.home and seen in self.origins:
                raise web.HTTPFound(self.url(self.home))
        if request.path in self.app_paths:
            self.running += 1
            try:
                return await handler(request)
            finally:
                self.running -= 1
        response = await handler(request)
        if in_query and not response.prepared:
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
        return response
