"""The course under nbgrader (a teacher already on nbgrader, e.g. on a JupyterHub).

nbgrader (PyPI) is not a dependency of the course: the slow test installs it into a venv of
its own (in the system's temporary folder, kept between runs; NBGRADER_VENV=... for another),
and is skipped, with pip's reason, where it cannot (no network). It takes the release with
solutions (whose ``### BEGIN SOLUTION`` regions and nbgrader metadata are nbgrader's own
convention) as nbgrader's ``source/``, runs ``nbgrader generate_assignment`` and, on a small
class made from the student version it generates, ``nbgrader autograde``, and compares each
exercise's points with what the course's own grader (``make grade``) gives the same notebooks.

nbgrader gives a graded cell its points when it runs without an error; the checkers, under
nbgrader only (``NBGRADER_EXECUTION``, which its autograde and validate set), raise for a
verdict other than correct, with the verdict's words (exercises/checks/toolkit.py).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from course_tools.grade import grade, release, sandbox
from exercises.checks import toolkit
from exercises.checks.copying import check_04_snapshot

ROOT = Path(__file__).resolve().parents[2]
NBGRADER = "nbgrader==0.9.6"
VENV = Path(os.environ.get("NBGRADER_VENV") or
            Path(tempfile.gettempdir()) / "autograd-course-nbgrader-0.9.6")
NAME = "04_copying.ipynb"
ASSIGNMENT = "lesson04"


def test_under_nbgrader_a_check_raises_unless_correct(monkeypatch):
    """The learner's notebook (no NBGRADER_EXECUTION) shows the verdict as always; under
    nbgrader a verdict other than correct raises NotCorrect (an AssertionError) with the same
    words, and a correct one is still the verdict (outside IPython: returned)."""
    import engine as torch

    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    monkeypatch.delenv(toolkit.NBGRADER_EXECUTION, raising=False)
    wrong = check_04_snapshot((w, w.detach()))
    not_done = check_04_snapshot((w, ...))
    right = check_04_snapshot((w, w.detach().clone()))
    assert (wrong.status, not_done.status, right.status) == ("wrong", "not_done", "correct")
    monkeypatch.setenv(toolkit.NBGRADER_EXECUTION, "autograde")
    for verdict, answer in ((wrong, (w, w.detach())), (not_done, (w, ...))):
        with pytest.raises(toolkit.NotCorrect) as raised:
            check_04_snapshot(answer)
        assert str(raised.value) == str(verdict) and isinstance(raised.value, AssertionError)
    assert str(check_04_snapshot((w, w.detach().clone()))) == str(right)


def nbgrader_venv() -> Path:
    """A venv with nbgrader, made once (pip from PyPI), or skip with pip's reason."""
    if (VENV / ".installed").exists():
        return VENV
    base = getattr(sys, "_base_executable", None) or sys.executable
    try:
        subprocess.run([base, "-m", "venv", "--clear", str(VENV)], check=True,
                       capture_output=True, timeout=300)
        pip = subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q",
                              "--disable-pip-version-check", NBGRADER],
                             capture_output=True, text=True, timeout=1200)
    except (OSError, subprocess.SubprocessError) as error:
        pytest.skip(f"nbgrader could not be installed into {VENV}: {error}")
    if pip.returncode != 0:
        said = [line for line in pip.stderr.splitlines() if "is ignored" not in line]
        pytest.skip(f"nbgrader could not be installed into {VENV} (no network?): pip said "
                    f"{' / '.join(said[-2:])}")
    (VENV / ".installed").write_text(NBGRADER + "\n")
    return VENV


