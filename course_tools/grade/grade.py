"""Grade a class's exercise notebooks (``make grade SUBMISSIONS=<folder> [OUT=<folder>]``).

``SUBMISSIONS/<student>/`` holds any of that student's exercise notebooks under their course
file names (``04_copying.ipynb``). For each one, the course's own exercise notebook is run
again in a fresh interpreter in the sandbox (``sandbox.py``), with the student's answer cells
in place of the course's (matched by cell id, ``answer_04_snapshot``, or else by the checker
the check cell calls, as the editions' mapping does), and each exercise judged by the course's
own checker (``runner.py``). Saved outputs and the submission's own check cells are never
trusted: an edited or deleted check cell is only flagged.

Writes ``OUT/grades.csv`` (a row per student, a column per exercise, total, max, notes),
``OUT/<student>/results.json`` (Gradescope's format) and ``OUT/<student>/feedback.html``.
"""
from __future__ import annotations

import ast
import csv
import dataclasses
import html
import json
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from course_tools.grade import sandbox
from course_tools.notebook_files import ROOT, answer_cells, as_text, exercises, tags
from exercises.checks.answer_cells import checkers_called
from exercises.checks.i18n import ENGLISH, LANGUAGES, normalise
from exercises.checks.old_names import OLD_NOTEBOOKS, RENAMED_CHECKERS

NOTEBOOK = re.compile(r"\d\d_[A-Za-z0-9_]+\.ipynb")
CHECKER_NAME = re.compile(r"\bcheck_\d\d_\w+")
POINTS = 1
CREDIT = {"correct": POINTS}
STATUS_WORDS = {"correct": "Correct", "wrong": "Not quite", "not_done": "Not done",
                "not_checked": "Not checked", "error": "Error", "missing": "Missing",
                "tampered": "No credit (course patched)", "ungraded": "Not graded",
                "stopped": "Stopped"}
# An answer's error that is the sandbox or a limit saying no: worth a note in the CSV.
CONTAINED = re.compile(r"ran longer than [0-9.]+ s|ran out of memory|PermissionError|"
                       r"Read-only file system|FileNotFoundError|BlockingIOError|"
                       r"Resource temporarily unavailable|Network is unreachable|"
                       r"File too large|called exit\(\)")
# Answers that reach for the grader's process rather than the exercise: flagged for a look.
SUSPICIOUS = {"importlib": "imports importlib", "reload": "reloads a module",
              "sys.modules": "touches sys.modules", "ctypes": "uses ctypes",
              "gc": "uses gc", "_getframe": "inspects frames", "os.write": "writes to a file "
              "descriptor", "/proc": "reads /proc", "builtins": "touches builtins"}


# --- the course's side -------------------------------------------------------------------

@dataclasses.dataclass
class Exercise:
    number: str  # "4.3"
    title: str
    checker: str
    notebook: str  # "04_copying.ipynb"


@dataclasses.dataclass
class CourseNotebook:
    name: str
    cells: list  # (kind, source, exercise number or None, checker or None)
    exercises: list  # Exercise, in order

    @property
    def checkers(self) -> set:
        return {e.checker for e in self.exercises}


def course_notebook(name: str, root: Path = ROOT) -> CourseNotebook:
    nb = json.loads((root / "exercises" / name).read_text(encoding="utf-8"))
    found = exercises(nb)
    number_of = {}
    listed = []
    for number, title, _answer, check in found:
        for checker in checkers_called(as_text(check.get("source"))):
            number_of[checker] = number
            listed.append(Exercise(number, title, checker, name))
    answers = {id(cell): checker for checker, cell in answer_cells(nb).items()}
    cells = []
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        source = as_text(cell.get("source"))
        called = checkers_called(source)
        if id(cell) in answers:
            checker = answers[id(cell)]
            cells.append(("answer", source, number_of[checker], checker))
        elif called and "exercise" not in tags(cell):
            cells.append(("check", source, number_of[called[0]], called[0]))
        else:
            cells.append(("course", source, None, None))
    return CourseNotebook(name, cells, listed)


