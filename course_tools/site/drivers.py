"""Firefox and WebKit for the site check (course_tools/site/check.py), driven through WebDriver.

Playwright drives only its own builds of Firefox and WebKit, which are downloads; the course
uses the browsers Debian ships: Firefox ESR through WebDriver BiDi (its built-in remote agent,
no geckodriver) and WebKitGTK (Safari's engine) through classic WebDriver (Debian's
``WebKitWebDriver``, its MiniBrowser under Xvfb: it has no headless mode). Both speak JSON
over a socket, so this module needs only the standard library and websocket-client (which
JupyterLab's server already depends on).

Each browser is offered to the check as a ``Page`` with the small part of playwright's page
API that the check uses: ``goto``, ``evaluate``, ``locator`` (css, ``has_text``, ``nth``,
``first``, ``filter``), ``mouse``, ``screenshot``, ``wait_for_timeout``; and what the tests of
the learner's work in the site use (tests/web/test_my_work_in_browser.py,
test_course_update_in_browser.py): ``wait_for_selector``, ``inner_text``, ``get_attribute``,
``get_by_role("link")``, ``set_input_files`` (the browser's own file chooser, given a file
through WebDriver) and ``expect_download`` (the browser saves the file itself, into this page's
download folder). Everything the check reads from the page, it reads with JavaScript in the
page, the same in every engine. Clicks and drags are real input events (WebDriver actions),
not synthetic ones.

The page's errors: Firefox reports them (and console errors) over BiDi as they come; classic
WebDriver has no such channel, so in WebKit a small script, set in each page once it has
loaded, keeps the page's errors, unhandled rejections and console errors, and they are read
before the next navigation and at the end (errors before the page had loaded are not seen).

Offline: the browser is told to send every request to a closed port on 127.0.0.1 as its
proxy, except requests to 127.0.0.1 itself (the site's server).
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

FIREFOX = os.environ.get("FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
XVFB = shutil.which("Xvfb") or "/usr/bin/Xvfb"
CLOSED_PORT = 9  # discard: nothing listens there, so a proxied request fails at once
START = 60  # seconds for a browser to accept its first command
SESSION_START = 45  # seconds for WebKitWebDriver to open MiniBrowser (1 s here when it works)
START_ATTEMPTS = 3


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def missing(engine):
    """Why ``engine`` ("firefox" or "webkit") cannot start here, or None."""
    if engine == "firefox":
        if not Path(FIREFOX).exists():
            return (f"Firefox not found at {FIREFOX} "
                    "(Debian/Ubuntu: sudo apt-get install firefox-esr)")
    elif engine == "webkit":
        if not Path(WEBKIT_DRIVER).exists():
            return (f"WebKitWebDriver not found at {WEBKIT_DRIVER} "
                    "(Debian/Ubuntu: sudo apt-get install webkit2gtk-driver xvfb)")
        if not os.environ.get("DISPLAY") and not Path(XVFB).exists():
            return "no display and no Xvfb (Debian/Ubuntu: sudo apt-get install xvfb)"
    else:
        return f"unknown browser engine {engine!r}"
    try:
        import websocket  # noqa: F401  (websocket-client, a dependency of jupyter_server)
    except ImportError:
        return "websocket-client is not installed"
    return None


class BrowserError(RuntimeError):
    """The browser refused a command, or a script in the page threw."""


# Elements found by a chain of steps (css, then text filters, then an index), as playwright's
# locators find them; evaluated anew on every use, so a locator never holds a stale element.
RESOLVE_JS = r"""
const resolve = (steps) => {
  let found = [document];
  for (const step of steps) {
    if (step.css !== undefined) {
      const seen = new Set();
      found = found.flatMap(root => Array.from(root.querySelectorAll(step.css)))
                   .filter(e => !seen.has(e) && seen.add(e));
    }
    if (step.text !== undefined) {  // as playwright's: any case, white space as one space
      const squeezed = (text) => text.replace(/\s+/g, " ").toLowerCase();
      const text = squeezed(step.text);
      found = found.filter(e => squeezed(e.textContent).includes(text));
    }
    if (step.pattern !== undefined) {
      const pattern = new RegExp(step.pattern, step.flags);
      found = found.filter(e => pattern.test(e.textContent));
    }
    if (step.nth !== undefined) found = step.nth < found.length ? [found[step.nth]] : [];
  }
  return found;
};
"""


def _text_step(has_text):
    if has_text is None:
        return {}
    if isinstance(has_text, re.Pattern):
        flags = "i" if has_text.flags & re.IGNORECASE else ""
        return {"pattern": has_text.pattern, "flags": flags}
    return {"text": str(has_text)}


class Locator:
    """The elements a chain of steps finds (see RESOLVE_JS)."""

    def __init__(self, page, steps):
        self.page, self.steps = page, steps

    def _on_first(self, body):
        """Run ``body`` (JavaScript using ``element``) on the first element found."""
        return self.page.evaluate(
            "(steps) => {" + RESOLVE_JS + "const element = resolve(steps)[0];"
            "if (!element) throw new Error('no element for ' + JSON.stringify(steps));"
            + body + "}", self.steps)

    def locator(self, css, has_text=None):
        return Locator(self.page, [*self.steps, {"css": css, **_text_step(has_text)}])

    def filter(self, has_text=None):
        return Locator(self.page, [*self.steps, _text_step(has_text)])

    def nth(self, index):
        return Locator(self.page, [*self.steps, {"nth": index}])

    @property
    def first(self):
        return self.nth(0)

    def count(self):
        return self.page.evaluate("(steps) => {" + RESOLVE_JS + "return resolve(steps).length;}",
                                  self.steps)

    def evaluate(self, function):
        return self._on_first(f"return ({function})(element);")

    def inner_text(self):
        return self._on_first("return element.innerText;")

    def get_attribute(self, name):
        return self._on_first(f"return element.getAttribute({json.dumps(name)});")

    def is_disabled(self):
        return self._on_first("return !!element.disabled;")

    def bounding_box(self):
        return self._on_first("""const box = element.getBoundingClientRect();
            return box.width || box.height ? {x: box.x, y: box.y, width: box.width,
                                              height: box.height} : null;""")

    def wait_for(self, timeout=None):
        """As playwright's: until an element is there and shown."""
        timeout = self.page.default_timeout if timeout is None else timeout / 1000
        deadline = time.monotonic() + timeout
        while not self.page.evaluate("(steps) => {" + RESOLVE_JS + "return resolve(steps).some("
                                     "e => e.getClientRects().length > 0);}", self.steps):
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout} s waiting for {self.steps}")
            time.sleep(0.25)

    def scroll_into_view_if_needed(self):
        self._on_first("element.scrollIntoView({block: 'center', inline: 'nearest'});")

    def focus(self):
        self._on_first("element.focus();")

    def click(self, timeout=30):
        """As playwright clicks: once the element is enabled and has stopped moving."""
        self.scroll_into_view_if_needed()
        deadline, box = time.monotonic() + timeout, None
        while True:
            last, box = box, self.bounding_box()
            if box is not None and box == last and not self.is_disabled():
                break
            if time.monotonic() > deadline:
                raise BrowserError(f"cannot click {self.steps}: "
                                   + ("no box" if box is None else "disabled or moving"))
            time.sleep(0.1)
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        self.page.perform([{"type": "pointerMove", "x": round(x), "y": round(y)},
                           {"type": "pointerDown", "button": 0},
                           {"type": "pointerUp", "button": 0}])

    def press(self, key):
        self.focus()
        code = KEYS.get(key, key)
        self.page.perform_keys([{"type": "keyDown", "value": code},
                                {"type": "keyUp", "value": code}])


