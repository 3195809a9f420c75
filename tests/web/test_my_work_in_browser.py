"""The learner's work in the browser edition (`make site`, then `make test-site`): File ->
"Download my work" saves every notebook the learner changed as one zip, and "Import my work"
puts them back (course_tools/labextension, part 3), against the built site, in three engines:
headless Chromium (playwright), Firefox ESR and WebKit (Safari's engine) through WebDriver
(course_tools/site/drivers.py: the browser saves the download itself into its profile's
folder, and its own file input is given the zip).

The round trip, as a learner does it: in one browser profile, two notebooks are edited and
saved through the page and a new one is made; the zip is downloaded from the File menu (the
test captures the download); then in a new profile (the site's storage empty, as after
clearing the site's data or in another browser) the zip is imported from the site's first page,
and every notebook is byte-identical to what was downloaded. Then the learner changes a restored
notebook and imports the same zip again: their copy stays as it is, the zip's goes beside it.

Skipped, with the reason, like tests/web/test_site.py (no site built, no Chromium, no
playwright) and tests/web/test_other_browsers.py (no Firefox, no WebKitWebDriver). Screenshots:
tests/browser_artifacts/site/my_work__*.png (Chromium), site/<engine>/my_work__*.png.
"""
import contextlib
import json
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from course_tools.site import check as site_check
from course_tools.site import drivers

from .test_site import skip_reason

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]

ENGINES = ["chromium", "firefox", "webkit"]

LESSON, _, EXERCISE, _ = (p.as_posix() for p in site_check.site_notebooks())
UNTOUCHED = "notebooks/99_gallery.ipynb"  # never opened: never in the zip
NOTE = "\n\nMy note: the leaf's grad is None until backward ✅ (été)"
DOWNLOAD_LABEL = "Download my work"
IMPORT_LABEL = "Import my work"
RESULTS = "#autograd-course-work .autograd-course-work-body[data-results]"

APP_READY = "() => !!(window.jupyterapp && window.jupyterapp.shell && " \
            "window.jupyterapp.commands.hasCommand('autograd-step-by-step:download-my-work') && " \
            "window.jupyterapp.commands.hasCommand('docmanager:open'))"

# Open a notebook, add a line to its first cell, save it: what a learner does with the keyboard.
EDIT_AND_SAVE = """async ([path, note]) => {
  const app = window.jupyterapp;
  await app.restored;
  const panel = await app.commands.execute('docmanager:open', {path});
  await panel.context.ready;
  const cell = panel.content.model.cells.get(0);
  cell.sharedModel.setSource(cell.sharedModel.getSource() + note);
  await panel.context.save();
  return panel.context.model.dirty;
}"""
NEW_NOTEBOOK = """async () => {
  const model = await window.jupyterapp.commands.execute('docmanager:new-untitled',
                                                         {path: '', type: 'notebook'});
  return model.path;
}"""
STORED = """async (paths) => {
  const contents = window.jupyterapp.serviceManager.contents;
  const found = {};
  for (const path of paths) {
    found[path] = (await contents.get(path, {content: true})).content;
  }
  return found;
}"""


def watch_errors(browser):
    """The page's errors and console errors as they come, but the browser's own request for
    /favicon.ico (JupyterLite's lab page names no icon; Chromium asks for one after a
    navigation): a 404 that is not the course's. Firefox and WebKit: what their driver sees
    (course_tools/site/drivers.py)."""
    if not hasattr(browser.page, "on"):
        browser.page_errors.clear()
        return browser.page_errors
    errors = []
    browser.page.on("pageerror", lambda error: errors.append(str(error)))
    browser.page.on("console", lambda message: errors.append(message.text) if message.type
                    == "error" and not message.location.get("url", "").endswith("/favicon.ico")
                    else None)
    return errors


def wait_app(page):
    def ready():
        try:
            return page.evaluate(APP_READY)
        except drivers.BrowserError:  # Firefox, WebKit: the page being replaced after a click
            return False

    site_check.browser_check.wait_until(ready, site_check.PAGE_LOAD,
                                        "JupyterLab with the course's extension")
    if hasattr(page, "watch_errors"):  # WebKit: a page reached by a click is watched from now
        page.watch_errors()


def download_from_the_file_menu(page, target):
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    with page.expect_download(timeout=60_000) as download:
        page.locator(".lm-Menu-itemLabel", has_text=DOWNLOAD_LABEL).first.click()
    download.value.save_as(target)
    page.wait_for_selector("#autograd-course-work a[download]", timeout=30_000)
    return download.value.suggested_filename


