"""A learner's work is never lost: the workspace (course_tools/workspace.py), the generator's
refusal to overwrite edited exercise notebooks, and every make target run the way a learner
runs them, in a copy of the repository.

The copy (``course_copy``) holds the repository's files as they are now (tracked and new,
not ignored ones), with its own git history and the real ``.venv`` linked in, so the real
checkout and any real ``workspace/`` are never touched.
"""
from __future__ import annotations

import importlib
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from course_tools import generate, notebook_files, workspace
from exercises.checks import i18n, old_names
from exercises.checks.toolkit import discover

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"


# --- a small course to copy -------------------------------------------------------------

def notebook(*sources, outputs=None):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    for cell, out in zip(nb.cells, outputs or []):
        cell.outputs = out
    return nb


@pytest.fixture
def tiny_course(tmp_path):
    root = tmp_path / "course"
    for folder, names in {"notebooks": ["00_welcome", "01_tensors"],
                          "exercises": ["01_tensors"], "solutions": ["01_tensors"]}.items():
        (root / folder).mkdir(parents=True)
        for name in names:
            nbformat.write(notebook(f"print('{folder} {name}')"), root / folder / f"{name}.ipynb")
    (root / "notebooks" / "AUTHORING.md").write_text("not a notebook")
    return root, tmp_path / "workspace"


