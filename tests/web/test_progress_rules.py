"""The browser edition's "My progress" (course_tools/labextension, part 3) applies `make
progress`'s rules (course_tools/workspace.exercise_states) in JavaScript: both are run here, the
JavaScript in node, over the same notebooks, and must give the same states. The notebooks: every
exercise notebook as the course ships it, with the worked answers and their checks' outputs,
and variants a learner makes (an answer changed after its check, a check not run, a wrong or
failing answer, a checker's name in a comment or a string).

Skipped, with the reason, where node is not installed (`make test-site` needs npm, hence node).
"""
import copy
import json
import random

import pytest

from course_tools import notebook_files, workspace
from course_tools.notebook_files import ROOT

from .extension_rules import NODE, run_rules

pytestmark = pytest.mark.skipif(NODE is None, reason="node not found: the extension's progress "
                                "rules are not run (apt-get install nodejs)")

VERDICT_TEXTS = ["✅ Correct: well done.", "❌ Not quite: the grad is None.",
                 "⚠️ The check raised an error: NameError", "⏳ Run the answer cell first.",
                 # the Chinese edition's verdicts (exercises/checks/locale/zh_CN)
                 "✅ 正确：做得好。", "❌ 还不对：grad 是 None。",
                 "⚠️ 尚未检查：上方的答案单元格运行时出错（NameError）：请先改正",
                 "⏳ 尚未完成：把 ... 换成你的答案，再重新运行这个单元格。"]


def variants(exercise, solution, rng):
    """Notebooks a learner may have saved, made from the worked answers and the stub."""
    yield exercise
    yield solution
    for _ in range(6):
        mine = copy.deepcopy(solution)
        for cell in mine["cells"]:
            if cell["cell_type"] != "code":
                continue
            roll = rng.random()
            if roll < 0.15:
                cell["outputs"] = []
            elif roll < 0.3 and cell.get("outputs"):
                cell["outputs"] = [{"output_type": "stream", "name": "stdout",
                                    "text": [rng.choice(VERDICT_TEXTS)]}]
            elif roll < 0.4:
                cell["execution_count"] = rng.randint(1, 200)
            elif roll < 0.45:
                cell.pop("outputs", None)
            elif roll < 0.55:
                cell["source"] = workspace.as_text(cell.get("source")) + "\n# edited"
        yield mine
    # answers from the stub, checks with the worked answers' outputs (copied in by hand)
    mine = copy.deepcopy(exercise)
    for cell, worked in zip(mine["cells"], solution["cells"]):
        if cell["cell_type"] == "code" and "outputs" in worked:
            cell["outputs"] = worked["outputs"]
    yield mine


def tricky():
    """A checker's name in a comment, a string, an import; a call on an attribute."""
    def code(source, tags=(), outputs=(), count=None):
        return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)},
                "outputs": list(outputs), "execution_count": count}
    correct = {"output_type": "stream", "name": "stdout", "text": "✅ Correct"}
    cells = [{"cell_type": "markdown", "source": "## Exercise 1.1: `x` and y", "metadata": {}},
             code("x = 1", tags=["exercise"], count=1),
             code("from exercises.checks import check_01_x, check_01_y"),
             code("# check_01_x(x)\nprint('check_01_x(x)')", outputs=[correct], count=2),
             code('"""\ncheck_01_x(x)\n"""\nchecks.check_01_x(x)', outputs=[correct], count=3),
             code("check_01_x (x)", outputs=[correct], count=4),
             {"cell_type": "markdown", "source": "### Exercise 1.2 no colon", "metadata": {}},
             code("y = 2", tags=["exercise"], count=9),
             code("ok = check_01_y(y)", outputs=[correct], count=5)]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_the_extension_and_make_progress_agree(tmp_path):
    rng = random.Random(28)
    cases = []
    # both editions: the Chinese notebooks' headings are "## 练习 4.1：..."
    for path in sorted([*(ROOT / "exercises").glob("[0-9][0-9]_*.ipynb"),
                        *(ROOT / "exercises" / "zh-CN").glob("[0-9][0-9]_*.ipynb")]):
        exercise = json.loads(path.read_text(encoding="utf-8"))
        solution_path = ROOT / "solutions" / path.relative_to(ROOT / "exercises")
        solution = json.loads(solution_path.read_text(encoding="utf-8")) \
            if solution_path.exists() else exercise
        cases += [(path.relative_to(ROOT).as_posix(), mine, exercise)
                  for mine in variants(exercise, solution, rng)]
    stub = tricky()
    blank = copy.deepcopy(stub)
    for cell in blank["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
            if "exercise" in cell["metadata"]["tags"]:
                cell["source"] = ""
    cases += [("tricky", stub, blank), ("tricky", stub, stub)]

    expected = []
    for index, (_, mine, course) in enumerate(cases):
        mine_path, course_path = tmp_path / f"{index}_mine.ipynb", tmp_path / f"{index}.ipynb"
        mine_path.write_text(json.dumps(mine), encoding="utf-8")
        course_path.write_text(json.dumps(course), encoding="utf-8")
        expected.append([list(state) for state in
                         workspace.exercise_states(mine_path, course_path)])
    got = run_rules([["exerciseStates", [m, c]] for _, m, c in cases])
    differ = [(name, want, have) for (name, _, _), want, have in zip(cases, expected, got)
              if want != have]
    states = [state for exercise in expected for _, _, state in exercise]
    print(f"{len(cases)} notebooks, {len(states)} exercises: "
          + ", ".join(f"{states.count(s)} {s}" for s in sorted(set(states))))
    assert not differ, differ[:3]
    # the cases reach every state
    assert {workspace.DONE, workspace.NOT_QUITE, workspace.UNCHECKED,
            workspace.NOT_STARTED} <= set(states)


def test_the_tricky_notebook_has_the_exercises_python_sees():
    """Only real calls of a checker by name are checks (as exercises/checks/answer_cells.py's
    parser sees them): the cells with a name in a comment, a string or an attribute are not."""
    names = [(n, t) for n, t, _, _ in notebook_files.exercises(tricky())]
    assert names == [("1.1", "`x` and y"), ("1.2", "no colon")]