# --- the submission's side ---------------------------------------------------------------

class Unreadable(Exception):
    """A submitted file that is not a notebook the grader can read."""


def read_submission(path: Path) -> tuple[dict, list[str]]:
    """The notebook as nbformat 4 JSON, and notes on how it was read."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise Unreadable(f"cannot be read ({error.strerror})") from None
    try:
        nb = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Unreadable("is not a notebook (not JSON)") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells", nb.get("worksheets")), list):
        raise Unreadable("is not a notebook (no cells)")
    notes = []
    major = nb.get("nbformat")
    if major != 4:
        try:
            # imported here only: nbformat (with jsonschema) takes seconds to import, and
            # only a notebook older than nbformat 4 needs it
            import nbformat

            nb = json.loads(nbformat.writes(nbformat.reads(raw.decode("utf-8"), as_version=4)))
        except Exception as error:  # noqa: BLE001 - any failure is "cannot read"
            raise Unreadable(f"is an nbformat {major} notebook that could not be converted "
                             f"({type(error).__name__})") from None
        notes.append(f"nbformat {major}, converted to 4")
    return nb, notes


def submitted_answers(nb: dict, old: bool = False) -> dict[str, str]:
    """checker name (this edition's) -> the submission's answer source: the cell with the id
    ``answer_NN_name`` (whatever became of its check cell), or else the cell its check cell
    judges (``answer_cells``: the tagged cell before it, as the editions' mapping reads it).
    ``old``: a notebook of the earlier edition, whose checkers had the names
    ``RENAMED_CHECKERS`` maps."""
    def _checker_name(name: str) -> str:
        return RENAMED_CHECKERS.get(name, name) if old else name

    found = {}
    for cell in nb.get("cells", []):
        cell_id = cell.get("id") or ""
        if cell.get("cell_type") == "code" and cell_id.startswith("answer_"):
            found.setdefault(_checker_name("check_" + cell_id.removeprefix("answer_")),
                             as_text(cell.get("source")))
    for name, cell in answer_cells(nb).items():
        found.setdefault(_checker_name(name), as_text(cell.get("source")))
    return found


def submitted_checks(nb: dict, old: bool = False) -> dict[str, list[str]]:
    """checker name -> the sources of the submission's check cells for it: the cells calling
    it (not answer cells) and the cell with its id (``check_NN_name``), edited or not; an
    earlier edition's (``old``) with its checkers' names as they are now."""
    def _checker_name(name: str) -> str:
        return RENAMED_CHECKERS.get(name, name) if old else name

    found: dict[str, list[str]] = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code" or "exercise" in tags(cell):
            continue
        source = as_text(cell.get("source"))
        if old:
            source = CHECKER_NAME.sub(lambda m: _checker_name(m[0]), source)
        names = set(checkers_called(source))
        if re.fullmatch(r"check_\d\d_\w+", cell.get("id") or ""):
            names.add(cell["id"])
        for name in names:
            found.setdefault(_checker_name(name), []).append(source)
    return found


def suspicious(source: str) -> list[str]:
    """What an answer does that no exercise needs (a look at it is worth it)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    words = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
            if isinstance(node.value, ast.Name):
                words.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            words.update(alias.name for alias in node.names)
            words.add(getattr(node, "module", None) or "")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.update(w for w in SUSPICIOUS if w.startswith("/") and w in node.value)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.FunctionDef)):
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            for target in targets:
                name = getattr(target, "id", None) or getattr(node, "name", None)
                if name and (re.fullmatch(r"check_\d\d_\w+", name) or name == "exercises"):
                    words.add(f"defines {name}")
    found = [SUSPICIOUS[w] for w in SUSPICIOUS if w in words]
    found += sorted(w.replace("defines", "redefines") for w in words if w.startswith("defines "))
    words.discard("exercises")
    if any(w.startswith("exercises") for w in words if isinstance(w, str) and w != "exercises"):
        found.append("imports the checkers' package")
    return found


