"""The course in a real browser: every notebook of notebooks/ and solutions/ opened in
JupyterLab by headless Chromium, all cells run, and what a learner sees checked (errors only
where tagged, pictures, plots, live widgets); see tests/browser_check.py.

One JupyterLab server and one browser serve all the notebooks, one after another.
Skipped, with the reason, when Chromium (/usr/bin/chromium) or playwright is missing:
`make test-browser` installs both (Chromium with apt-get as root).
"""
import importlib.util
import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

sys.path.insert(0, str(Path(__file__).resolve().parent))
import browser_check  # noqa: E402


def skip_reason():
    if not Path(browser_check.CHROMIUM).exists():
        return (f"Chromium not found at {browser_check.CHROMIUM}: browser test skipped"
                " (install it with `sudo apt-get install chromium`, or run `make test-browser`"
                " as root)")
    if importlib.util.find_spec("playwright") is None:
        return "playwright not installed: browser test skipped (`make test-browser` installs it)"
    return None


pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]


# One server and one browser for all the notebooks; module scope closes them as soon as the
# last browser test is done (`make test` goes on with nbval).
@pytest.fixture(scope="module")
def lab_and_browser():
    from playwright.sync_api import sync_playwright

    with browser_check.JupyterLab() as lab, sync_playwright() as playwright:
        browser = browser_check.Browser(playwright, lab.tmp / "chromium")
        try:
            yield lab, browser
        finally:
            browser.close()


@pytest.mark.parametrize("notebook", browser_check.course_notebooks(), ids=str)
def test_notebook_runs_in_jupyterlab(lab_and_browser, notebook):
    lab, browser = lab_and_browser
    report = browser_check.check_notebook(lab, browser, notebook)
    print(report)
    assert report.ok, str(report)
    assert report.screenshot.stat().st_size > 0


def test_the_check_catches_a_broken_notebook(lab_and_browser, tmp_path):
    """Errors where none are saved, a tagged cell that no longer raises and a missing
    picture are each reported."""
    lab, browser = lab_and_browser
    metadata = json.loads((browser_check.ROOT / "notebooks" / "00_welcome.ipynb").read_text())
    committed = new_notebook(metadata=metadata["metadata"], cells=[
        new_code_cell("x = 1", metadata={"tags": ["raises-exception"]}, outputs=[
            new_output("error", ename="ValueError", evalue="gone", traceback=[])]),
        new_code_cell("1 + 1", outputs=[new_output(
            "execute_result", data={"image/svg+xml": "<svg/>", "text/plain": "2"},
            execution_count=2)]),
        new_code_cell("1 / 0"),
    ])
    nbformat.write(committed, tmp_path / "broken.ipynb")
    notebook = Path("notebooks") / "zz_broken_browser_check.ipynb"
    nbformat.write(committed, lab.root / notebook)
    report = browser_check.check_notebook(lab, browser, notebook, artifacts=tmp_path,
                                          committed=tmp_path / "broken.ipynb")
    problems = "\n".join(report.problems)
    assert not report.ok
    assert "should raise ValueError, got no error" in problems
    assert "0 graph pictures shown, the saved notebook has 1" in problems
    assert "raised ZeroDivisionError: division by zero" in problems
    assert report.screenshot.stat().st_size > 0
