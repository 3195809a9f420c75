"""The browser edition (`make site`), offline, in headless Chromium: notebooks run cell by cell.

    .venv/bin/python -m course_tools.site.check           # the notebooks tests/web checks
    .venv/bin/python -m course_tools.site.check notebooks/00_welcome.ipynb

It serves build/site/ on 127.0.0.1 (a random free port), opens it in Debian's Chromium
(Python playwright, never `playwright install`) with every request to another host aborted
and logged (and the host resolver told that no other host exists), and for each notebook:
opens it in the site's JupyterLab, waits for the Pyodide kernel, runs every code cell one by
one (JupyterLite's "Run All" stops at the first error, tagged or not), and checks what a
learner sees, against the notebook's committed outputs:

- every code cell ran; errors only in cells tagged ``raises-exception``, and the same error;
- as many graph pictures as committed, each an SVG image that decoded (``naturalWidth > 0``)
  and fits (course_tools/browser_check.py's checks); none fell back to text;
- every widget rendered and live (a slider moved with the keyboard, the stepper stepped);
- in an exercise notebook, every check cell shows a checker's verdict.

It records the time from the click to the end of the first code cell (Pyodide, numpy and
the course start then) and the time of every notebook.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import socket
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from course_tools import browser_check
from course_tools.notebook_files import ENGLISH, language_of
from course_tools.site import drivers, read_only
from exercises.checks import answer_cells, feedback, i18n

ROOT = Path(__file__).resolve().parent.parent.parent

SITE = Path(os.environ.get("SITE_DIR", ROOT / "build" / "site"))
ARTIFACTS = ROOT / "tests" / "browser_artifacts" / "site"
CHROMIUM = browser_check.CHROMIUM
# Every host but the test server's resolves to nothing: offline, whatever the page asks for.
CHROMIUM_FLAGS = [*browser_check.CHROMIUM_FLAGS,
                  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
VIEWPORT = browser_check.VIEWPORT
RAISES = browser_check.RAISES
VERDICTS = ("✅", "❌", "⚠️", "⏳")  # how the exercise checkers' answers start

# Timeouts in seconds, generous for a busy 2-core machine.
PAGE_LOAD = 90
KERNEL_START = 180
CELL = 180
PAGE_PICTURES = 30  # viz.js (1.2 MB) loaded and every picture laid out


def site_notebooks(root=ROOT):
    """The notebooks the test runs (paths as in the repository and in the site's files):
    lesson 00, the graphs-and-leaves lesson (found by its slug, whatever its number), the
    graphs-and-leaves exercises and the gallery."""
    def one(folder, pattern):
        found = sorted((root / folder).glob(pattern))
        return [p.relative_to(root) for p in found[:1]]

    return [*one("notebooks", "00_*.ipynb"), *one("notebooks", "[0-9]*_graphs_and_leaves.ipynb"),
            *one("exercises", "[0-9]*_graphs_and_leaves.ipynb"),
            *one("notebooks", "99_gallery.ipynb")]


def chinese_site_notebooks(root=ROOT):
    """What the Chinese site's tests run (build/site/zh-CN/, issue 30): the Chinese lesson 00
    (its first result timed), the graphs-and-leaves lesson and its exercise notebook."""
    def one(folder, pattern):
        found = sorted((root / folder / "zh-CN").glob(pattern))
        return [p.relative_to(root) for p in found[:1]]

    return [*one("notebooks", "00_*.ipynb"), *one("notebooks", "[0-9]*_graphs_and_leaves.ipynb"),
            *one("exercises", "[0-9]*_graphs_and_leaves.ipynb")]


def app_url(base, notebook):
    """A notebook opened in its edition's JupyterLab: the Chinese ones in zh-CN/lab/ (Chinese
    menus, the Chinese site's own storage), the English ones in lab/."""
    language = language_of(Path(notebook).as_posix())
    app = "lab" if language == ENGLISH else f"{language}/lab"
    return f"{base}/{app}/index.html?path={Path(notebook).as_posix()}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript",
                      ".mjs": "text/javascript", ".json": "application/json"}
    expose_app = False

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        if self.expose_app and self.path.split("?")[0] == "/jupyter-lite.json":
            body = exposed_config(Path(self.directory)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


def exposed_config(site):
    """The site's own configuration, plus ``exposeAppInBrowser`` (window.jupyterapp, which the
    test drives): the only change the test makes to what the site serves."""
    config = json.loads((site / "jupyter-lite.json").read_text())
    config["jupyter-config-data"]["exposeAppInBrowser"] = "true"
    return json.dumps(config)


class SiteServer:
    """The built site, as any static host serves it, on 127.0.0.1. ``expose_app``: the
    server itself adds ``exposeAppInBrowser`` to the configuration (for the browsers driven
    through WebDriver, which cannot rewrite a response as playwright does)."""

    def __init__(self, site=SITE, expose_app=False):
        self.port = free_port()
        handler = functools.partial(type("Handler", (_Handler,), {"expose_app": expose_app}),
                                    directory=str(site))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


# A browser without WebAssembly JSPI (Safari, Firefox without a flag), simulated in Chromium:
# this runs before anything else in the page and in the kernel's worker (it heads pyodide.js).
NO_JSPI = "delete WebAssembly.Suspending; delete WebAssembly.promising;\n"


class OfflineBrowser:
    """Chromium with a fresh profile; every request to a host other than the server's is
    aborted; every request is logged by host. ``jspi=False``: as a browser without JSPI."""

    def __init__(self, playwright, user_data_dir, base, site=SITE, jspi=True):
        self.base, self.site, self.jspi = base, site, jspi
        self.hosts = Counter()     # host -> requests made
        self.paths = set()         # the site's files asked for
        self.asked = []            # the same, in order (a notebook's share is a slice)
        self.blocked = []          # URLs aborted
        self.page_errors = []
        self.context = playwright.chromium.launch_persistent_context(
            str(user_data_dir), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_FLAGS, viewport=VIEWPORT)
        self.context.route("**/*", self._route)
        if not jspi:
            self.context.add_init_script(NO_JSPI)
        self.context.on("request", self._log)
        self.page = self.context.pages[0] if self.context.pages else self.context.new_page()
        self.page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        # An extension that fails to load says so only on the console.
        self.page.on("console", lambda message: self.page_errors.append(message.text)
                     if message.type == "error" else None)

    logs_requests = True
    kernel_start = KERNEL_START

    def _log(self, request):
        url = urllib.parse.urlsplit(request.url)
        self.hosts[url.netloc or url.scheme] += 1
        if request.url.startswith(self.base + "/"):
            self.paths.add(urllib.parse.unquote(url.path))
            self.asked.append(urllib.parse.unquote(url.path))

    def _route(self, route):
        url = route.request.url
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in ("data", "blob") or url.startswith(self.base + "/"):
            if parts.path.endswith("/jupyter-lite.json") and parts.path.count("/") == 1:
                return self._expose_app(route)
            if not self.jspi and parts.path.endswith(("/pyodide.js", "/pyodide.mjs")):
                text = (self.site / urllib.parse.unquote(parts.path).lstrip("/")).read_text()
                return route.fulfill(status=200, content_type="text/javascript",
                                     body=NO_JSPI + text)
            return route.continue_()
        self.blocked.append(url)
        return route.abort()

    def _expose_app(self, route):
        route.fulfill(status=200, content_type="application/json",
                      body=exposed_config(self.site))

    def close(self):
        self.context.close()


class WebDriverBrowser:
    """Firefox ESR or WebKitGTK (course_tools/site/drivers.py) in the role of OfflineBrowser:
    offline through a proxy that does not exist; no request log (WebDriver classic has none),
    so the Pyodide packages loaded are not counted."""

    logs_requests = False

    def __init__(self, engine, work_dir, base):
        # WebKit's Pyodide starts 2-3 times slower than Chromium's (26-49 s on a quiet
        # 2-core machine, 140 s on a busy one).
        self.kernel_start = KERNEL_START * (2 if engine == "webkit" else 1)
        self.engine, self.base = engine, base
        self.page = drivers.open_page(engine, VIEWPORT, work_dir)
        self.page_errors = self.page.page_errors
        self.hosts, self.paths, self.asked, self.blocked = Counter(), set(), [], []
        self.version = self.page.version

    def close(self):
        self.page.close()


# ---------------------------------------------------------------- one notebook
# The notebook open in the main area. JupyterLab's currentWidget follows the focus, which a
# headless Firefox window never has: then the first notebook panel of the main area.
PANEL = """(() => {
  const shell = window.jupyterapp && window.jupyterapp.shell;
  if (!shell) return null;
  return shell.currentWidget || Array.from(shell.widgets('main')).find(
    widget => widget.content && widget.content.model && widget.sessionContext) || null;
})()"""
NOTEBOOK_SHOWN = "() => { const panel = " + PANEL + "; return !!(panel && panel.content && " \
                 "panel.content.model); }"
KERNEL_STATUS = "() => { const widget = " + PANEL + """;
  const kernel = widget && widget.sessionContext && widget.sessionContext.session
    && widget.sessionContext.session.kernel;
  return kernel ? kernel.status : null;
}"""
# The saved notebook's cells already have execution counts: clear the cell's count first, so
# that a count seen afterwards is this run's.
RUN_CELL = "async (index) => { const panel = " + PANEL + """;
  const notebook = panel.content;
  notebook.model.cells.get(index).executionCount = null;
  notebook.activeCellIndex = index;
  notebook.deselectAll();
  await window.jupyterapp.commands.execute("notebook:run-cell");
}"""
CELL_STATE = "(index) => { const cell = (" + PANEL + """).content.model.cells.get(index);
  return {count: cell.executionCount, state: cell.executionState,
          outputs: Array.from({length: cell.outputs.length},
                              (_, i) => cell.outputs.get(i).toJSON())};
}"""


MENUS = """() => Array.from(document.querySelectorAll('.lm-MenuBar-itemLabel'),
                            label => label.textContent)"""


@dataclass
class Report:
    notebook: str
    problems: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    first_cell: float | None = None  # seconds from the first click to its end
    opened: float | None = None      # seconds until JupyterLab showed the notebook
    kernel: float | None = None      # seconds from opening until the kernel was idle
    # Pyodide package files loaded: until the kernel was idle, by the first code cell, in all
    packages_at_start: list = field(default_factory=list)
    packages_first_cell: list = field(default_factory=list)
    packages: list = field(default_factory=list)
    screenshot: Path | None = None
    outputs: dict = field(default_factory=dict)  # code cell index -> its outputs in the site
    menus: list = field(default_factory=list)  # JupyterLab's menu bar (its language)
    reloads: int = 0  # times the page was loaded again: the notebook not shown in time

    @property
    def ok(self):
        return not self.problems

    def __str__(self):
        head = (f"{'ok  ' if self.ok else 'FAIL'} {self.notebook} ({self.seconds:.1f} s; "
                f"notebook shown {self.opened or 0:.1f} s, kernel ready {self.kernel or 0:.1f} s, "
                f"first cell {self.first_cell or 0:.1f} s)")
        return "\n".join([head] + [f"    problem: {p}" for p in self.problems]
                         + [f"    {n}" for n in self.notes])


def package_files(paths):
    """The Pyodide package files among the site's files asked for (first time each)."""
    found = []
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if "/static/pyodide/" in path and name.endswith((".whl", ".zip")) and name not in found:
            found.append(name)
    return found


def describe(files, site=SITE):
    sizes = [site / "static" / "pyodide" / name for name in files]
    megabytes = sum(path.stat().st_size for path in sizes if path.exists()) / 1e6
    names = ", ".join(name.split("-")[0] for name in files)
    return f"{len(files)} files, {megabytes:.1f} MB ({names})"


def text_of(output):
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    data = output.get("data", {})
    return "".join(data.get("text/plain", ""))


# What the page shows when a notebook has not opened in time: kept in the report.
PAGE_STATE = """() => {
  const shell = window.jupyterapp && window.jupyterapp.shell;
  return JSON.stringify({url: location.href, readyState: document.readyState, app: !!shell,
    tabs: shell ? Array.from(shell.widgets('main')).map(w => w.title && w.title.label) : null,
    text: (document.body ? document.body.innerText : '').slice(0, 160)});
}"""


def open_in_the_site(browser, notebook, report, artifacts):
    """Load JupyterLab on the notebook and wait until it shows it. A page that has not shown
    it after PAGE_LOAD seconds is loaded once more, as a learner would (CI's WebKitGTK, on 2
    busy cores, once stayed on a blank page); what it showed is kept in the report (its
    ``reloads`` and notes, a screenshot) and the tests allow one such reload in a run. Not
    shown the second time either: the notebook did not open."""
    page = browser.page
    for attempt in (1, 2):
        page.goto(app_url(browser.base, notebook))
        try:
            browser_check.wait_until(lambda: page.evaluate(NOTEBOOK_SHOWN), PAGE_LOAD,
                                     "the notebook to open")
            return
        except TimeoutError:
            if attempt == 2:
                raise
        try:
            state = page.evaluate(PAGE_STATE)
            artifacts.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(artifacts / f"{notebook.stem}__not_shown.png"))
        except Exception as error:  # a page that does not answer is what is being reported
            state = f"the page did not answer: {type(error).__name__}: {error}"
        report.reloads += 1
        report.notes.append(f"not shown after {PAGE_LOAD} s, loaded again; the page: {state}")