# --- one notebook ------------------------------------------------------------------------

@dataclasses.dataclass
class Verdict:
    exercise: Exercise
    status: str
    message: str
    flags: list
    output: str = ""

    @property
    def points(self) -> int:
        return CREDIT.get(self.status, 0)


@dataclasses.dataclass
class NotebookGrade:
    name: str
    verdicts: list
    notes: list
    seconds: float = 0.0
    cpu: float = 0.0  # CPU time of its runs in the sandbox


def make_job(course: CourseNotebook, nb: dict, old: bool = False) -> tuple[dict, list[str]]:
    answers, checks = submitted_answers(nb, old), submitted_checks(nb, old)
    notes, cells = [], []
    for kind, source, number, checker in course.cells:
        if kind == "answer":
            if checker in answers:
                cells.append({"kind": "answer", "source": answers[checker], "exercise": number})
                for why in suspicious(answers[checker]):
                    notes.append(f"{number}: {why}")
            continue
        if kind == "check":
            mine = checks.get(checker)
            if not mine:
                notes.append(f"{number}: check cell deleted")
            elif all(m.strip() != source.strip() for m in mine):
                notes.append(f"{number}: check cell edited")
            cells.append({"kind": "check", "source": source, "exercise": number,
                          "checker": checker, "missing": checker not in answers})
            continue
        cells.append({"kind": "course", "source": source})
    return {"cells": cells, "language": submission_language(nb)}, notes


def submission_language(nb: dict) -> str:
    """The edition a notebook was handed out in (metadata ``course.language``, which the
    Chinese notebooks carry), so its verdicts speak the student's language as its check cells
    did; English for anything else, a missing or malformed entry included."""
    metadata = nb.get("metadata")
    course = metadata.get("course") if isinstance(metadata, dict) else None
    chosen = normalise(course.get("language")) if isinstance(course, dict) else None
    return chosen if chosen in LANGUAGES else ENGLISH


def _ended(outcome: sandbox.Outcome, limits: sandbox.Limits) -> str:
    code = outcome.returncode
    if code is None:
        return f"stopped: the notebook ran longer than {limits.wall_seconds:g} s"
    if code == -24 or code == -9 and outcome.seconds >= limits.cpu_seconds:
        return f"stopped: the notebook used more than {limits.cpu_seconds} s of CPU time"
    if code == -25 or outcome.output_size >= limits.output:
        return f"stopped: the notebook printed or wrote more than {limits.output} bytes"
    if code == 0:
        return "stopped: the notebook ended the Python process itself (os._exit or similar)"
    if code < 0:
        return f"stopped: the Python process was killed (signal {-code})"
    return f"stopped: the Python process ended with exit code {code}"


def grade_notebook(course: CourseNotebook, path: Path, limits: sandbox.Limits, *,
                   isolate: bool, root: Path = ROOT,
                   server: sandbox.Server | None = None, old: bool = False) -> NotebookGrade:
    """Every exercise of one submitted notebook judged; never raises for a bad submission."""
    try:
        return _grade_notebook(course, path, limits, isolate=isolate, root=root,
                               server=server, old=old)
    except Exception as error:  # noqa: BLE001 - a file no reader foresaw: a row, not a crash
        why = f"could not be read as a notebook ({type(error).__name__}: {error})"
        verdicts = [Verdict(e, "missing", f"not graded: the file {why}", [])
                    for e in course.exercises]
        return NotebookGrade(course.name, verdicts, [f"{course.name} {why}"])


