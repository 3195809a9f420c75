"""Every exercise notebook a learner has still imports its checkers (exercises/checks/old_names.py).

Two sets of notebooks, as a learner's workspace (or a downloaded copy) holds them:

- this edition's, as committed at 1ccfe20, before the checkers moved into ``exercises.checks``
  (current_edition_notebooks.json: the exercise notebooks whole, outputs included, and lesson
  00's cell that imports its checker): ``from exercises.checks_04_copying import ...`` gets
  the module of the new name itself, silently;
- the earlier edition's (old_edition_exercises.json, from commit e6b06eb):
  ``from exercises.checks_03_copying import ...`` gets the new checkers under their old names,
  with a note saying where the exercises are now.

Each import runs in a fresh Python process, and each checker it imports must judge a right
answer right.
"""
from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from course_tools import compare_torch, editions, notebook_files, workspace
from exercises.checks import old_names
from exercises.checks.toolkit import discover

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CURRENT = HERE / "current_edition_notebooks.json"
EARLIER = HERE / "old_edition_exercises.json"

# The modules of exercises/ at 1ccfe20 that were not moved under their old name, and why.
NOT_MAPPED = {
    "exercises.checks": "the checkers' package has this name now; no notebook imported the "
                        "toolkit (a checker module imports exercises.checks.toolkit)",
    "exercises.workspace": "course_tools.workspace, a tool run with `python -m`",
    "exercises.generate": "course_tools.generate, a tool run with `python -m`",
    "exercises.execute": "course_tools.execute, a tool run with `python -m`",
}
MODULES_AT_1CCFE20 = {
    "exercises.checks", "exercises.answer_cells", "exercises.editions", "exercises.workspace",
    "exercises.generate", "exercises.execute", "exercises.checks_00_example",
    *(f"exercises.checks_{slug}" for slug in [
        "01_creating_tensors", "02_shapes_indexing_broadcasting", "03_views_copies_inplace",
        "04_copying", "05_graphs_and_leaves", "06_gradient_accumulation",
        "07_turning_gradients_off", "08_autograd_grad_and_checking", "09_inside_the_engine",
        "10_debugging_gradients", "11_training_loop"]),
}
# Runs in a fresh process: a notebook's import cells, then each checker they imported on its
# exercise's right answer. Prints one JSON line.
IMPORT_AND_CHECK = """
import contextlib, io, json, sys
notebook = json.loads(open(sys.argv[1], encoding="utf-8").read())[sys.argv[2]]
namespace, printed = {}, io.StringIO()
with contextlib.redirect_stdout(printed):
    for cell in notebook["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and "from exercises" in source:
            exec(source, namespace)
import engine
from exercises.checks.old_names import RENAMED_CHECKERS
from exercises.checks.toolkit import discover
checkers = discover()
found = {}
for name, value in namespace.items():
    if name.startswith("check_"):
        new = RENAMED_CHECKERS[name] if sys.argv[3] == "earlier" else name
        verdict = str(value(checkers[new].right(engine)))
        found[name] = {"module": value.__module__, "registered": value is checkers.get(name),
                       "verdict": verdict}
print(json.dumps({"printed": printed.getvalue(), "checkers": found}))
"""