def entries(path):
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None  # every CRC right
        return {info.filename: archive.read(info) for info in archive.infolist()}


def artifacts(page):
    """Chromium's screenshots in tests/browser_artifacts/site/, the others' in site/<engine>/."""
    folder = site_check.ARTIFACTS / getattr(page, "name", "")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(page, name):
    page.screenshot(path=str(artifacts(page) / f"my_work__{name}.png"))


@pytest.fixture(scope="module")
def server():
    # (the server adds exposeAppInBrowser for the WebDriver engines; Chromium's route does)
    with site_check.SiteServer(expose_app=True) as running:
        yield running


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as running:
        yield running


def engine_or_skip(engine):
    if engine != "chromium" and drivers.missing(engine):
        pytest.skip(f"{engine} cannot run here: {drivers.missing(engine)}")
    return engine


@contextlib.contextmanager
def fresh_profile(engine, base, playwright=None):
    """The engine with a fresh profile (the site's storage empty), offline but for ``base``;
    the caller closes the browser (before its assertions on the page's errors, which WebKit
    reads as it closes)."""
    with tempfile.TemporaryDirectory(prefix=f"site-{engine}-") as profile:
        if engine == "chromium":
            yield site_check.OfflineBrowser(playwright, profile, base)
        else:
            yield site_check.WebDriverBrowser(engine, Path(profile), base)


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    return engine_or_skip(request.param)


@pytest.fixture(scope="module")
def new_profile(engine, server, request):
    """fresh_profile for this module's engine and server."""
    playwright = request.getfixturevalue("playwright") if engine == "chromium" else None
    return lambda: fresh_profile(engine, server.base, playwright)


@pytest.fixture(scope="module")
def downloaded(new_profile, server, tmp_path_factory):
    """Profile 1: two notebooks edited and saved, one made; the zip from the File menu."""
    started = time.monotonic()
    folder = tmp_path_factory.mktemp("work")
    with new_profile() as browser:
        errors = watch_errors(browser)
        try:
            page = browser.page
            page.goto(f"{server.base}/lab/index.html")
            wait_app(page)
            for path in (LESSON, EXERCISE):
                assert page.evaluate(EDIT_AND_SAVE, [path, NOTE]) is False, path
            made = page.evaluate(NEW_NOTEBOOK)
            name = download_from_the_file_menu(page, folder / "work.zip")
            shot(page, "1_downloaded")
            said = page.inner_text("#autograd-course-work")
        finally:
            browser.close()
    print(f"profile 1 (edit two, make one, download): {time.monotonic() - started:.1f} s")
    return {"zip": folder / "work.zip", "name": name, "made": made, "said": said,
            "errors": errors}


def test_the_zip_holds_the_changed_notebooks_only(downloaded):
    files = entries(downloaded["zip"])
    print(downloaded["name"], sorted(files), downloaded["said"], sep="\n")
    assert downloaded["name"].startswith("autograd-my-work-") and downloaded["name"].endswith(
        ".zip")
    assert {LESSON, EXERCISE, downloaded["made"]} <= set(files), sorted(files)
    assert UNTOUCHED not in files and "solutions/" not in " ".join(files), sorted(files)
    for path in (LESSON, EXERCISE):
        notebook = json.loads(files[path])
        assert "".join(notebook["cells"][0]["source"]).endswith(NOTE), path
        # nbformat's own layout: keys sorted, indent 1, UTF-8 as is, a final newline
        assert files[path].decode() == json.dumps(notebook, indent=1, sort_keys=True,
                                                  ensure_ascii=False) + "\n", path
    assert f"with the {len(files)} notebooks you changed" in downloaded["said"]
    assert not downloaded["errors"], downloaded["errors"]


def import_zip(page, zip_path):
    page.set_input_files("#autograd-course-work input.autograd-course-work-file", str(zip_path))
    page.wait_for_selector(RESULTS, timeout=60_000)
    return json.loads(page.get_attribute(RESULTS, "data-results"))


