"""A small Chrome DevTools Protocol client for the report tests: starts the system Chromium headless
(its own profile folder, a free debugging port chosen by Chromium), opens a page, evaluates
JavaScript, collects console errors and takes screenshots. Stopped by its own process id."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


class Browser:
    def __init__(self, executable: str):
        self.profile = Path(tempfile.mkdtemp(prefix="mirror_cdp_"))
        self.proc = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--allow-file-access-from-files", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", "--window-size=1400,1000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (marker.exists() and marker.read_text().count("\n") >= 1):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its debugging port")
            time.sleep(0.1)
        self.port = int(marker.read_text().splitlines()[0])
        self.loop = asyncio.new_event_loop()
        self.errors: list[str] = []
        self._id = 0
        self._pending: dict[int, asyncio.Future] = {}
        self._events: list[dict] = []
        self.loop.run_until_complete(self._connect())

    async def _connect(self):
        import aiohttp

        for _ in range(100):
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=10) as reply:
                pages = [t for t in json.loads(reply.read()) if t.get("type") == "page"]
            if pages:
                break
            await asyncio.sleep(0.1)
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0)
        self.reader = asyncio.ensure_future(self._read())
        for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
            await self._send(domain)

    async def _read(self):
        async for message in self.ws:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self._pending:
                self._pending.pop(data["id"]).set_result(data)
                continue
            method, params = data.get("method"), data.get("params", {})
            self._events.append(data)
            if method == "Runtime.exceptionThrown":
                self.errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                self.errors.append(params["entry"].get("text", "") + " " + params["entry"].get("url", ""))

    async def _send(self, method: str, **params):
        self._id += 1
        future = self.loop.create_future()
        self._pending[self._id] = future
        await self.ws.send_str(json.dumps({"id": self._id, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 60)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def send(self, method: str, **params) -> dict:
        return self.loop.run_until_complete(self._send(method, **params))

    def open(self, path: Path) -> None:
        self._events.clear()
        self.send("Page.navigate", url=path.absolute().as_uri())
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            self.loop.run_until_complete(asyncio.sleep(0.05))
        raise TimeoutError(f"not true after {timeout} s: {expression}")

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        if getattr(self, "loop", None) is not None:
            async def shutdown():
                self.reader.cancel()
                await self.ws.close()
                await self.session.close()
            try:
                self.loop.run_until_complete(shutdown())
            except Exception:  # noqa: BLE001  the browser may already be gone
                pass
            self.loop.close()
            self.loop = None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