def _grade_notebook(course: CourseNotebook, path: Path, limits: sandbox.Limits, *,
                    isolate: bool, root: Path, server: sandbox.Server | None,
                    old: bool) -> NotebookGrade:
    start = time.monotonic()
    try:
        nb, notes = read_submission(path)
    except Unreadable as why:
        verdicts = [Verdict(e, "missing", f"not graded: the file {why}", [])
                    for e in course.exercises]
        return NotebookGrade(course.name, verdicts, [f"{course.name} {why}"])
    job, flags = make_job(course, nb, old)
    notes += flags
    if old:
        notes.append(f"graded from {path.name} (the earlier edition's name)")
    found = submitted_answers(nb, old).keys() & course.checkers
    if not found:  # not this notebook at all: its check cells are not worth a note each
        notes = [note for note in notes if not note.endswith(("check cell deleted",
                                                              "check cell edited"))]
        other = sorted({name[6:8] for name in submitted_answers(nb, old)})
        notes.append("no answer cell of this notebook's exercises" +
                     (f" (its checkers are lesson {', '.join(other)}'s: another notebook under "
                      f"this name?)" if other else ""))
    by_checker = {e.checker: e for e in course.exercises}
    verdicts: dict[str, Verdict] = {}
    cpu = 0.0
    for _attempt in range(len(course.exercises) + 1):
        outcome = sandbox.run(job, limits, isolate=isolate, root=root, server=server)
        cpu += outcome.cpu
        for line in outcome.results:
            checker = line.get("checker")
            if checker in by_checker and checker not in verdicts:
                verdicts[checker] = Verdict(by_checker[checker], line.get("status", "error"),
                                            line.get("message", ""), line.get("flags", []),
                                            line.get("output", ""))
        if any(line.get("done") for line in outcome.results) or len(verdicts) == len(by_checker):
            break
        # The process ended inside an exercise: that exercise gets the reason, and the run
        # starts again with its answer left out, for the exercises after it.
        stopped = next(e for e in course.exercises if e.checker not in verdicts)
        why = _ended(outcome, limits)
        verdicts[stopped.checker] = Verdict(stopped, "stopped", f"{why} (in exercise "
                                            f"{stopped.number})", ["stopped"])
        notes.append(f"{stopped.number}: {why}")
        for cell in job["cells"]:
            if cell.get("exercise") == stopped.number and cell["kind"] == "answer":
                cell.update(kind="course", source="")
            if cell.get("exercise") == stopped.number and cell["kind"] == "check":
                cell.update(kind="course", source="")
    ordered = [verdicts.get(e.checker) or Verdict(e, "error", "not graded", [])
               for e in course.exercises]
    ungraded = [v.exercise.number for v in ordered if v.status == "ungraded"]
    for verdict in ordered:
        notes += [f"{verdict.exercise.number}: {flag}" for flag in verdict.flags
                  if flag != "stopped"]
        if verdict.status == "error" and CONTAINED.search(verdict.message):
            refused = CONTAINED.search(verdict.message)[0]
            notes.append(f"{verdict.exercise.number}: refused: {refused}")
    if ungraded:
        notes.append(f"not graded after the course was patched: {', '.join(ungraded)}")
    return NotebookGrade(course.name, ordered, _unique(notes), time.monotonic() - start, cpu)


def _unique(items: list) -> list:
    return list(dict.fromkeys(items))


# --- the class ---------------------------------------------------------------------------

@dataclasses.dataclass
class StudentGrade:
    name: str
    notebooks: dict  # course notebook name -> NotebookGrade
    notes: list


def student_files(folder: Path, course_names: list[str]) -> tuple[dict, list[str]]:
    """course notebook name -> the student's file, and notes (files ignored)."""
    found, notes, old = {}, [], {}
    # A whole workspace or a browser edition's "Download my work" zip holds the lesson too,
    # under the same name (notebooks/04_copying.ipynb): a file in an exercises folder comes
    # first, however deep (exercises/zh-CN/), then the shallowest.
    for path in sorted(folder.rglob("*.ipynb"),
                       key=lambda p: ("exercises" not in p.relative_to(folder).parts[:-1],
                                      len(p.parts), str(p))):
        if ".ipynb_checkpoints" in path.parts:
            continue
        if path.name in course_names and path.name not in found:
            found[path.name] = path
        elif path.stem in OLD_NOTEBOOKS:  # the earlier edition's name: its answers still count
            for slug in OLD_NOTEBOOKS[path.stem]:
                old.setdefault(f"{slug}.ipynb", path)
        elif path.name not in course_names:
            notes.append(f"ignored {path.relative_to(folder)} (not an exercise notebook's name)")
    for name, path in old.items():
        if name in course_names and name not in found:
            found[name] = path
    return found, notes


