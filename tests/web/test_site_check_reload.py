"""course_tools/site/check.py's open_in_the_site: a page that has not shown the notebook in
time is loaded once more, and what it showed is kept; a second time is a failure. A page
that stands for the browser's (no browser needed: the steps, not the site, are tested)."""
import json
from pathlib import Path

import pytest

from course_tools.site import check as site_check


class StalledPage:
    """Shows the notebook from the ``shows_from``-th load on (never, if None)."""

    def __init__(self, shows_from):
        self.shows_from, self.loads, self.shots = shows_from, [], []

    def goto(self, url):
        self.loads.append(url)

    def evaluate(self, script):
        if script == site_check.NOTEBOOK_SHOWN:
            return self.shows_from is not None and len(self.loads) >= self.shows_from
        assert script == site_check.PAGE_STATE
        return json.dumps({"url": self.loads[-1], "readyState": "complete", "app": False})

    def screenshot(self, path):
        Path(path).write_bytes(b"png")
        self.shots.append(Path(path).name)


class Browser:
    def __init__(self, page):
        self.page, self.base = page, "http://127.0.0.1:1"


@pytest.fixture(autouse=True)
def short_wait(monkeypatch):
    monkeypatch.setattr(site_check, "PAGE_LOAD", 0.3)


def test_a_notebook_shown_at_once_is_loaded_once(tmp_path):
    page = StalledPage(shows_from=1)
    report = site_check.Report("notebooks/05_graphs_and_leaves.ipynb")
    site_check.open_in_the_site(Browser(page), Path(report.notebook), report, tmp_path)
    assert len(page.loads) == 1 and report.reloads == 0 and not report.notes


def test_a_page_that_showed_nothing_is_loaded_again_and_kept(tmp_path):
    page = StalledPage(shows_from=2)
    report = site_check.Report("notebooks/zh-CN/05_graphs_and_leaves.ipynb")
    site_check.open_in_the_site(Browser(page), Path(report.notebook), report, tmp_path)
    assert len(page.loads) == 2 and page.loads[0] == page.loads[1]
    assert report.reloads == 1 and report.ok
    assert report.notes == [f"not shown after 0.3 s, loaded again; the page: "
                            f'{{"url": "{page.loads[0]}", "readyState": "complete", '
                            f'"app": false}}']  # (as the page's JSON.stringify gives it)
    assert page.shots == ["05_graphs_and_leaves__not_shown.png"]


def test_a_page_that_never_shows_the_notebook_fails(tmp_path):
    page = StalledPage(shows_from=None)
    report = site_check.Report("exercises/05_graphs_and_leaves.ipynb")
    with pytest.raises(TimeoutError, match="the notebook to open"):
        site_check.open_in_the_site(Browser(page), Path(report.notebook), report, tmp_path)
    assert len(page.loads) == 2 and report.reloads == 1


def test_check_notebook_reports_a_notebook_that_never_opened(tmp_path, monkeypatch):
    """check_notebook's report of it: a problem, the reload among its notes."""
    page = StalledPage(shows_from=None)
    browser = Browser(page)
    browser.page_errors, browser.asked = [], []
    report = site_check.check_notebook(browser, "notebooks/00_welcome.ipynb",
                                       artifacts=tmp_path)
    assert not report.ok and report.reloads == 1
    assert report.problems == ["TimeoutError: timed out after 0.3 s waiting for the notebook "
                               "to open"]
    assert report.notes[0].startswith("not shown after 0.3 s, loaded again")