def answer_sources(nb: dict) -> dict[str, str]:
    """answer cell id -> its code, the solution markers' lines left out."""
    return {c["id"]: "".join(line for line in c["source"]
                             if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
            for c in nb["cells"] if c.get("id", "").startswith("answer_")}


def with_answers(nb: dict, answers: dict[str, str]) -> dict:
    nb = json.loads(json.dumps(nb))
    for cell in nb["cells"]:
        if cell.get("id") in answers:
            cell["source"] = answers[cell["id"]]
    return nb


@pytest.fixture(scope="module")
def both_grades(tmp_path_factory):
    venv = nbgrader_venv()
    scratch = tmp_path_factory.mktemp("nbgrader")
    released, _ = release.release(scratch / "release", solutions=True)
    course = scratch / "course"
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(released / "solutions" / NAME, course / "source" / ASSIGNMENT / NAME)
    # nbgrader runs the notebooks' kernel ("python3"): the course's Python, importing the
    # released course (its checkers without reference answers)
    kernel = course / "share" / "jupyter" / "kernels" / "python3"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (the course)", "language": "python",
        "env": {"PYTHONPATH": str(released), "OMP_NUM_THREADS": "1"}}))
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.course_id = 'autograd'\n")
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
           "JUPYTER_PATH": str(course / "share" / "jupyter"),
           "JUPYTER_CONFIG_DIR": str(scratch / "jupyter-config"),
           "JUPYTER_DATA_DIR": str(scratch / "jupyter-data")}

    def nbgrader(*args):
        done = subprocess.run([str(venv / "bin" / "nbgrader"), *args, "--force"], cwd=course,
                              env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    nbgrader("generate_assignment", ASSIGNMENT)
    handed_out = json.loads((course / "release" / ASSIGNMENT / NAME).read_text(encoding="utf-8"))
    right = answer_sources(json.loads((ROOT / "solutions" / NAME).read_text(encoding="utf-8")))
    stubs = answer_sources(json.loads((ROOT / "exercises" / NAME).read_text(encoding="utf-8")))
    class_ = {
        "right": with_answers(handed_out, right),
        "nbgrader's blank": handed_out,  # its answer cells raise NotImplementedError
        "the course's stubs": with_answers(handed_out, stubs),  # `...`, a fix-the-bug stub
        "two wrong": with_answers(handed_out, {
            **right,
            "answer_04_snapshot": "torch.manual_seed(0)\nw = torch.randn(3, requires_grad=True)\n"
                                  "snapshot = w.detach()\n",
            "answer_04_data_gradient": "prediction = [2., 4., 6.]\n"}),
    }
    for student, nb in class_.items():
        path = course / "submitted" / student / ASSIGNMENT / NAME
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(nb), encoding="utf-8")
    autograded = nbgrader("autograde", ASSIGNMENT)
    query = ("import json, sys\nfrom nbgrader.api import Gradebook\n"
             "with Gradebook('sqlite:///' + sys.argv[1]) as gb:\n"
             "    print(json.dumps({s.student.id: {g.name: g.score for g in "
             f"gb.find_submission_notebook('04_copying', {ASSIGNMENT!r}, s.student.id).grades}}"
             f" for s in gb.assignment_submissions({ASSIGNMENT!r})}}))\n")
    scores = json.loads(subprocess.run(
        [str(venv / "bin" / "python"), "-c", query, str(course / "gradebook.db")], env=env,
        capture_output=True, text=True, check=True, timeout=300).stdout)
    ours = grade.grade_class(course / "submitted", scratch / "ours", jobs=2,
                             isolate=sandbox.bwrap_works(), progress=None)
    points = {g.name: {v.exercise.checker: v.points for v in g.notebooks[NAME].verdicts}
              for g in ours}
    numbers = {v.exercise.checker: v.exercise.number for v in ours[0].notebooks[NAME].verdicts}
    return {"nbgrader": scores, "ours": points, "numbers": numbers, "course": course,
            "log": autograded.stderr}


@pytest.mark.slow
def test_nbgrader_and_the_course_give_the_same_points(both_grades):
    nbg, ours, numbers = both_grades["nbgrader"], both_grades["ours"], both_grades["numbers"]
    lines = [f"{'student':22} " + " ".join(f"{numbers[c]:>9}" for c in numbers)]
    for student in sorted(ours):
        lines.append(f"{student:22} " + " ".join(
            f"{int(nbg[student][c]):>4}/{ours[student][c]:<4}" for c in numbers))
    print("\nnbgrader/ours per exercise\n" + "\n".join(lines))
    assert set(nbg) == set(ours) == {"right", "nbgrader's blank", "the course's stubs",
                                     "two wrong"}
    for student in ours:
        assert {c: int(p) for c, p in nbg[student].items()} == ours[student], student
    assert sum(ours["right"].values()) == 6 and sum(ours["two wrong"].values()) == 4
    assert sum(ours["nbgrader's blank"].values()) == sum(ours["the course's stubs"].values()) == 0
    # nbgrader read no check cell's value as partial credit (the verdicts are displayed)
    assert "cannot be converted to a float" not in both_grades["log"]


@pytest.mark.slow
def test_nbgrader_feedback_keeps_the_checkers_words(both_grades):
    nb = json.loads((both_grades["course"] / "autograded" / "two wrong" / ASSIGNMENT / NAME)
                    .read_text(encoding="utf-8"))
    outputs = {c["id"]: c["outputs"] for c in nb["cells"] if c.get("id", "").startswith("check_")}
    (error,) = outputs["check_04_snapshot"]
    assert error["ename"] == "NotCorrect" and error["evalue"].startswith("❌ Not quite: ")
    (shown,) = outputs["check_04_backup"]
    assert shown["output_type"] == "display_data"
    assert "".join(shown["data"]["text/plain"]).startswith("✅ Correct: ")
