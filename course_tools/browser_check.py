"""Run the course's notebooks in JupyterLab in a real (headless) browser, and check them.

    .venv/bin/python -m course_tools.browser_check                 # every notebook
    .venv/bin/python -m course_tools.browser_check notebooks/00_welcome.ipynb

For each notebook of notebooks/ and solutions/ it opens the notebook in JupyterLab, waits
for the kernel, runs all cells, waits until every code cell has run, and checks what a
learner would see:

- opened, before anything runs, it is not marked changed (no ● on its tab: its metadata is
  what JupyterLab writes on open);
- no error output, except in cells tagged ``raises-exception`` (which must raise the same
  error as the committed notebook);
- every graph picture rendered (an SVG ``<img>`` with ``naturalWidth > 0``) and every
  matplotlib plot present, as many of each as the committed notebook's saved outputs hold;
- every graph and memory picture (and the stepper's, at every step) fits: no wider than its
  output area or than 900 px, nothing cut off, and not scaled down until its text is
  smaller than 10 px. The window is 1280 px wide with the file browser open, as a learner
  on a laptop has it: the output area is then about 850 px wide;
- every widget rendered and live: a slider moved with the keyboard changes its readout and
  the kernel answers, and every readout is a plain number ("0.001", not "0.00" or "1e-3");
  the BackwardStepper has a Play button labelled "Play", its Step button moves it to the
  last step, where Step is disabled, and Back enables it again; progress bars show.

It saves one full-page screenshot per notebook in tests/browser_artifacts/ (CI keeps it).

JupyterLab serves a temporary learner's workspace (made by course_tools/workspace.py, as
`make lab` makes one; the check saves each notebook it ran, to read its outputs back: the
committed ones are never touched), with fresh
config, runtime, settings and workspace folders, on 127.0.0.1 with a random free port and
token. The browser is Debian's Chromium (/usr/bin/chromium) driven by Python playwright;
nothing is downloaded (never run `playwright install`). One server and one JupyterLab page
serve all the notebooks, one after another. tests/course/test_browser.py runs this for every
notebook under pytest.
"""
import argparse
import base64
import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from course_tools import workspace

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("notebooks", "solutions")
ARTIFACTS = ROOT / "tests" / "browser_artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")  # Debian's; CHROMIUM=... for another
# Flags that work for a headless Chromium in a container: no sandbox (we may be root), no
# GPU, and no background traffic to Google's servers.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 900}  # with the file browser open (show_file_browser)
MAX_PICTURE_WIDTH = 900  # px, and never wider than the picture's output area
MIN_TEXT_PX = 10  # the smallest text of a picture, as drawn (a picture scaled down shrinks it)
MAX_SHOT_HEIGHT = 32000  # px: the longest lesson is about 25000 px tall

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
RAISES = "raises-exception"

# User settings for the fresh JupyterLab: every cell in the DOM (JupyterLab 4 otherwise
# renders only the cells near the viewport, and DOM counts would be incomplete), no news
# pop-up over the page, and no autosave racing the explicit save below.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}
# JupyterLab's language for an edition (make lab-zh sets the same locale, from the
# jupyterlab-language-pack-zh-CN package).
LAB_LANGUAGE = {"zh-CN": {"@jupyterlab/translation-extension/plugin.jupyterlab-settings":
                          {"locale": "zh_CN"}}}
# The labels the check clicks and reads ("File", "Idle", ...) as JupyterLab shows them in the
# current server's language: its language pack's catalog (set by JupyterLab.__init__).
_LABELS: dict = {}


def lab_labels(language):
    """English label (or "context\x04label") -> the label in ``language``'s language pack."""
    if language == "en":
        return {}
    from importlib.resources import files
    package = f"jupyterlab_language_pack_{language.replace('-', '_')}"
    catalog = files(package) / "locale" / language.replace("-", "_") / "LC_MESSAGES" / \
        "jupyterlab.json"
    return {key: value[0] for key, value in json.loads(catalog.read_text("utf-8")).items()
            if isinstance(value, list) and value and value[0]}


