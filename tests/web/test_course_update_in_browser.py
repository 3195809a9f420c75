"""The browser edition's course-update notice (course_tools/labextension, part 5), against the
built site (`make site`, then `make test-site`), in headless Chromium, Firefox ESR and WebKit
(the last two through WebDriver: course_tools/site/drivers.py).

As a learner meets it: in one browser profile, the graphs-and-leaves lesson and lesson 00 are
opened, changed and saved (their copies now live in the browser's storage, marked with the
version they were made from). Then the site is updated: the test's server serves a changed
lesson (one markdown cell) and the course-versions.json a build of it writes, as a new `make
site` would; the page is loaded again. The changed lesson says so, in the catalog's words, and
on request a fresh copy of the new version appears beside the learner's, under a new name; the
learner's copy is never written (same content, same modification time). Lesson 00, unchanged
in the course, says nothing; a lesson never saved is the site's and says nothing; opened again,
the changed lesson points at the fresh copy instead of making another.

Skipped, with the reason, like tests/web/test_site.py (and, for Firefox and WebKit, like
tests/web/test_other_browsers.py). Screenshots: tests/browser_artifacts/site/course_update__*.png
(Chromium), site/<engine>/course_update__*.png.
"""
import contextlib
import copy
import functools
import http.server
import json
import re
import threading
import time

import pytest

from course_tools.notebook_files import cells_digest
from course_tools.site import build as build_site
from course_tools.site import check as site_check

from .test_my_work_in_browser import (ENGINES, EDIT_AND_SAVE, STORED, artifacts, engine_or_skip,
                                      fresh_profile, wait_app)
from .test_site import skip_reason

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]

WELCOME, LESSON, EXERCISE, _ = (p.as_posix() for p in site_check.site_notebooks())
NOTE = "\n\nMy note, before the course changed."
UPDATED = "2026-12-01"
FRESH = LESSON.replace(".ipynb", f" (course update {UPDATED}).ipynb")
CATALOG = json.loads((build_site.LABEXTENSION / "static" / "messages.json").read_text())
BAR = ".autograd-course-update"
KEY = "autograd_step_by_step"

FOUND = """(path) => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(
    widget => widget.context && widget.context.path === path);
  return panel ? panel.node.getAttribute('data-autograd-course-version') : null;
}"""
OPEN = """async (path) => {
  const panel = await window.jupyterapp.commands.execute('docmanager:open', {path});
  await panel.context.ready;
  return true;
}"""
MODIFIED = """async (paths) => {
  const contents = window.jupyterapp.serviceManager.contents;
  const found = {};
  for (const path of paths) {
    found[path] = (await contents.get(path, {content: false})).last_modified;
  }
  return found;
}"""
NO_AUTOSAVE = """async () => {
  await window.jupyterapp.serviceManager.settings.save(
    '@jupyterlab/docmanager-extension:plugin', JSON.stringify({autosave: false}));
  return true;
}"""
AUTOSAVE = """async () => {
  const found = await window.jupyterapp.serviceManager.settings.fetch(
    '@jupyterlab/docmanager-extension:plugin');
  return found.settings.autosave;
}"""
LISTING = """async (dir) => (await window.jupyterapp.serviceManager.contents.get(dir,
    {content: true})).content.map(item => item.path)"""


class UpdatableSite(site_check.SiteServer):
    """The built site, on 127.0.0.1 (one port all along: the browser's storage is per origin);
    ``overlay`` (site path -> bytes) is served instead of the built files, as after a rebuild."""

    def __init__(self):
        overlay = self.overlay = {}

        class Handler(site_check._Handler):
            expose_app = True  # for the WebDriver engines (Chromium's route does it too)

            def do_GET(self):
                body = overlay.get(self.path.split("?")[0].lstrip("/"))
                if body is None:
                    return super().do_GET()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.port = site_check.free_port()
        handler = functools.partial(Handler, directory=str(site_check.SITE))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.port}"