def check_notebook(browser, notebook, committed_root=ROOT, artifacts=ARTIFACTS):
    """Open the notebook in the site, run its code cells one by one, and check them."""
    started = time.monotonic()
    notebook = Path(notebook)
    report = Report(notebook.as_posix())
    committed = json.loads((committed_root / notebook).read_text())
    exp = browser_check.expected(committed)
    page = browser.page
    browser.page_errors.clear()
    opened = len(browser.asked)
    problems = report.problems
    try:
        open_in_the_site(browser, notebook, report, artifacts)
        report.opened = time.monotonic() - started
        browser_check.wait_until(lambda: page.evaluate(KERNEL_STATUS) == "idle",
                                 browser.kernel_start, "the Pyodide kernel to be idle")
        report.kernel = time.monotonic() - started
        report.menus = page.evaluate(MENUS)
        report.packages_at_start = package_files(browser.asked[opened:])
        at_first_cell = len(browser.asked)
        code = [i for i, c in enumerate(committed["cells"])
                if c["cell_type"] == "code" and "".join(c["source"]).strip()]
        ran = 0
        for index in code:
            clicked = time.monotonic()
            page.evaluate(RUN_CELL, index)
            ran += 1

            def done(index=index):
                state = page.evaluate(CELL_STATE, index)
                return state if state["count"] is not None and state["state"] != "running" \
                    and page.evaluate(KERNEL_STATUS) == "idle" else None

            try:
                state = browser_check.wait_until(done, CELL, f"cell {index} to run", 0.1)
            except TimeoutError as error:
                problems.append(str(error))
                break
            if report.first_cell is None:
                report.first_cell = time.monotonic() - clicked
                report.packages_first_cell = package_files(browser.asked[at_first_cell:])
            report.outputs[index] = state["outputs"]
            check_cell(committed["cells"][index], index, state["outputs"], exp, problems)
        report.notes.append(f"{ran} of {len(code)} code cells run")
        report.packages = package_files(browser.asked[opened:])
        if browser.logs_requests:
            report.notes.append("Pyodide packages: at start "
                                + describe(report.packages_at_start) + "; first cell "
                                + describe(report.packages_first_cell) + "; in all "
                                + describe(report.packages))
        check_pictures_drawn_by_the_page(page, problems, report.notes)
        browser_check.check_images(page, PICTURES, exp.pictures, "graph pictures", problems)
        browser_check.check_images(page, ".jp-RenderedImage img", exp.plots, "plots", problems)
        browser_check.check_picture_sizes(page, PICTURES, problems, report.notes)
        check_widgets(page, exp.widgets, problems, report.notes)
        if notebook.parts[0] == "exercises":
            check_a_right_answer(page, committed, notebook, problems, report.notes)
    except Exception as error:  # a timeout is a finding; still take the screenshot
        problems.append(f"{type(error).__name__}: {error}")
    try:
        artifacts.mkdir(parents=True, exist_ok=True)
        shot = artifacts / f"{'__'.join(notebook.parts[:-1])}__{notebook.stem}.png"  # zh-CN too
        page.screenshot(path=str(shot))
        report.screenshot = shot
    except Exception as error:
        report.notes.append(f"no screenshot: {error}")
    if hasattr(page, "collect_errors"):  # WebKit: the errors the page kept (drivers.py)
        page.collect_errors()
    report.notes += [f"page error: {error}" for error in browser.page_errors]
    problems += [f"a JupyterLab extension failed to load: {error[:300]}"
                 for error in browser.page_errors if EXTENSION_FAILED.search(error)]
    report.seconds = time.monotonic() - started
    return report