def shown(label, context=None):
    """``label`` as JupyterLab shows it now (the English label without a language pack)."""
    if context is not None and f"{context}\x04{label}" in _LABELS:
        return _LABELS[f"{context}\x04{label}"]
    return _LABELS.get(label, label)

# Timeouts, in seconds, generous for a busy 2-core machine.
SERVER_START = 60
KERNEL_IDLE = 60
RUN_ALL = 240
SETTLE = 3  # seconds after the kernel is idle, for JupyterLab to write what it writes on open
STOPPED = 3  # idle this long with no cell queued and some not run: the run stopped
WIDGET_ANSWER = 15


def course_notebooks(language="en"):
    """Every lesson and solution notebook of an edition, as paths relative to the repository.

    The English edition's by default (what `make test` runs): a Chinese notebook has the same
    code cells and outputs (tests/course/test_translations.py), so what the browser sees of
    them is the same; the Chinese edition is checked with JupyterLab in Chinese on one lesson
    and its exercises (tests/course/test_browser.py; ``--language zh-CN`` here)."""
    return [p.relative_to(ROOT) for folder in FOLDERS
            for p in sorted((ROOT / (folder if language == "en" else f"{folder}/{language}"))
                            .glob("[0-9]*.ipynb"))]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- what the notebook says
@dataclass
class Expected:
    """What the committed notebook's saved outputs say the browser must show."""

    code_cells: int = 0  # that are not empty (JupyterLab does not run empty cells)
    raises: dict = field(default_factory=dict)  # cell index -> the error's name
    pictures: int = 0  # SVG images (graphs, memory diagrams)
    plots: int = 0     # PNG images (matplotlib)
    widgets: int = 0


def expected(notebook):
    exp = Expected()
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code" or not "".join(cell["source"]).strip():
            continue
        exp.code_cells += 1
        errors = [o["ename"] for o in cell["outputs"] if o["output_type"] == "error"]
        if RAISES in cell.get("metadata", {}).get("tags", []):
            exp.raises[index] = errors[0] if errors else None
        for output in cell["outputs"]:
            data = output.get("data", {})
            if WIDGET_MIME in data:  # a live widget replaces its static fallback picture
                exp.widgets += 1
            elif "image/svg+xml" in data:
                exp.pictures += 1
            elif "image/png" in data:
                exp.plots += 1
    return exp


