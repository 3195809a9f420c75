"""A notebook opened in the browser edition (`make site`, then `make test-site`) is not marked
changed (●) before the learner does anything, as tests/course/test_browser.py checks in the local
JupyterLab: JupyterLab writes the running kernel's kernelspec and language_info into the
notebook it opens, and the site's copies carry the Pyodide kernel's
(course_tools/site/site_kernel.py). Before, every lesson turned changed a few seconds after it
opened, and closing one the learner had only read asked to save it.

In headless Chromium: lesson 00 and an exercise notebook, each opened, its kernel idle, 3 s
more; then nothing changed, the tab unmarked, and the notebook's metadata what the site
serves. Skipped, with the reason, like tests/web/test_site.py.
"""
import json
import tempfile
from pathlib import Path

import pytest

from course_tools import browser_check
from course_tools.site import check as site_check
from course_tools.site import site_kernel

from .test_site import skip_reason

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]

LESSON, _, EXERCISE, _ = (p.as_posix() for p in site_check.site_notebooks())
SETTLE = 3  # seconds after the kernel is idle (JupyterLab writes the metadata by then)
METADATA = "() => { const panel = " + site_check.PANEL + """;
  const metadata = panel.context.model.toJSON().metadata;
  return {kernelspec: metadata.kernelspec, language_info: metadata.language_info}; }"""


@pytest.mark.parametrize("notebook", [LESSON, EXERCISE])
def test_an_opened_notebook_is_not_marked_changed(notebook):
    from playwright.sync_api import sync_playwright

    served = json.loads((site_check.SITE / "files" / notebook).read_text())["metadata"]
    assert served["kernelspec"] == site_kernel.SITE_KERNELSPEC
    with site_check.SiteServer() as server, sync_playwright() as playwright, \
            tempfile.TemporaryDirectory() as profile:
        browser = site_check.OfflineBrowser(playwright, Path(profile), server.base)
        try:
            page = browser.page
            page.goto(f"{server.base}/lab/index.html?path={notebook}")
            browser_check.wait_until(lambda: page.evaluate(site_check.KERNEL_STATUS) == "idle",
                                     site_check.KERNEL_START, "the Pyodide kernel to be idle")
            page.wait_for_timeout(SETTLE * 1000)
            dirty = browser_check.dirty_tabs(page)
            written = page.evaluate(METADATA)
            site_check.ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(site_check.ARTIFACTS /
                                     f"unchanged__{Path(notebook).stem}.png"))
        finally:
            browser.close()
    assert written == {"kernelspec": served["kernelspec"],
                       "language_info": served["language_info"]}, written
    assert dirty == 0, f"{notebook} is marked changed after opening: {written}"