def test_import_into_an_empty_browser_gives_back_the_same_bytes(downloaded, server, new_profile,
                                                                 tmp_path):
    """Profile 2 (storage empty): the first page's "Import my work", the zip chosen; every
    notebook is restored at its path, and stored as the same notebook: downloaded again, the
    same bytes. Then a restored notebook changed again and the zip imported again: kept both."""
    started = time.monotonic()
    files = entries(downloaded["zip"])
    with new_profile() as browser:
        errors = watch_errors(browser)
        try:
            page = browser.page
            page.goto(f"{server.base}/index.html")
            first_page = page.inner_text("body")
            shot(page, "0_first_page")
            page.get_by_role("link", name=IMPORT_LABEL).click()
            wait_app(page)
            page.wait_for_selector("#autograd-course-work input[type=file]", timeout=30_000)
            results = import_zip(page, downloaded["zip"])
            shot(page, "2_imported")
            print(results)
            assert sorted(r["path"] for r in results if r.get("restored")) == sorted(files)

            stored = page.evaluate(STORED, sorted(files))
            for path, data in files.items():
                assert stored[path] == json.loads(data), path
            page.locator("#autograd-course-work button", has_text="Close").click()
            download_from_the_file_menu(page, tmp_path / "again.zip")
            again = entries(tmp_path / "again.zip")
            assert again == files  # byte for byte, every notebook, and no other
            page.locator("#autograd-course-work button", has_text="Close").click()

            # Never silently replaced: the learner's changed copy stays, the zip's goes beside.
            assert page.evaluate(EDIT_AND_SAVE, [LESSON, "\n\nChanged after the import."]) \
                is False
            page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
            page.locator(".lm-Menu-itemLabel", has_text=IMPORT_LABEL).first.click()
            second = import_zip(page, downloaded["zip"])
            shot(page, "3_kept_both")
            said = page.inner_text("#autograd-course-work")
            beside = LESSON.replace(".ipynb", "-imported.ipynb")
            assert [r for r in second if r.get("beside")] == [{"path": LESSON,
                                                                "beside": beside}], second
            assert all(r.get("unchanged") for r in second if r["path"] != LESSON), second
            assert f"kept both: {LESSON} is yours as it was; the zip's copy is {beside}" in said
            now = page.evaluate(STORED, [LESSON, beside])
            assert "".join(now[LESSON]["cells"][0]["source"]).endswith(
                "Changed after the import."), "the learner's copy was replaced"
            assert now[beside] == json.loads(files[LESSON])
        finally:
            browser.close()
    print(f"profile 2 (import, download again, change, import again): "
          f"{time.monotonic() - started:.1f} s")
    assert not errors, errors
    assert "Download my work" in first_page and "Import my work" in first_page, first_page


EDIT_NO_SAVE = """async ([path, note]) => {
  const app = window.jupyterapp;
  await app.restored;
  const panel = await app.commands.execute('docmanager:open', {path});
  await panel.context.ready;
  const cell = panel.content.model.cells.get(0);
  cell.sharedModel.setSource(cell.sharedModel.getSource() + note);
  return panel.context.model.dirty;
}"""
OPEN_SOURCE = """(path) => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(
    widget => widget.context && widget.context.path === path);
  return panel.content.model.cells.get(0).sharedModel.getSource();
}"""


def test_an_open_notebook_with_unsaved_changes_is_never_replaced(downloaded, server,
                                                                  new_profile):
    """Profile 3: the lesson open, typed in but not saved (its stored copy is still the
    course's): importing the zip puts the zip's lesson beside it, and the open one keeps what
    was typed (saving it then would have undone a restore)."""
    started = time.monotonic()
    files = entries(downloaded["zip"])
    with new_profile() as browser:
        errors = watch_errors(browser)
        try:
            page = browser.page
            page.goto(f"{server.base}/lab/index.html?course-work=import")
            wait_app(page)
            page.locator("#autograd-course-work button", has_text="Close").click()
            typed = "\n\nTyped, not saved yet."
            assert page.evaluate(EDIT_NO_SAVE, [LESSON, typed]) is True
            page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
            page.locator(".lm-Menu-itemLabel", has_text=IMPORT_LABEL).first.click()
            results = import_zip(page, downloaded["zip"])
            shot(page, "4_open_and_unsaved")
            said = page.inner_text("#autograd-course-work")
            beside = LESSON.replace(".ipynb", "-imported.ipynb")
            assert {"path": LESSON, "beside": beside, "unsaved": True} in results, results
            assert "(open here, with changes not saved yet)" in said, said
            assert page.evaluate(OPEN_SOURCE, LESSON).endswith(typed)
            stored = page.evaluate(STORED, [beside, EXERCISE])
            assert stored[beside] == json.loads(files[LESSON])
            assert stored[EXERCISE] == json.loads(files[EXERCISE])  # not open: restored
        finally:
            browser.close()
    print(f"profile 3 (open, unsaved, import): {time.monotonic() - started:.1f} s")
    assert not errors, errors