# ------------------------------------------------------------------------ the server
class JupyterLab:
    """A JupyterLab server on a temporary copy of the course, for one session."""

    def __init__(self, folders=FOLDERS, artifacts=ARTIFACTS, expose_app=False, language="en"):
        self.tmp = Path(tempfile.mkdtemp(prefix="browser-check-"))
        self.artifacts = artifacts  # where the server's log is kept when it stops
        # What JupyterLab serves, runs and saves: a learner's workspace, made as `make lab`
        # makes it (course_tools/workspace.py), so links between notebooks are checked as a
        # learner follows them.
        self.root = self.tmp / "workspace"
        workspace.sync(ROOT, self.root)
        self.committed = self.tmp / "committed"  # the same files, untouched: the reference
        for folder in folders:
            shutil.copytree(ROOT / folder, self.committed / folder,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        settings = self.tmp / "lab-settings"
        _LABELS.clear()
        _LABELS.update(lab_labels(language))
        for name, values in {**LAB_SETTINGS, **LAB_LANGUAGE.get(language, {})}.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        env = dict(os.environ,
                   JUPYTER_CONFIG_DIR=str(self.tmp / "config"),
                   JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
                   JUPYTER_DATA_DIR=str(self.tmp / "data"),
                   JUPYTERLAB_SETTINGS_DIR=str(settings),
                   JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"),
                   IPYTHONDIR=str(self.tmp / "ipython"))
        self.port, self.token = free_port(), secrets.token_hex(16)
        self._closing = []  # threads shutting kernels down
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(self.tmp / "jupyterlab.log", "w")  # closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
             "--ip=127.0.0.1", f"--port={self.port}", "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
             # window.jupyterapp, for tests that drive JupyterLab's model directly
             *(["--LabApp.expose_app_in_browser=True"] if expose_app else [])],
            env=env, cwd=self.root, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self):
        deadline = time.monotonic() + SERVER_START
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited:\n{self.log_text()}")
            try:
                self.api("status")
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"JupyterLab did not start in {SERVER_START} s:\n{self.log_text()}")

    def log_text(self):
        self.log.flush()
        return (self.tmp / "jupyterlab.log").read_text()[-3000:]

    def api(self, path, method="GET", body=None):
        request = urllib.request.Request(
            f"{self.base}/api/{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None

    def url(self, notebook):
        # ?reset: a fresh workspace, so the notebooks opened before are not reopened
        return f"{self.base}/lab/tree/{notebook.as_posix()}?reset&token={self.token}"

    def start_kernel(self, notebook, kernel_name):
        """Start the notebook's kernel now, so that it boots while the page loads: JupyterLab
        connects to the session it finds for the notebook's path."""
        self.api("sessions", method="POST", body={
            "path": notebook.as_posix(), "name": notebook.name, "type": "notebook",
            "kernel": {"name": kernel_name}})

    def shutdown_kernels(self, notebook):
        """Shut down the notebook's kernels, in the background (a kernel takes a second or
        two to stop, and the next notebook need not wait for it)."""
        ids = [s["id"] for s in self.api("sessions") if s["path"] == notebook.as_posix()]

        def shutdown():
            for session in ids:
                try:
                    self.api(f"sessions/{session}", method="DELETE")
                except OSError:  # already gone
                    pass

        self._closing.append(threading.Thread(target=shutdown))
        self._closing[-1].start()

    def stop(self):
        for thread in self._closing:
            thread.join()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        self.artifacts.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.tmp / "jupyterlab.log", self.artifacts / "jupyterlab.log")
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Browser:
    """Debian's Chromium, headless, with a fresh profile, and the one page that shows
    JupyterLab (loaded once: a JupyterLab page takes seconds to start)."""

    def __init__(self, playwright, user_data_dir):
        self.context = playwright.chromium.launch_persistent_context(
            str(user_data_dir), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_FLAGS, viewport=VIEWPORT)
        self.page = self.context.pages[0] if self.context.pages else self.context.new_page()
        self.page_errors = []  # uncaught JavaScript errors
        self.page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    def close(self):
        self.context.close()


# ------------------------------------------------------------------- one notebook
def wait_until(condition, timeout, what, interval=0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout} s waiting for {what}")


def menu(page, name, item):
    """Click a menu bar entry, then one of its items (labels as shown)."""
    page.locator(".lm-MenuBar-itemLabel",
                 has_text=re.compile(f"^{re.escape(shown(name, 'menu'))}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(shown(item))}$")).click()


def open_notebook(page, lab, notebook):
    """Load JupyterLab on the notebook the first time; later, open it from the File menu
    ("Open from Path…") in the same page."""
    if not page.url.startswith(lab.base):
        page.goto(lab.url(notebook))
    else:
        menu(page, "File", "Open from Path…")
        path = page.locator(".jp-Dialog input")
        path.fill(notebook.as_posix())
        path.press("Enter")
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()


def show_file_browser(page):
    """Open the file browser in the left side bar (as JupyterLab starts, and as a learner
    works), so that the notebook, and its output areas, are as wide as they then are.
    (screenshot() closes it.)"""
    tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id='filebrowser']")
    if tab.count() and "lm-mod-current" not in (tab.first.get_attribute("class") or ""):
        tab.first.click()
        wait_until(lambda: "lm-mod-current" in (tab.first.get_attribute("class") or ""), 10,
                   "the file browser to open")
        page.wait_for_timeout(300)  # the notebook's new width laid out


def close_notebook(page):
    """Close the notebook's tab (without saving what changed after the check's save)."""
    menu(page, "File", "Close Tab")

    def closed():
        discard = page.locator(".jp-Dialog button", has_text=shown("Discard"))
        if discard.count():  # "Save your work": no
            discard.click()
        return page.locator(".jp-NotebookPanel").count() == 0

    wait_until(closed, 30, "the notebook to close")


def dirty_tabs(page):
    """The main area's tabs marked changed (the ● JupyterLab shows for unsaved changes)."""
    return page.locator(".jp-mod-dirty").count() + page.evaluate(
        "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.context && w.context.model.dirty ? 1 : 0; }")


