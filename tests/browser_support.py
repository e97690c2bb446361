"""Drive `memtui serve` from a real headless Chromium: the browser test and the screenshot
script share this. Needs Playwright for Python (the `test` extra) and a Chromium installed
by the system (`apt-get install chromium`): Playwright drives it through `executable_path`
and never downloads a browser of its own.

    with served(workspace) as url, BrowserTerminal(url) as term:   # url: http://127.0.0.1:PORT/?token=…
        term.wait_for("Sessions")
        term.press("j")
        print(term.text())

The page draws the terminal on a canvas (xterm.js), so the screen's text is read from the
xterm.js buffer, which a small init script catches as textual-serve's page creates it.
Every request the page makes off the served loopback address is refused, so a run stays
on this machine.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Chromium flags for a closed, headless machine: no sandbox (root in CI), no GPU, and none of
#: the background fetches (updates, sync, QUIC probes) a closed network would refuse.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# textual-serve's page does `this.terminal = new Terminal(…)` and then `this.webglAddon = …`
# on the same object: a setter on Object.prototype sees that object once and keeps its
# terminal for reading, then steps aside (an own property replaces it).
_CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, 'webglAddon', {configurable: true, set(value) {
  Object.defineProperty(this, 'webglAddon', {value, writable: true, configurable: true, enumerable: true});
  if (this.terminal && this.terminal.buffer) window.__memtuiTerminal = this.terminal;
}});
"""
_READ_SCREEN = """() => {
  const t = window.__memtuiTerminal;
  if (!t) return null;
  const b = t.buffer.active, out = [];
  for (let i = 0; i < t.rows; i++) {
    const line = b.getLine(b.viewportY + i);
    out.push(line ? line.translateToString(true) : '');
  }
  return out.join('\\n');
}"""


def find_chromium() -> str | None:
    """The Chromium to drive: $MEMTUI_CHROMIUM, else the first known name on PATH."""
    given = os.environ.get("MEMTUI_CHROMIUM")
    if given:
        return given if Path(given).is_file() else None
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


def missing_browser_parts() -> str:
    """"" when a browser run can start, else what is missing, in words for a skip reason."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        return "textual-serve is not installed (pip install -e '.[serve]')"
    if find_chromium() is None:
        return "no Chromium found (apt-get install chromium, or set MEMTUI_CHROMIUM)"
    return ""


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SERVED_URL = re.compile(r"http://\S+/\?token=[0-9a-f]+")
"""The address `memtui serve` prints, token included."""


@contextmanager
def served(path: Path, *, read_only: bool = False, timeout: float = 60.0,
           log: Path | None = None, env: dict[str, str] | None = None,
           extra: tuple[str, ...] = ()) -> Iterator[str]:
    """`memtui serve PATH` on a free loopback port, for the duration of the block: the URL it
    printed (with its token). `log` keeps what the server wrote; `extra` adds arguments."""
    port = free_port()
    argv = [sys.executable, "-m", "memtui", "serve", str(path), "--port", str(port), *extra]
    if read_only:
        argv.append("--read-only")
    with ExitStack() as stack:
        if log is None:
            log = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memtui-serve-"))) / "serve.log"
        log_file = stack.enter_context(open(log, "wb"))
        server = subprocess.Popen(argv, stdout=log_file, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if server.poll() is not None:
                    raise RuntimeError(f"memtui serve exited with {server.returncode} before listening: "
                                       + log.read_text(errors="replace").strip())
                found = SERVED_URL.search(log.read_text(errors="replace"))
                try:
                    if found:
                        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"memtui serve did not listen on port {port} in {timeout:.0f} s") from None
                time.sleep(0.1)
            yield found.group(0)
        finally:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


class BrowserTerminal:
    """One headless Chromium page on a served memtui: read its screen, press keys."""

    def __init__(self, url: str, *, width: int = 1280, height: int = 800, timeout: float = 120.0) -> None:
        self.url = url
        self.viewport = {"width": width, "height": height}
        self.timeout = timeout
        self._playwright = None
        self._context = None
        self.page = None

    def __enter__(self) -> "BrowserTerminal":
        from playwright.sync_api import sync_playwright

        executable = find_chromium()
        if executable is None:
            raise RuntimeError("no Chromium found (apt-get install chromium, or set MEMTUI_CHROMIUM)")
        from memtui.core.scratch import make_scratch

        self._profile = make_scratch("chromium")  # swept by the next memtui if this one is killed
        try:
            self._playwright = sync_playwright().start()
            self._context = self._playwright.chromium.launch_persistent_context(
                str(self._profile), executable_path=executable, args=CHROMIUM_ARGS, headless=True,
                viewport=self.viewport)
            origin = self.url.split("/", 3)[:3]
            here = "/".join(origin)
            # Only the served address: textual-serve's page also links a web font, refused here.
            self._context.route("**/*", lambda route: route.continue_()
                                if route.request.url.startswith(here) else route.abort())
            self.page = self._context.new_page()
            self.page.add_init_script(_CATCH_TERMINAL)
            self.page.goto(self.url)
            self.page.wait_for_function("() => !!window.__memtuiTerminal", timeout=self.timeout * 1000)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._context is not None:
            self._context.close()
        if self._playwright is not None:
            self._playwright.stop()
        shutil.rmtree(self._profile, ignore_errors=True)

    def text(self) -> str:
        """The terminal's screen as text, one line per row."""
        return self.page.evaluate(_READ_SCREEN) or ""

    def wait_for(self, *needles: str, timeout: float | None = None) -> str:
        """Poll the screen until it shows every needle; the screen then. TimeoutError shows it."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            screen = self.text()
            if all(n in screen for n in needles):
                return screen
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page never showed {needles!r}; it shows:\n{screen}")
            time.sleep(0.1)

    def press(self, *keys: str) -> None:
        """Type keys into the terminal (Playwright key names: "j", "Enter", "Escape")."""
        self.page.focus(".xterm-helper-textarea")
        for key in keys:
            self.page.keyboard.press(key)

    def download(self, *keys: str) -> tuple[str, bytes]:
        """Press keys that make the app deliver a file; the browser's download: (name, bytes)."""
        with self.page.expect_download(timeout=self.timeout * 1000) as caught:
            self.press(*keys)
        download = caught.value
        return download.suggested_filename, Path(download.path()).read_bytes()

    def screenshot(self, path: Path) -> Path:
        """A PNG of the page as a person sees it."""
        self.page.screenshot(path=str(path))
        return path
