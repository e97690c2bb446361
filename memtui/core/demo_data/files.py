"""Source files of the demo project `tinyhttp`, and the edits an agent makes to them."""

ROUTER_V0 = '''"""URL routing for tinyhttp."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

Handler = Callable[["Request"], "Response"]


@dataclass
class Route:
    method: str
    pattern: str
    handler: Handler


class Router:
    """Maps (method, path) to a handler."""

    def __init__(self) -> None:
        self._routes: list[Route] = []

    def add(self, method: str, pattern: str, handler: Handler) -> None:
        self._routes.append(Route(method.upper(), pattern, handler))

    def match(self, method: str, path: str) -> Handler | None:
        for route in self._routes:
            if route.method == method.upper() and route.pattern == path:
                return route.handler
        return None
'''

PARSER_V0 = '''"""HTTP/1.1 request parsing."""

from __future__ import annotations

from dataclasses import dataclass, field


class ParseError(ValueError):
    """The bytes are not a valid HTTP/1.1 request."""


@dataclass
class Request:
    method: str
    target: str
    version: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


def parse_request(data: bytes) -> Request:
    head, _, body = data.partition(b"\\r\\n\\r\\n")
    lines = head.decode("latin-1").split("\\r\\n")
    try:
        method, target, version = lines[0].split(" ")
    except ValueError:
        raise ParseError(f"bad request line: {lines[0]!r}") from None
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise ParseError(f"bad header line: {line!r}")
        headers[name.strip().lower()] = value.strip()
    return Request(method, target, version, headers, body)
'''

SERVER_V0 = '''"""A small threaded HTTP server."""

from __future__ import annotations

import socket
import threading

from tinyhttp.parser import ParseError, parse_request
from tinyhttp.router import Router


class Server:
    def __init__(self, router: Router, host: str = "127.0.0.1", port: int = 8000) -> None:
        self.router = router
        self.address = (host, port)
        self._stop = threading.Event()

    def serve_forever(self) -> None:
        with socket.create_server(self.address) as sock:
            sock.settimeout(0.5)
            while not self._stop.is_set():
                try:
                    conn, _ = sock.accept()
                except TimeoutError:
                    continue
                threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            data = conn.recv(65536)
            try:
                request = parse_request(data)
            except ParseError:
                conn.sendall(b"HTTP/1.1 400 Bad Request\\r\\n\\r\\n")
                return
            handler = self.router.match(request.method, request.target)
            if handler is None:
                conn.sendall(b"HTTP/1.1 404 Not Found\\r\\n\\r\\n")
                return
            conn.sendall(handler(request).encode())

    def stop(self) -> None:
        self._stop.set()
'''

TEST_ROUTER_V0 = '''from tinyhttp.router import Router


def hello(request):
    return "hello"


def test_match_exact():
    router = Router()
    router.add("get", "/hello", hello)
    assert router.match("GET", "/hello") is hello


def test_no_match():
    router = Router()
    assert router.match("GET", "/missing") is None
'''

README_V0 = '''# tinyhttp

A small HTTP/1.1 server for teaching and tests.

## Install

    pip install -e .

## Use

    from tinyhttp.router import Router
    from tinyhttp.server import Server

    router = Router()
    router.add("GET", "/", lambda request: "hi")
    Server(router).serve_forever()
'''

PYPROJECT = '''[project]
name = "tinyhttp"
version = "0.2.0"
requires-python = ">=3.11"

[tool.pytest.ini_options]
testpaths = ["tests"]
'''

# (old, new) replacements applied one at a time: each is one small agent edit.
ROUTER_EDITS = [
    ("from typing import Callable\n", "import re\nfrom typing import Callable\n"),
    ("    handler: Handler\n", "    handler: Handler\n    regex: re.Pattern[str] | None = None\n"),
    ("        self._routes.append(Route(method.upper(), pattern, handler))\n",
     "        regex = re.compile(\"^\" + re.sub(r\"<(\\w+)>\", r\"(?P<\\1>[^/]+)\", pattern) + \"$\")\n"
     "        self._routes.append(Route(method.upper(), pattern, handler, regex))\n"),
    ("    def match(self, method: str, path: str) -> Handler | None:\n",
     "    def match(self, method: str, path: str) -> tuple[Handler, dict[str, str]] | None:\n"),
    ("            if route.method == method.upper() and route.pattern == path:\n                return route.handler\n",
     "            if route.method != method.upper():\n                continue\n"
     "            found = route.regex.match(path) if route.regex else None\n"
     "            if found:\n                return route.handler, found.groupdict()\n"),
    ("        return None\n", "        return None\n\n    def __len__(self) -> int:\n        return len(self._routes)\n"),
]

PARSER_EDITS = [
    ("class ParseError(ValueError):\n", "MAX_HEADERS = 100\n\n\nclass ParseError(ValueError):\n"),
    ("    headers = {}\n", "    headers: dict[str, str] = {}\n    if len(lines) - 1 > MAX_HEADERS:\n"
     "        raise ParseError(\"too many headers\")\n"),
    ("    head, _, body = data.partition(b\"\\r\\n\\r\\n\")\n",
     "    head, sep, body = data.partition(b\"\\r\\n\\r\\n\")\n    if not sep:\n"
     "        raise ParseError(\"incomplete request head\")\n"),
    ("        headers[name.strip().lower()] = value.strip()\n",
     "        key = name.strip().lower()\n        headers[key] = f\"{headers[key]}, {value.strip()}\" if key in headers else value.strip()\n"),
]

SERVER_EDITS = [
    ("            handler = self.router.match(request.method, request.target)\n            if handler is None:\n",
     "            found = self.router.match(request.method, request.target)\n            if found is None:\n"),
    ("            conn.sendall(handler(request).encode())\n",
     "            handler, params = found\n            request.params = params\n"
     "            conn.sendall(handler(request).encode())\n"),
    ("            data = conn.recv(65536)\n", "            conn.settimeout(5.0)\n            data = conn.recv(65536)\n"),
]

TEST_ROUTER_EDITS = [
    ("    assert router.match(\"GET\", \"/hello\") is hello\n",
     "    assert router.match(\"GET\", \"/hello\") == (hello, {})\n"),
    ("def test_no_match():\n",
     "def test_path_params():\n    router = Router()\n    router.add(\"GET\", \"/users/<id>\", hello)\n"
     "    assert router.match(\"GET\", \"/users/42\") == (hello, {\"id\": \"42\"})\n\n\ndef test_no_match():\n"),
]

HEADERS_MODULE = '''"""Header handling, split out of parser.py."""

from __future__ import annotations


def fold(headers: dict[str, str], name: str, value: str) -> None:
    """Combine repeated header fields as RFC 9110 section 5.3 allows."""
    key = name.strip().lower()
    value = value.strip()
    headers[key] = f"{headers[key]}, {value}" if key in headers else value
'''

TEST_PARSER = '''import pytest

from tinyhttp.parser import ParseError, parse_request


def test_simple_get():
    request = parse_request(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
    assert request.method == "GET"
    assert request.headers == {"host": "x"}


def test_bad_request_line():
    with pytest.raises(ParseError):
        parse_request(b"GARBAGE\\r\\n\\r\\n")
'''

FUZZ_SEEDS = b"GET / HTTP/1.1\r\n\r\n\x00\xff\xfe" + bytes(range(256))

LOGO_PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa"
    + bytes((i * 37) % 256 for i in range(180))
)