def check_not_dirty(page, problems):
    """Opened and not touched, the notebook must not be marked changed: JupyterLab writes
    the kernelspec and language_info on open, and a committed notebook that carries other
    values turns dirty, so closing a lesson one only read asks to save it."""
    page.wait_for_timeout(SETTLE * 1000)
    if dirty_tabs(page):
        problems.append("marked changed (●) after opening, before anything ran: its "
                        "metadata differs from what JupyterLab writes on open")


def status_idle(page):
    return f"| {shown('Idle')}" in page.locator("#jp-main-statusbar").inner_text()


def prompts(page):
    """The execution prompt of every code cell: '[3]:', '[*]:' or '[ ]:'."""
    return page.locator(".jp-CodeCell .jp-InputArea-prompt").all_inner_texts()


def run_all(page, code_cells, problems):
    """Run All Cells, and wait until every code cell has an execution count (or the run
    stopped: an error in a cell not tagged raises-exception cancels the cells after it)."""
    menu(page, "Run", "Run All Cells")
    deadline = time.monotonic() + RUN_ALL
    stopped_since = None
    while time.monotonic() < deadline:
        shown = prompts(page)
        done = sum(1 for p in shown if p.strip("[]: ").isdigit())
        idle = status_idle(page)
        if done == code_cells and idle:
            return
        if idle and "[*]:" not in shown:  # nothing running, nothing queued
            stopped_since = stopped_since or time.monotonic()
            if time.monotonic() - stopped_since > STOPPED:
                problems.append(f"the run stopped: {done} of {code_cells} code cells ran")
                return
        else:
            stopped_since = None
        time.sleep(0.5)
    raise TimeoutError(f"Run All did not finish in {RUN_ALL} s")


def save_and_read(page, lab, notebook):
    """Save the notebook from JupyterLab and read back what it holds (outputs included)."""
    path = lab.root / notebook
    before = path.stat().st_mtime_ns
    page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")
    wait_until(lambda: path.stat().st_mtime_ns != before, 30, "the notebook to be saved")
    return wait_until(lambda: _read_json(path), 10, "a complete saved notebook")


def _read_json(path):
    try:
        return json.loads(path.read_text())
    except ValueError:  # caught mid-write
        return None


def check_outputs(saved, exp, problems):
    """Every code cell ran; errors only where tagged, and the same ones as committed."""
    not_run = [i for i, c in enumerate(saved["cells"])
               if c["cell_type"] == "code" and "".join(c["source"]).strip()
               and c.get("execution_count") is None]
    if not_run:
        problems.append(f"cells that did not run: {not_run}")
    for index, cell in enumerate(saved["cells"]):
        if cell["cell_type"] != "code":
            continue
        errors = [f"{o['ename']}: {o['evalue']}" for o in cell["outputs"]
                  if o["output_type"] == "error"]
        check_errors(index, "".join(cell["source"]).split("\n")[0], errors, exp, problems)


def check_errors(index, first_line, errors, exp, problems):
    """A cell raised only if it is tagged raises-exception, and then the committed error."""
    if index not in exp.raises:
        if errors:
            problems.append(f"cell {index} ({first_line!r}) raised {errors[0]}")
    elif exp.raises[index] and not (errors and errors[0].startswith(exp.raises[index] + ":")):
        problems.append(f"cell {index} ({first_line!r}) should raise {exp.raises[index]},"
                        f" got {errors[0] if errors else 'no error'}")


IMAGES_JS = """selector => Array.from(document.querySelectorAll(selector)).map(
    img => img.tagName === 'IMG' ? {width: img.naturalWidth, complete: img.complete}
        : {width: img.getBoundingClientRect().width, complete: true})"""  # or an inline <svg>


def check_images(page, selector, wanted, what, problems):
    """As many images as the saved outputs hold, each decoded with a non-zero width."""
    def loaded():
        images = page.evaluate(IMAGES_JS, selector)
        return (images,) if all(i["complete"] for i in images) else None

    try:
        (images,) = wait_until(loaded, 15, f"{what} to load")
    except TimeoutError as error:
        problems.append(str(error))
        return
    if len(images) != wanted:
        problems.append(f"{len(images)} {what} shown, the saved notebook has {wanted}")
    empty = [i for i, image in enumerate(images) if image["width"] == 0]
    if empty:
        problems.append(f"{what} that did not render (naturalWidth 0): {empty}")


