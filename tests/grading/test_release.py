"""`make release`: the course without its solutions (course_tools/grade/release.py)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from course_tools.grade import gradescope, release

ROOT = Path(__file__).resolve().parents[2]
REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.DOTALL)


def solution_regions() -> list[str]:
    """Every solution region's code (its ### STUB lines left out: those are handed out)."""
    regions = []
    for path in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            for region in REGION.findall(source):
                code = "\n".join(line.strip() for line in region.splitlines()
                                 if line.strip() and "### STUB" not in line)
                if code:
                    regions.append(code)
    return regions


def normalised(text: str) -> str:
    """A file's text with each line stripped (a region is found whatever its indent); a
    notebook's cell sources as they read in the notebook."""
    lines = []
    try:
        nb = json.loads(text)
        text = "\n".join("".join(c.get("source", "")) for c in nb.get("cells", []))
    except ValueError:
        pass
    for line in text.splitlines():
        if line.strip():
            lines.append(line.strip())
    return "\n".join(lines)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    return release.release(out)


def test_no_solution_anywhere_in_the_release(released):
    folder, archive = released
    regions = solution_regions()
    assert len(regions) > 40  # the check reads the solutions it means to look for
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
             if p.is_file()}
    with zipfile.ZipFile(archive) as zipped:
        zipped_files = {name.split("/", 1)[1]: zipped.read(name) for name in zipped.namelist()}
    assert zipped_files == files
    assert not [name for name in files if name.startswith(("solutions/", "tests/", "bench/"))]
    # A few answers are the very lines a lesson teaches (a training step): the lessons are
    # handed out in every case, so those are not leaks; every other region is looked for.
    lessons = "\n".join(normalised(p.read_text(encoding="utf-8"))
                        for p in sorted((ROOT / "notebooks").glob("*.ipynb")))
    taught = [region for region in regions if region in lessons]
    assert len(taught) <= 10, taught  # a handful of lines, not whole answers
    regions = [region for region in regions if region not in taught]
    leaks = []
    for name, data in files.items():
        text = data.decode("utf-8", errors="replace")
        if "### BEGIN SOLUTION" in text and name.endswith(".ipynb"):
            leaks.append(f"{name}: a solution marker")
        body = normalised(text)
        leaks += [f"{name}: {region[:60]!r}" for region in regions
                  if "\n" in region and region in body]
    assert not leaks


def test_the_learner_has_what_the_notebooks_need(released):
    folder, _ = released
    for needed in ("notebooks/04_copying.ipynb", "exercises/04_copying.ipynb",
                   "exercises/checks/copying.py", "engine/__init__.py", "Makefile",
                   "pyproject.toml", "course_tools/workspace.py"):
        assert (folder / needed).is_file(), needed
    assert not (folder / "course_tools" / "grade").exists()


def test_nbgrader_metadata_on_answer_and_check_cells(released):
    folder, _ = released
    nb = json.loads((folder / "exercises" / "04_copying.ipynb").read_text(encoding="utf-8"))
    meta = {c["id"]: c["metadata"].get("nbgrader") for c in nb["cells"]}
    assert meta["answer_04_snapshot"] == {"grade": False, "grade_id": "answer_04_snapshot",
                                          "locked": False, "schema_version": 3,
                                          "solution": True, "task": False}
    assert meta["check_04_snapshot"] == {"grade": True, "grade_id": "check_04_snapshot",
                                         "locked": True, "points": 1, "schema_version": 3,
                                         "solution": False, "task": False}
    assert sum(m is not None for m in meta.values()) == 12


def test_released_checkers_still_check(released):
    """The reference answers (``right=``) are left out of the released checkers; what the
    notebooks import still works."""
    folder, _ = released
    text = (folder / "exercises" / "checks" / "copying.py").read_text(encoding="utf-8")
    assert "right=" not in text and "@checker\ndef check_04_snapshot" in text
    source = (ROOT / "exercises" / "checks" / "copying.py").read_text(encoding="utf-8")
    assert "right=" in source  # the course keeps them, for its tests
    namespace = {}
    exec(compile(text.replace("from exercises.checks.toolkit import", "from exercises.checks."
                              "toolkit import"), "copying.py", "exec"), namespace)
    assert namespace["check_04_snapshot"](...).status == "not_done"


def test_solutions_on_request(tmp_path):
    folder, _ = release.release(tmp_path, solutions=True)
    nb = json.loads((folder / "solutions" / "04_copying.ipynb").read_text(encoding="utf-8"))
    meta = {c["id"]: c["metadata"].get("nbgrader") for c in nb["cells"]}
    assert meta["answer_04_snapshot"]["solution"] and meta["check_04_snapshot"]["locked"]
    assert "### BEGIN SOLUTION" in "".join(next(c["source"] for c in nb["cells"]
                                                if c["id"] == "answer_04_snapshot"))


@pytest.mark.slow
def test_gradescope_autograder_in_a_simulated_layout(tmp_path):
    """`make gradescope`'s zip, unpacked as Gradescope does (/autograder/source), and its
    run_autograder run on a submission (AUTOGRADER points at the simulated /autograder; the
    course's .venv stands in for the one setup.sh makes)."""
    archive = gradescope.build(tmp_path / "zip")
    autograder = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(autograder / "source")
        assert "run_autograder" in zipped.namelist() and "setup.sh" in zipped.namelist()
        assert not [n for n in zipped.namelist() if n.startswith("solutions/")]
    run = autograder / "source" / "run_autograder"
    run.chmod(0o755)
    (autograder / "submission").mkdir()
    (autograder / "submission" / "04_copying.ipynb").write_bytes(
        (ROOT / "solutions" / "04_copying.ipynb").read_bytes())
    env = {**os.environ, "AUTOGRADER": str(autograder),
           "PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    subprocess.run([str(run)], env=env, check=True, capture_output=True, timeout=600)
    results = json.loads((autograder / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 6 and len(results["tests"]) == 6
