"""The course in Firefox ESR and in WebKit (Safari's engine), as it runs in Chromium.

Two parts:
- the WebDriver page (course_tools/site/drivers.py) on a small page of our own: what the site
  check asks of it (scripts, locators, clicks, drags, screenshots), and that the browser is
  offline but for 127.0.0.1 (runs in `make test` when the browser is installed);
- the built site (`make site`, then `make test-site`): a lesson with graphs, an exercise
  notebook with its checks and the gallery (the stepper, sliders, the playground), run cell by
  cell, checked as course_tools/site/check.py checks them in Chromium; screenshots in
  tests/browser_artifacts/site/<browser>/.

A browser this machine cannot start is a skip that says why (`apt-get install firefox-esr`,
`webkit2gtk-driver xvfb`), never a pass.
"""
import json
import re

import pytest

from course_tools.site import check as site_check
from course_tools.site import drivers

ENGINES = ["firefox", "webkit"]

PAGE = """<!doctype html><meta charset="utf-8"><title>driver test</title>
<style>body { margin: 0 } #pad { position: absolute; left: 100px; top: 300px;
  width: 300px; height: 60px; background: #ddd }</style>
<ul><li class="item">Play</li><li class="item"> Step </li><li class="item">Stepper</li></ul>
<button id="b" onclick="window.clicks = (window.clicks || 0) + 1">Step</button>
<button id="off" disabled>Back</button>
<button id="late" disabled onclick="window.lateClicks = 1">Later</button>
<div id="pad" data-x="none"></div>
<input type="file" id="file"><button id="download">Download</button>
<script>
document.getElementById('file').onchange = async (event) => {
  const file = event.target.files[0];
  window.chosen = {name: file.name, text: await file.text()};
};
document.getElementById('download').onclick = () => {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob(['PK made in the page ✅'], {type: 'application/zip'}));
  link.download = 'my-work.zip';
  document.body.appendChild(link);
  link.click();
  link.remove();
};
const pad = document.getElementById('pad');
window.path = [];
pad.addEventListener('pointerdown', e => window.path.push(['down', e.clientX]));
pad.addEventListener('pointermove', e => { if (e.buttons) window.path.push(['move', e.clientX]) });
pad.addEventListener('pointerup', e => window.path.push(['up', e.clientX]));
</script>
"""


def engine_or_skip(engine):
    reason = drivers.missing(engine)
    if reason:
        pytest.skip(f"{engine} cannot run here: {reason}")


@pytest.fixture(scope="module", params=ENGINES)
def small_page(request, tmp_path_factory):
    engine_or_skip(request.param)
    root = tmp_path_factory.mktemp(f"page-{request.param}")
    (root / "index.html").write_text(PAGE)
    with site_check.SiteServer(root) as server:
        page = drivers.open_page(request.param, site_check.VIEWPORT, root / "browser")
        try:
            page.goto(server.base + "/index.html")
            yield page
        finally:
            page.close()


def test_scripts_run_in_the_page(small_page):
    assert small_page.evaluate("() => document.title") == "driver test"
    assert small_page.evaluate("async (x) => x.a + 1", {"a": 41}) == 42
    assert small_page.evaluate("() => undefined") is None
    with pytest.raises(drivers.BrowserError, match="boom"):
        small_page.evaluate("() => { throw new Error('boom') }")


def test_locators_find_what_playwright_finds(small_page):
    items = small_page.locator("li.item")
    assert items.count() == 3
    assert items.nth(1).inner_text().strip() == "Step"
    assert items.filter(has_text="step").count() == 2  # a string: substring, any case
    assert small_page.locator("li", has_text=re.compile(r"^\s*Step\s*$")).count() == 1
    assert small_page.locator("ul").locator("li").first.inner_text() == "Play"
    assert small_page.locator("#off").is_disabled() and not small_page.locator("#b").is_disabled()
    assert small_page.locator("#pad").get_attribute("data-x") == "none"
    assert small_page.locator("#nothing").count() == 0
    with pytest.raises(drivers.BrowserError, match="no element"):
        small_page.locator("#nothing").inner_text()