# A picture as drawn: its size, its output area's, and its SVG source (an <img> of JupyterLab's
# SVG renderer holds it as a data: URL; the stepper's picture is an inline <svg>).
MEASURE_JS = """element => {
    const area = element.closest('.jp-OutputArea-output');
    if (!area) return null;  // replaced by a newer picture as we looked
    const box = element.getBoundingClientRect(), areaBox = area.getBoundingClientRect();
    return {width: box.width, right: box.right, areaWidth: area.clientWidth,
            areaRight: areaBox.right, areaScroll: area.scrollWidth,
            source: element.tagName === 'IMG' ? element.src : element.outerHTML}; }"""


def svg_source(source):
    """The SVG text of an <img>'s data: URL (or the inline <svg> itself)."""
    if not source.startswith("data:"):
        return source
    header, _, data = source.partition(",")
    if header.endswith(";base64"):
        return base64.b64decode(data).decode("utf-8", "replace")
    return urllib.parse.unquote(data)


def smallest_text_px(svg, width):
    """The size in px of the smallest text of an SVG drawn ``width`` px wide (None when
    it cannot tell: no text, or no viewBox to scale by)."""
    sizes = [float(size) for size in re.findall(r'font-size="([0-9.]+)', svg)]
    view = re.search(r'viewBox="\s*[-0-9.]+[\s,]+[-0-9.]+[\s,]+([0-9.]+)', svg)
    if not sizes or not view or float(view.group(1)) <= 0:
        return None
    scale = re.search(r'<g[^>]*transform="scale\(([0-9.]+)', svg)  # Graphviz's size=...
    return min(sizes) * (float(scale.group(1)) if scale else 1) * width / float(view.group(1))


def picture_problems(measured, name):
    """What is wrong with how one picture is drawn (see MEASURE_JS): too wide, cut off,
    or scaled down until its text is too small to read."""
    found = []
    width, area = measured["width"], measured["areaWidth"]
    if width > min(area, MAX_PICTURE_WIDTH) + 0.5:
        found.append(f"{name} is {width:.0f} px wide, wider than its output area ({area} px)"
                     + (f" or {MAX_PICTURE_WIDTH} px" if area > MAX_PICTURE_WIDTH else ""))
    past = measured["right"] - measured["areaRight"]
    if past > 0.5 or measured["areaScroll"] > area + 1:
        found.append(f"{name} is cut off: it reaches {past:.0f} px past its output area"
                     f" (whose content is {measured['areaScroll']} px wide)")
    text = smallest_text_px(svg_source(measured["source"]), width)
    if text is not None and text < MIN_TEXT_PX:
        found.append(f"{name} is scaled down too far to read: its smallest text is "
                     f"{text:.1f} px (at least {MIN_TEXT_PX})")
    return found


def check_picture_sizes(page, selector, problems, notes):
    """Every picture fits its output area, whole and readable."""
    pictures = page.locator(selector)
    widths = []
    for index in range(pictures.count()):
        measured = pictures.nth(index).evaluate(MEASURE_JS)
        if measured is None:  # (not in an output area)
            continue
        widths.append((measured["width"], measured["areaWidth"]))
        problems += picture_problems(measured, f"picture {index}")
    if widths:
        widest = max(widths)
        notes.append(f"{len(widths)} pictures fit: widest {widest[0]:.0f} px, output area "
                     f"{widest[1]} px")


# A widget's output holds its view; when the view fails, the output itself says so
# ("Error displaying widget", with the jupyter-widgets class).
WIDGET_VIEWS = ".jp-OutputArea-output:is(.jupyter-widgets, :has(> .jupyter-widgets))"
WIDGET_FAILED = ("Error displaying widget", "Loading widget")