def course_exercise_notebooks(root: Path = ROOT) -> list[str]:
    """The exercise notebooks' names. Both editions on purpose: a Chinese exercise notebook
    (exercises/zh-CN/) has the English one's name and the same answer and check cells (ids,
    checkers: tests/course/test_translations.py), so a student's file of either edition is
    graded by the same checkers under that name."""
    return [p.name for p in sorted((root / "exercises").glob("*.ipynb"))
            if NOTEBOOK.fullmatch(p.name)]


def grade_class(submissions: Path, out: Path, *, limits: sandbox.Limits | None = None,
                notebooks: list[str] | None = None, jobs: int = 2, isolate: bool | None = None,
                root: Path = ROOT, progress=sys.stderr, fresh: bool = False) -> list[StudentGrade]:
    """Grade every student's notebooks; ``fresh``: a new interpreter for each notebook,
    instead of a child forked from a per-worker server that imported the course once."""
    limits = limits or sandbox.Limits()
    if isolate is None:
        problem = sandbox.bwrap_problem()
        isolate = problem is None
        if not isolate:
            print(sandbox.warning(problem), file=progress or sys.stderr)
    problem = sandbox.preflight(root, isolate=isolate, limits=limits)
    if problem is not None:
        raise sandbox.SandboxError(
            f"the grader cannot start the course's Python {'in bubblewrap ' if isolate else ''}"
            f"as the notebooks would run ({problem}); nothing was graded")
    names = course_exercise_notebooks(root)
    students = sorted(p for p in Path(submissions).iterdir()
                      if p.is_dir() and not p.name.startswith("."))
    files = {s.name: student_files(s, names) for s in students}
    if notebooks is None:  # the notebooks someone handed in
        notebooks = sorted({n for found, _ in files.values() for n in found}) or names[:0]
    courses = {n: course_notebook(n, root) for n in notebooks}
    work = [(s.name, n) for s in students for n in notebooks if n in files[s.name][0]]
    done = {}
    total = len(work)
    start = time.monotonic()

    local, servers = threading.local(), []

    def one(item):
        student, name = item
        server = None
        if not fresh:
            server = getattr(local, "server", None)
            if server is None:
                server = local.server = sandbox.Server(root, isolate=isolate, limits=limits)
                servers.append(server)
        path = files[student][0][name]
        return item, grade_notebook(courses[name], path, limits, isolate=isolate, root=root,
                                    server=server, old=path.name != name)

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for count, (item, result) in enumerate(pool.map(one, work), 1):
                done[item] = result
                _progress(count, total, start, progress)
    finally:
        for server in servers:
            server.close()
    grades = []
    for student in students:
        found, notes = files[student.name]
        graded = {}
        for name in notebooks:
            if (student.name, name) in done:
                graded[name] = done[(student.name, name)]
            else:
                missing = [Verdict(e, "missing", "notebook not handed in", [])
                           for e in courses[name].exercises]
                graded[name] = NotebookGrade(name, missing, [f"{name} missing"])
        if not found:
            notes = ["no notebooks handed in"] + notes
        grades.append(StudentGrade(student.name, graded, notes))
    write_outputs(grades, courses, Path(out))
    return grades


def _progress(count: int, total: int, start: float, stream) -> None:
    if stream is None:
        return
    width = 30
    filled = width * count // max(total, 1)
    elapsed = time.monotonic() - start
    print(f"\rgrading [{'#' * filled}{'.' * (width - filled)}] {count}/{total} notebooks, "
          f"{elapsed:.0f} s", end="" if count < total else "\n", file=stream, flush=True)


# --- what it writes ----------------------------------------------------------------------

