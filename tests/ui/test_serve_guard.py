"""`memtui serve` lets in only who was given its URL: a real server on 127.0.0.1, a real aiohttp
client sending what a browser page would (its Origin, the token or none)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="textual-serve is not installed (pip install -e '.[serve]')")

from browser_support import served  # noqa: E402

FIRST_SCREEN_S = 60  # a memtui process starts for each connection; on a busy machine that takes a while


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from memtui.core.demo import build_demo

    root = tmp_path_factory.mktemp("guarded") / "workspace"
    build_demo(root, seed=1)
    return root


def _parts(url: str) -> tuple[str, str, str]:
    """(http://127.0.0.1:PORT, the websocket address without a token, the token)."""
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}"
    return base, f"{base}/ws", parts.query.removeprefix("token=")


async def _status_of_ws(session, url: str, **headers) -> int:
    """101 when the server took the websocket (closed at once), else the status it refused with."""
    try:
        async with session.ws_connect(url, headers=headers):
            return 101
    except aiohttp.WSServerHandshakeError as refused:
        return refused.status


async def _first_screen(ws) -> bytes:
    """The first bytes the app process sends: its screen is on its way."""
    deadline = time.monotonic() + FIRST_SCREEN_S
    while time.monotonic() < deadline:
        message = await ws.receive(timeout=FIRST_SCREEN_S)
        if message.type == aiohttp.WSMsgType.BINARY:
            return message.data
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            raise AssertionError(f"the app's websocket closed before a screen: {message}")
    raise AssertionError("no screen from the app")


def test_a_foreign_page_and_a_request_without_the_token_are_refused(workspace: Path, tmp_path: Path) -> None:
    async def check(url: str) -> None:
        base, ws_url, token = _parts(url)
        own = {"Origin": base}
        jar = aiohttp.CookieJar(unsafe=True)  # keep the cookie of an IP address, as a browser does
        async with aiohttp.ClientSession(cookie_jar=jar) as session:
            # A page of another site, token or not (what cross-site WebSocket hijacking sends).
            assert await _status_of_ws(session, f"{ws_url}?token={token}", Origin="http://evil.example") == 403
            # A name re-pointed at 127.0.0.1 (DNS rebinding): the page and the request name that site.
            rebound = urlsplit(base).port
            assert await _status_of_ws(session, f"{ws_url}?token={token}", Origin=f"http://evil.example:{rebound}",
                                       Host=f"evil.example:{rebound}") == 403
            # The served page's own origin without the token, or with a wrong one.
            assert await _status_of_ws(session, ws_url, **own) == 403
            wrong = token[:-1] + ("1" if token.endswith("0") else "0")
            assert await _status_of_ws(session, f"{ws_url}?token={wrong}", **own) == 403
            # No page, no script, no download without it either; the refusal says what to open.
            for path in ("/", "/static/js/textual.js", "/download/x"):
                async with session.get(base + path) as response:
                    assert response.status == 403, path
                    assert "open the whole address it printed" in await response.text()
            # The printed address opens the page; the page's own requests carry the token in its
            # cookie, as a browser sends them (no token in the websocket's query).
            async with session.get(url) as response:
                assert response.status == 200
                assert "textual.js" in await response.text()
            async with session.get(base + "/static/js/textual.js") as response:
                assert response.status == 200
            async with session.ws_connect(ws_url, headers=own) as ws:
                assert await _first_screen(ws)

    with served(workspace, read_only=True, log=tmp_path / "serve.log") as url:
        asyncio.run(check(url))


def test_the_address_opened_as_localhost_goes_to_the_printed_one_and_its_page_connects(
        workspace: Path, tmp_path: Path) -> None:
    """The page's script and WebSocket are fetched from the printed host (127.0.0.1): opened as
    localhost, its token cookie was set for localhost, so the browser sent none with them and
    each got 403 — a page that never connected. Now localhost is sent to the printed address."""
    async def check(url: str) -> None:
        base, ws_url, token = _parts(url)
        other = url.replace("127.0.0.1", "localhost")
        assert other != url
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as session:
            async with session.get(other, allow_redirects=False) as response:
                assert response.status == 302 and response.headers["Location"] == url
            async with session.get(other) as response:
                assert response.status == 200 and str(response.url) == url
            async with session.get(base + "/static/js/textual.js") as response:
                assert response.status == 200
            async with session.ws_connect(ws_url, headers={"Origin": base}) as ws:
                assert await _first_screen(ws)

    with served(workspace, read_only=True, log=tmp_path / "serve.log") as url:
        assert urlsplit(url).hostname == "127.0.0.1"
        asyncio.run(check(url))


def test_tabs_past_the_cap_are_refused_with_a_page_that_says_why(workspace: Path, tmp_path: Path) -> None:
    async def check(url: str) -> None:
        base, ws_url, token = _parts(url)
        own = {"Origin": base}
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(f"{ws_url}?token={token}", headers=own) as first:
                assert await _first_screen(first)
                assert await _status_of_ws(session, f"{ws_url}?token={token}", **own) == 503
                async with session.get(url) as response:
                    assert response.status == 503
                    page = await response.text()
                    assert "Too many open tabs" in page and "--max-tabs 1" in page and "close a memtui tab" in page
            # The first tab closed: its place is free again once its app has stopped.
            deadline = time.monotonic() + FIRST_SCREEN_S
            while (status := await _status_of_ws(session, f"{ws_url}?token={token}", **own)) == 503:
                assert time.monotonic() < deadline, "the closed tab's place never came free"
                await asyncio.sleep(0.2)
            assert status == 101

    with served(workspace, read_only=True, log=tmp_path / "serve.log", extra=("--max-tabs", "1")) as url:
        asyncio.run(check(url))