# What JupyterLab's session context says, without an id, when a session it was starting is
# shut down under it: its look-up of the lost session's kernel, in each engine's words (seen in
# Chromium at load 10, in WebKit on the CI machine).
LOST_SESSION = re.compile(r"Cannot read properties of null \(reading 'kernel'\)"
                          r"|null is not an object \(evaluating '[\w$.]*session\.kernel'\)"
                          r"|[\w$.]*session is null")


# WebKit's words for a request the page still had in flight when the test navigated away
# (page.goto to reopen the lesson): "Load failed", as an unhandled rejection or inside
# JupyterLab's message about the notebook toolbar it was loading (stop CI of 8a8d1f6, WebKit)
NAVIGATED_AWAY = re.compile(r"^(?:unhandled rejection: )?Load failed$|^Failed to load toolbar "
                            r"items for factory Notebook from [\w@/.:-]+ TypeError: Load failed$")


def shut_down_by_the_test(text):
    """What the page says of a session or kernel this test shut down (SHUT_DOWN_KERNELS) under
    an open notebook ("Session ... not found", its kernel's WebSocket failing, a session
    context losing its session)."""
    if LOST_SESSION.search(text):
        return bool(SHUT)
    return any(found in SHUT for found in re.findall(r"[0-9a-f]{8}-[0-9a-f-]{27}", text))


def watch_errors(browser, base):
    """The page's errors and console errors, as tests/web/test_my_work_in_browser.py watches
    them, but JupyterLab's own look-ups of the paths printed in a saved lesson's outputs: a
    learner's stored copy of the graphs lesson, opened again, has JupyterLab ask the site for
    folder listings of the paths in torch's warning text (/pytorch/pytorch/pull/...,
    /__w/pytorch/...: 404), with or without this notice. Those are kept apart, and checked to
    be no more than that. Firefox and WebKit: what their driver sees (no failed requests)."""
    if not hasattr(browser.page, "on"):
        browser.page_errors.clear()
        return browser.page_errors, []
    errors, lookups = [], []

    def console(message):
        url = message.location.get("url", "")
        if message.type != "error" or url.endswith("/favicon.ico"):
            return
        if "404" in message.text and url.startswith(f"{base}/api/contents/") and \
                url.endswith("/all.json"):
            lookups.append(url[len(f"{base}/api/contents/"):-len("/all.json")])
        else:
            errors.append(message.text)

    browser.page.on("pageerror", lambda error: errors.append(str(error)))
    browser.page.on("console", console)
    return errors, lookups


def changed_lesson(tmp_path):
    """The lesson as the course might change it (a sentence added to its first markdown cell),
    and the course-versions.json a build of it writes."""
    lesson = json.loads((site_check.ROOT / LESSON).read_text())
    changed = copy.deepcopy(lesson)
    first = next(c for c in changed["cells"] if c["cell_type"] == "markdown")
    first["source"] = "".join(first["source"]) + "\n\nA sentence the course added later."
    root = tmp_path / "course"
    (root / LESSON).parent.mkdir(parents=True)
    (root / LESSON).write_text(json.dumps(changed, indent=1, ensure_ascii=False) + "\n")
    built = json.loads((site_check.SITE / build_site.COURSE_VERSIONS).read_text())
    versions = copy.deepcopy(built)
    versions.update(build_site.course_versions(root, [LESSON], UPDATED))
    versions["notebooks"] = {**built["notebooks"], **versions["notebooks"]}
    return changed, versions, built


# Each notebook opened starts a Pyodide kernel in a worker, which this test does not need: shut
# down, so that the page keeps the machine's cores (on 2 busy cores, JupyterLab drawing a second
# copy of the graphs lesson, opened beside, took 70 s while kernels started).
SHUT_DOWN_KERNELS = """async () => {
  const sessions = window.jupyterapp.serviceManager.sessions;
  await sessions.refreshRunning();
  const ids = [];
  const running = Array.from(sessions.running());
  for (const session of running) {
    ids.push(session.id);
    if (session.kernel) ids.push(session.kernel.id);
  }
  // each one recorded, then shut down (shutdownAll would also end a session started since
  // the list was read, which the page would then miss without the test knowing its id)
  await Promise.all(running.map((session) => sessions.shutdown(session.id)));
  return ids;
}"""
SHUT = set()  # the ids of the sessions and kernels shut down, which the page then misses