def check_widgets(page, wanted, problems, notes):
    """Every widget rendered; sliders, the stepper and progress bars are live; pictures fit
    and readouts read as numbers."""
    views = page.locator(WIDGET_VIEWS)
    if views.count() != wanted:
        problems.append(f"{views.count()} widgets shown, the saved notebook has {wanted}")
    for index in range(views.count()):
        view = views.nth(index)
        name = f"widget {index}"
        box = view.bounding_box()
        text = view.inner_text()
        if not box or box["height"] < 5 or text.startswith(WIDGET_FAILED):
            problems.append(f"{name} did not render: {text[:200]!r}")
            continue
        blank = view.evaluate("view => Array.from(view.querySelectorAll('img'))"
                              ".filter(img => img.naturalWidth === 0).length")
        if blank:
            problems.append(f"{name}: {blank} image(s) did not render")
        buttons = view.locator("button.widget-button")
        sliders = view.locator(".widget-slider")
        progress = view.locator(".widget-hprogress, .widget-vprogress")
        if buttons.filter(has_text="Step").count():
            notes.append(check_stepper(view, problems, name))
        elif sliders.count():
            notes.append(check_slider(view, sliders.first, problems, name))
        elif progress.count():
            notes.append(check_progress(progress.first, problems, name))
        else:
            notes.append(f"{name}: rendered")


def patience(factor):
    """Widgets' answers awaited ``factor`` times longer, for as long as the ``with`` lasts
    (WebKit's Pyodide answers 2-3 times slower than Chromium's)."""
    @contextlib.contextmanager
    def longer():
        global WIDGET_ANSWER
        before = WIDGET_ANSWER
        WIDGET_ANSWER = before * factor
        try:
            yield
        finally:
            WIDGET_ANSWER = before
    return longer()


def _changes(read, before, timeout=None):
    """The new value of read() once it differs from before, or None."""
    timeout = WIDGET_ANSWER if timeout is None else timeout
    try:
        return wait_until(lambda: (read(),) if read() != before else None, timeout,
                          "a change")[0]
    except TimeoutError:
        return None


def _becomes(condition, timeout=None):
    """Whether condition() turns true within timeout seconds."""
    timeout = WIDGET_ANSWER if timeout is None else timeout
    try:
        return wait_until(condition, timeout, "a widget's state")
    except TimeoutError:
        return False


def _at_end(slider):
    handle = slider.locator(".noUi-handle").first
    return float(handle.get_attribute("aria-valuenow")) >= float(
        handle.get_attribute("aria-valuemax"))


def _button(view, label):
    return view.locator("button.widget-button", has_text=re.compile(rf"^\s*{label}\s*$")).first


def check_stepper(view, problems, name):
    """The stepper: a Play button with a text label; Step (after Back when already at the
    last step) makes the kernel send a new caption and picture, until the last step, where
    Step is disabled; Back enables it again. Its picture fits at every step."""
    caption = view.locator(".widget-html").first
    picture = view.locator(".widget-html svg")
    if not _button(view, "Play").count():
        problems.append(f"{name}: no Play button with a text label")
    if not picture.count():
        problems.append(f"{name}: the stepper shows no graph picture")
        return f"{name}: no picture"
    first = caption.inner_text()
    if _at_end(view.locator(".widget-slider").first):
        _button(view, "Back").click()
        _changes(caption.inner_text, first)
    pictures = []
    step = _button(view, "Step")
    for _ in range(round(float(view.locator(".noUi-handle").first.get_attribute("aria-valuemax")))):
        if step.is_disabled():
            break
        before = caption.inner_text()
        try:
            step.click(timeout=15_000)
        except Exception as error:
            # the caption and the buttons' states arrive as separate widget messages: at the
            # last step Step may be disabled only after the check above (seen under load)
            if type(error).__name__ != "TimeoutError" or not step.is_disabled():
                raise
            break
        if _changes(caption.inner_text, before) is None:
            problems.append(f"{name}: clicking Step did not change {before!r}")
            break
        measured = wait_until(lambda: picture.first.evaluate(MEASURE_JS), 10,
                              "the stepper's picture")
        pictures.append(measured["width"])
        problems += picture_problems(measured, f"{name}: the picture at {caption.inner_text()!r}")
    last = caption.inner_text()
    # The caption and the buttons' states arrive as separate widget messages: wait for each.
    if not _becomes(lambda: step.is_disabled()):
        problems.append(f"{name}: Step is not disabled at the last step ({last!r})")
    _button(view, "Back").click()
    _changes(caption.inner_text, last)
    if not _becomes(lambda: not step.is_disabled()):
        problems.append(f"{name}: Back did not enable Step again")
    widths = f"{min(pictures):.0f}-{max(pictures):.0f} px" if pictures else "none"
    return f"{name}: {first!r}, Step x{len(pictures)} -> {last!r} (pictures {widths}), Back"


