"""The grader on a class built from the course's own notebooks (course_tools/grade/).

Lesson 4's exercise notebook (six exercises) is handed in by: a student with the worked
answers (full marks), one with the untouched notebook (zero, the fix-the-bug stub included),
one with two wrong answers, one of each way of cheating, one of each attack on the machine
(each in exercise 4.2, with the other five answers right: five points, and the rest of the
class graded), and one of each bad file. The whole class is graded once (about a minute on
two cores, in bubblewrap where it works); every row is checked.
"""
from __future__ import annotations

import copy
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_tools.grade import grade, sandbox

ROOT = Path(__file__).resolve().parents[2]
NAME = "04_copying.ipynb"
SOLUTION = json.loads((ROOT / "solutions" / NAME).read_text(encoding="utf-8"))
EXERCISE = json.loads((ROOT / "exercises" / NAME).read_text(encoding="utf-8"))
# The Chinese edition's (issue 30): same name, same answer and check cells, Chinese words.
SOLUTION_ZH = json.loads((ROOT / "solutions" / "zh-CN" / NAME).read_text(encoding="utf-8"))
EXERCISE_ZH = json.loads((ROOT / "exercises" / "zh-CN" / NAME).read_text(encoding="utf-8"))
ISOLATED = sandbox.bwrap_works()
# Small limits, but a generous wall clock: on a loaded shared machine a notebook may wait long
# for a core.
LIMITS = sandbox.Limits(cell_seconds=3, cpu_seconds=40, wall_seconds=600, memory=2 * 2**30,
                        processes=24, output=256 * 2**10)


def cell(nb: dict, cell_id: str) -> dict:
    return next(c for c in nb["cells"] if c.get("id") == cell_id)


def with_answer(nb: dict, checker: str, source: str) -> dict:
    nb = copy.deepcopy(nb)
    cell(nb, "answer_" + checker.removeprefix("check_"))["source"] = source
    return nb


def answer(nb: dict, checker: str) -> str:
    return "".join(cell(nb, "answer_" + checker.removeprefix("check_"))["source"])


ATTACK = "check_04_requires_grad_and_grad_fn"  # exercise 4.2


def attack(source: str) -> dict:
    return with_answer(SOLUTION, ATTACK, source)


def without_checks(nb: dict) -> dict:
    nb = copy.deepcopy(nb)
    nb["cells"] = [c for c in nb["cells"] if not c.get("id", "").startswith("check_")]
    return nb


def edited_checks(nb: dict) -> dict:
    nb = copy.deepcopy(nb)
    for c in nb["cells"]:
        if c.get("id", "").startswith("check_"):
            c["source"] = "print('✅ Correct: well done.')"
    return nb