# How JupyterLab (module federation) reports an extension it could not load.
EXTENSION_FAILED = re.compile(r"#RUNTIME-\d+|[Ff]ailed to load (the )?extension|"
                              r"[Ee]xtension .{0,80} failed to load")

# Graph pictures: an SVG <img> (drawn by Python: JupyterLab's SVG renderer), or an inline <svg>
# that the course's extension drew from the DOT (no JSPI: engine/viz.py DOT_MIME).
PICTURES = ".jp-RenderedSVG img, .autograd-dot svg"
PAGE_DRAWN = """() => [...document.querySelectorAll('.autograd-dot')].map(view =>
    view.querySelector('svg') ? null : view.querySelector('pre') ? view.textContent : '')"""


def check_pictures_drawn_by_the_page(page, problems, notes):
    """Pictures the page lays out (asynchronously): wait until each is drawn; one shown as
    text (viz.js missing, or Graphviz failing on the DOT) is a problem."""
    try:
        views = browser_check.wait_until(
            lambda: (lambda v: (v,) if "" not in v else None)(page.evaluate(PAGE_DRAWN)),
            PAGE_PICTURES, "the page to draw its pictures")[0]
    except TimeoutError as error:
        problems.append(str(error))
        return
    if views:
        notes.append(f"{len(views)} pictures drawn by the page from their DOT")
    problems += [f"a picture the page should draw is text: {text[-200:]!r}"
                 for text in views if text]