def columns(courses: dict) -> list[Exercise]:
    return [e for name in sorted(courses) for e in courses[name].exercises]


def student_notes(grade: StudentGrade) -> list[str]:
    notes = list(grade.notes)
    for name, nb in grade.notebooks.items():  # "4.3: ..." names its exercise already
        notes += [n if n.startswith(name) or n[:1].isdigit() else f"{name}: {n}"
                  for n in nb.notes]
    return _unique(notes)


def write_outputs(grades: list[StudentGrade], courses: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cols = columns(courses)
    maximum = POINTS * len(cols)
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *[e.number for e in cols], "total", "max", "notes"])
        for grade in grades:
            points = {v.exercise.checker: v.points for nb in grade.notebooks.values()
                      for v in nb.verdicts}
            row = [points.get(e.checker, 0) for e in cols]
            writer.writerow([grade.name, *row, sum(row), maximum, "; ".join(student_notes(grade))])
    for grade in grades:
        folder = out / grade.name
        folder.mkdir(parents=True, exist_ok=True)
        verdicts = [v for nb in grade.notebooks.values() for v in nb.verdicts]
        tests = [{"name": f"{v.exercise.number} {v.exercise.title}".strip(), "score": v.points,
                  "max_score": POINTS, "output": v.message} for v in verdicts]
        results = {"score": sum(v.points for v in verdicts), "max_score": maximum,
                   "output": "; ".join(student_notes(grade)), "tests": tests}
        (folder / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False)
                                             + "\n", encoding="utf-8")
        (folder / "feedback.html").write_text(feedback_html(grade, maximum), encoding="utf-8")


def feedback_html(grade: StudentGrade, maximum: int) -> str:
    rows = []
    for nb in grade.notebooks.values():
        rows.append(f'<tr><th colspan="3">{html.escape(nb.name)}</th></tr>')
        for v in nb.verdicts:
            rows.append(f"<tr><td>{html.escape(v.exercise.number)} "
                        f"{html.escape(v.exercise.title)}</td><td>{v.points}/{POINTS}</td>"
                        f"<td>{html.escape(v.message)}</td></tr>")
    total = sum(v.points for nb in grade.notebooks.values() for v in nb.verdicts)
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in student_notes(grade))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Feedback: "
            f"{html.escape(grade.name)}</title></head><body>\n<h1>Feedback: "
            f"{html.escape(grade.name)}</h1>\n<p>Total: {total} / {maximum}</p>\n"
            f"{'<ul>' + notes + '</ul>' if notes else ''}\n<table border=\"1\" cellpadding=\"4\">"
            f"\n{chr(10).join(rows)}\n</table>\n</body></html>\n")


def summary(grades: list[StudentGrade], courses: dict) -> str:
    cols = columns(courses)
    notebooks = sum(1 for g in grades for nb in g.notebooks.values()
                    if not any(n.endswith(" missing") for n in nb.notes))
    lines = [f"{len(grades)} students, {notebooks} notebooks graded, "
             f"{sum(1 for g in grades if student_notes(g))} with notes"]
    width = max([len(g.name) for g in grades] + [7])
    lines.append(f"{'student':<{width}}  " + " ".join(f"{e.number:>5}" for e in cols) + "  total")
    for g in grades:
        points = {v.exercise.checker: v.points for nb in g.notebooks.values() for v in nb.verdicts}
        lines.append(f"{g.name:<{width}}  " + " ".join(f"{points.get(e.checker, 0):>5}"
                                                      for e in cols)
                     + f"  {sum(points.values()):>3}/{POINTS * len(cols)}")
    if grades:
        means = []
        for e in cols:
            pts = [v.points for g in grades for nb in g.notebooks.values() for v in nb.verdicts
                   if v.exercise.checker == e.checker]
            means.append(sum(pts) / len(grades))
        lines.append(f"{'mean':<{width}}  " + " ".join(f"{m:>5.2f}" for m in means))
    return "\n".join(lines)
