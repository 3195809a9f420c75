"""The browser edition of a release (`make release`, OUT/site/): no solution anywhere in it.

`make release` builds the site as `make site` does, from the released folder (about two to
three minutes of CPU), so this test reads a release already built, as tests/web/test_site.py
reads build/site/: build/release/ (make release's default OUT), or RELEASE_DIR. Skipped, with
the reason, when there is none; CI runs `make release` before `make test-site`.

Everything the site serves is searched, JupyterLite's stored contents (files/,
api/contents/**/all.json), the read-only pages and mkdocs' search index, every .js, and every
zip and wheel member by member (the course's own wheel, Pyodide's packages, its standard
library), for every solution region of solutions/ (tests/grading/leaks.py says how each kind
of file is read).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from course_tools.notebook_files import LANGUAGES, ROOT, course_notebooks
from grading import leaks

RELEASE = Path(os.environ.get("RELEASE_DIR", ROOT / "build" / "release"))
SITE = RELEASE / "site"
FOLDER = RELEASE / "autograd-step-by-step"

pytestmark = pytest.mark.skipif(
    not (SITE / "jupyter-lite.json").exists() or not FOLDER.is_dir(),
    reason=f"no release's site in {RELEASE} (run `make release` first; RELEASE_DIR=... for "
           "another)")


@pytest.fixture(scope="module")
def site_files():
    return leaks.files_of(SITE)


def test_the_release_site_holds_the_released_notebooks_and_no_solution_notebook(site_files):
    released = set(course_notebooks(FOLDER, LANGUAGES))  # both editions, as the site
    assert released and not [name for name in released if name.startswith("solutions/")]
    stored = {name.removeprefix("files/") for name in site_files
              if name.startswith("files/") and name.endswith(".ipynb")}
    assert stored == released
    assert not [name for name in site_files if "solutions" in name.split("/")]
    listing = json.loads(site_files["api/contents/all.json"])
    assert "solutions" not in {entry["name"] for entry in listing["content"]}
    assert "exercises" in {entry["name"] for entry in listing["content"]}


def test_no_solution_anywhere_in_the_release_site(site_files):
    regions = leaks.solution_regions()
    assert len(regions) > 40
    taught = leaks.taught(regions)
    assert len(taught) <= 10, taught
    wheels = [name for name in site_files if name.endswith(".whl")]
    assert any("autograd_step_by_step" in name for name in wheels)  # the course's own, searched
    found, read = leaks.leaks(site_files, [region for region in regions if region not in taught])
    assert not found, found[:20]
    assert read > len(site_files)  # archives' members and second readings counted
    print(f"searched {len(site_files)} files of {SITE} ({read} texts, archives' members "
          f"included) for {len(regions) - len(taught)} solution regions: none found")


def test_the_site_wheel_has_the_released_checkers(site_files):
    """The site's kernel imports the checkers from the course's wheel: the released ones,
    without their reference answers."""
    import io
    import zipfile

    (wheel,) = [name for name in site_files if name.rsplit("/", 1)[-1].startswith(
        "autograd_step_by_step-") and name.endswith(".whl")]
    with zipfile.ZipFile(io.BytesIO(site_files[wheel])) as zipped:
        copying = zipped.read("exercises/checks/copying.py").decode("utf-8")
    assert copying == (FOLDER / "exercises" / "checks" / "copying.py").read_text(encoding="utf-8")
    assert "right=" not in copying
