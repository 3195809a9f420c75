"""Lesson 13 in the browser edition (`make site`, then `make test-site`), in headless Chromium:
it runs cell by cell with its committed outputs' kind (course_tools/site/check.py: errors only
where tagged, the same ones), and shows no warning the committed lesson does not show.

Its first forward-mode call (make_dual) warns as torch 2.15 does, "`torch.jit.script` is
deprecated" (a notice about torch's insides); the local kernel hides it with a start-up filter
(course_tools/kernel/ipython_kernel_config.json), and the site's Pyodide kernel starts with the
same filter (course_tools/site/build.py kernel_warning_filters: PYTHONWARNINGS). Without it, the
site showed that warning under the cell. Its first plot imports matplotlib, whose font cache the
site ships (course_tools/site/site_kernel.py): no "building the font cache" notice either.

Skipped, with the reason, like tests/web/test_site.py. Screenshot:
tests/browser_artifacts/site/notebooks__13_....png.
"""
import json
from pathlib import Path

import pytest

from course_tools.site import check as site_check

from .test_site import skip_reason

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]

LESSON = next(Path(p).relative_to(site_check.ROOT) for p in
              sorted((site_check.ROOT / "notebooks").glob("13_*.ipynb")))


def stderr_of(outputs):
    return "".join("".join(o.get("text", "")) for o in outputs
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


@pytest.fixture(scope="module")
def run():
    committed = json.loads((site_check.ROOT / LESSON).read_text())
    reports, log = site_check.run_site_check([LESSON])
    code = [i for i, c in enumerate(committed["cells"])
            if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    shown = {i: stderr_of(outputs) for i, outputs in reports[0].outputs.items()}
    saved = {i: stderr_of(committed["cells"][i].get("outputs", [])) for i in code}
    print(reports[0])
    print("stderr in the site:", {i: t for i, t in shown.items() if t})
    return {"report": reports[0], "log": log, "code": code, "shown": shown, "saved": saved,
            "committed": committed}


def test_lesson_13_runs_in_the_site_without_the_jit_notice(run):
    site_config = json.loads((site_check.SITE / "jupyter-lite.json").read_text())
    kernel = site_config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert "torch.jit.script" in kernel["loadPyodideOptions"]["env"]["PYTHONWARNINGS"]
    report, code, shown = run["report"], run["code"], run["shown"]
    assert report.ok, str(report)
    assert sorted(report.outputs) == code  # every code cell ran
    assert not any("torch.jit.script" in text for text in shown.values()), shown
    cells = run["committed"]["cells"]
    makes_dual = [i for i in code if "make_dual" in "".join(cells[i]["source"])]
    assert makes_dual and not shown[makes_dual[0]]  # where the warning was
    assert not run["log"]["blocked"], run["log"]["blocked"][:20]


def test_lesson_13_shows_no_stderr_the_committed_lesson_does_not(run):
    """Nor matplotlib's "Matplotlib is building the font cache" under the plotting cell: the
    site ships the cache (course_tools/site/site_kernel.py); Pyodide's own has a version its
    matplotlib rejects, so every kernel rebuilt it and said so."""
    shown, saved = run["shown"], run["saved"]
    assert {i for i, t in shown.items() if t} == {i for i, t in saved.items() if t}, shown