def test_clicks_and_drags_are_real_input(small_page):
    small_page.locator("#b").click()
    small_page.locator("#b").click()
    assert small_page.evaluate("() => window.clicks") == 2
    # As playwright's: a click waits for its button to be enabled (the stepper's Step is
    # disabled while the kernel answers the previous one).
    small_page.evaluate("() => { setTimeout(() => document.getElementById('late')"
                        ".disabled = false, 700) }")
    small_page.locator("#late").click()
    assert small_page.evaluate("() => window.lateClicks") == 1
    box = small_page.locator("#pad").bounding_box()
    assert box == {"x": 100, "y": 300, "width": 300, "height": 60}
    small_page.mouse.move(150, 330)
    small_page.mouse.down()
    small_page.mouse.move(200, 330)
    small_page.mouse.up()
    path = small_page.evaluate("() => window.path")
    assert path[0] == ["down", 150] and path[-1] == ["up", 200], path
    assert any(kind == "move" and 150 < x <= 200 for kind, x in path), path


def test_screenshots_are_pngs(small_page, tmp_path):
    small_page.screenshot(path=str(tmp_path / "shot.png"))
    assert (tmp_path / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_browser_saves_a_download_and_chooses_a_file(small_page, tmp_path):
    """What "Download my work" and "Import my work" need (tests/web/test_my_work_in_browser.py):
    a link's download saved by the browser itself, without a dialog; a file given to the
    page's own file input, its change event fired."""
    with small_page.expect_download(timeout=30_000) as download:
        small_page.locator("#download").click()
    assert download.value.suggested_filename == "my-work.zip"
    download.value.save_as(tmp_path / "saved.zip")
    assert (tmp_path / "saved.zip").read_text() == "PK made in the page ✅"
    (tmp_path / "mine.zip").write_text("chosen ✅")
    small_page.set_input_files("#file", tmp_path / "mine.zip")
    site_check.browser_check.wait_until(lambda: small_page.evaluate("() => window.chosen"), 10,
                                        "the file input's change event")
    assert small_page.evaluate("() => window.chosen") == {"name": "mine.zip",
                                                          "text": "chosen ✅"}


def test_the_pages_errors_are_seen(small_page):
    small_page.evaluate("() => { console.error('said on the console'); "
                        "setTimeout(() => { throw new Error('thrown later'); }, 0); }")
    small_page.wait_for_timeout(500)
    small_page.evaluate("() => 1")  # (Firefox: its events arrive with a command's answer)
    if hasattr(small_page, "collect_errors"):  # WebKit: the page keeps them until asked
        small_page.collect_errors()
    assert any("said on the console" in error for error in small_page.page_errors), \
        small_page.page_errors
    assert any("thrown later" in error for error in small_page.page_errors), \
        small_page.page_errors


def test_the_browser_is_offline_but_for_127_0_0_1(small_page):
    """Only the site's server answers: a request to any other host fails at once."""
    outcome = small_page.evaluate("""async () => {
        try { await fetch('http://example.com/', {mode: 'no-cors'}); return 'fetched'; }
        catch (error) { return 'refused'; } }""")
    assert outcome == "refused"
    assert small_page.evaluate("""async () => (await fetch(location.href)).status""") == 200


FAKE_WEBKIT_DRIVER = r"""#!{python}
# Answers /status at once; its first POST /session never answers (as WebKitWebDriver 2.50
# does about one start in twenty); later starts open a session.
import http.server, json, pathlib, sys, time
starts = pathlib.Path({starts!r})
starts.write_text(starts.read_text() + "x" if starts.exists() else "x")
class Handler(http.server.BaseHTTPRequestHandler):
    def _answer(self, value):
        body = json.dumps({{"value": value}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self._answer({{"ready": True}})
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/session" and len(starts.read_text()) == 1:
            time.sleep(600)
        self._answer({{"sessionId": "s1", "capabilities": {{"browserVersion": "fake"}}}})
    def do_DELETE(self):
        self._answer(None)
    def log_message(self, *args):
        pass
port = int(sys.argv[1].split("=")[1])
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


def test_a_webkit_driver_that_never_opens_its_session_is_restarted(tmp_path, monkeypatch):
    """CI waited 11 minutes on WebKitWebDriver's first POST /session and failed; a start is
    now bounded and retried on a fresh driver, and the log says so."""
    import sys
    fake = tmp_path / "WebKitWebDriver"
    fake.write_text(FAKE_WEBKIT_DRIVER.format(python=sys.executable,
                                              starts=str(tmp_path / "starts")))
    fake.chmod(0o755)
    monkeypatch.setattr(drivers, "WEBKIT_DRIVER", str(fake))
    monkeypatch.setattr(drivers, "SESSION_START", 2)
    monkeypatch.setenv("DISPLAY", ":0")  # no Xvfb: nothing is drawn
    page = drivers.WebKitPage(site_check.VIEWPORT, tmp_path / "work")
    try:
        assert page.version == "fake"
        assert (tmp_path / "starts").read_text() == "xx"
    finally:
        page.close()
    log = (tmp_path / "work" / "webkit.log").read_text()
    assert "start 1 of 3 failed: TimeoutError" in log, log

    (tmp_path / "starts").write_text("")  # every start now hangs: three tries, then a clear error
    monkeypatch.setattr(drivers, "SESSION_START", 1)
    fake.write_text(fake.read_text().replace("len(starts.read_text()) == 1", "True"))
    with pytest.raises(drivers.BrowserError, match="never opened a session in 3 starts"):
        drivers.WebKitPage(site_check.VIEWPORT, tmp_path / "work2")
    assert (tmp_path / "starts").read_text() == "xxx"


# ------------------------------------------------------------------ the built site
def site_missing():
    if not (site_check.SITE / "jupyter-lite.json").exists():
        return (f"the site is not built ({site_check.SITE}/jupyter-lite.json missing): "
                "run `make site` first")
    return None


@pytest.fixture(scope="module", params=ENGINES)
def site_run(request):
    if site_missing():
        pytest.skip(site_missing())
    engine_or_skip(request.param)
    reports, about = site_check.run_in_engine(request.param,
                                              site_check.other_engine_notebooks())
    for report in reports:
        print(f"[{request.param} {about['version']}, JSPI {about['jspi']}] {report}")
    times = {r.notebook: {"seconds": round(r.seconds, 1), "kernel_ready": round(r.kernel or 0, 1),
                          "first_cell": round(r.first_cell or 0, 1), "ok": r.ok,
                          "screenshot": r.screenshot and r.screenshot.name}
             for r in reports}
    (site_check.ARTIFACTS / request.param / "times.json").write_text(json.dumps(
        {**about, "notebooks": times}, indent=1))
    return request.param, about, {r.notebook: r for r in reports}


def test_the_notebooks_run_as_in_chromium(site_run):
    """Every cell ran, errors only where tagged, every picture an SVG that fits (drawn by
    Python with JSPI, by the page without it), widgets live, the checks' verdicts."""
    engine, about, reports = site_run
    assert list(reports) == [p.as_posix() for p in site_check.other_engine_notebooks()]
    failed = [str(r) for r in reports.values() if not r.ok]
    assert not failed, "\n".join(failed)
    # (a page that showed nothing in time is loaded once more: once in a run, not more)
    assert sum(r.reloads for r in reports.values()) <= 1, [str(r) for r in reports.values()]
    for report in reports.values():
        assert report.screenshot and report.screenshot.exists()


def test_pictures_without_jspi_are_drawn_by_the_page(site_run):
    """WebKit has no WebAssembly JSPI: Python cannot wait for the page's Graphviz, so the
    pictures go to the page as DOT and the course's extension draws them. Firefox has it."""
    engine, about, reports = site_run
    lesson = reports[site_check.other_engine_notebooks()[0].as_posix()]
    drawn = [n for n in lesson.notes if "pictures drawn by the page" in n]
    if about["jspi"]:
        assert not drawn, lesson.notes
    else:
        assert drawn, lesson.notes
    assert engine != "webkit" or not about["jspi"]