def error_name(ename):
    """The error's class name: the Pyodide kernel reports "<class 'RuntimeError'>" (or
    "<class 'engine.errors.X'>") where IPython reports "RuntimeError"."""
    match = re.fullmatch(r"<class '([\w.]+)'>", ename)
    return match.group(1).rsplit(".", 1)[-1] if match else ename


def check_cell(cell, index, outputs, exp, problems):
    """Errors only where tagged (the same ones); no picture fell back to text; a check cell
    shows a verdict."""
    first_line = "".join(cell["source"]).split("\n")[0]
    errors = [f"{error_name(o['ename'])}: {o['evalue']}" for o in outputs
              if o["output_type"] == "error"]
    browser_check.check_errors(index, first_line, errors, exp, problems)
    shown = "\n".join(text_of(o) for o in outputs)
    for fallback in ("install Graphviz", "Graphviz failed", "Graphviz needed more than"):
        if fallback in shown:
            problems.append(f"cell {index} ({first_line!r}) shows a picture as text: "
                            f"{shown[-300:]!r}")
    if str(cell.get("id", "")).startswith("check_"):
        saved = "\n".join(text_of(o) for o in cell["outputs"]).strip().split("\n")[0]
        if not shown.strip().startswith(VERDICTS) or shown.strip().split("\n")[0] != saved:
            problems.append(f"cell {index} ({first_line!r}) shows {shown[:200]!r}, not the "
                            f"checker's verdict saved in the notebook ({saved!r})")


