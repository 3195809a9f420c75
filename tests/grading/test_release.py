"""`make release`: the course without its solutions (course_tools/grade/release.py)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
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
                code = textwrap.dedent("\n".join(
                    line.rstrip() for line in region.splitlines()
                    if line.strip() and "### STUB" not in line))
                if code:
                    regions.append(code)
    return regions


def stripped(code: str) -> str:
    return "\n".join(line.strip() for line in code.splitlines())


def found(region: str, text: str) -> bool:
    """Whether ``region``'s lines appear in ``text`` (a file, or a notebook's cell sources)
    one after another, each indented as in the region relative to the first (a whole block
    found at any indent; a fix-the-bug stub that differs from its answer only in where a line
    is indented is not the answer)."""
    wanted = region.splitlines()
    if stripped(region) not in normalised(text):
        return False
    lines = [line.rstrip() for line in cell_sources(text).splitlines() if line.strip()]
    for start in range(len(lines) - len(wanted) + 1):
        window = lines[start:start + len(wanted)]
        if window[0].strip() == wanted[0].strip() and \
                textwrap.dedent("\n".join(window)).splitlines() == wanted:
            return True
    return False


def cell_sources(text: str) -> str:
    """A notebook's cell sources as they read in the notebook; any other file's text as is."""
    try:
        nb = json.loads(text)
        return "\n".join("".join(c.get("source", "")) for c in nb.get("cells", []))
    except (ValueError, AttributeError):
        return text


def normalised(text: str) -> str:
    """cell_sources with each line stripped and empty lines left out (a quick first look)."""
    return "\n".join(line.strip() for line in cell_sources(text).splitlines() if line.strip())


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    return release.release(out)


def test_no_solution_anywhere_in_the_release(released):
    folder, archive = released
    regions = solution_regions()
    assert len(regions) > 40  # the check reads the solutions it means to look for
    answers = "\n".join(cell_sources(p.read_text(encoding="utf-8"))
                        for p in sorted((ROOT / "solutions").glob("*.ipynb")))
    assert all(found(region, answers) for region in regions)  # (the search finds a leak)
    assert not found("with a:\n    b\nc", "with a:\n    b\n    c")  # (indents count)
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
             if p.is_file()}
    with zipfile.ZipFile(archive) as zipped:
        zipped_files = {name.split("/", 1)[1]: zipped.read(name) for name in zipped.namelist()}
    assert zipped_files == files
    assert not [name for name in files if name.startswith(("solutions/", "tests/", "bench/"))]
    # A few answers are the very lines a lesson teaches (a training step): the lessons are
    # handed out in every case, so those are not leaks; every other region is looked for.
    lessons = "\n".join(cell_sources(p.read_text(encoding="utf-8"))
                        for p in sorted((ROOT / "notebooks").glob("*.ipynb")))
    taught = [region for region in regions if found(region, lessons)]
    assert len(taught) <= 10, taught  # a handful of lines, not whole answers
    regions = [region for region in regions if region not in taught]
    leaks = []
    for name, data in files.items():
        text = data.decode("utf-8", errors="replace")
        if "### BEGIN SOLUTION" in text and name.endswith(".ipynb"):
            leaks.append(f"{name}: a solution marker")
        leaks += [f"{name}: {region[:60]!r}" for region in regions
                  if "\n" in region and found(region, text)]
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
    # imported as a learner's notebook imports it, in a fresh interpreter from the release
    # (in this one the course's own copy has already registered the same checker names)
    probe = subprocess.run(
        [sys.executable, "-c", "from exercises.checks.copying import check_04_snapshot; "
                               "print(check_04_snapshot(...).status)"],
        cwd=folder, env={**os.environ, "PYTHONPATH": str(folder)}, capture_output=True,
        text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.split()[-1] == "not_done"


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
