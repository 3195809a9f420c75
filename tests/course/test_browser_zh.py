"""The Chinese edition in a real browser: JupyterLab in Simplified Chinese (the locale make
lab-zh sets, from jupyterlab-language-pack-zh-CN), a Chinese lesson and a Chinese exercise
notebook opened, run and checked as tests/course/test_browser.py checks the English ones
(course_tools/browser_check.py, which clicks JupyterLab's labels in the page's language).

Until the Chinese notebooks exist (notebooks/zh-CN/, exercises/zh-CN/) the English lesson 00
and exercise notebook 01 are run in the Chinese JupyterLab instead. A module of its own: its
server is started after test_browser.py's has stopped (one JupyterLab at a time).
"""
import json

import pytest

from course_tools import browser_check
from course.test_browser import skip_reason

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]


def sample():
    """One Chinese lesson (00 if translated) and one Chinese exercise notebook, or the
    English ones while there are none."""
    root = browser_check.ROOT
    lessons = sorted((root / "notebooks" / "zh-CN").glob("[0-9]*.ipynb"))
    exercises = sorted((root / "exercises" / "zh-CN").glob("[0-9]*.ipynb"))
    lesson = lessons[0] if lessons else root / "notebooks" / "00_welcome.ipynb"
    exercise = exercises[0] if exercises else root / "exercises" / "01_creating_tensors.ipynb"
    return [path.relative_to(root) for path in (lesson, exercise)]


@pytest.fixture(scope="module")
def chinese_lab_and_browser():
    from playwright.sync_api import sync_playwright

    folders = ("notebooks", "solutions", "exercises")
    with browser_check.JupyterLab(folders, expose_app=True, language="zh-CN") as lab, \
            sync_playwright() as playwright:
        browser = browser_check.Browser(playwright, lab.tmp / "chromium")
        try:
            yield lab, browser
        finally:
            browser.close()


@pytest.mark.parametrize("notebook", sample(), ids=str)
def test_a_chinese_notebook_runs_in_jupyterlab_in_chinese(chinese_lab_and_browser, notebook):
    lab, browser = chinese_lab_and_browser
    report = browser_check.check_notebook(lab, browser, notebook)
    print(report)
    assert report.ok, str(report)
    assert report.screenshot.stat().st_size > 0
    menus = browser.page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
    assert "文件" in menus and "运行" in menus, menus  # File, Run: JupyterLab speaks Chinese
    if notebook.parts[:2] == ("exercises", "zh-CN"):
        # The kernel started in the notebook's zh-CN folder: the checks answer in Chinese. The
        # notebook's tab is closed when check_notebook returns (no output area left to read):
        # what the browser showed is in the notebook JupyterLab saved from it (save_and_read),
        # with this run's outputs (check_notebook found every cell run).
        saved = json.loads((lab.root / notebook).read_text(encoding="utf-8"))
        verdicts = ["".join(output.get("text", "")) + "".join(
                    output.get("data", {}).get("text/plain", ""))
                    for cell in saved["cells"] if str(cell.get("id", "")).startswith("check_")
                    for output in cell.get("outputs", [])]
        assert verdicts and any("尚未完成" in text for text in verdicts), verdicts[:5]
        assert not any("Not done yet" in text for text in verdicts), verdicts[:5]