def check_slider(view, slider, problems, name):
    """Focus the handle and press an arrow key: the readout changes, and when the widget
    has a caption the kernel recomputes it."""
    readout = slider.locator(".widget-readout")
    caption = view.locator(".widget-html")
    before = readout.inner_text()
    said = caption.first.inner_text() if caption.count() else None
    key = "ArrowLeft" if _at_end(slider) else "ArrowRight"
    handle = slider.locator(".noUi-handle").first
    handle.focus()
    handle.press(key)
    after = _changes(readout.inner_text, before)
    if after is None:
        problems.append(f"{name}: {key} on the slider left its readout at {before!r}")
    check_readouts(view, problems, name)
    note = f"{name}: slider {key} {before!r} -> {after!r}"
    if said is not None:
        answer = _changes(caption.first.inner_text, said)
        if answer is None:
            problems.append(f"{name}: the kernel did not answer the slider ({said!r})")
        note += f", caption {'changed' if answer is not None else 'UNCHANGED'}"
    return note


# A readout reads as the number it is: "0.001", "−1.80", "30" (d3's minus sign), not "1e-3"
# or "1.00m"; and not "0.00" for a value that is not 0.
READOUT = re.compile(r"[−-]?[0-9]+(\.[0-9]+)?")


def check_readouts(view, problems, name):
    """Every slider's readout is a plain number, and 0 only when the slider is at 0."""
    sliders = view.locator(".widget-slider")
    for index in range(sliders.count()):
        slider = sliders.nth(index)
        text = slider.locator(".widget-readout").first.inner_text().strip()
        now = slider.locator(".noUi-handle").first.get_attribute("aria-valuenow")
        label = slider.locator(".widget-label").first.inner_text().strip()
        if not READOUT.fullmatch(text):
            problems.append(f"{name}: the {label!r} slider reads {text!r}, not a plain number")
        elif float(text.replace("−", "-")) == 0 and now is not None and float(now) != 0:
            problems.append(f"{name}: the {label!r} slider reads {text!r} for a value that "
                            f"is not 0")


def check_progress(progress, problems, name):
    """The bar is drawn, as full as the kernel's last update left it."""
    bar = progress.locator(".progress-bar")
    box = bar.first.bounding_box() if bar.count() else None
    whole = progress.locator(".progress").first.bounding_box()
    if not box or not whole or box["width"] <= 0:
        problems.append(f"{name}: the progress bar did not render")
        return f"{name}: progress bar missing"
    return f"{name}: progress bar {box['width'] / whole['width']:.0%} full"


def screenshot(page, path):
    """The whole notebook: hide the file browser, make the window as tall as the notebook's
    content (its scroll area is inside the page), then capture it."""
    side = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if side.count():
        side.first.click()  # clicking the open side panel's tab closes it
    extra = page.evaluate("""() => {
        const outer = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
        if (!outer) return 0;
        outer.scrollTop = 0;
        return outer.scrollHeight - outer.clientHeight; }""")
    height = min(MAX_SHOT_HEIGHT, VIEWPORT["height"] + extra)
    page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
    page.wait_for_timeout(500)  # layout, and the images redrawn at the new size
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(VIEWPORT)


@dataclass
class Report:
    """What the check of one notebook found: problems fail it, notes only inform."""

    notebook: str
    problems: list
    notes: list
    seconds: float
    screenshot: Path | None

    @property
    def ok(self):
        return not self.problems

    def __str__(self):
        head = f"{'ok  ' if self.ok else 'FAIL'} {self.notebook} ({self.seconds:.1f} s)"
        lines = [head] + [f"    problem: {p}" for p in self.problems]
        lines += [f"    {n}" for n in self.notes]
        if self.screenshot:
            lines.append(f"    screenshot: {self.screenshot}")
        return "\n".join(lines)


