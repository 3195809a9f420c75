"""The Chinese site (build/site/zh-CN/, issue 30; course_tools/site/build.py, "the Chinese site").

- without a build: how the start pages are copied one folder deeper, and that the Chinese first
  page's template says what the English one says (the measured wait, the browsers tested);
- the built site: the Chinese site shares JupyterLab, Pyodide and the notebooks with the English
  one (only its start pages are its own), its configuration (its own browser storage, the zh_CN
  language pack, the kernel's language), its first page;
- in Chromium: the Chinese lesson 00, the graphs-and-leaves lesson and its exercise notebook run
  cell by cell in the Chinese JupyterLab (menus in Chinese, the checks' verdicts in Chinese, a
  right answer judged correct), the read-only Chinese pages, the learner's work of the two
  editions kept apart (a notebook saved in one edition's JupyterLab is not seen, nor
  overwritten, by the other's), and the course's File-menu entries and "My progress" dialog in
  Chinese;
- in Firefox ESR and WebKit: the same three notebooks (tests/web/test_other_browsers.py's
  drivers). Screenshots and times in tests/browser_artifacts/site/zh-CN/.

The browser parts are skipped, with the reason, when the site is not built or the browser is
missing.
"""
import html
import json
import re

import pytest

from course_tools.notebook_files import ROOT, course_notebooks
from course_tools.site import build, drivers
from course_tools.site import check as site_check

from .test_site import skip_reason

SITE = site_check.SITE
ZH = SITE / "zh-CN"
ARTIFACTS = site_check.ARTIFACTS / "zh-CN"
NOTEBOOKS = site_check.chinese_site_notebooks()
BROWSERS = ("Chromium", "Firefox", "WebKit", "Safari")


def built_or_skip():
    if not (ZH / "jupyter-lite.json").exists():
        pytest.skip(f"the Chinese site is not built ({ZH}/jupyter-lite.json missing): "
                    "run `make site` first")


# ------------------------------------------------------------------- without a build
def test_start_pages_copied_one_folder_deeper():
    page = ('<link rel="manifest" href="../manifest.webmanifest" />\n'
            '<link id="jupyter-lite-main" href="../build/lab/bundle.js?_=1" />\n'
            '<script id="jupyter-config-data" data-jupyter-lite-root="..">{}</script>\n'
            "await import('../config-utils.js?_=1'); url('./x') \"../../outside\"")
    deeper = build.one_folder_deeper(page, 1)
    assert 'href="../../manifest.webmanifest"' in deeper
    assert 'href="../../build/lab/bundle.js?_=1"' in deeper
    assert 'data-jupyter-lite-root="../.."' in deeper
    assert "import('../../config-utils.js?_=1')" in deeper
    assert "url('./x')" in deeper and '"../../outside"' in deeper  # not a climb to the root
    two = build.one_folder_deeper('<a href="../../build/x.js" data-jupyter-lite-root="../..">', 2)
    assert two == '<a href="../../../build/x.js" data-jupyter-lite-root="../../..">'


def test_the_chinese_first_page_says_what_the_english_one_says():
    english = (build.WEB / "index.html").read_text()
    chinese = (build.WEB / "index.zh-CN.html").read_text()
    for browser in BROWSERS:  # the browsers tested, named on both pages
        assert browser in english and browser in chinese, browser
    for name in ("lessons", "exercises", *build.first_result_values()):
        assert "{" + name + "}" in chinese, name
    for link in ("course-work=download", "course-work=import", "course-work=progress",
                 "PROVENANCE.txt", "read/"):
        assert link in english and link in chinese, link
    assert 'href="zh-CN/index.html"' in english and 'href="../index.html"' in chinese
    assert "lab/index.html?path=notebooks/zh-CN/00_welcome.ipynb" in chinese
    assert 'id="jupyter-config-data"' in chinese  # JupyterLite reads every folder's
    # the entries named as the Chinese site's File menu names them (the extension's catalog)
    catalog = json.loads((build.LABEXTENSION / "static" / "messages.json").read_text())
    for key in ("work.download.title", "work.import.title", "progress.title"):
        assert catalog["zh-CN"][key] in chinese and catalog["en"][key] not in chinese, key