KEYS = {"ArrowLeft": "\ue012", "ArrowUp": "\ue013", "ArrowRight": "\ue014",
        "ArrowDown": "\ue015", "Enter": "\ue007", "Shift": "\ue008"}


class Mouse:
    """playwright's page.mouse: moves, presses and releases as WebDriver pointer actions."""

    def __init__(self, page):
        self.page = page

    def move(self, x, y):
        self.page.perform([{"type": "pointerMove", "x": round(x), "y": round(y),
                            "duration": 50}])

    def down(self):
        self.page.perform([{"type": "pointerDown", "button": 0}])

    def up(self):
        self.page.perform([{"type": "pointerUp", "button": 0}])


PARTIAL_DOWNLOADS = (".part", ".download", ".wkdownload", ".crdownload")


class Download:
    """A file the browser saved (playwright's Download: ``suggested_filename``, ``save_as``)."""

    def __init__(self, path):
        self.path = Path(path)
        self.suggested_filename = self.path.name

    def save_as(self, target):
        shutil.copyfile(self.path, target)


class Page:
    """What the site check needs of a page, over one WebDriver transport (below)."""

    default_timeout = 30  # seconds, for wait_for and wait_for_selector (playwright's default)

    def __init__(self, download_dir):
        self.mouse = Mouse(self)
        self.page_errors = []
        self.download_dir = Path(download_dir)
        self.download_dir.mkdir(parents=True, exist_ok=True)

    def locator(self, css, has_text=None):
        return Locator(self, [{"css": css, **_text_step(has_text)}])

    def get_by_role(self, role, name):
        if role != "link":
            raise NotImplementedError(f"get_by_role({role!r}): only links are offered")
        return self.locator("a[href]", has_text=name)

    def wait_for_timeout(self, milliseconds):
        time.sleep(milliseconds / 1000)

    def set_default_timeout(self, milliseconds):
        self.default_timeout = milliseconds / 1000

    def wait_for_selector(self, css, timeout=None):
        self.locator(css).wait_for(timeout)

    def inner_text(self, css):
        return self.locator(css).first.inner_text()

    def get_attribute(self, css, name):
        return self.locator(css).first.get_attribute(name)

    def set_input_files(self, css, path):
        """Choose ``path`` in the file input ``css``, as the browser's file chooser would
        (its change event fires)."""
        self.locator(css).wait_for()
        self._set_files(css, [str(Path(path).resolve())])

    @contextlib.contextmanager
    def expect_download(self, timeout=60_000):
        """The file the browser saves while the ``with`` runs, as ``.value`` after it (a
        Download); it waits until the file is complete (no partial file left, its size
        unchanged for half a second)."""
        before = set(self.download_dir.iterdir())
        expected = type("ExpectedDownload", (), {"value": None})()
        yield expected
        deadline, sizes = time.monotonic() + timeout / 1000, {}
        while True:
            files = [p for p in self.download_dir.iterdir() if p not in before]
            done = [p for p in files if not p.name.endswith(PARTIAL_DOWNLOADS)]
            if done and len(done) == len(files):
                size = done[0].stat().st_size
                if size and sizes.get(done[0]) == size:
                    expected.value = Download(done[0])
                    return
                sizes[done[0]] = size
            if time.monotonic() > deadline:
                raise TimeoutError(f"no download in {self.download_dir} after "
                                   f"{timeout / 1000:.0f} s: {sorted(p.name for p in files)}")
            time.sleep(0.5)

    def evaluate(self, function, arg=None):
        """Call the JavaScript function (source text) with ``arg``; its (awaited) result,
        through JSON."""
        return json.loads(self._call(
            "async function (argument) { const result = await (" + function + ")("
            "JSON.parse(argument)); return JSON.stringify(result === undefined ? null : "
            "result); }", json.dumps(arg)))

    def screenshot(self, path, full_page=False, timeout=None):
        Path(path).write_bytes(base64.b64decode(self._screenshot()))