def check_widgets(page, wanted, problems, notes):
    """Every widget rendered and live, as course_tools/browser_check.py checks them in JupyterLab,
    except that a slider is dragged with the mouse: in the site's JupyterLab (4.4) the arrow
    keys do not move an ipywidgets slider (a known difference, see README)."""
    views = page.locator(browser_check.WIDGET_VIEWS)
    if views.count() != wanted:
        problems.append(f"{views.count()} widgets shown, the saved notebook has {wanted}")
    for index in range(views.count()):
        view, name = views.nth(index), f"widget {index}"
        box = view.bounding_box()
        text = view.inner_text()
        if not box or box["height"] < 5 or text.startswith(browser_check.WIDGET_FAILED):
            problems.append(f"{name} did not render: {text[:200]!r}")
            continue
        if view.locator("button.widget-button").filter(has_text="Step").count():
            notes.append(browser_check.check_stepper(view, problems, name))
        elif view.locator(".widget-slider").count():
            notes.append(drag_slider(page, view, problems, name))
        else:
            notes.append(f"{name}: rendered")


def drag_slider(page, view, problems, name):
    """Drag the first slider's handle 40 px: its readout changes and, when the widget has a
    caption, the kernel recomputes it."""
    slider = view.locator(".widget-slider").first
    readout = slider.locator(".widget-readout").first
    caption = view.locator(".widget-html")
    before = readout.inner_text()
    said = caption.first.inner_text() if caption.count() else None
    handle = slider.locator(".noUi-handle").first
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    step = -40 if browser_check._at_end(slider) else 40
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + step / 2, y)
    page.mouse.move(x + step, y)
    page.mouse.up()
    after = browser_check._changes(readout.inner_text, before)
    if after is None:
        problems.append(f"{name}: dragging the slider left its readout at {before!r}")
    browser_check.check_readouts(view, problems, name)
    note = f"{name}: slider dragged {before!r} -> {after!r}"
    if said is not None:
        answer = browser_check._changes(caption.first.inner_text, said)
        if answer is None:
            problems.append(f"{name}: the kernel did not answer the slider ({said!r})")
        note += f", caption {'changed' if answer is not None else 'UNCHANGED'}"
    return note