# ------------------------------------------------------------------- the built site
def test_the_chinese_site_shares_the_big_files():
    built_or_skip()
    own = sorted(path.relative_to(ZH).as_posix() for path in ZH.rglob("*") if path.is_file())
    size = sum((ZH / name).stat().st_size for name in own)
    print(f"zh-CN/: {len(own)} files, {size / 1e3:.0f} kB")
    assert size < 200_000, own
    assert not any(name.split("/")[0] in ("build", "extensions", "static", "api", "files")
                   for name in own), own
    for page in ZH.rglob("index.html"):
        for target in re.findall(r'(?:href|src)="([^"?#]+\.(?:js|webmanifest))', page.read_text()):
            assert (page.parent / target).resolve().is_file(), (page, target)
        for target in re.findall(r"import\(\s*'([^'?]+)", page.read_text()):
            assert (page.parent / target).resolve().is_file(), (page, target)
    for folder in ("notebooks/zh-CN", "exercises/zh-CN", "solutions/zh-CN"):
        assert list((SITE / "files" / folder).glob("[0-9]*.ipynb")), folder


def test_the_chinese_site_has_its_own_storage_menus_and_kernel_language():
    built_or_skip()
    english = json.loads((SITE / "jupyter-lite.json").read_text())["jupyter-config-data"]
    chinese = json.loads((ZH / "jupyter-lite.json").read_text())["jupyter-config-data"]
    for key in ("contentsStorageName", "settingsStorageName"):
        # the English site keeps JupyterLite's default name ("JupyterLite Storage - <baseUrl>")
        assert key not in english and chinese[key] and "zh-CN" in chinese[key], key
    assert chinese["contentsStorageName"] != chinese["settingsStorageName"]
    assert chinese["settingsOverrides"]["@jupyterlab/translation-extension:plugin"] == {
        "locale": "zh_CN"}
    pack = json.loads((SITE / "api" / "translations" / "zh_CN.json").read_text())
    assert pack["data"]["jupyterlab"]["Run"] == ["运行"], "the zh_CN language pack"
    plugin = build.KERNEL_PLUGIN
    ours = chinese["litePluginSettings"][plugin]["loadPyodideOptions"]
    theirs = english["litePluginSettings"][plugin]["loadPyodideOptions"]
    assert ours["packages"] == theirs["packages"]
    assert ours["env"] == {**theirs["env"], "COURSE_SITE_LANGUAGE": "zh-CN"}
    assert chinese["courseLanguage"] == "zh-CN"
    app = json.loads((ZH / "lab" / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert app["appUrl"] == "/zh-CN/lab"


def test_the_built_chinese_first_page():
    built_or_skip()
    page = (ZH / "index.html").read_text()
    assert not re.findall(r"\{[a-z_]+\}", page)
    values = build.first_result_values()  # bench/first_result.json, as the English page
    text = " ".join(page.split())
    for said in (f"用了 {values['course']} 秒", f"运行 {values['runs']} 次",
                 f"{values['cores']} 核的机器", f"负载 {values['load']}", f"{values['date']} 测量",
                 f"JupyterLite 用了 {values['floor']} 秒", f"用了 {values['again']} 秒"):
        assert said in text, said
    links = re.findall(r'href="lab/index.html\?path=([^"]+)"', page)
    expected = [name for name in course_notebooks(ROOT, ("zh-CN",))
                if not name.startswith("solutions/")]
    assert sorted(set(links)) == sorted(expected)
    assert html.escape(build.title(ROOT / expected[0])) in page


# ------------------------------------------------------------------- in Chromium
SAVE = """async ([path, marker]) => {
  const contents = window.jupyterapp.serviceManager.contents;
  const model = await contents.get(path, {content: true});
  model.content.cells.push({cell_type: 'markdown', id: marker, metadata: {}, source: marker});
  await contents.save(path, {type: 'notebook', format: 'json', content: model.content});
}"""
MARKERS = """async (path) => {
  const model = await window.jupyterapp.serviceManager.contents.get(path, {content: true});
  return model.content.cells.map(cell => cell.id).filter(id => id.startsWith('edition-'));
}"""


@pytest.fixture(scope="module")
def chromium_run(tmp_path_factory):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    built_or_skip()
    from playwright.sync_api import sync_playwright

    with site_check.SiteServer(SITE) as server, sync_playwright() as playwright:
        browser = site_check.OfflineBrowser(playwright, tmp_path_factory.mktemp("zh-chromium"),
                                            server.base, SITE)
        try:
            reports = [site_check.check_notebook(browser, nb, artifacts=ARTIFACTS)
                       for nb in NOTEBOOKS]
            reports += [site_check.check_read_only(browser, nb) for nb in NOTEBOOKS
                        if nb.parts[0] == "notebooks"]
            yield browser, server, reports
        finally:
            browser.close()


def test_the_chinese_notebooks_run_in_chromium(chromium_run):
    """Every cell ran, errors only where tagged, pictures as SVG, every check's verdict the
    saved Chinese one, the solution's answer judged correct (正确), in Chinese menus."""
    browser, _, reports = chromium_run
    for report in reports:
        print(report)
    assert all(report.ok for report in reports), [str(r) for r in reports if not r.ok]
    assert sum(report.reloads for report in reports) <= 1, [str(r) for r in reports]
    runs = [report for report in reports if not report.notebook.startswith("read/")]
    assert len(runs) == 3
    for report in runs:
        assert "文件" in report.menus and "运行" in report.menus, report.menus
        assert report.screenshot.stat().st_size > 0
    verdicts = [site_check.text_of(output) for report in runs
                if report.notebook.startswith("exercises/")
                for outputs in report.outputs.values() for output in outputs
                if site_check.text_of(output).startswith(site_check.VERDICTS)]
    assert verdicts and all(re.search("[\u4e00-\u9fff]", text) for text in verdicts), verdicts
    assert not any(english in text for text in verdicts
                   for english in ("Not done yet", "Correct", "Not quite", "Not checked yet"))
    exercise = next(r for r in runs if r.notebook.startswith("exercises/"))
    assert any("正确" in note for note in exercise.notes), exercise.notes
    (ARTIFACTS / "times.json").write_text(json.dumps(
        {r.notebook: {"kernel_ready": round(r.kernel or 0, 1),
                      "first_cell": round(r.first_cell or 0, 1),
                      "seconds": round(r.seconds, 1)} for r in runs}, indent=1))


def test_the_two_editions_keep_their_own_work(chromium_run):
    """A notebook saved in the Chinese JupyterLab stays there: the English one still has the
    site's copy of it, and what the English one saves (the same path) does not replace the
    Chinese one's; the English JupyterLab keeps its English menus."""
    browser, server, _ = chromium_run
    page = browser.page
    english, chinese = "notebooks/00_welcome.ipynb", "notebooks/zh-CN/00_welcome.ipynb"

    def open_app(app):
        page.goto(f"{server.base}/{app}/index.html")
        site_check.browser_check.wait_until(
            lambda: page.evaluate("() => !!(window.jupyterapp && "
                                  "window.jupyterapp.serviceManager.contents)"),
            site_check.PAGE_LOAD, f"{app} to start")
        page.wait_for_timeout(1000)

    open_app("zh-CN/lab")
    page.evaluate(SAVE, [chinese, "edition-zh"])
    page.evaluate(SAVE, [english, "edition-zh"])
    assert page.evaluate(MARKERS, english) == ["edition-zh"]
    open_app("lab")
    assert page.evaluate(MARKERS, english) == [], "the English site sees the Chinese one's work"
    assert page.evaluate(MARKERS, chinese) == []
    page.evaluate(SAVE, [english, "edition-en"])
    assert page.evaluate(MARKERS, english) == ["edition-en"]
    assert "File" in page.evaluate(site_check.MENUS), "the English site's menus"
    open_app("zh-CN/lab")
    assert page.evaluate(MARKERS, english) == ["edition-zh"], "overwritten by the English site"
    assert page.evaluate(MARKERS, chinese) == ["edition-zh"]
    assert "文件" in page.evaluate(site_check.MENUS)
    page.screenshot(path=str(ARTIFACTS / "zh-CN_lab_after_both_editions_saved.png"))


def test_the_chinese_file_menu_and_progress_dialog_are_in_chinese(chromium_run):
    """The course's File-menu entries and its "My progress" dialog speak the site's language
    (the extension's catalog, static/messages.json), with make progress's Chinese words for
    the exercises' states; no English state word is left."""
    browser, server, _ = chromium_run
    page = browser.page
    catalog = json.loads((ROOT / "course_tools" / "labextension" / "static" /
                          "messages.json").read_text())["zh-CN"]
    page.goto(f"{server.base}/zh-CN/lab/index.html?course-work=progress")
    found = "#autograd-course-work [data-progress]"
    page.wait_for_selector(found, timeout=site_check.PAGE_LOAD * 1000)
    title = page.inner_text("#autograd-course-work h2")
    total = page.inner_text(".autograd-progress-total")
    items = page.locator("#autograd-course-work li").all_inner_texts()
    close = page.inner_text("#autograd-course-work button")
    shown = json.loads(page.get_attribute(found, "data-progress"))
    page.screenshot(path=str(ARTIFACTS / "zh-CN_my_progress.png"))
    print(title, total, items[:3], sep="\n")
    assert title == "我的进度" and close == "关闭"
    assert re.fullmatch(r"合计：共 \d+ 道练习，\d+ 道已完成，\d+ 道还不对，"
                        r"(\d+ 道已作答但尚未检查，)?\d+ 道尚未开始。", total), total
    assert shown and all(n["path"].startswith("exercises/zh-CN/") for n in shown), shown
    states = {"已完成", "还不对", "已作答，尚未检查", "尚未开始"}
    assert len(items) == sum(len(n["states"]) for n in shown)
    assert all(item.rsplit("：", 1)[-1] in states for item in items), items
    assert "尚未开始" in " ".join(items)
    page.locator("#autograd-course-work button").click()
    page.locator(".lm-MenuBar-itemLabel", has_text="文件").first.click()
    labels = page.locator(".lm-Menu-itemLabel").all_inner_texts()
    page.screenshot(path=str(ARTIFACTS / "zh-CN_file_menu.png"))
    page.keyboard.press("Escape")
    for key in ("work.download.label", "work.import.label", "progress.label"):
        assert catalog[key] in labels, (catalog[key], labels)
    assert not any(label.startswith(("Download my work", "Import my work", "My progress"))
                   for label in labels), labels


# ------------------------------------------------------------------- Firefox and WebKit
@pytest.fixture(scope="module", params=["firefox", "webkit"])
def engine_run(request):
    built_or_skip()
    reason = drivers.missing(request.param)
    if reason:
        pytest.skip(f"{request.param} cannot run here: {reason}")
    reports, about = site_check.run_in_engine(request.param, NOTEBOOKS,
                                              artifacts=ARTIFACTS / request.param)
    return request.param, about, reports


def test_the_chinese_notebooks_run_in_firefox_and_webkit(engine_run):
    engine, about, reports = engine_run
    print(f"{engine} {about['version']} (JSPI: {about['jspi']})")
    for report in reports:
        print(report)
    (ARTIFACTS / engine / "times.json").write_text(json.dumps(
        {r.notebook: {"kernel_ready": round(r.kernel or 0, 1),
                      "first_cell": round(r.first_cell or 0, 1),
                      "seconds": round(r.seconds, 1)} for r in reports}, indent=1))
    assert all(report.ok for report in reports), [str(r) for r in reports if not r.ok]
    assert sum(report.reloads for report in reports) <= 1, [str(r) for r in reports]
    for report in reports:
        assert "文件" in report.menus, (report.notebook, report.menus)
        assert report.screenshot and report.screenshot.stat().st_size > 0
    exercise = next(r for r in reports if r.notebook.startswith("exercises/"))
    assert any("正确" in note for note in exercise.notes), exercise.notes