# ------------------------------------------------------------------ Firefox: WebDriver BiDi
FIREFOX_PREFS = {
    # Offline: everything through a proxy that does not exist, but the site on 127.0.0.1.
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1", "network.proxy.http_port": CLOSED_PORT,
    "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": CLOSED_PORT,
    "network.proxy.no_proxies_on": "127.0.0.1",
    "network.proxy.allow_hijacking_localhost": False,
    "network.dns.disablePrefetch": True,
    "browser.shell.checkDefaultBrowser": False,
}


# Firefox's words when its service-worker machinery fails a request the page's service worker
# (JupyterLite's, which passes the site's files on with fetch()) had taken: seen once on the
# busy 2-core CI machine, three look-ups of build/schemas/all_federated.json during a test that
# otherwise passed every step. Not reproduced here: a server that resets the connection, a
# request cut off by a navigation, by the page or by closing the browser, and a service worker
# stopped mid-request all give other words (which stay errors). Kept apart, and printed.
INTERCEPTION_FAILED = re.compile(r"^Failed to load \u2018[^\u2019]*\u2019\. A ServiceWorker "
                                 r"intercepted the request and encountered an unexpected "
                                 r"error\.$")


class FirefoxPage(Page):
    """Firefox ESR (headless) with a fresh profile, driven over WebDriver BiDi."""

    name = "firefox"

    def __init__(self, viewport, profile_dir):
        profile = Path(profile_dir)
        super().__init__(profile / "downloads")
        self.interceptions_failed = []  # (INTERCEPTION_FAILED)
        import websocket

        profile.mkdir(parents=True, exist_ok=True)
        # (its download folder: without it, Firefox makes ~/Downloads at start)
        prefs = {**FIREFOX_PREFS, "browser.download.folderList": 2,
                 "browser.download.dir": str(self.download_dir.resolve())}
        (profile / "user.js").write_text("".join(
            f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items()))
        port = free_port()
        self.log = open(profile / "firefox.log", "w")
        self.process = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", str(profile),
             f"--remote-debugging-port={port}"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START
        while True:
            try:
                # Firefox refuses a handshake that carries an Origin header.
                self.socket = websocket.create_connection(
                    f"ws://127.0.0.1:{port}/session", suppress_origin=True, timeout=600)
                break
            except (OSError, websocket.WebSocketException):
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.close()
                    raise BrowserError(
                        f"Firefox did not start (see {profile}/firefox.log)") from None
                time.sleep(0.25)
        self.next_id = 0
        self.version = self._send("session.new", {"capabilities": {}})[
            "capabilities"]["browserVersion"]
        self._send("session.subscribe", {"events": ["log.entryAdded"]})
        self.context = self._send("browsingContext.getTree", {})["contexts"][0]["context"]
        self._send("browsingContext.setViewport", {"context": self.context, "viewport": viewport})
        # Saved without asking, into this profile's folder (expect_download looks there).
        self._send("browser.setDownloadBehavior", {"downloadBehavior": {
            "type": "allowed", "destinationFolder": str(self.download_dir.resolve())}})

    def _send(self, method, params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("type") == "event":
                entry = message.get("params", {})
                if message.get("method") == "log.entryAdded" and entry.get("level") == "error":
                    text = str(entry.get("text"))[:500]
                    if INTERCEPTION_FAILED.search(text):
                        print(f"(Firefox: {text})")
                        self.interceptions_failed.append(text)
                    else:
                        self.page_errors.append(text)
                continue
            if message.get("id") != self.next_id:
                continue
            if message.get("type") == "error":
                raise BrowserError(f"{method}: {message.get('error')}: {message.get('message')}")
            return message["result"]

    def _call(self, declaration, argument):
        result = self._send("script.callFunction", {
            "functionDeclaration": declaration, "awaitPromise": True,
            "arguments": [{"type": "string", "value": argument}],
            "target": {"context": self.context}})
        if result["type"] == "exception":
            raise BrowserError(result["exceptionDetails"].get("text", "script error"))
        return result["result"]["value"]

    def goto(self, url):
        self._send("browsingContext.navigate",
                   {"context": self.context, "url": url, "wait": "complete"})

    def _screenshot(self):
        return self._send("browsingContext.captureScreenshot", {"context": self.context})["data"]

    def perform(self, pointer_actions):
        self._send("input.performActions", {"context": self.context, "actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
             "actions": pointer_actions}]})

    def perform_keys(self, key_actions):
        self._send("input.performActions", {"context": self.context, "actions": [
            {"type": "key", "id": "keyboard", "actions": key_actions}]})

    def _set_files(self, css, paths):
        found = self._send("script.callFunction", {
            "functionDeclaration": "(css) => document.querySelector(css)",
            "arguments": [{"type": "string", "value": css}], "awaitPromise": False,
            "resultOwnership": "root", "target": {"context": self.context}})
        if found["type"] == "exception" or "sharedId" not in found["result"]:
            raise BrowserError(f"no element for {css!r}")
        self._send("input.setFiles", {"context": self.context, "files": paths,
                                      "element": {"sharedId": found["result"]["sharedId"]}})

    def close(self):
        try:
            if getattr(self, "socket", None):
                self._send("browser.close", {})
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
        self.log.close()