def _notebooks(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def import_in_a_fresh_process(fixture: Path, name: str, edition: str, folder: Path) -> dict:
    """As in a learner's kernel: the installed course, in a folder of the learner's."""
    done = subprocess.run([sys.executable, "-c", IMPORT_AND_CHECK, str(fixture), name, edition],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _imported_names(nb: dict) -> set:
    """The checkers a notebook's cells import."""
    return {alias.name for cell in nb["cells"] if cell["cell_type"] == "code"
            for node in ast.walk(ast.parse(notebook_files.as_text(cell["source"])))
            if isinstance(node, ast.ImportFrom) and node.module.startswith("exercises")
            for alias in node.names}


@pytest.mark.parametrize("name", sorted(_notebooks(CURRENT)))
def test_this_editions_notebooks_import_their_checkers_silently(name, tmp_path):
    nb = _notebooks(CURRENT)[name]
    result = import_in_a_fresh_process(CURRENT, name, "current", tmp_path)
    assert set(result["checkers"]) == _imported_names(nb) != set()
    assert result["printed"] == ""
    for checker, found in result["checkers"].items():
        assert found["registered"], f"{checker} is not the registered checker itself"
        assert found["module"] == old_names.CHECKER_MODULES[Path(name).stem], checker
        assert found["verdict"].startswith("✅ Correct"), (checker, found["verdict"])


@pytest.mark.parametrize("name", sorted(_notebooks(EARLIER)))
def test_the_earlier_editions_notebooks_import_their_checkers(name, tmp_path):
    nb = _notebooks(EARLIER)[name]
    result = import_in_a_fresh_process(EARLIER, name, "earlier", tmp_path)
    assert set(result["checkers"]) == _imported_names(nb) != set()
    assert result["printed"] == old_names.notice(Path(name).stem) + "\n"
    for checker, found in result["checkers"].items():
        assert found["verdict"].startswith("✅ Correct"), (checker, found["verdict"])


def test_a_notebook_of_this_edition_gives_the_outputs_it_gave(tmp_path):
    """Exercise notebook 4 as committed at 1ccfe20 (old import), run again: every output as
    saved then (compared as nbval compares them), a check's answer cell found as before."""
    saved = nbformat.reads(json.dumps(_notebooks(CURRENT)["exercises/04_copying.ipynb"]),
                           as_version=4)
    assert "from exercises.checks_04_copying import" in saved.cells[1].source
    path = tmp_path / "exercises" / "04_copying.ipynb"
    path.parent.mkdir()
    nbformat.write(saved, path)
    fresh = nbformat.read(path, as_version=4)
    NotebookClient(fresh, timeout=600, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    sanitizers = compare_torch.read_sanitizers()
    compared = 0
    for old, new in zip(saved.cells, fresh.cells):
        if old.cell_type == "code":
            assert compare_torch.comparable(new.outputs, sanitizers) == \
                compare_torch.comparable(old.outputs, sanitizers), old.source
            compared += bool(old.outputs)
    assert compared >= 6


# --- what the mapping covers ---------------------------------------------------------------

def test_every_module_of_1ccfe20_is_mapped_or_has_a_reason():
    assert set(old_names.MOVED_MODULES) == MODULES_AT_1CCFE20 - set(NOT_MAPPED)
    for old, new in old_names.MOVED_MODULES.items():
        assert importlib.import_module(old) is importlib.import_module(new), old


def test_every_checker_module_is_in_the_table():
    modules = {checker.__module__ for checker in discover().values()}
    assert modules == set(old_names.CHECKER_MODULES.values())
    lessons = ["00_welcome"] + [p.stem for p in sorted((ROOT / "solutions").glob("[0-9]*.ipynb"))]
    assert list(old_names.CHECKER_MODULES) == lessons


def test_the_two_editions_old_names_never_meet():
    """A name of the earlier edition never means a module of this one, nor the reverse."""
    earlier = {old_names.MODULE_PREFIX + slug for slug in old_names.OLD_NOTEBOOKS}
    assert not earlier & set(old_names.MOVED_MODULES)
    assert not earlier & set(old_names.CHECKER_MODULES.values())


def test_an_unknown_old_name_is_still_an_import_error():
    with pytest.raises(ImportError):
        importlib.import_module("exercises.checks_04_copyingg")
    with pytest.raises(ImportError):
        importlib.import_module("exercises.checks.nothing")


# --- a workspace made at 1ccfe20 ---------------------------------------------------------------

def _with_new_module_names(source: str) -> str:
    """What the move did to a cell: each checkers' import of 1ccfe20 under its new module name,
    the names after the parenthesis aligned again (the inverse of editions.with_old_module_names,
    written out here so that the test does not check the tool against itself)."""
    lines = source.split("\n")
    for index, line in enumerate(lines):
        for old, new in old_names.MOVED_MODULES.items():
            if not line.startswith(f"from {old} import "):
                continue
            lines[index] = line.replace(f"from {old} import ", f"from {new} import ", 1)
            shift = len(old) - len(new)
            follow = index
            hanging = line.rstrip().endswith("(")  # names on the next lines, indented by 4
            while "(" in line and not hanging and ")" not in lines[follow]:
                follow += 1
                assert lines[follow].startswith(" " * shift)
                lines[follow] = lines[follow][shift:]
    return "\n".join(lines)


def test_the_renamed_imports_are_not_a_new_version_of_any_notebook(tmp_path):
    """`make workspace` after the move lists no notebook as changed when only its checkers'
    import changed (and the old import still works); an otherwise edited one it lists."""
    for name, before in _notebooks(CURRENT).items():
        if not name.startswith("exercises/"):
            continue  # (lesson 00's import cell alone is stored)
        after = dict(before, cells=[
            dict(cell, source=_with_new_module_names(notebook_files.as_text(cell["source"])))
            if cell["cell_type"] == "code" else cell for cell in before["cells"]])
        assert notebook_files.cells_digest(after) != notebook_files.cells_digest(before), name
        assert editions.digest_before_the_move(after) == notebook_files.cells_digest(before) \
            == before["metadata"]["exercise_generated"]["cells_sha256"], name

    now = {name: json.loads((ROOT / name).read_text(encoding="utf-8"))
           for name in notebook_files.course_notebooks()}
    # (a lesson written after the move never imported its checkers by an old name)
    importing = {name for name, nb in now.items() if _imported_names(nb)
                 and Path(name).stem not in old_names.ADDED_AFTER_1CCFE20}
    assert {n for n in _notebooks(CURRENT) if n.startswith("exercises/")} < importing
    before_the_move = {}
    for name in importing:
        assert not any(old in notebook_files.as_text(cell["source"])
                       for cell in now[name]["cells"] for old in old_names.MOVED_MODULES
                       if f"from {old} import" in notebook_files.as_text(cell["source"])), name
        before_the_move[name] = editions.digest_before_the_move(now[name])
        assert before_the_move[name] != notebook_files.cells_digest(now[name]), name

    space = tmp_path / "workspace"
    for name in now:
        (space / name).parent.mkdir(parents=True, exist_ok=True)
        (space / name).write_text("a learner's copy")
    record = {name: notebook_files.cells_digest(nb) for name, nb in now.items()}
    (space / workspace.RECORD).write_text(json.dumps({**record, **before_the_move}))
    assert workspace.sync(ROOT, space).updated_upstream == []
    (space / workspace.RECORD).write_text(json.dumps({**record, **before_the_move,
                                                      "solutions/04_copying.ipynb": "0" * 64}))
    assert workspace.sync(ROOT, space).updated_upstream == ["solutions/04_copying.ipynb"]


def test_old_imports_are_rewritten_as_the_course_wrote_them():
    source = ("import engine as torch\n"
              "from exercises.checks.copying import (check_04_backup, check_04_snapshot,\n"
              "                                      check_04_masked_copy)\n"
              "from exercises.checks.example import check_00_float_tensor\n"
              "from exercises.checks.toolkit import checker")
    assert editions.with_old_module_names(source) == (
        "import engine as torch\n"
        "from exercises.checks_04_copying import (check_04_backup, check_04_snapshot,\n"
        "                                         check_04_masked_copy)\n"
        "from exercises.checks_00_example import check_00_float_tensor\n"
        "from exercises.checks.toolkit import checker")


# --- tools a learner runs without the test tools, or without the course's environment ----------

def test_the_workspace_tool_needs_only_the_standard_library(tmp_path):
    """`make workspace`, `make reset` and `make progress` run with the system's python3, before
    (and without) .venv: -S leaves out every installed package, numpy included."""
    space = tmp_path / "workspace"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}

    def run(*args):
        done = subprocess.run([sys.executable, "-S", "-m", "course_tools.workspace",
                               "--workspace", str(space), *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "Copied" in run("sync")
    assert "Fresh copy: workspace/exercises/04_copying.ipynb" in run("reset",
                                                                     "exercises/04_copying")
    assert run("progress").splitlines()[-2].startswith("Total: 0 done")
    probe = subprocess.run([sys.executable, "-S", "-c",
                            "import course_tools.site.build, exercises.checks_04_copying"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert "No module named 'numpy'" in probe.stderr, "the checkers need numpy; the rest not"
    probe = subprocess.run([sys.executable, "-S", "-c", "import course_tools.site.build"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr


def test_the_course_length_runs_without_the_test_tools():
    """README: `.venv/bin/python -m course_tools.length` right after `make lab`, which installs
    no test tools."""
    blocked = ["pytest", "nbval", "hypothesis", "playwright"]
    code = ("import runpy, sys\n"
            f"sys.modules.update(dict.fromkeys({blocked!r}))\n"
            "runpy.run_module('course_tools.length', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| 00_welcome |" in done.stdout and "| 11_training_loop |" in done.stdout
    assert "Estimated main path:" in done.stdout