# Every open notebook's kernel started and idle, or gone. A kernel shut down while it starts has
# its worker's look-up of the drive fail without an id ("NetworkError: Failed to execute 'send'
# on 'XMLHttpRequest' ... /api/drive", then Pyodide's fatal error): seen on a loaded machine for
# the reopened lesson (stop CI of 852d699), then for a lesson opened in step 1 or 3 (stop CI of
# a76ee5e), so no kernel is shut down before it is idle.
KERNELS_SETTLED = """() => Array.from(window.jupyterapp.shell.widgets('main'))
  .filter((widget) => widget.sessionContext)
  .every((widget) => {
    const context = widget.sessionContext;
    const kernel = context.session && context.session.kernel;
    return context.isReady && (!kernel || kernel.status === 'idle');
  })"""


def shut_down_kernels(page):
    site_check.browser_check.wait_until(lambda: page.evaluate(KERNELS_SETTLED),
                                        site_check.KERNEL_START,
                                        "the open notebooks' kernels to be idle")
    SHUT.update(page.evaluate(SHUT_DOWN_KERNELS))


def wait_found(page, path, timeout=120):
    found = site_check.browser_check.wait_until(lambda: page.evaluate(FOUND, path), timeout,
                                                f"the course-version check of {path}")
    shut_down_kernels(page)
    return found


def wait_text(locator, *texts, timeout=30):
    """The locator's text once it holds all ``texts``: an element whose state attribute is
    set may be drawn with its words a moment later (WebKit: an empty innerText at first)."""
    deadline = time.monotonic() + timeout
    while True:
        said = locator.inner_text()
        if all(text in said for text in texts) or time.monotonic() > deadline:
            return said
        time.sleep(0.25)


def shot(page, name):
    page.screenshot(path=str(artifacts(page) / f"course_update__{name}.png"), timeout=180_000)


@pytest.fixture(params=ENGINES)
def engine(request):
    return engine_or_skip(request.param)