# ------------------------------------------------------------------ WebKit: classic WebDriver
class WebKitPage(Page):
    """WebKitGTK's MiniBrowser (Safari's engine: no WebAssembly JSPI) under WebKitWebDriver,
    on the display given, or on a private Xvfb."""

    name = "webkit"

    def __init__(self, viewport, work_dir):
        work = Path(work_dir)
        super().__init__(work / "downloads")
        work.mkdir(parents=True, exist_ok=True)
        self.log = open(work / "webkit.log", "w")
        self.driver = self.xvfb = self.session = None
        # About one start in twenty, WebKitWebDriver 2.50 answers /status, then never launches
        # MiniBrowser for the new session (no child process, its main loop idle: seen here with
        # gdb, and in CI, where the request waited 11 minutes). A start is bounded and retried
        # on a fresh driver and display; the log says how many it took.
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                self._start(viewport, work)
                return
            except (TimeoutError, OSError) as error:
                self.log.write(f"\n[drivers] start {attempt} of {START_ATTEMPTS} failed: "
                               f"{error!r}; stopping the driver and its display\n")
                self.log.flush()
                self._stop_processes()
        self.log.close()
        raise BrowserError(f"WebKitWebDriver never opened a session in {START_ATTEMPTS} "
                           f"starts (see {work}/webkit.log)")

    def _start(self, viewport, work):
        env = dict(os.environ)
        # MiniBrowser saves a download, without asking, into the user's download folder
        # (GLib's: XDG_CONFIG_HOME/user-dirs.dirs, else HOME): this page's own folder.
        config = work / "xdg-config"
        config.mkdir(exist_ok=True)
        (config / "user-dirs.dirs").write_text(
            f'XDG_DOWNLOAD_DIR="{self.download_dir.resolve()}"\n')
        env["XDG_CONFIG_HOME"] = str(config)
        if not env.get("DISPLAY"):
            read, write = os.pipe()
            self.xvfb = subprocess.Popen(
                [XVFB, "-displayfd", str(write), "-screen", "0",
                 f"{viewport['width'] + 100}x{viewport['height'] + 200}x24", "-nolisten", "tcp"],
                pass_fds=(write,), stdout=self.log, stderr=subprocess.STDOUT,
                start_new_session=True)
            os.close(write)
            with os.fdopen(read) as display:
                env["DISPLAY"] = ":" + display.readline().strip()
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.driver = subprocess.Popen([WEBKIT_DRIVER, f"--port={port}"], env=env,
                                       stdout=self.log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        deadline = time.monotonic() + START
        while True:
            try:
                if self._http("GET", "/status", timeout=10)["ready"]:
                    break
            except (OSError, BrowserError):
                pass
            if time.monotonic() > deadline or self.driver.poll() is not None:
                self._stop_processes()
                self.log.close()
                raise BrowserError(f"WebKitWebDriver did not start (see {work}/webkit.log)")
            time.sleep(0.25)
        proxy = {"proxyType": "manual", "httpProxy": f"127.0.0.1:{CLOSED_PORT}",
                 "sslProxy": f"127.0.0.1:{CLOSED_PORT}", "noProxy": ["127.0.0.1"]}
        session = self._http("POST", "/session", {"capabilities": {"alwaysMatch": {
            "proxy": proxy, "timeouts": {"script": 600_000},
            "webkitgtk:browserOptions": {"args": ["--automation"]}}}}, timeout=SESSION_START)
        self.session = f"/session/{session['sessionId']}"
        self.version = session["capabilities"].get("browserVersion")
        self._http("POST", self.session + "/window/rect",
                   {"width": viewport["width"], "height": viewport["height"]})

    def _http(self, method, path, body=None, timeout=660):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as error:
            value = json.loads(error.read() or b"{}").get("value", {})
            raise BrowserError(f"{method} {path}: {value.get('error')}: "
                               f"{value.get('message')}") from None

    def _call(self, declaration, argument):
        script = ("const done = arguments[arguments.length - 1];"
                  f"({declaration})(arguments[0]).then(done, error => done("
                  "JSON.stringify({__error__: String(error) + '\\n' + "
                  "(error && error.stack || '')})));")
        result = self._http("POST", self.session + "/execute/async",
                            {"script": script, "args": [argument]})
        if not isinstance(result, str):  # the script answers JSON text, always
            raise BrowserError(f"the driver answered {str(result)[:200]} to a script")
        if result.startswith('{"__error__"'):
            raise BrowserError(json.loads(result)["__error__"])
        return result

    def goto(self, url):
        self.collect_errors()
        self._http("POST", self.session + "/url", {"url": url})
        self.watch_errors()

    # Classic WebDriver has no log of the page's errors: the page keeps them (WATCH_ERRORS).
    WATCH_ERRORS = """() => {
      if (window.__driverErrors) return;
      const errors = window.__driverErrors = [];
      window.addEventListener('error', e => errors.push(String(e.message || e.error)));
      window.addEventListener('unhandledrejection', e => errors.push(
        'unhandled rejection: ' + String(e.reason && (e.reason.message || e.reason))));
      const original = console.error.bind(console);
      console.error = (...args) => { errors.push(args.map(String).join(' ')); original(...args); };
    }"""

    def watch_errors(self):
        try:
            self.evaluate(self.WATCH_ERRORS)
        except BrowserError as error:
            self.page_errors.append(f"(the page's errors could not be watched: {error})")

    def collect_errors(self):
        """Move the errors the page kept into ``page_errors``."""
        if not self.session:
            return
        try:
            kept = self.evaluate("() => { const kept = window.__driverErrors || [];"
                                 " if (window.__driverErrors) window.__driverErrors = [];"
                                 " return kept; }")
        except BrowserError:
            return  # no page, or one being replaced
        self.page_errors.extend(str(error)[:500] for error in kept)

    def _screenshot(self):
        return self._http("GET", self.session + "/screenshot")

    def _set_files(self, css, paths):
        found = self._http("POST", self.session + "/element",
                           {"using": "css selector", "value": css})
        element = next(iter(found.values()))
        # WebDriver's Element Send Keys on a file input chooses the files (one per line).
        self._http("POST", self.session + f"/element/{element}/value",
                   {"text": "\n".join(paths)})

    def perform(self, pointer_actions):
        self._http("POST", self.session + "/actions", {"actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
             "actions": pointer_actions}]})

    def perform_keys(self, key_actions):
        self._http("POST", self.session + "/actions", {"actions": [
            {"type": "key", "id": "keyboard", "actions": key_actions}]})

    def close(self):
        self.collect_errors()
        if self.session:
            try:
                self._http("DELETE", self.session, timeout=60)
            except Exception:
                pass
        self._stop_processes()
        self.log.close()

    def _stop_processes(self):
        for process in (self.driver, self.xvfb):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, 15)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, 9)
                    process.wait()
        self.driver = self.xvfb = self.session = None


ENGINES = {"firefox": FirefoxPage, "webkit": WebKitPage}


def open_page(engine, viewport, work_dir=None):
    """A fresh browser of ``engine`` ("firefox" or "webkit"), as a Page."""
    work_dir = work_dir or tempfile.mkdtemp(prefix=f"site-{engine}-")
    return ENGINES[engine](viewport, work_dir)