SET_SOURCE = "([index, source]) => (" + PANEL + """).content.model.cells
    .get(index).sharedModel.setSource(source)"""


def check_a_right_answer(page, committed, notebook, problems, notes):
    """Type the solution's answer into the first exercise's answer cell, run it and its
    check: the checker says it is correct."""
    ids = [str(cell.get("id", "")) for cell in committed["cells"]]
    checks = [i for i in ids if i.startswith("check_")]
    solution_path = ROOT / "solutions" / Path(*notebook.parts[1:])  # solutions/zh-CN/ too
    if not checks or not solution_path.exists():
        problems.append(f"no check cell, or no {solution_path.name} in solutions/")
        return
    name = checks[0][len("check_"):]
    solution = json.loads(solution_path.read_text())
    answer = next(("".join(c["source"]) for c in solution["cells"]
                   if c.get("id") == f"answer_{name}"), None)
    if answer is None or f"answer_{name}" not in ids:
        problems.append(f"no answer_{name} cell in the exercise or its solution")
        return
    page.evaluate(SET_SOURCE, [ids.index(f"answer_{name}"), answer])
    run_cell_again(page, ids.index(f"answer_{name}"))
    shown = run_cell_again(page, ids.index(checks[0]))
    if not shown.startswith("✅"):
        problems.append(f"{checks[0]} with the solution's answer shows {shown[:200]!r}")
    notes.append(f"{checks[0]} with the solution's answer: {shown.splitlines()[0]!r}")
    # The course's JupyterLab extension works in the site too: a check never judges an
    # answer edited since it ran (exercises/checks/answer_cells.py reads the request's metadata
    # from the Pyodide kernel).
    page.evaluate(SET_SOURCE, [ids.index(f"answer_{name}"), answer + "\n# edited, not run"])
    shown = run_cell_again(page, ids.index(checks[0]))
    if not shown.startswith(not_checked_after_an_edit(language_of(notebook.as_posix()))):
        problems.append(f"{checks[0]} after an edit that did not run shows {shown[:200]!r}")
    notes.append(f"{checks[0]} after an edit not run: {shown.splitlines()[0][:60]!r}")


def not_checked_after_an_edit(language):
    """How a check answers, in ``language``, when its answer cell was edited since it ran
    ("⚠️ Not checked yet: the answer cell above was changed", from the checkers' catalog)."""
    with i18n.speaking(language):
        return str(feedback.not_checked(i18n._(answer_cells.EDITED)))[:50]


def run_cell_again(page, index):
    """Run one cell (again); what it shows then."""
    page.evaluate(RUN_CELL, index)

    def done():
        state = page.evaluate(CELL_STATE, index)
        return state if state["count"] is not None and state["state"] != "running" \
            and page.evaluate(KERNEL_STATUS) == "idle" else None

    state = browser_check.wait_until(done, CELL, f"cell {index} to run again", 0.1)
    return "\n".join(text_of(o) for o in state["outputs"])


def check_read_only(browser, notebook, committed_root=ROOT):
    """The read-only HTML page of a lesson (build/site/read/NAME/): its saved pictures shown
    as SVG images, and a link to the same lesson in JupyterLite that leads to it."""
    notebook = Path(notebook)
    page_path = read_only.page_of(notebook.as_posix())  # read/zh-CN/... for a Chinese one
    report = Report(f"read/{page_path}")
    started = time.monotonic()
    exp = browser_check.expected(json.loads((committed_root / notebook).read_text()))
    page = browser.page
    page.goto(f"{browser.base}/read/{page_path}")
    images = page.evaluate("""() => Array.from(document.images).filter(
        i => i.src.startsWith('data:image/svg+xml')).map(i => i.naturalWidth)""")
    if len(images) < exp.pictures or not all(images):
        report.problems.append(f"{len(images)} SVG pictures ({images}), the saved lesson has "
                               f"{exp.pictures}")
    links = page.evaluate("""() => Array.from(document.querySelectorAll('a')).filter(
        a => a.href.includes('/lab/index.html?path=')).map(a => a.href)""")
    want = app_url(browser.base, notebook)
    if links != [want]:
        report.problems.append(f"links to JupyterLite: {links}, expected [{want!r}]")
    report.notes.append(f"{len(images)} SVG pictures; runs at {want}")
    report.seconds = time.monotonic() - started
    return report