def test_my_progress_reads_the_stored_exercise_notebooks(server, new_profile, tmp_path):
    """Profile 4: the worked answers of the graphs-and-leaves exercises (with their checks'
    outputs) imported as the learner's exercise notebook, from a zip made by another program
    (deflated); the first page's "My progress" lists its exercises as `make progress` would
    (course_tools/workspace.exercise_states), and every other exercise as not started."""
    from course_tools import workspace

    started = time.monotonic()
    worked = site_check.ROOT / "solutions" / EXERCISE.split("/", 1)[1]
    with zipfile.ZipFile(tmp_path / "worked.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(EXERCISE, worked.read_bytes())
    want = [list(s) for s in workspace.exercise_states(worked, site_check.ROOT / EXERCISE)]
    with new_profile() as browser:
        errors = watch_errors(browser)
        try:
            page = browser.page
            page.goto(f"{server.base}/lab/index.html?course-work=import")
            wait_app(page)
            page.wait_for_selector("#autograd-course-work input[type=file]", timeout=30_000)
            assert import_zip(page, tmp_path / "worked.zip") == [{"path": EXERCISE,
                                                                  "restored": True}]
            page.goto(f"{server.base}/index.html")
            page.get_by_role("link", name="My progress").click()
            wait_app(page)
            found = "#autograd-course-work [data-progress]"
            page.wait_for_selector(found, timeout=60_000)
            shown = json.loads(page.get_attribute(found, "data-progress"))
            total = page.inner_text(".autograd-progress-total")
            shot(page, "5_progress")
        finally:
            browser.close()
    print(f"profile 4 (import worked answers, My progress): {time.monotonic() - started:.1f} s")
    print(total)
    by_path = {notebook["path"]: notebook["states"] for notebook in shown}
    assert by_path[EXERCISE] == want
    courses = sorted(p.relative_to(site_check.ROOT).as_posix()
                     for p in (site_check.ROOT / "exercises").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(by_path) == courses
    others = [s for path, states in by_path.items() if path != EXERCISE for *_, s in states]
    assert set(others) == {workspace.NOT_STARTED}
    done = sum(state == workspace.DONE for *_, state in want)
    assert done and total.startswith(f"Total: {done} done, 0 not quite, "), total
    assert not errors, errors


STATUS = """() => { const line = document.querySelector('.autograd-kernel-starting');
  return line ? {text: line.textContent, shown: !!line.offsetParent} : null; }"""


def test_while_the_kernel_starts_the_notebook_says_so(server, playwright):
    """Lesson 00 opened: until the Pyodide kernel is idle, the notebook's toolbar says what is
    starting and for how long (not only the status bar's "Initializing"); then the line goes."""
    started = time.monotonic()
    seen, shown_at = [], None
    with tempfile.TemporaryDirectory() as profile:
        browser = site_check.OfflineBrowser(playwright, profile, server.base)
        errors = watch_errors(browser)
        try:
            page = browser.page
            page.goto(f"{server.base}/lab/index.html?path={LESSON}")
            deadline = time.monotonic() + site_check.KERNEL_START
            while page.evaluate(site_check.KERNEL_STATUS) != "idle":
                assert time.monotonic() < deadline, "the kernel did not start"
                state = page.evaluate(STATUS)
                if state and state["shown"]:
                    seen.append(state["text"])
                    if not shown_at and state["text"].endswith(("8 s", "9 s")):
                        shot(page, "6_kernel_starting")  # past JupyterLab's splash screen
                        shown_at = state["text"]
                page.wait_for_timeout(500)
            ready = time.monotonic() - started
            page.wait_for_timeout(1500)
            after = page.evaluate(STATUS)
        finally:
            browser.close()
    print(f"kernel idle after {ready:.1f} s; the line said {len(seen)} times, last: "
          f"{seen[-1] if seen else None!r}")
    assert seen, "no status line while the kernel started"
    assert all(text.startswith("Starting Python, numpy and the course: ")
               for text in seen), seen
    seconds = [int(text.rsplit(": ", 1)[1].removesuffix(" s")) for text in seen]
    assert seconds == sorted(seconds) and seconds[-1] >= 3, seconds  # it counts
    assert after is not None and not after["shown"], after
    assert not errors, errors