def tree_bytes(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# --- make workspace -----------------------------------------------------------------------

def test_first_sync_copies_every_notebook_with_the_same_layout(tiny_course):
    root, space = tiny_course
    report = workspace.sync(root, space)
    assert sorted(report.added) == ["exercises/01_tensors.ipynb", "notebooks/00_welcome.ipynb",
                                    "notebooks/01_tensors.ipynb", "solutions/01_tensors.ipynb"]
    for name in report.added:
        assert (space / name).read_bytes() == (root / name).read_bytes()
    assert not (space / "notebooks" / "AUTHORING.md").exists()


def test_sync_never_overwrites_and_adds_only_what_is_missing(tiny_course):
    root, space = tiny_course
    workspace.sync(root, space)
    mine = space / "exercises" / "01_tensors.ipynb"
    mine.write_text("my answers")
    (space / "notebooks" / "00_welcome.ipynb").unlink()
    (root / "notebooks" / "02_new.ipynb").write_text("{}")
    nbformat.write(notebook("print('a newer version')"), root / "exercises" / "01_tensors.ipynb")
    before = mine.read_bytes()

    report = workspace.sync(root, space)
    assert sorted(report.added) == ["notebooks/00_welcome.ipynb", "notebooks/02_new.ipynb"]
    assert mine.read_bytes() == before
    assert report.updated_upstream == ["exercises/01_tensors.ipynb"]
    text = "\n".join(report.lines(space))
    assert "make reset NB=exercises/01_tensors.ipynb" in text and "untouched" in text
    assert workspace.sync(root, space).added == []


def test_the_differences_from_torch_go_with_the_notebooks(tiny_course):
    """Lesson 00 links to DIFFERENCES.md beside it: the workspace gets a copy, as of a
    notebook (never overwritten, reported when the course's version changes, reset alike)."""
    root, space = tiny_course
    differences = root / "notebooks" / "DIFFERENCES.md"
    workspace.sync(root, space)
    assert not (space / "notebooks" / "DIFFERENCES.md").exists()  # a course without one

    differences.write_text("# Differences from PyTorch\n")
    report = workspace.sync(root, space)
    assert report.added == ["notebooks/DIFFERENCES.md"]
    mine = space / "notebooks" / "DIFFERENCES.md"
    assert mine.read_text() == "# Differences from PyTorch\n"
    mine.write_text("# Differences from PyTorch\n\nmy notes\n")
    differences.write_text("# Differences from PyTorch\n\n- one more\n")
    report = workspace.sync(root, space)
    assert report.added == [] and report.updated_upstream == ["notebooks/DIFFERENCES.md"]
    assert "make reset NB=notebooks/DIFFERENCES.md" in "\n".join(report.lines(space))
    assert mine.read_text().endswith("my notes\n")
    name, moved = workspace.reset("DIFFERENCES.md", root, space)
    assert name == "notebooks/DIFFERENCES.md" and moved.read_text().endswith("my notes\n")
    assert mine.read_text() == differences.read_text()
    assert workspace.sync(root, space).updated_upstream == []


def test_a_first_sync_names_the_documents_it_copied(tiny_course):
    root, space = tiny_course
    (root / "notebooks" / "DIFFERENCES.md").write_text("# Differences from PyTorch\n")
    for number in range(2, 5):
        nbformat.write(notebook("print(1)"), root / "notebooks" / f"0{number}_more.ipynb")
    said = workspace.sync(root, space).lines(space)[0]
    assert said.startswith("Copied 7 notebooks and DIFFERENCES.md into ")
    assert "(6 in notebooks/, 1 in exercises/, 1 in solutions/)" in said


def test_copying_never_replaces_a_file_that_appears_meanwhile(tmp_path):
    source, target = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    source.write_text("course")
    target.write_text("learner")
    with pytest.raises(FileExistsError):
        workspace._copy_new(source, target)
    assert target.read_text() == "learner"


# --- the Chinese edition in the workspace (issue 30): the same rules ------------------------

@pytest.fixture
def bilingual_course(tiny_course):
    """tiny_course with its Chinese edition (notebooks/, exercises/, solutions/ zh-CN/)."""
    root, space = tiny_course
    for folder, names in {"notebooks": ["00_welcome", "01_tensors"],
                          "exercises": ["01_tensors"], "solutions": ["01_tensors"]}.items():
        (root / folder / "zh-CN").mkdir()
        for name in names:
            nbformat.write(notebook(f"print('{folder} {name} 中文')"),
                           root / folder / "zh-CN" / f"{name}.ipynb")
    return root, space


ZH = ["exercises/zh-CN/01_tensors.ipynb", "notebooks/zh-CN/00_welcome.ipynb",
      "notebooks/zh-CN/01_tensors.ipynb", "solutions/zh-CN/01_tensors.ipynb"]


def test_sync_copies_both_editions_with_the_same_layout(bilingual_course):
    root, space = bilingual_course
    report = workspace.sync(root, space)
    assert sorted(n for n in report.added if "zh-CN" in n) == ZH
    assert len(report.added) == 8
    for name in report.added:
        assert (space / name).read_bytes() == (root / name).read_bytes()
    said = report.lines(space)[0]
    assert "(4 in notebooks/, 2 in exercises/, 2 in solutions/; 4 of them the Chinese " \
           "edition's, in zh-CN/ folders)" in said


def test_sync_never_overwrites_a_chinese_notebook_and_reports_a_newer_one(bilingual_course):
    root, space = bilingual_course
    workspace.sync(root, space)
    mine = space / "exercises" / "zh-CN" / "01_tensors.ipynb"
    mine.write_text("我的答案")
    (space / "notebooks" / "zh-CN" / "00_welcome.ipynb").unlink()
    nbformat.write(notebook("print('newer')"), root / "exercises" / "zh-CN" / "01_tensors.ipynb")
    report = workspace.sync(root, space)
    assert report.added == ["notebooks/zh-CN/00_welcome.ipynb"]
    assert mine.read_text() == "我的答案"
    assert report.updated_upstream == ["exercises/zh-CN/01_tensors.ipynb"]
    assert "make reset NB=exercises/zh-CN/01_tensors.ipynb" in "\n".join(report.lines(space))


def test_reset_of_a_chinese_notebook_keeps_the_learners_copy_beside_it(bilingual_course):
    root, space = bilingual_course
    workspace.sync(root, space)
    mine = space / "exercises" / "zh-CN" / "01_tensors.ipynb"
    mine.write_text("我的答案")
    name, moved = workspace.reset("exercises/zh-CN/01_tensors", root, space)
    assert name == "exercises/zh-CN/01_tensors.ipynb"
    assert moved.parent == mine.parent and moved.read_text() == "我的答案"
    assert mine.read_bytes() == (root / name).read_bytes()
    english = space / "exercises" / "01_tensors.ipynb"
    assert english.read_bytes() == (root / "exercises" / "01_tensors.ipynb").read_bytes()
    with pytest.raises(ValueError, match="more than one folder"):
        workspace.reset("zh-CN/01_tensors", root, space)
    assert workspace.sync(root, space).added == []


def test_the_workspace_language_chooses_the_lesson_to_open_and_the_exercises(bilingual_course,
                                                                            monkeypatch):
    for variable in ("COURSE_LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    root, space = bilingual_course
    workspace.sync(root, space)
    assert workspace.course_language(space) == "en"
    assert notebook_files.LANGUAGE_FILE == i18n.MARKER
    workspace.set_language(space, "zh-CN")
    assert (space / ".course-language").read_text() == "zh-CN\n"
    assert workspace.first_lesson("zh-CN", space) == "notebooks/zh-CN/00_welcome.ipynb"
    assert workspace.progress_notebooks(root, "zh-CN") == ["exercises/zh-CN/01_tensors.ipynb"]
    assert workspace.progress_notebooks(root, "en") == ["exercises/01_tensors.ipynb"]
    # a lesson not translated yet: the English one
    (space / "notebooks" / "zh-CN" / "00_welcome.ipynb").unlink()
    assert workspace.first_lesson("zh-CN", space) == "notebooks/00_welcome.ipynb"
    (root / "exercises" / "zh-CN" / "01_tensors.ipynb").unlink()
    assert workspace.progress_notebooks(root, "zh-CN") == ["exercises/01_tensors.ipynb"]
    with pytest.raises(ValueError):
        workspace.set_language(space, "fr")
    assert workspace.main(["--root", str(root), "--workspace", str(space), "language",
                           "en"]) == 0
    assert workspace.course_language(space) == "en"


def test_progress_in_chinese_reads_the_chinese_exercise_notebooks(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_LANGUAGE", raising=False)
    root, space = tmp_path / "course", tmp_path / "workspace"
    for folder in (root / "exercises" / "zh-CN", space / "exercises" / "zh-CN"):
        folder.mkdir(parents=True)
    (root / "exercises" / "01_tensors.ipynb").write_text("{}")
    blank = ["answer = ..."] * 3
    def chinese(nb):  # "## 练习 1.1：事项 1", as the Chinese edition writes the headings
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = cell.source.replace("## Exercise ", "## 练习 ").replace(
                    ": Thing", "：事项")
        return nb

    nbformat.write(chinese(exercise_notebook(blank, ["⏳ 尚未完成：..."] * 3)),
                   root / "exercises" / "zh-CN" / "01_tensors.ipynb")
    nbformat.write(chinese(exercise_notebook(["answer = 1", "answer = 2", "answer = ..."],
                                             ["✅ 正确：很好。", "❌ 还不对：……",
                                              "⏳ 尚未完成：..."])),
                   space / "exercises" / "zh-CN" / "01_tensors.ipynb")
    workspace.set_language(space, "zh-CN")
    lines = workspace.progress(root, space)
    assert lines[0] == "workspace/exercises/zh-CN/01_tensors.ipynb"
    assert lines[1].strip().startswith("1.1 事项 1")  # the Chinese headings are read
    assert [state for _, _, state in workspace.exercise_states(
        space / "exercises" / "zh-CN" / "01_tensors.ipynb",
        root / "exercises" / "zh-CN" / "01_tensors.ipynb")] == ["done", "not quite",
                                                                 "not started"]


# --- make reset ---------------------------------------------------------------------------

def test_reset_moves_the_learners_copy_aside_under_a_dated_name(tiny_course):
    root, space = tiny_course
    workspace.sync(root, space)
    mine = space / "exercises" / "01_tensors.ipynb"
    mine.write_text("my answers")
    name, moved = workspace.reset("exercises/01_tensors.ipynb", root, space)
    assert name == "exercises/01_tensors.ipynb"
    assert moved.read_text() == "my answers" and moved.parent == mine.parent
    assert moved.name.startswith("01_tensors.yours-") and moved.suffix == ".ipynb"
    assert mine.read_bytes() == (root / name).read_bytes()
    mine.write_text("second try")
    _, moved_again = workspace.reset("workspace/exercises/01_tensors", root, space)
    assert moved_again != moved and moved.read_text() == "my answers"
    assert moved_again.read_text() == "second try"
    # the copies kept aside are not course notebooks: sync neither copies nor reports them
    assert workspace.sync(root, space).added == []


@pytest.mark.parametrize("given, problem", [
    ("01_tensors", "more than one folder"),
    ("notebooks/99_nothing.ipynb", "not a notebook of the course"),
    ("exercises/03_copying.ipynb", "earlier edition of the course: it is now 04_copying.ipynb"),
])
def test_reset_refuses_unclear_names(tiny_course, given, problem):
    root, space = tiny_course
    with pytest.raises(ValueError, match=problem):
        workspace.reset(given, root, space)


# --- make progress ------------------------------------------------------------------------

def check_output(text):
    return [nbformat.v4.new_output("execute_result", {"text/plain": text}, execution_count=1)]


def exercise_notebook(answers, verdicts):
    nb = nbformat.v4.new_notebook()
    for number, (answer, verdict) in enumerate(zip(answers, verdicts), 1):
        cell = nbformat.v4.new_code_cell(answer)
        cell.metadata["tags"] = ["exercise"]
        check = nbformat.v4.new_code_cell(f"check_01_thing_{number}(answer)")
        check.outputs = check_output(verdict) if verdict else []
        nb.cells += [nbformat.v4.new_markdown_cell(f"## Exercise 1.{number}: Thing {number}"),
                     cell, check]
    return nb


def test_progress_reads_the_saved_check_outputs(tmp_path):
    root, space = tmp_path / "course", tmp_path / "workspace"
    (root / "exercises").mkdir(parents=True)
    (space / "exercises").mkdir(parents=True)
    blank = ["answer = ..."] * 5
    nbformat.write(exercise_notebook(blank, ["⏳ Not done yet: ..."] * 5),
                   root / "exercises" / "01_tensors.ipynb")
    mine = exercise_notebook(
        ["answer = 1", "answer = 2", "answer = 3", "answer = ...", "answer = 5"],
        ["✅ Correct: well done.", "❌ Not quite: your answer is 2, which is not right.",
         "⚠️ Not checked yet: the answer cell above raised an error (NameError): fix it.",
         "⏳ Not done yet: replace the ...", None])
    nbformat.write(mine, space / "exercises" / "01_tensors.ipynb")
    states = workspace.exercise_states(space / "exercises" / "01_tensors.ipynb",
                                       root / "exercises" / "01_tensors.ipynb")
    assert states == [("1.1", "Thing 1", "done"), ("1.2", "Thing 2", "not quite"),
                      ("1.3", "Thing 3", "not quite"), ("1.4", "Thing 4", "not started"),
                      ("1.5", "Thing 5", "answered, not checked")]
    lines = workspace.progress(root, space)
    assert lines[-2] == ("Total: 1 done, 2 not quite, 1 answered but not checked, "
                         "1 not started, of 5 exercises.")


def test_an_untouched_fix_the_bug_exercise_is_not_started(tmp_path):
    """The buggy code of a fix-the-bug exercise runs and its check says "Not quite":
    that is the course's code, not the learner's attempt."""
    root, space = tmp_path / "course", tmp_path / "workspace"
    for folder in (root / "exercises", space / "exercises"):
        folder.mkdir(parents=True)
        nbformat.write(exercise_notebook(["buggy = 1"], ["❌ Not quite: still buggy."]),
                       folder / "01_tensors.ipynb")
    assert workspace.exercise_states(space / "exercises" / "01_tensors.ipynb",
                                     root / "exercises" / "01_tensors.ipynb") == [
        ("1.1", "Thing 1", "not started")]


def test_a_verdict_older_than_the_answer_does_not_count(tmp_path):
    root, space = tmp_path / "course", tmp_path / "workspace"
    for folder in (root / "exercises", space / "exercises"):
        folder.mkdir(parents=True)
    nbformat.write(exercise_notebook(["answer = ..."], ["⏳ Not done yet: ..."]),
                   root / "exercises" / "01_tensors.ipynb")
    mine = exercise_notebook(["answer = 1"], ["✅ Correct: well done."])
    mine.cells[1].execution_count, mine.cells[2].execution_count = 7, 5  # answer ran again
    nbformat.write(mine, space / "exercises" / "01_tensors.ipynb")
    assert workspace.exercise_states(space / "exercises" / "01_tensors.ipynb",
                                     root / "exercises" / "01_tensors.ipynb") == [
        ("1.1", "Thing 1", "answered, not checked")]


def test_progress_of_the_real_course_unsolved_and_solved(tmp_path):
    space = tmp_path / "workspace"
    workspace.sync(ROOT, space)
    lines = workspace.progress(ROOT, space)
    count = sum(len(workspace.exercise_states(p, p))
                for p in sorted((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb")))
    assert count >= 40
    assert lines[-2] == f"Total: 0 done, 0 not quite, {count} not started, of {count} exercises."
    for solution in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        shutil.copyfile(solution, space / "exercises" / solution.name)
    assert workspace.progress(ROOT, space)[-2] == (
        f"Total: {count} done, 0 not quite, 0 not started, of {count} exercises.")


# --- a workspace of the earlier edition (course_tools/editions.py) ------------------------

# The earlier edition's exercise notebooks (commit e6b06eb, before lesson 2 was split), as a
# learner's workspace holds them: code cells and exercise headings (outputs and prose left out).
OLD_EDITION = Path(__file__).with_name("old_edition_exercises.json")
NEW_EXERCISES = {"check_02_promotion", "check_03_in_place", "check_03_numpy_copy",
                 "check_03_contiguous",  # no earlier version: nothing to carry
                 "check_02_outer", "check_02_eye", "check_02_distances", "check_02_diagonal",
                 # lesson 10 is new in this edition
                 "check_10_leaf_dtype", "check_10_loss_requires_grad", "check_10_plogp",
                 "check_10_hidden_state", "check_10_inplace_softmax", "check_10_keep_losses",
                 # lesson 12 (the advanced part) is new in this edition
                 "check_12_hook_order", "check_12_halve", "check_12_clip_hooks",
                 "check_12_count_saved", "check_12_backward_inputs",
                 # lesson 13 (the advanced part) is new in this edition
                 "check_13_products", "check_13_directional", "check_13_per_sample",
                 "check_13_kinks", "check_13_hvp"}
LEFT_AS_STUB = {"check_02_indexing", "check_06_vjp"}
WRONG = {"check_02_broadcast_shapes": "prediction = [(4, 3), (5, 4, 3), (3,), (2, 3)]"}


def _old_edition() -> dict:
    return json.loads(OLD_EDITION.read_text(encoding="utf-8"))


def _solution_answers() -> dict:
    """checker name (new) -> the solution's answer, as a learner types it."""
    answers = {}
    for path in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        for cell_id, source in answers_from_solution(path.name).items():
            answers["check_" + cell_id.removeprefix("answer_")] = source
    return answers


def _expected_answer(new_name: str, right: dict) -> str | None:
    """What the learner typed for the exercise of ``new_name`` (None: left as the stub)."""
    if new_name in LEFT_AS_STUB or new_name in NEW_EXERCISES:
        return None
    return WRONG.get(new_name, right[new_name])


@pytest.fixture
def old_workspace(tmp_path):
    """A workspace made by the earlier edition: its exercise notebooks with answers (right
    ones, one wrong, two left as the stub; 03_copying from before cells had ids), its
    lessons and solutions, and its record of copies."""
    space = tmp_path / "workspace"
    right = _solution_answers()
    for name, nb in _old_edition().items():
        for old_name, cell in notebook_files.answer_cells(nb).items():
            typed = _expected_answer(old_names.RENAMED_CHECKERS[old_name], right)
            if typed is not None:
                cell["source"] = typed
        if name == "exercises/03_copying.ipynb":  # nbformat 4.4: no cell ids
            nb["nbformat_minor"] = 4
            for cell in nb["cells"]:
                cell.pop("id", None)
        (space / name).parent.mkdir(parents=True, exist_ok=True)
        (space / name).write_text(json.dumps(nb, indent=1) + "\n", encoding="utf-8")
    for folder in ("notebooks", "solutions"):
        (space / folder).mkdir()
        for slug in old_names.OLD_NOTEBOOKS:
            nbformat.write(notebook(f"print('{folder} {slug}, earlier edition')"),
                           space / folder / f"{slug}.ipynb")
    record = {f"{f}/{slug}.ipynb": "0" * 64 for f in notebook_files.FOLDERS
              for slug in old_names.OLD_NOTEBOOKS}
    (space / workspace.RECORD).write_text(json.dumps(record))
    return space


def test_the_rename_map_covers_every_exercise_of_the_earlier_edition():
    checkers = discover()
    for name, nb in _old_edition().items():
        slug = Path(name).stem
        called = list(notebook_files.answer_cells(nb))
        assert called == old_names.old_checkers(slug), name
        for old_name in called:
            new_name = old_names.RENAMED_CHECKERS[old_name]
            assert new_name in checkers, new_name
            module = checkers[new_name].__module__
            assert module == old_names.CHECKER_MODULES[old_names.new_notebook_of(new_name, slug)]
    courses = {c for c in checkers if not c.startswith(("check_00_", "check_01_"))}
    assert courses - set(old_names.RENAMED_CHECKERS.values()) == NEW_EXERCISES


def test_sync_keeps_an_earlier_editions_notebooks_and_carries_their_answers(old_workspace):
    space = old_workspace
    before = tree_bytes(space)
    report = workspace.sync(ROOT, space)

    for name, data in before.items():
        if name != workspace.RECORD:  # the workspace's own bookkeeping, never a learner's
            assert (space / name).read_bytes() == data, f"{name} changed"
    right = _solution_answers()
    for path in sorted((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb")):
        course = notebook_files.answer_cells(json.loads(path.read_text(encoding="utf-8")))
        mine = notebook_files.answer_cells(json.loads(
            (space / "exercises" / path.name).read_text(encoding="utf-8")))
        assert mine.keys() == course.keys(), path.name
        for checker, cell in mine.items():
            typed = None if path.name.startswith("01_") else _expected_answer(checker, right)
            wanted = course[checker]["source"] if typed is None else typed
            assert notebook_files.as_text(cell["source"]) == notebook_files.as_text(wanted), checker
            if typed is not None:
                assert cell["outputs"] == [] and cell["execution_count"] is None

    carried = {(c.old, c.new): c.exercises for c in report.carried}
    assert carried[("exercises/02_tensor_operations.ipynb",
                    "exercises/02_shapes_indexing_broadcasting.ipynb")] == ["2.1", "2.3", "2.4"]
    assert carried[("exercises/02_tensor_operations.ipynb",
                    "exercises/03_views_copies_inplace.ipynb")] == ["3.1", "3.3"]
    assert carried[("exercises/03_copying.ipynb", "exercises/04_copying.ipynb")] == [
        f"4.{k}" for k in range(1, 7)]
    assert carried[("exercises/09_training_loop.ipynb", "exercises/11_training_loop.ipynb")] == [
        f"11.{k}" for k in range(1, 6)]
    assert len(carried) == 9
    assert not [c for c in report.carried if "zh-CN" in c.new], "the Chinese ones start blank"
    text = "\n".join(report.lines(space))
    assert "kept in workspace/ as they were" in text
    for old in old_names.OLD_NOTEBOOKS:
        assert f"workspace/exercises/{old}.ipynb: your answers are now in" in text
    assert ("workspace/exercises/04_copying.ipynb (Exercise 4.1, 4.2, 4.3, 4.4, 4.5, 4.6)"
            in text)
    assert "16 lesson or solution notebooks of the earlier edition" in text

    # the next sync adds nothing, says nothing about editions, and changes nothing
    after = tree_bytes(space)
    again = workspace.sync(ROOT, space)
    assert again.added == [] and again.edition_lines(space) == []
    assert tree_bytes(space) == after


def test_make_workspace_prints_where_the_answers_went(old_workspace, capsys):
    assert workspace.main(["--workspace", str(old_workspace), "--root", str(ROOT), "sync"]) == 0
    said = capsys.readouterr().out
    assert "The course has a new edition" in said
    assert "workspace/exercises/02_tensor_operations.ipynb: your answers are now in" in said


def test_carried_answers_pass_their_checks(old_workspace):
    """Run three new notebooks as a learner would: the answers carried from the earlier
    edition are judged as before (right ones done, the wrong one not quite)."""
    from course_tools.execute import execute

    space = old_workspace
    workspace.sync(ROOT, space)
    expected = {
        "02_shapes_indexing_broadcasting.ipynb": ["not quite", "not started", "done", "done",
                                                  "not started"] + ["not started"] * 4,
        "03_views_copies_inplace.ipynb": ["done", "not started", "done", "not started",
                                          "not started"],
        "04_copying.ipynb": ["done"] * 6,  # carried from a notebook without cell ids
    }
    for name, states in expected.items():
        path = space / "exercises" / name
        execute(path)
        found = workspace.exercise_states(path, ROOT / "exercises" / name)
        assert [state for _, _, state in found] == states, (name, found)


def test_an_old_notebooks_import_still_works_and_says_where_to_go(capsys):
    import engine

    for slug, new_slugs in old_names.OLD_NOTEBOOKS.items():
        sys.modules.pop(f"exercises.checks_{slug}", None)
        module = importlib.import_module(f"exercises.checks_{slug}")
        said = capsys.readouterr().out
        assert "earlier edition" in said and f"exercises/{slug}.ipynb" in said
        for new in new_slugs:
            assert f"exercises/{new}.ipynb" in said
        for old_name in old_names.old_checkers(slug):
            new = discover()[old_names.RENAMED_CHECKERS[old_name]]
            check = getattr(module, old_name)
            assert check.__name__ == old_name
            assert str(check(new.right(engine))).startswith("✅ Correct"), old_name
            assert str(check(...)).startswith("⏳ Not done yet"), old_name
    with pytest.raises(ImportError):
        importlib.import_module("exercises.checks_10_nothing")


# --- the generator never overwrites a learner's answers ---------------------------------

def solution_with_one_exercise():
    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell("### BEGIN SOLUTION\n### STUB answer = ...\n"
                                       "answer = 42\n### END SOLUTION")
    answer.metadata["tags"] = ["exercise"]
    nb.cells = [nbformat.v4.new_code_cell("from exercises.checks.example import "
                                          "check_00_answer"),
                answer, nbformat.v4.new_code_cell("check_00_answer(answer)")]
    return nb


@pytest.fixture
def generated(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    exercises.mkdir()
    nbformat.write(solution_with_one_exercise(), solutions / "01_x.ipynb")
    assert generate.main(["--solutions", str(solutions), "--exercises", str(exercises)]) == 0
    return solutions, exercises


def run_generator(solutions, exercises, *extra):
    return generate.main(["--solutions", str(solutions), "--exercises", str(exercises), *extra])


def type_an_answer(path):
    nb = nbformat.read(path, as_version=4)
    nb.cells[1].source = nb.cells[1].source.replace("answer = ...", "answer = 41")
    nbformat.write(nb, path)


def test_generated_notebooks_carry_ids_and_a_fingerprint(generated):
    _, exercises = generated
    nb = nbformat.read(exercises / "01_x.ipynb", as_version=4)
    assert [c.id for c in nb.cells[1:]] == ["answer_00_answer", "check_00_answer"]
    assert nb.metadata[generate.FINGERPRINT]["cells_sha256"] == generate.cells_digest(nb)


def test_generator_refuses_to_overwrite_an_edited_exercise_notebook(generated, capsys):
    solutions, exercises = generated
    target = exercises / "01_x.ipynb"
    type_an_answer(target)
    edited = target.read_bytes()
    capsys.readouterr()
    for extra in [(), ("--force",), ("--execute",), ("--check",)]:
        assert run_generator(solutions, exercises, *extra) == 1, extra
        assert target.read_bytes() == edited, extra
        error = capsys.readouterr().err
        assert "left alone" in error and "01_x.ipynb" in error
        assert "git checkout" not in error, "never suggest a command that loses the answers"
    # a solution that changed does not change that either
    nb = nbformat.read(solutions / "01_x.ipynb", as_version=4)
    nb.cells[1].source = nb.cells[1].source.replace("42", "43")
    nbformat.write(nb, solutions / "01_x.ipynb")
    assert run_generator(solutions, exercises) == 1 and target.read_bytes() == edited
    # an exercise notebook whose solution is gone is not removed when it was edited
    (solutions / "01_x.ipynb").unlink()
    assert run_generator(solutions, exercises) == 1 and target.read_bytes() == edited


def test_refusal_says_when_the_workspace_holds_the_same_file(tmp_path, capsys):
    root = tmp_path
    solutions, exercises = root / "solutions", root / "exercises"
    solutions.mkdir()
    exercises.mkdir()
    nbformat.write(solution_with_one_exercise(), solutions / "01_x.ipynb")
    run_generator(solutions, exercises)
    type_an_answer(exercises / "01_x.ipynb")
    (root / "workspace" / "exercises").mkdir(parents=True)
    shutil.copyfile(exercises / "01_x.ipynb", root / "workspace" / "exercises" / "01_x.ipynb")
    capsys.readouterr()
    assert run_generator(solutions, exercises) == 1
    assert "nothing is lost" in capsys.readouterr().err


def test_generator_still_replaces_its_own_output(generated):
    solutions, exercises = generated
    target = exercises / "01_x.ipynb"
    nb = nbformat.read(target, as_version=4)
    nb.cells[2].outputs = check_output("✅ Correct: run by someone")  # outputs are not work
    nbformat.write(nb, target)
    nb = nbformat.read(solutions / "01_x.ipynb", as_version=4)
    nb.cells[1].source = nb.cells[1].source.replace("### STUB answer = ...",
                                                    "### STUB answer = None  # change me")
    nbformat.write(nb, solutions / "01_x.ipynb")
    assert run_generator(solutions, exercises) == 0
    assert "change me" in target.read_text()


def test_repository_solutions_have_the_check_and_answer_ids():
    for path in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        before = [c.id for c in nb.cells]
        generate.assign_cell_ids(nb, path.name)
        assert [c.id for c in nb.cells] == before, (
            f"{path.name}: run `python -m course_tools.generate --fix-ids`")
        assert sum(c.id.startswith("check_") for c in nb.cells) >= 5


# --- every make target, as a learner runs them, in a copy of the repository -------------

def _course_files():
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def course_copy(tmp_path_factory):
    """The repository's files as they are now, copied with their times (so the copy's
    pyproject.toml is no newer than the real .venv's stamps and nothing is reinstalled), in a
    git repository of its own, with the real .venv linked in."""
    stamps = [VENV / ".stamp-lab", VENV / ".stamp-test"]
    if not all(s.exists() for s in stamps) or shutil.which("make") is None:
        pytest.skip("needs make and the course's .venv (make test sets it up)")
    copy = tmp_path_factory.mktemp("course") / "autograd-step-by-step"
    for name in _course_files():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    # Older than the stamps: make in the copy must never reinstall into the real .venv.
    oldest = min(s.stat().st_mtime for s in stamps) - 60
    os.utime(copy / "pyproject.toml", (oldest, oldest))
    git = ["git", "-c", "user.name=Learner", "-c", "user.email=learner@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    subprocess.run(["git", "add", "-A"], cwd=copy, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the course"], cwd=copy, check=True)
    (copy / ".venv").symlink_to(VENV)
    return copy


def make(copy, *args, env=None, check=True):
    environment = {**os.environ, "LEARNER_SIMULATION": "1", **(env or {})}
    done = subprocess.run(["make", "--no-print-directory", *args], cwd=copy, env=environment,
                          capture_output=True, text=True, timeout=900)
    if check:
        assert done.returncode == 0, f"make {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def answers_from_solution(name):
    """The solution's answer cells, as a learner would type them (markers removed)."""
    solution = nbformat.read(ROOT / "solutions" / name, as_version=4)
    answers = {}
    for cell in solution.cells:
        if "exercise" in cell.metadata.get("tags", []):
            lines = [line for line in cell.source.split("\n")
                     if not line.strip().startswith(("### BEGIN", "### END", "### STUB"))]
            answers[cell.id] = "\n".join(lines)
    return answers


def fill_in(path, answers):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.id in answers:
            cell.source = answers[cell.id]
    nbformat.write(nb, path)


@pytest.mark.slow
def test_a_learners_answers_survive_every_target(course_copy):
    if os.environ.get("LEARNER_SIMULATION"):
        pytest.skip("already inside the simulation")
    copy = course_copy
    space = copy / "workspace"
    make(copy, "workspace")
    for name in ["04_copying.ipynb", "06_gradient_accumulation.ipynb"]:
        fill_in(space / "exercises" / name, answers_from_solution(name))
    checkpoints = space / "exercises" / ".ipynb_checkpoints"
    checkpoints.mkdir()
    (checkpoints / "04_copying-checkpoint.ipynb").write_text("JupyterLab's checkpoint")
    (space / "notes.txt").write_text("my own notes")
    before = tree_bytes(space)
    repo_before = subprocess.run(["git", "status", "--porcelain", "exercises", "solutions"],
                                 cwd=copy, capture_output=True, text=True).stdout

    make(copy, "exercises")
    make(copy, "execute", "NB=notebooks/00_welcome.ipynb")
    refused = make(copy, "execute", "NB=workspace/exercises/04_copying.ipynb", check=False)
    assert refused.returncode != 0 and "never rewritten" in refused.stderr
    make(copy, "check-exercises")
    make(copy, "clean")
    assert make(copy, "workspace").stdout.strip() == (
        "workspace/ has every notebook of the course; nothing copied.")
    make(copy, "progress")
    subprocess.run(["git", "stash", "-q"], cwd=copy, check=False)
    subprocess.run(["git", "stash", "pop", "-q"], cwd=copy, check=False)

    # make test looks at the committed notebooks, never at the workspace
    collected = make(copy, "test", env={"PYTEST_ADDOPTS": "--collect-only -q"})
    items = [line for line in collected.stdout.splitlines() if "::" in line]
    assert len(items) > 1000 and not [item for item in items if item.startswith("workspace")]
    assert "exercises/04_copying.ipynb::Cell" in collected.stdout
    make(copy, "test", env={"PYTEST_ADDOPTS": "-k 04_copying"})
    make(copy, "distclean")
    assert not (copy / ".venv").exists()
    (copy / ".venv").symlink_to(VENV)  # the copy is shared: later tests must not build a venv

    assert tree_bytes(space) == before, "every file of the workspace, byte for byte"
    assert (VENV / "bin" / "python").exists(), "distclean removed the link, not the real .venv"
    assert subprocess.run(["git", "status", "--porcelain", "exercises", "solutions"], cwd=copy,
                          capture_output=True, text=True).stdout == repo_before
    states = workspace.exercise_states(space / "exercises" / "04_copying.ipynb",
                                       copy / "exercises" / "04_copying.ipynb")
    assert {state for _, _, state in states} == {"answered, not checked"}


@pytest.mark.slow
def test_answers_typed_into_exercises_before_workspaces_existed_are_kept(course_copy, tmp_path):
    copy = tmp_path / "old-habit"
    shutil.copytree(course_copy, copy, symlinks=True)
    shutil.rmtree(copy / "workspace", ignore_errors=True)
    typed = copy / "exercises" / "04_copying.ipynb"
    fill_in(typed, answers_from_solution("04_copying.ipynb"))
    answers = typed.read_bytes()

    make(copy, "workspace")
    assert (copy / "workspace" / "exercises" / "04_copying.ipynb").read_bytes() == answers
    refused = make(copy, "exercises", check=False)
    assert refused.returncode != 0 and typed.read_bytes() == answers
    assert "nothing is lost" in refused.stderr and "git checkout" in refused.stderr
    checked = make(copy, "check-exercises", check=False)
    assert checked.returncode != 0 and "left alone" in checked.stderr
    assert typed.read_bytes() == answers


# --- make lab: one server per workspace, and Ctrl-C stops it ----------------------------

def _read_until(fd, wanted: bytes, seconds: float) -> bytes:
    seen, end = b"", time.time() + seconds
    while time.time() < end and wanted not in seen:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    return seen


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a terminal's Ctrl-C")
def test_make_lab_reuses_a_running_server_and_ctrl_c_stops_it(course_copy, tmp_path):
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "lab-workspaces"),
           "BROWSER": "true"}
    port = str(18000 + os.getpid() % 1000)
    exited = False
    pid, fd = pty.fork()
    if pid == 0:  # the learner's terminal
        os.chdir(course_copy)
        os.execvpe("make", ["make", "lab", f"PORT={port}"], env)
    try:
        started = _read_until(fd, b"/lab/tree/notebooks/00_welcome.ipynb?token=", 60)
        assert b"/lab/tree/notebooks/00_welcome.ipynb?token=" in started, \
            started.decode(errors="replace")[-2000:]

        again = subprocess.run(["make", "--no-print-directory", "lab", f"PORT={port}"],
                               cwd=course_copy, env=env, capture_output=True, text=True,
                               timeout=60)
        assert again.returncode == 0
        assert "already running" in again.stdout and "token=" in again.stdout
        assert f":{port}/lab/tree/notebooks/00_welcome.ipynb" in again.stdout

        os.write(fd, b"\x03")  # Ctrl-C in the terminal
        pressed, exited = time.time(), False
        while time.time() < pressed + 10 and not exited:
            exited = os.waitpid(pid, os.WNOHANG)[0] == pid
            _read_until(fd, b"\0", 0.1)
        assert exited, "Ctrl-C should stop the server at once, without a y/n question"
        assert time.time() - pressed < 5
        deadline = time.time() + 5
        while list((tmp_path / "runtime").glob("jpserver-*.json")) and time.time() < deadline:
            time.sleep(0.1)
        assert not list((tmp_path / "runtime").glob("jpserver-*.json")), "server still running"
    finally:
        if not exited:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        subprocess.run(["pkill", "-f", f"--ServerApp.port={port} "], check=False)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a terminal")
def test_make_lab_zh_opens_jupyterlab_in_chinese_on_the_workspace(course_copy, tmp_path):
    """make lab-zh: the workspace's language recorded, JupyterLab's locale zh_CN by the course's
    own settings override (the learner's config folder stays empty), the language pack served,
    and the Chinese lesson 00 opened (the English one while it is not translated)."""
    import urllib.error
    import urllib.request

    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "lab-workspaces"),
           "BROWSER": "true"}
    port = str(19000 + os.getpid() % 1000)
    first = "notebooks/zh-CN/00_welcome.ipynb"
    if not (course_copy / first).exists():
        first = "notebooks/00_welcome.ipynb"
    exited = False
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(course_copy)
        os.execvpe("make", ["make", "lab-zh", f"PORT={port}"], env)
    try:
        wanted = f"/lab/tree/{first}?token=".encode()
        started = _read_until(fd, wanted, 120)
        assert wanted in started, started.decode(errors="replace")[-2000:]
        # the port JupyterLab took (PORT or the next free one) and its token
        served = re.search(rb"http://127\.0\.0\.1:(\d+)/lab/tree/\S*\?token=(\w+)", started)
        port, token = served[1].decode(), served[2].decode()
        assert (course_copy / "workspace" / ".course-language").read_text() == "zh-CN\n"
        assert (course_copy / "workspace" / "notebooks" / "zh-CN").is_dir() or \
            not (course_copy / "notebooks" / "zh-CN").is_dir()

        def get(path):
            url = f"http://127.0.0.1:{port}{path}?token={token}"
            direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            for _ in range(60):  # the URL is printed as the server starts serving
                try:
                    with direct.open(url, timeout=30) as answer:
                        return json.loads(answer.read())
                except urllib.error.URLError:
                    _read_until(fd, b"\0", 0.5)  # (keeps its terminal drained meanwhile)
            raise AssertionError(f"no answer from {url}")

        plugin = get("/lab/api/settings/@jupyterlab/translation-extension:plugin")
        assert plugin["schema"]["properties"]["locale"]["default"] == "zh_CN"
        assert plugin["raw"].strip() in ("", "{}")  # no user setting was written
        packs = get("/lab/api/translations/")["data"]
        assert "zh_CN" in packs, packs
        chinese = get("/lab/api/translations/zh_CN")["data"]
        assert any("文件" in json.dumps(v, ensure_ascii=False) for v in chinese.values())
        assert not list((tmp_path / "config").rglob("*.jupyterlab-settings"))
    finally:
        os.write(fd, b"\x03")
        deadline = time.time() + 10
        while time.time() < deadline and not exited:
            exited = os.waitpid(pid, os.WNOHANG)[0] == pid
            _read_until(fd, b"\0", 0.1)
        if not exited:
            os.kill(pid, 9)
            os.waitpid(pid, 0)


def test_lab_and_test_kernels_run_with_one_blas_thread():
    text = (ROOT / "Makefile").read_text()
    for name in ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"]:
        assert f"export {name} ?= 1" in text


def test_readme_explains_the_workspace():
    readme = (ROOT / "README.md").read_text()
    for phrase in ["workspace/", "make reset NB=", "make progress", "OPENBLAS_NUM_THREADS"]:
        assert phrase in readme, phrase