def run_site_check(notebooks, site=SITE, artifacts=ARTIFACTS, jspi=True):
    """Serve the site, check the notebooks; return the reports and the request log.
    ``jspi=False``: as a browser without WebAssembly JSPI (Safari, Firefox)."""
    from playwright.sync_api import sync_playwright

    with SiteServer(site) as server, sync_playwright() as playwright, \
            tempfile.TemporaryDirectory(prefix="site-check-") as tmp:
        browser = OfflineBrowser(playwright, Path(tmp) / "chromium", server.base, site, jspi)
        try:
            reports = [check_notebook(browser, nb, artifacts=artifacts) for nb in notebooks]
            reports += [check_read_only(browser, nb) for nb in notebooks
                        if nb.parts[0] == "notebooks"]
        finally:
            browser.close()
        files = [site / path.lstrip("/") for path in browser.paths]
        files = [f for f in files if f.is_file()]
        log = {"hosts": dict(browser.hosts), "blocked": list(browser.blocked),
               "site_files_served": len(files),
               "site_mb_served": round(sum(f.stat().st_size for f in files) / 1e6, 1)}
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / "requests.json").write_text(json.dumps(log, indent=1))
    return reports, log


ENGINES = ("chromium", "firefox", "webkit")


def other_engine_notebooks(root=ROOT):
    """What Firefox and WebKit run: a lesson with graphs, an exercise notebook with checks,
    and the gallery (the stepper, sliders, the playground). Lesson 00 runs in Chromium only
    (CI's time: WebKit's kernel alone takes 30-50 s to start on 2 cores)."""
    return site_notebooks(root)[1:]


def run_in_engine(engine, notebooks, site=SITE, artifacts=None):
    """Serve the site and check the notebooks in Firefox ESR or WebKitGTK (WebDriver);
    return the reports and what the run saw of the browser."""
    artifacts = artifacts or ARTIFACTS / engine
    with SiteServer(site, expose_app=True) as server, \
            tempfile.TemporaryDirectory(prefix=f"site-check-{engine}-") as tmp:
        browser = WebDriverBrowser(engine, Path(tmp), server.base)
        try:
            jspi = browser.page.evaluate(
                "() => typeof WebAssembly.Suspending === 'function' && "
                "typeof WebAssembly.promising === 'function'")
            with browser_check.patience(3 if engine == "webkit" else 1):
                reports = [check_notebook(browser, nb, artifacts=artifacts)
                           for nb in notebooks]
        finally:
            browser.close()
    about = {"engine": engine, "version": browser.version, "jspi": jspi}
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / "browser.json").write_text(json.dumps(about, indent=1))
    return reports, about


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--no-jspi", action="store_true",
                        help="as a browser without WebAssembly JSPI (Safari, Firefox)")
    parser.add_argument("--browser", choices=ENGINES, default="chromium",
                        help="Chromium (playwright), Firefox ESR or WebKitGTK (WebDriver)")
    args = parser.parse_args(argv)
    if args.browser != "chromium":
        reason = drivers.missing(args.browser)
        if reason:
            print(f"cannot run {args.browser}: {reason}")
            return 1
        reports, about = run_in_engine(args.browser,
                                       args.notebooks or other_engine_notebooks())
        print(f"{about['engine']} {about['version']} (JSPI: {about['jspi']})")
        for report in reports:
            print(report)
        return 0 if all(r.ok for r in reports) else 1
    notebooks = args.notebooks or site_notebooks()
    reports, log = run_site_check(notebooks, jspi=not args.no_jspi)
    for report in reports:
        print(report)
    print(f"requests by host: {log['hosts']}; blocked: {len(log['blocked'])} "
          f"{log['blocked'][:5]}; {log['site_files_served']} files of the site asked for "
          f"({log['site_mb_served']} MB)")
    return 0 if all(r.ok for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
