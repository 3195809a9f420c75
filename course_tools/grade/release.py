"""What a teacher hands out: the course without its solutions (``make release OUT=...``).

The release is the repository's tracked files minus what only authors, testers and graders
use (``solutions/`` unless asked for, ``tests/``, ``bench/``, the CI script, this grader), as a
folder and as a zip of that folder. The exercise notebooks (and the solution notebooks, when
released) get nbgrader's cell metadata (``add_nbgrader_metadata``; nbgrader's contributor
guide, "JSON Metadata Format"), so a teacher already on nbgrader can take them as they are:
the solutions, with their ``### BEGIN SOLUTION`` markers, are what nbgrader's ``source/``
folder expects.

``site`` builds the browser edition of a release (``make release`` does, into ``OUT/site/``):
the same build as ``make site`` (course_tools/site/build.py), run on the released folder rather
than on the repository, so its contents (the notebooks JupyterLite stores, the read-only pages,
the course's wheel) are the release's: no solutions unless they were released, and the
checkers without their reference answers.
"""
from __future__ import annotations

import ast
import copy
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from course_tools.notebook_files import ROOT, answer_cells, as_text, tags
from exercises.checks.answer_cells import checkers_called

NAME = "autograd-step-by-step"
# Never handed out: the worked answers (unless SOLUTIONS=1), and what authors, testers,
# CI and graders run (the tests and benchmarks hold solved answers too).
LEFT_OUT = ("tests/", "bench/", ".ci/", "course_tools/grade/", ".gitignore")
SOLUTIONS = "solutions/"  # solutions/zh-CN/ too (the Chinese edition's, issue 30)
POINTS = 1  # each exercise is worth one point (the grader's CSV counts the same)
NBGRADER_SCHEMA = 3
# The site's build tools (make site installs them there).
SITE_PYTHON = ROOT / ".site-venv" / "bin" / "python"


def tracked_files(root: Path = ROOT) -> list[str]:
    """The repository's files as git knows them (what a clone has): untracked files, a
    learner's workspace/ or build outputs are never released by accident."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                            capture_output=True).stdout.decode("utf-8").split("\0")
    return sorted(name for name in listed if name and (root / name).is_file())


def released_files(root: Path = ROOT, solutions: bool = False) -> list[str]:
    left_out = LEFT_OUT + (() if solutions else (SOLUTIONS,))
    return [name for name in tracked_files(root) if not name.startswith(left_out)]


def add_nbgrader_metadata(nb: dict) -> dict:
    """``nb`` (an exercise notebook, as JSON) with nbgrader's metadata (schema 3) on each
    answer cell (a solution cell, ``answer_NN_name``) and check cell (a graded, locked cell,
    ``check_NN_name``, one point), where a cell has none yet. Other cells are left as they are.

    nbgrader awards a graded cell's points when it runs without an error: under nbgrader
    (``NBGRADER_EXECUTION`` set) the checkers raise for a verdict other than correct
    (exercises/checks/toolkit.py), so its autograde gives the points ``make grade`` gives
    (tests/grading/test_nbgrader.py).
    """
    nb = copy.deepcopy(nb)
    answers = {id(cell): name for name, cell in answer_cells(nb).items()}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code" or "nbgrader" in cell.get("metadata", {}):
            continue
        called = checkers_called(as_text(cell.get("source")))
        if id(cell) in answers:
            grade_id = "answer_" + answers[id(cell)].removeprefix("check_")
            meta = {"grade": False, "grade_id": grade_id,
                    "locked": False, "schema_version": NBGRADER_SCHEMA, "solution": True,
                    "task": False}
        elif called and "exercise" not in tags(cell):
            meta = {"grade": True, "grade_id": called[0], "locked": True, "points": POINTS,
                    "schema_version": NBGRADER_SCHEMA, "solution": False, "task": False}
        else:
            continue
        cell.setdefault("metadata", {})["nbgrader"] = meta
    return nb


def without_reference_answers(source: str) -> str:
    """A checkers module's source with each ``@checker(right=..., wrong=...)`` made a plain
    ``@checker``, and the module's functions only those arguments used left out: ``right``
    builds the worked answer (for the course's own tests), which is not for handing out; the
    checkers themselves never call it."""
    tree = ast.parse(source)
    cuts, named = [], set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name)
                        and decorator.func.id == "checker"):
                    cuts.append((decorator, "checker"))
                    named |= {n.id for n in ast.walk(decorator) if isinstance(n, ast.Name)}
    source = _cut(source, cuts)
    tree = ast.parse(source)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    unused = [(node, "") for node in tree.body
              if isinstance(node, ast.FunctionDef) and node.name in named - used]
    return _cut(source, unused)


def _cut(source: str, cuts: list) -> str:
    """``source`` with each (node, replacement)'s text replaced (decorators of a function
    cut go with it)."""
    lines = source.splitlines(keepends=True)
    for node, replacement in sorted(cuts, key=lambda c: (c[0].lineno, c[0].col_offset),
                                    reverse=True):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        first, last = start - 1, node.end_lineno - 1
        head = lines[first][:node.col_offset] if start == node.lineno else ""
        tail = lines[last][node.end_col_offset:]
        if not replacement and not tail.strip():
            tail = ""
        lines[first:last + 1] = [head + replacement + tail] if head + replacement + tail else []
    return "".join(lines)


def release(out: Path, root: Path = ROOT, solutions: bool = False) -> tuple[Path, Path]:
    """Write ``out/autograd-step-by-step/`` and ``out/autograd-step-by-step.zip``; return both.
    An earlier release in ``out`` is replaced (``out`` itself is never emptied)."""
    out = Path(out)
    folder, archive = out / NAME, out / f"{NAME}.zip"
    if folder.exists():
        shutil.rmtree(folder)
    archive.unlink(missing_ok=True)
    for name in released_files(root, solutions):
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name.startswith(("exercises/", SOLUTIONS)) and name.endswith(".ipynb"):
            nb = add_nbgrader_metadata(json.loads((root / name).read_text(encoding="utf-8")))
            target.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                              encoding="utf-8")
        elif name.startswith("exercises/checks/") and name.endswith(".py"):
            target.write_text(without_reference_answers((root / name).read_text(
                encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copy2(root / name, target)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zipped.write(path, f"{NAME}/{path.relative_to(folder).as_posix()}")
    return folder, archive


def site_command(folder: Path, out: Path, *, python: Path = SITE_PYTHON,
                 root: Path = ROOT) -> list[str]:
    """``make site``'s build, on the released ``folder``: its notebooks are the site's whole
    content (no solutions unless released), its engine and checkers the site's wheel. The
    downloads are ``make site``'s own (kept in build/site-work/cache), the staging folder the
    release's."""
    return [str(python), "-m", "course_tools.site.build", "--root", str(Path(folder).resolve()),
            "--out", str(Path(out).resolve()),
            "--work", str(root / "build" / "release-site-work"),
            "--cache", str(root / "build" / "site-work" / "cache")]


def site(folder: Path, out: Path, *, python: Path = SITE_PYTHON, root: Path = ROOT) -> Path:
    """Build the browser edition of the release in ``folder`` into ``out`` (replaced)."""
    if not Path(python).exists():
        raise FileNotFoundError(f"{python} is missing: the site's build tools are installed by "
                                "`make site` (or `make release`, which installs them first)")
    subprocess.run(site_command(folder, out, python=python, root=root), cwd=root, check=True,
                   stdout=sys.stdout, stderr=sys.stderr)
    return Path(out)
