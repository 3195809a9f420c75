"""The browser edition (`make site`, then `make test-site`): the built site served on
127.0.0.1 and opened offline in headless Chromium; lesson 00, the graphs-and-leaves lesson,
its exercise notebook and the gallery run cell by cell (see course_tools/site/check.py).

Skipped, with the reason, when the site is not built (build/site/, or SITE_DIR) or when
Chromium or playwright is missing. Times and the request log are printed (pytest -s or -v
with -rA shows them) and saved in tests/browser_artifacts/site/.
"""
import importlib.util
import json
from pathlib import Path

import pytest

from course_tools.site import check as site_check


def skip_reason():
    if not (site_check.SITE / "jupyter-lite.json").exists():
        return (f"the site is not built ({site_check.SITE}/jupyter-lite.json missing): "
                "run `make site` first")
    if not Path(site_check.CHROMIUM).exists():
        return (f"Chromium not found at {site_check.CHROMIUM}: site test skipped "
                "(`sudo apt-get install chromium`)")
    if importlib.util.find_spec("playwright") is None:
        return "playwright not installed: site test skipped (`make test-site` installs it)"
    return None


pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]


@pytest.fixture(scope="module")
def site_run():
    reports, log = site_check.run_site_check(NOTEBOOKS)
    summary = {r.notebook: {"seconds": round(r.seconds, 1),
                            "notebook_shown": round(r.opened or 0, 1),
                            "kernel_ready": round(r.kernel or 0, 1),
                            "first_cell": round(r.first_cell or 0, 1), "ok": r.ok,
                            "packages_at_start": r.packages_at_start,
                            "packages_first_cell": r.packages_first_cell,
                            "packages": r.packages}
               for r in reports}
    (site_check.ARTIFACTS / "times.json").write_text(json.dumps(summary, indent=1))
    return {r.notebook: r for r in reports}, log


NOTEBOOKS = site_check.site_notebooks()


def test_the_notebooks_are_found():
    """Lesson 00, the graphs-and-leaves lesson and exercises (by slug), the gallery."""
    found = [p.as_posix() for p in site_check.site_notebooks()]
    assert len(found) == 4, found
    assert found[0].startswith("notebooks/00_")
    assert found[1].endswith("_graphs_and_leaves.ipynb") and found[1].startswith("notebooks/")
    assert found[2].endswith("_graphs_and_leaves.ipynb") and found[2].startswith("exercises/")
    assert found[3] == "notebooks/99_gallery.ipynb"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=str)
def test_notebook_runs_offline_in_the_site(site_run, notebook):
    reports, _ = site_run
    assert (site_check.SITE / "files" / notebook).exists(), f"{notebook} is not in the site"
    report = reports[notebook.as_posix()]
    print(report)
    assert report.ok, str(report)
    assert report.first_cell is not None
    assert sum(r.reloads for r in reports.values()) <= 1, [str(r) for r in reports.values()]


@pytest.mark.parametrize("notebook", [nb for nb in NOTEBOOKS if nb.parts[0] == "notebooks"],
                         ids=str)
def test_read_only_lesson_links_to_its_runnable_copy(site_run, notebook):
    """build/site/read/: the lesson's saved pictures, and a link to it in JupyterLite."""
    reports, _ = site_run
    report = reports[f"read/{notebook.stem}/"]
    print(report)
    assert report.ok, str(report)


def test_nothing_but_the_site_was_asked_for(site_run):
    _, log = site_run
    print(f"requests by host: {log['hosts']}; {log['site_files_served']} files of the site "
          f"asked for ({log['site_mb_served']} MB)")
    assert not log["blocked"], f"requests to other hosts (aborted): {log['blocked'][:20]}"
    assert all(host.startswith("127.0.0.1:") for host in log["hosts"]), log["hosts"]


def test_graphs_and_widgets_were_checked(site_run):
    """The check saw what it is meant to see: SVG graphs, a live widget, checker verdicts."""
    reports, _ = site_run
    lesson, exercise, gallery = ("\n".join(reports[NOTEBOOKS[i].as_posix()].notes)
                                 for i in (1, 2, 3))
    assert "pictures fit" in lesson, lesson
    assert "slider dragged" in gallery and "Step x" in gallery, gallery
    assert "with the solution's answer: '✅ Correct" in exercise, exercise


def test_a_lesson_that_never_plots_never_downloads_matplotlib(site_run):
    """Time to the first result: the first cell loads numpy and the course, not matplotlib
    (about 10 MB with its dependencies); the gallery's descent playground loads it on demand
    and still plots (its pictures are checked with the notebook)."""
    reports, _ = site_run
    welcome, gallery = reports[NOTEBOOKS[0].as_posix()], reports[NOTEBOOKS[3].as_posix()]
    # numpy and the course load as Pyodide starts (KERNEL_PRELOAD of course_tools/site/build.py),
    # with the kernel
    first = " ".join(welcome.packages_at_start + welcome.packages_first_cell)
    assert "numpy-" in first and "autograd_step_by_step-" in first, first
    assert not any(name.startswith(("matplotlib-", "fonttools-", "pillow-"))
                   for name in welcome.packages), welcome.packages
    assert any(name.startswith("matplotlib-") for name in gallery.packages), gallery.packages
    assert gallery.ok, str(gallery)


def test_graphs_are_pictures_in_a_browser_without_jspi(tmp_path):
    """Safari, Firefox without a flag (simulated: WebAssembly.Suspending and .promising removed
    in the page and in the kernel's worker before Pyodide loads): Python cannot call into
    JavaScript synchronously, so it sends each picture's DOT and the course's extension draws
    it; the graphs lesson runs, and its pictures are SVG that fit, none shown as text."""
    lesson = NOTEBOOKS[1]
    reports, log = site_check.run_site_check([lesson], artifacts=tmp_path, jspi=False)
    report = reports[0]
    print(report)
    assert report.ok, str(report)
    notes = "\n".join(report.notes)
    assert "pictures drawn by the page from their DOT" in notes and "pictures fit" in notes, notes
    assert not log["blocked"], log["blocked"][:20]