def build_class(folder: Path) -> None:
    def put(student, nb=None, *, text=None, name=NAME):
        (folder / student).mkdir(parents=True, exist_ok=True)
        if text is None:
            text = json.dumps(nb, ensure_ascii=False)
        (folder / student / name).write_text(text, encoding="utf-8")

    put("right", SOLUTION)
    put("blank", EXERCISE)
    wrong = with_answer(SOLUTION, "check_04_snapshot",
                        "torch.manual_seed(0)\nw = torch.randn(3, requires_grad=True)\n"
                        "snapshot = w.detach()\n")
    put("wrong", with_answer(wrong, "check_04_data_gradient", "prediction = [2., 4., 6.]\n"))
    # cheating: each gets no credit for the cheat, and a flag
    put("cheat edits checks", edited_checks(EXERCISE))
    put("cheat deletes checks", without_checks(EXERCISE))
    put("cheat redefines", with_answer(EXERCISE, "check_04_snapshot",
                                       answer(EXERCISE, "check_04_snapshot") +
                                       "\ndef check_04_snapshot(answer):\n    return True\n"))
    put("cheat patches", with_answer(EXERCISE, "check_04_snapshot",
                                     "from exercises.checks import copying, toolkit\n"
                                     "copying.expect_tensor = lambda *a, **k: toolkit.correct()\n"
                                     + answer(EXERCISE, "check_04_snapshot")))
    put("cheat reloads", with_answer(SOLUTION, "check_04_snapshot",
                                     "import importlib\nimport exercises.checks.copying as c\n"
                                     "importlib.reload(c)\n"
                                     + answer(SOLUTION, "check_04_snapshot")))
    put("cheat prints", with_answer(EXERCISE, "check_04_snapshot",
                                    answer(EXERCISE, "check_04_snapshot")
                                    + "\nprint('✅ Correct: well done.')\n"))
    # attacks on the machine, in exercise 4.2
    put("attack loop", attack("while True:\n    pass\n"))
    # every child sleeps (a spinning bomb would only load the machine more): the process limit
    # refuses the fork after the limit, and the children are killed after the cell
    put("attack fork", attack("import os, time\nfor _ in range(100000):\n    if os.fork() == 0:\n"
                              "        time.sleep(600)\n"))
    put("attack memory", attack("import numpy as np\nbig = np.ones(10 * 2**30 // 8)\n"))
    put("attack exit", attack("import os\nos._exit(0)\n"))
    put("attack writes", attack(f"open({str(ROOT / 'exercises' / 'planted.txt')!r}, 'w')"
                                f".write('x')\n"))
    put("attack reads", attack(f"text = open({str(folder / 'right' / NAME)!r}).read()\n"))
    put("attack solutions", attack(f"text = open({str(ROOT / 'solutions' / NAME)!r}).read()\n"))
    put("attack prints", attack("import sys\nwhile True:\n    sys.__stdout__.write('x' * 65536)\n"))
    # bad files
    put("not json", text="this is not a notebook {")
    as_v4 = nbformat.reads(json.dumps(SOLUTION), as_version=4)
    put("garbled cells", {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                          "cells": [1, "x", {"cell_type": "code", "source": [1, 2]}]})
    put("nbformat 3", text=nbformat.writes(nbformat.convert(as_v4, 3)))
    put("another lesson", json.loads((ROOT / "solutions" / "05_graphs_and_leaves.ipynb")
                                     .read_text(encoding="utf-8")))
    missing = copy.deepcopy(SOLUTION)
    missing["cells"] = [c for c in missing["cells"]
                        if c.get("id") not in ("answer_04_snapshot", "check_04_snapshot")]
    put("cells missing", missing)
    reordered = copy.deepcopy(SOLUTION)
    reordered["cells"] = reordered["cells"][:2] + reordered["cells"][2:][::-1]
    put("cells reordered", reordered)
    renamed = copy.deepcopy(SOLUTION)
    cell(renamed, "answer_04_snapshot")["id"] = "my-own-id"
    put("id changed", renamed)
    old = copy.deepcopy(json.loads((ROOT / "tests" / "course" / "old_edition_exercises.json")
                                   .read_text(encoding="utf-8"))["exercises/03_copying.ipynb"])
    for c in old["cells"]:
        if c.get("id", "").startswith("answer_03_"):
            c["source"] = answer(SOLUTION, c["id"].replace("answer_03_", "check_04_"))
    put("earlier edition", old, name="03_copying.ipynb")
    (folder / "empty").mkdir()
    put("Zoë Ñandú", SOLUTION)
    put("first last", EXERCISE)
    # the Chinese edition's notebooks: graded by the same checkers, verdicts in Chinese
    put("chinese right", SOLUTION_ZH)
    put("chinese blank", EXERCISE_ZH)
    put("chinese wrong", with_answer(SOLUTION_ZH, "check_04_data_gradient",
                                     "prediction = [2., 4., 6.]\n"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("grades")
    build_class(folder)
    grades = grade.grade_class(folder, out, limits=LIMITS, jobs=2, isolate=ISOLATED,
                               progress=None)
    with open(out / "grades.csv", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    print()
    print(grade.summary(grades, {NAME: grade.course_notebook(NAME)}))
    return rows, out


NUMBERS = ["4.1", "4.2", "4.3", "4.4", "4.5", "4.6"]


def points(row) -> list[int]:
    return [int(row[n]) for n in NUMBERS]


# student -> (points per exercise, what the notes must say)
EXPECTED = {
    "right": ([1, 1, 1, 1, 1, 1], []),
    "blank": ([0, 0, 0, 0, 0, 0], []),
    "wrong": ([1, 1, 0, 1, 1, 0], []),
    "cheat edits checks": ([0] * 6, ["4.1: check cell edited", "4.6: check cell edited"]),
    "cheat deletes checks": ([0] * 6, ["4.1: check cell deleted", "4.6: check cell deleted"]),
    "cheat redefines": ([0] * 6, ["4.3: redefines check_04_snapshot",
                                  "4.3: redefined check_04_snapshot"]),
    "cheat patches": ([0] * 6, ["4.3: patched the course", "4.3: imports the checkers' package",
                                "04_copying.ipynb: not graded after the course was patched: "
                                "4.4, 4.5, 4.6"]),
    "cheat reloads": ([1, 1, 0, 0, 0, 0], ["4.3: reloads a module", "4.3: patched the course"]),
    "cheat prints": ([0] * 6, ["4.3: printed a verdict itself"]),
    "attack loop": ([1, 0, 1, 1, 1, 1], ["4.2: refused: ran longer than 3 s"]),
    "attack fork": ([1, 0, 1, 1, 1, 1], ["4.2: refused: BlockingIOError"]),
    "attack memory": ([1, 0, 1, 1, 1, 1], ["4.2: refused: ran out of memory"]),
    "attack exit": ([1, 0, 1, 1, 1, 1], ["4.2: stopped: the notebook ended the Python process"]),
    "attack writes": ([1, 0, 1, 1, 1, 1], ["4.2: refused:"]),
    "attack reads": ([1, 0, 1, 1, 1, 1], ["4.2: refused: FileNotFoundError"]),
    "attack solutions": ([1, 0, 1, 1, 1, 1], ["4.2: refused: FileNotFoundError"]),
    "attack prints": ([1, 0, 1, 1, 1, 1], ["4.2: refused: File too large"]),
    "not json": ([0] * 6, ["04_copying.ipynb is not a notebook (not JSON)"]),
    "garbled cells": ([0] * 6, ["04_copying.ipynb could not be read as a notebook"]),
    "nbformat 3": ([1] * 6, ["nbformat 3, converted to 4"]),
    "another lesson": ([0] * 6, ["no answer cell of this notebook's exercises (its checkers "
                                 "are lesson 05's: another notebook under this name?)"]),
    "cells missing": ([1, 1, 0, 1, 1, 1], ["4.3: check cell deleted"]),
    "cells reordered": ([1] * 6, []),
    "id changed": ([1] * 6, []),
    "earlier edition": ([1] * 6, ["graded from 03_copying.ipynb (the earlier edition's name)"]),
    "empty": ([0] * 6, ["no notebooks handed in", "04_copying.ipynb missing"]),
    "Zoë Ñandú": ([1] * 6, []),
    "first last": ([0] * 6, []),
    "chinese right": ([1] * 6, []),
    "chinese blank": ([0] * 6, []),
    "chinese wrong": ([1, 1, 1, 1, 1, 0], []),
}


# What only bubblewrap refuses (without it, the run goes on with the limits only).
NEEDS_BWRAP = {"attack writes", "attack reads", "attack solutions"}


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(EXPECTED))
def test_every_row(graded, student):
    if student in NEEDS_BWRAP and not ISOLATED:
        pytest.skip("bubblewrap (bwrap) is not installed: this attack is not contained")
    rows, out = graded
    row = rows[student]
    wanted, notes = EXPECTED[student]
    assert points(row) == wanted, row["notes"]
    assert int(row["total"]) == sum(wanted) and int(row["max"]) == 6
    for note in notes:
        assert note in row["notes"], row["notes"]
    if not notes:
        assert row["notes"] == ""
    results = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == sum(wanted)
    assert [t["score"] for t in results["tests"]] == wanted
    assert all(t["max_score"] == 1 and t["name"].startswith("4.") and t["output"]
               for t in results["tests"])
    assert "Total: " in (out / student / "feedback.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_attacks_left_nothing_behind(graded):
    assert not (ROOT / "exercises" / "planted.txt").exists()


@pytest.mark.slow
def test_the_feedback_is_the_checkers(graded):
    _rows, out = graded
    right = json.loads((out / "right" / "results.json").read_text(encoding="utf-8"))
    blank = json.loads((out / "blank" / "results.json").read_text(encoding="utf-8"))
    assert all(t["output"].startswith("✅ Correct") for t in right["tests"])
    shown = [o.get("text") or o["data"]["text/plain"] for c in EXERCISE["cells"]
             if c.get("id", "").startswith("check_") for o in c["outputs"]]
    # what the unsolved notebook shows under each check, the grader says too
    assert [t["output"] for t in blank["tests"]] == ["".join(s).strip() for s in shown]


@pytest.mark.slow
def test_a_chinese_notebook_is_told_in_chinese(graded):
    """A notebook of the Chinese edition gets the verdicts its check cells show, in Chinese;
    the English one of the same exercise, English."""
    _rows, out = graded

    def outputs(student):
        results = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
        return [t["output"] for t in results["tests"]]

    assert all(o.startswith("✅ 正确") for o in outputs("chinese right")), outputs("chinese right")
    shown = [o.get("text") or o["data"]["text/plain"] for c in EXERCISE_ZH["cells"]
             if c.get("id", "").startswith("check_") for o in c["outputs"]]
    assert outputs("chinese blank") == ["".join(s).strip() for s in shown]
    wrong, english = outputs("chinese wrong")[-1], outputs("wrong")[-1]
    assert wrong.startswith("❌") and english.startswith("❌") and wrong != english
    assert re.search("[\u4e00-\u9fff]", wrong) and not re.search("[\u4e00-\u9fff]", english)
    assert "✅ 正确" in (out / "chinese right" / "feedback.html").read_text(encoding="utf-8")


def test_the_language_of_a_submission():
    assert grade.submission_language(SOLUTION_ZH) == "zh-CN"
    assert grade.submission_language(SOLUTION) == "en"
    for metadata in ({}, {"course": "zh-CN"}, {"course": {"language": 7}},
                     {"course": {"language": "klingon"}}, []):
        assert grade.submission_language({"metadata": metadata}) == "en", metadata
    assert grade.submission_language({"metadata": {"course": {"language": "zh_CN"}}}) == "zh-CN"
    course = grade.course_notebook(NAME)
    assert grade.make_job(course, SOLUTION_ZH)[0]["language"] == "zh-CN"
    assert grade.make_job(course, SOLUTION)[0]["language"] == "en"


def test_without_bubblewrap_a_warning():
    assert "bubblewrap" in sandbox.warning() and "solutions" in sandbox.warning()


@pytest.mark.skipif(not ISOLATED, reason="bubblewrap (bwrap) is not installed")
def test_the_sandbox_has_no_network_and_no_solutions(tmp_path):
    probe = ("import os, socket\n"
             "try:\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n    net = 'yes'\n"
             "except OSError:\n    net = 'no'\n"
             f"sol = os.path.exists({str(ROOT / 'solutions')!r})\n"
             "open('mine.txt', 'w').write('its own folder')\n"
             "try:\n    open('/tmp/elsewhere.txt', 'w')\n    tmp = 'yes'\n"
             "except OSError:\n    tmp = 'no'\n"
             "prediction = net, sol, tmp, os.getuid()\nprint(prediction)\n")
    course = grade.course_notebook(NAME)
    job, _ = grade.make_job(course, with_answer(EXERCISE, "check_04_data_gradient", probe))
    job["cells"].append({"kind": "course", "source": "assert prediction[0] == 'no'"})
    outcome = sandbox.run(job, LIMITS, isolate=True)
    verdict = next(r for r in outcome.results if r.get("checker") == "check_04_data_gradient")
    uid = 65534 if os.getuid() == 0 else os.getuid()  # root's notebooks run as nobody
    assert f"('no', False, 'no', {uid})" in verdict["output"]


@pytest.mark.slow
@pytest.mark.parametrize("fresh", [True, False], ids=["fresh", "server"])
def test_a_notebook_that_waits_is_stopped_by_the_wall_clock(tmp_path, fresh):
    """A cell that sleeps uses no CPU time: the notebook's wall-clock limit stops it, and the
    run starts again after that exercise, so the others are still graded (in a fresh
    interpreter, and in a child of the per-worker server)."""
    path = tmp_path / NAME
    path.write_text(json.dumps(attack("import time\ntime.sleep(10**6)\n")), encoding="utf-8")
    limits = sandbox.Limits(cell_seconds=3, cpu_seconds=40, wall_seconds=25,
                            memory=2 * 2**30, processes=24, output=256 * 2**10)
    result = grade_one(path, limits, fresh)
    assert [v.points for v in result.verdicts] == [1, 0, 1, 1, 1, 1]
    assert "4.2: stopped: the notebook ran longer than 25 s" in result.notes


def grade_one(path: Path, limits: sandbox.Limits, fresh: bool) -> grade.NotebookGrade:
    """Lesson 4's notebook at ``path``, graded in a fresh interpreter or by a per-worker
    server's child."""
    server = None if fresh else sandbox.Server(isolate=ISOLATED, limits=limits)
    try:
        return grade.grade_notebook(grade.course_notebook(NAME), path, limits,
                                    isolate=ISOLATED, server=server)
    finally:
        if server is not None:
            server.close()


def burns(seconds: float) -> str:
    return (f"import time\n_start = time.process_time()\n"
            f"while time.process_time() - _start < {seconds}:\n    pass\n")


@pytest.mark.slow
@pytest.mark.parametrize("fresh", [True, False], ids=["fresh", "server"])
def test_a_notebook_over_its_cpu_time_is_stopped_where_it_ran_out(tmp_path, fresh):
    """Every cell under the per-cell limit (3 s), the notebook over its own (4 s of CPU time):
    stopped in the exercise where the time ran out, said so, and the run starts again after
    it (the earlier answers' 2 s and the rest of the notebook fit in the budget)."""
    nb = SOLUTION
    for checker, seconds in (("check_04_does_b_change", 1), (ATTACK, 1),
                             ("check_04_snapshot", 2.9)):
        nb = with_answer(nb, checker, burns(seconds) + answer(nb, checker))
    path = tmp_path / NAME
    path.write_text(json.dumps(nb), encoding="utf-8")
    limits = sandbox.Limits(cell_seconds=3, cpu_seconds=4, wall_seconds=600,
                            memory=2 * 2**30, processes=24, output=256 * 2**10)
    result = grade_one(path, limits, fresh)
    assert [v.points for v in result.verdicts] == [1, 1, 0, 1, 1, 1], result.notes
    assert result.notes == ["4.3: stopped: the notebook used more than 4 s of CPU time"]


@pytest.mark.slow
def test_the_same_grade_every_time_fresh_or_forked(tmp_path):
    """The same verdicts twice, and the same from a fresh interpreter as from a child forked
    from the per-worker server (the class above is graded by servers)."""
    path = tmp_path / NAME
    path.write_text(json.dumps(with_answer(SOLUTION, "check_04_snapshot", "torch.manual_seed(1)\n"
                                           "w = torch.randn(3, requires_grad=True)\n"
                                           "snapshot = w.detach()\n")), encoding="utf-8")
    course = grade.course_notebook(NAME)
    server = sandbox.Server(isolate=ISOLATED, limits=LIMITS)
    try:
        runs = [grade.grade_notebook(course, path, LIMITS, isolate=ISOLATED, server=s)
                for s in (None, None, server, server)]
    finally:
        server.close()
    verdicts = [[(v.status, v.message) for v in run.verdicts] for run in runs]
    assert all(v == verdicts[0] for v in verdicts) and verdicts[0][2][0] == "wrong"


@pytest.mark.slow
def test_the_command_line(tmp_path):
    """`make grade`'s command: the files, a progress bar on stderr, the table on stdout."""
    (tmp_path / "class" / "ann").mkdir(parents=True)
    (tmp_path / "class" / "ann" / NAME).write_text(json.dumps(SOLUTION), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "course_tools.grade", "grade",
                           str(tmp_path / "class"), "--out", str(tmp_path / "out"),
                           "--cell-seconds", "10"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "grading [" in done.stderr and "1/1 notebooks" in done.stderr
    assert "ann" in done.stdout and "6/6" in done.stdout and "s per notebook" in done.stdout
    assert (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()[1] \
        .startswith("ann,1,1,1,1,1,1,6,6,")


def saved_check_outputs(nb: dict) -> list[str]:
    """What the learner saw under each check cell, in the notebook's order."""
    return ["".join("".join(o.get("text") or o.get("data", {}).get("text/plain", ""))
                    for o in c.get("outputs", [])).strip()
            for c in nb["cells"] if c.get("id", "").startswith("check_")]


@pytest.mark.slow
def test_every_lesson_graded_as_the_learner_saw_it(tmp_path):
    """Every exercise notebook of the course, not only lesson 4's: the worked answers get full
    marks, the untouched notebooks (fix-the-bug stubs included) zero, and each verdict is the
    one the committed notebook shows under its check cell."""
    names = sorted(p.name for p in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    assert len(names) >= 13
    for student, folder in (("worked", "solutions"), ("untouched", "exercises")):
        (tmp_path / "class" / student).mkdir(parents=True)
        for name in names:
            (tmp_path / "class" / student / name).write_bytes((ROOT / folder / name).read_bytes())
    grade.grade_class(tmp_path / "class", tmp_path / "out", limits=LIMITS, jobs=2,
                      isolate=ISOLATED, progress=None)
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    for student, folder, points in (("worked", "solutions", 1), ("untouched", "exercises", 0)):
        row = rows[student]
        assert row["notes"] == ""
        results = json.loads((tmp_path / "out" / student / "results.json")
                             .read_text(encoding="utf-8"))
        shown = [out for name in names for out in saved_check_outputs(
            json.loads((ROOT / folder / name).read_text(encoding="utf-8")))]
        assert len(results["tests"]) == len(shown) == int(row["max"]) > 70
        assert [t["score"] for t in results["tests"]] == [points] * len(shown)
        assert int(row["total"]) == points * len(shown)
        assert [t["output"] for t in results["tests"]] == shown


@pytest.mark.parametrize("exercise_folder", ["exercises", "exercises/zh-CN"])
def test_a_whole_workspace_handed_in_is_graded_from_its_exercise_notebook(tmp_path,
                                                                          exercise_folder):
    """A student hands in the whole workspace (or the browser edition's Download my work zip,
    unpacked): the lesson notebook of the same name (notebooks/04_copying.ipynb) is not the
    exercise notebook, even where the exercise one lies deeper (the Chinese edition's)."""
    student = tmp_path / "ann"
    for folder, source in (("notebooks", ROOT / "notebooks" / NAME),
                           (exercise_folder, ROOT / "solutions" / NAME)):
        (student / folder).mkdir(parents=True)
        (student / folder / NAME).write_bytes(source.read_bytes())
    found, notes = grade.student_files(student, grade.course_exercise_notebooks())
    assert found[NAME] == student / exercise_folder / NAME and notes == []