def test_a_changed_lesson_says_so_and_gives_the_new_version_beside_the_learners(tmp_path,
                                                                               engine):
    changed, versions, built = changed_lesson(tmp_path)
    assert versions["notebooks"][LESSON] != built["notebooks"][LESSON]
    assert versions["notebooks"][WELCOME] == built["notebooks"][WELCOME]
    with UpdatableSite() as server, contextlib.ExitStack() as stack:
        playwright = None
        if engine == "chromium":
            from playwright.sync_api import sync_playwright
            playwright = stack.enter_context(sync_playwright())
        browser = stack.enter_context(fresh_profile(engine, server.base, playwright))
        errors, lookups = watch_errors(browser, server.base)
        try:
            page = browser.page
            page.set_default_timeout(180_000)  # a busy 2-core machine
            # JupyterLab's autosave off: it saves an open notebook JupyterLab itself marked
            # changed (the kernel's name in its metadata) every 2 minutes, which is the
            # learner's editor at work, not this notice; with it off, only the test's saves and
            # the notice could write a copy.
            page.goto(f"{server.base}/lab/index.html")
            wait_app(page)
            page.evaluate(NO_AUTOSAVE)
            # 1. the learner's copies, made from the site as built
            page.goto(f"{server.base}/lab/index.html")
            wait_app(page)
            assert page.evaluate(AUTOSAVE) is False
            for path in (LESSON, WELCOME):
                assert page.evaluate(OPEN, path)
                assert wait_found(page, path) == "site"  # the site's file: marked when saved
                assert page.evaluate(EDIT_AND_SAVE, [path, NOTE]) is False, path
            mine = page.evaluate(STORED, [LESSON, WELCOME])
            for path in (LESSON, WELCOME):
                assert mine[path]["metadata"][KEY] == {"copied_from": built["notebooks"][path],
                                                       "notebook": path}
                assert "".join(mine[path]["cells"][0]["source"]).endswith(NOTE)
            assert page.locator(BAR).count() == 0
            when = page.evaluate(MODIFIED, [LESSON, WELCOME])

            # 2. the course changes the lesson; the site is rebuilt; the learner comes back
            server.overlay[f"files/{LESSON}"] = json.dumps(changed).encode()
            server.overlay[build_site.COURSE_VERSIONS] = json.dumps(versions).encode()
            page.goto(f"{server.base}/lab/index.html?path={LESSON}")
            wait_app(page)
            assert wait_found(page, LESSON) == "update"
            bar = page.locator(f"{BAR}[data-state=offer]")
            bar.wait_for()
            said = wait_text(bar, CATALOG["en"]["update.changed"].format(date=UPDATED),
                             CATALOG["en"]["update.take"])
            assert CATALOG["en"]["update.changed"].format(date=UPDATED) in said, said
            assert CATALOG["en"]["update.take"] in said, said
            shot(page, "1_notice")
            assert page.evaluate(STORED, [LESSON]) == {LESSON: mine[LESSON]}

            page.locator(f"{BAR} .autograd-course-update-take").click()
            page.locator(f"{BAR}[data-state=made]").wait_for()
            assert page.get_attribute(BAR, "data-fresh") == FRESH
            made = CATALOG["en"]["update.made"].format(name=FRESH.split("/")[-1])
            said = wait_text(page.locator(BAR), made)
            assert made in said, said
            assert wait_found(page, FRESH) == "current"  # opened beside, and of the new version
            shot(page, "2_fresh_copy_beside")
            stored = page.evaluate(STORED, [LESSON, FRESH])
            assert stored[LESSON] == mine[LESSON], "the learner's copy was changed"
            assert stored[FRESH] == {**changed, "metadata": {
                **changed["metadata"], KEY: {"copied_from": cells_digest(changed),
                                             "notebook": LESSON}}}
            listing = page.evaluate(LISTING, LESSON.rsplit("/", 1)[0])
            assert LESSON in listing and FRESH in listing

            # 3. lesson 00, unchanged in the course: no notice; a lesson never saved: the site's
            assert page.evaluate(OPEN, WELCOME)
            assert wait_found(page, WELCOME) == "current"
            assert page.evaluate(OPEN, EXERCISE)
            assert wait_found(page, EXERCISE) == "site"
            assert page.evaluate(MODIFIED, [LESSON, WELCOME]) == when

            # 4. the changed lesson opened again: the fresh copy is there, no second one made
            page.goto(f"{server.base}/lab/index.html?path={LESSON}")
            wait_app(page)
            there = page.locator(f"{BAR}[data-state=there]")
            there.wait_for()
            assert page.get_attribute(BAR, "data-fresh") == FRESH
            there_text = CATALOG["en"]["update.there"].format(name=FRESH.split("/")[-1])
            said = wait_text(there, there_text)
            assert there_text in said, said
            shot(page, "3_opened_again")
            listing = page.evaluate(LISTING, LESSON.rsplit("/", 1)[0])
            assert [p for p in listing if "(course update" in p] == [FRESH], listing
            assert page.evaluate(STORED, [LESSON, WELCOME]) == mine
            assert page.evaluate(MODIFIED, [LESSON, WELCOME]) == when
            # the reopened lesson's kernel shut down before the browser closes (once idle)
            shut_down_kernels(page)
        except Exception:
            shot(page, "failed")  # what the page showed
            raise
        finally:
            browser.close()
    # (told apart at the end: an error may come before its kernel's id is known here)
    errors = [error for error in errors
              if not shut_down_by_the_test(error) and not NAVIGATED_AWAY.search(error)]
    assert not errors, errors
    printed = json.dumps(json.loads((site_check.ROOT / LESSON).read_text())["cells"])
    assert all(f"/{folder}/" in printed and not (site_check.SITE / "files" / folder).exists()
               for folder in lookups), lookups