class Stopwatch:
    """Seconds spent in each phase, for the report: where a slow run spends its time."""

    def __init__(self):
        self.start = self.last = time.monotonic()
        self.laps = []

    def lap(self, name):
        now = time.monotonic()
        self.laps.append(f"{name} {now - self.last:.1f}")
        self.last = now

    def total(self):
        return time.monotonic() - self.start


def check_notebook(lab, browser, notebook, artifacts=ARTIFACTS, committed=None):
    """Open, run and check one notebook (a path relative to the repository and to the
    server's copy), against the saved outputs of ``committed`` (default: the notebook as
    it was when the server started)."""
    notebook = Path(notebook)
    clock = Stopwatch()
    saved = json.loads(Path(committed or lab.committed / notebook).read_text())
    exp = expected(saved)
    problems, notes = [], []
    shot = artifacts / f"{'__'.join(notebook.parts[:-1])}__{notebook.stem}.png"  # zh-CN too
    page = browser.page
    browser.page_errors.clear()
    try:
        lab.start_kernel(notebook, saved["metadata"].get("kernelspec", {}).get("name", "python3"))
        open_notebook(page, lab, notebook)
        show_file_browser(page)
        clock.lap("open")
        wait_until(lambda: status_idle(page), KERNEL_IDLE, "the kernel to be idle")
        check_not_dirty(page, problems)
        clock.lap("kernel")
        run_all(page, exp.code_cells, problems)
        clock.lap("run")
        check_outputs(save_and_read(page, lab, notebook), exp, problems)
        clock.lap("save")
        check_images(page, ".jp-RenderedSVG img", exp.pictures, "graph pictures", problems)
        check_images(page, ".jp-RenderedImage img", exp.plots, "plots", problems)
        check_picture_sizes(page, ".jp-RenderedSVG img", problems, notes)
        check_widgets(page, exp.widgets, problems, notes)
        clock.lap("check")
    except Exception as error:  # a timeout is a finding too; still take the screenshot
        problems.append(f"{type(error).__name__}: {error}")
    try:
        screenshot(page, shot)
    except Exception as error:
        notes.append(f"no screenshot: {error}")
        shot = None
    clock.lap("screenshot")
    try:
        close_notebook(page)
    except Exception as error:  # start the next notebook on a freshly loaded JupyterLab
        notes.append(f"could not close the notebook ({error}): reloading JupyterLab")
        page.goto("about:blank")
    lab.shutdown_kernels(notebook)
    clock.lap("close")
    notes += [f"page error: {error}" for error in browser.page_errors]
    notes.append("seconds: " + ", ".join(clock.laps))
    return Report(notebook.as_posix(), problems, notes, clock.total(), shot)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to check (default: all of notebooks/ and solutions/)")
    parser.add_argument("--artifacts", type=Path, default=ARTIFACTS,
                        help=f"where screenshots go (default: {ARTIFACTS.relative_to(ROOT)})")
    parser.add_argument("--language", choices=("en", *LAB_LANGUAGE),
                        help="JupyterLab's language (default: zh-CN when every notebook given "
                             "is a Chinese one, else en)")
    args = parser.parse_args(argv)
    notebooks = [Path(os.path.relpath(p.resolve(), ROOT)) for p in args.notebooks]
    language = args.language or ("zh-CN" if notebooks and all(
        "zh-CN" in p.parts for p in notebooks) else "en")
    notebooks = notebooks or course_notebooks(language)
    from playwright.sync_api import sync_playwright

    reports = []
    folders = sorted(set(FOLDERS) | {p.parts[0] for p in notebooks})
    with JupyterLab(folders, args.artifacts, language=language) as lab, \
            sync_playwright() as playwright:
        browser = Browser(playwright, lab.tmp / "chromium")
        try:
            for notebook in notebooks:
                reports.append(check_notebook(lab, browser, notebook, args.artifacts))
                print(reports[-1], flush=True)
        finally:
            browser.close()
    failed = [r.notebook for r in reports if not r.ok]
    print(f"{len(reports) - len(failed)} of {len(reports)} notebooks passed"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
