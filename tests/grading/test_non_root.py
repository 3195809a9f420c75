"""The grader run by an ordinary user (a teacher's own account), not root.

As root the grader makes bubblewrap's sandbox without a user namespace and the notebooks run
as nobody; as anyone else bubblewrap needs unprivileged user namespaces, and the notebooks
run as that user. Here a small class is graded by `python -m course_tools.grade grade` as an
ordinary user (this one when the tests do not run as root; else nobody, through setpriv), in
bubblewrap where it works for that user: right and blank answers, and the attacks that only
the sandbox refuses (reading the solutions and another student's work, writing into the
course) plus a fork bomb (the process limit of a user who is not root). Also: what the
grader says when bubblewrap is installed but cannot make its sandbox, and when the
notebooks' Python cannot start at all.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from course_tools.grade import grade, sandbox
from grading.test_grade import EXERCISE, NAME, SOLUTION, attack

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534


def as_user_prefix() -> list[str]:
    """The command prefix that runs a program as an ordinary user (none when this is one)."""
    if os.getuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux): cannot become an "
                    "ordinary user")
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def user_python(scratch: Path, prefix: list[str]) -> str:
    """A Python the ordinary user can run, with the course's packages. This one when it can
    (a second exec, as the user's own programs do); else a venv in ``scratch`` made from the
    system's Python of the same version whose path takes the packages from this environment
    (a .pth file): here the course's interpreter lives under root's private home."""
    def works(python: str) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, "env", f"HOME={scratch}", python, "-c",
                               "import numpy, nbformat, engine, exercises"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)

    readable = subprocess.run([*prefix, "cat", str(ROOT / "engine" / "__init__.py")],
                              capture_output=True, timeout=60)
    if readable.returncode != 0:
        pytest.skip(f"the course's folder {ROOT} is not readable by uid {NOBODY} (a private "
                    "home above it?): an ordinary user cannot grade from this checkout")
    if works(sys.executable).returncode == 0:
        return sys.executable
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    system = shutil.which(version, path="/usr/bin:/usr/local/bin")
    if system is None:
        pytest.skip(f"the course's Python ({sys.executable}) cannot be run by uid {NOBODY} "
                    f"and there is no system {version} to make one it can")
    venv = scratch / "venv"
    subprocess.run([system, "-m", "venv", "--without-pip", str(venv)], check=True,
                   capture_output=True, timeout=120)
    (site,) = (venv / "lib").glob("python*/site-packages")
    packages = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "course.pth").write_text("\n".join(sorted(packages)) + "\n")
    tried = works(str(venv / "bin" / "python"))
    if tried.returncode != 0:
        pytest.skip(f"no Python with the course's packages for uid {NOBODY}: "
                    f"{tried.stderr.strip().splitlines()[-1:]}")
    return str(venv / "bin" / "python")


@pytest.fixture(scope="module")
def graded_as_user():
    prefix = as_user_prefix()
    # not pytest's tmp_path: root's is private, and the user must read the submissions
    scratch = Path(tempfile.mkdtemp(prefix="grade-user-"))
    try:
        scratch.chmod(0o755)
        python = user_python(scratch, prefix)
        folder, out = scratch / "class", scratch / "out"
        planted = ROOT / "exercises" / "planted-by-a-user.txt"
        class_ = {
            "right": SOLUTION,
            "blank": EXERCISE,
            "reads solutions": attack(f"text = open({str(ROOT / 'solutions' / NAME)!r}).read()\n"),
            "reads right": attack(f"text = open({str(folder / 'right' / NAME)!r}).read()\n"),
            "writes course": attack(f"open({str(planted)!r}, 'w').write('x')\n"),
            "forks": attack("import os, time\nfor _ in range(100000):\n    if os.fork() == 0:\n"
                            "        time.sleep(600)\n"),
        }
        for student, nb in class_.items():
            (folder / student).mkdir(parents=True)
            (folder / student / NAME).write_text(json.dumps(nb), encoding="utf-8")
        out.mkdir()
        if prefix:  # the grades are the user's to write; the submissions readable (umask)
            os.chown(out, NOBODY, NOBODY)
        problem = subprocess.run(
            [*prefix, "env", f"HOME={scratch}", python, "-c",
             "from course_tools.grade import sandbox; print(sandbox.bwrap_problem())"],
            cwd=ROOT, capture_output=True, text=True, timeout=120).stdout.strip()
        done = subprocess.run(
            [*prefix, "env", f"HOME={scratch}", python, "-m", "course_tools.grade", "grade",
             str(folder), "--out", str(out), "--cell-seconds", "3"],
            cwd=ROOT, capture_output=True, text=True, timeout=900)
        rows = {}
        if (out / "grades.csv").exists():
            with open(out / "grades.csv", encoding="utf-8") as handle:
                rows = {row["student"]: row for row in csv.DictReader(handle)}
        yield {"done": done, "rows": rows, "isolated": problem == "None", "problem": problem,
               "planted": planted.exists()}
        planted.unlink(missing_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def total(row) -> int:
    return int(row["total"])


@pytest.mark.slow
def test_an_ordinary_user_grades_a_class(graded_as_user):
    done, rows = graded_as_user["done"], graded_as_user["rows"]
    assert done.returncode == 0, done.stderr[-3000:]
    print(f"\nbubblewrap for an ordinary user: "
          f"{'works' if graded_as_user['isolated'] else graded_as_user['problem']}\n{done.stdout}")
    assert total(rows["right"]) == 6 and rows["right"]["notes"] == ""
    assert total(rows["blank"]) == 0
    # the process limit binds a user who is not root
    assert total(rows["forks"]) == 5 and "4.2: refused: BlockingIOError" in rows["forks"]["notes"]
    assert not graded_as_user["planted"]
    if not graded_as_user["isolated"]:
        assert "warning: " in done.stderr and "without isolation" in done.stderr
        pytest.skip(f"bubblewrap does not work for an ordinary user here "
                    f"({graded_as_user['problem']}): the sandbox's refusals are not tested")
    assert "warning" not in done.stderr
    for student in ("reads solutions", "reads right"):
        assert total(rows[student]) == 5
        assert "4.2: refused: FileNotFoundError" in rows[student]["notes"], rows[student]
    assert total(rows["writes course"]) == 5
    assert "4.2: refused:" in rows["writes course"]["notes"]


FAKE_BWRAP = """#!/bin/sh
echo "bwrap: No permissions to create a new namespace, likely because the kernel does not \
allow non-privileged user namespaces." >&2
exit 1
"""


def fake_bwrap(tmp_path: Path) -> str:
    path = tmp_path / "bwrap"
    path.write_text(FAKE_BWRAP)
    path.chmod(0o755)
    return str(path)


def test_a_bwrap_that_cannot_make_its_sandbox_says_why(tmp_path, monkeypatch):
    """Installed but unusable (a kernel without unprivileged user namespaces): the warning
    names bwrap's own message and what a user can do, not "not installed"."""
    monkeypatch.setattr(sandbox, "bwrap", lambda: fake_bwrap(tmp_path))
    monkeypatch.setattr(os, "getuid", lambda: 1000)
    problem = sandbox.bwrap_problem()
    assert "cannot make its sandbox as this user (uid 1000)" in problem
    assert "does not allow non-privileged user namespaces" in problem
    assert "unprivileged_userns_clone" in problem and "grade as root" in problem
    warning = sandbox.warning(problem)
    assert warning.startswith("warning: " + problem) and "without isolation" in warning
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    assert "not installed" in sandbox.bwrap_problem()


@pytest.mark.slow
def test_an_unusable_bwrap_warns_and_the_class_is_still_graded(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap", lambda: fake_bwrap(tmp_path))
    (tmp_path / "class" / "ann").mkdir(parents=True)
    (tmp_path / "class" / "ann" / NAME).write_text(json.dumps(SOLUTION), encoding="utf-8")
    said = io.StringIO()
    grades = grade.grade_class(tmp_path / "class", tmp_path / "out", progress=said,
                               fresh=True)
    assert "warning: " in said.getvalue() and "No permissions to create" in said.getvalue()
    assert [v.points for v in grades[0].notebooks[NAME].verdicts] == [1] * 6


def test_a_python_that_cannot_start_grades_nothing(tmp_path):
    """Where the notebooks' Python cannot even import the course, every notebook would get
    zero for the grader's own fault: the grader stops and says why instead."""
    broken = tmp_path / "course"
    (broken / "engine").mkdir(parents=True)
    (broken / "engine" / "__init__.py").write_text("raise ImportError('a broken engine')\n")
    problem = sandbox.preflight(broken, isolate=False, limits=sandbox.Limits())
    assert problem is not None and "a broken engine" in problem
    (tmp_path / "class" / "ann").mkdir(parents=True)
    with pytest.raises(sandbox.SandboxError, match="nothing was graded.*|a broken engine"):
        grade.grade_class(tmp_path / "class", tmp_path / "out", root=broken, isolate=False,
                          progress=None)
    assert sandbox.preflight(ROOT, isolate=False, limits=sandbox.Limits()) is None
