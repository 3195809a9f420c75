"""The exercise tooling: the notebook generator (exercises/generate.py) and the checker
toolkit (exercises/checks.py), on engine tensors and, when installed, torch tensors."""
import importlib.util
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import engine
from exercises import generate
from exercises.checks import (
    Feedback,
    all_of,
    checker,
    discover,
    expect_equal,
    expect_error,
    expect_shares_memory,
    expect_tensor,
    is_stub,
)

# --- the generator -------------------------------------------------------------------

SOLUTION_CELL = """\
import engine as torch
### BEGIN SOLUTION
### STUB answer = ...
answer = torch.tensor([1.0, 2.0])
### END SOLUTION
print(answer)"""


def exercise_cell(source, **kw):
    cell = new_code_cell(source, **kw)
    cell.metadata["tags"] = ["exercise"]
    return cell


def solution_notebook():
    executed = new_code_cell("x = 1\nx", execution_count=1,
                             outputs=[new_output("execute_result", {"text/plain": "1"},
                                                 execution_count=1)])
    tagged = exercise_cell(SOLUTION_CELL, execution_count=2,
                           outputs=[new_output("stream", name="stdout", text="tensor([1., 2.])\n")])
    return new_notebook(cells=[new_markdown_cell("# Exercises\n\nSome *text*."), executed,
                               tagged, new_code_cell("check(answer)", execution_count=3)],
                        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                 "language": "python"}})


def test_region_is_replaced_by_its_stub():
    assert generate.make_exercise_source(SOLUTION_CELL) == (
        "import engine as torch\n# YOUR CODE HERE\nanswer = ...\nprint(answer)")


def test_default_stub_and_indentation():
    source = ("def f(x):\n    ### BEGIN SOLUTION\n    return x * 2\n    ### END SOLUTION\n"
              "\n\ndef g(x):\n    ### BEGIN SOLUTION\n        ### STUB return ...\n"
              "    return x + 1\n    ### END SOLUTION\n")
    assert generate.make_exercise_source(source) == (
        "def f(x):\n    # YOUR CODE HERE\n    ...\n\n\ndef g(x):\n    # YOUR CODE HERE\n"
        "        return ...\n")


def test_multiple_regions_and_stub_lines_per_cell():
    source = ("a = 1\n### BEGIN SOLUTION\n### STUB b = ...\n### STUB c = ...\nb, c = 2, 3\n"
              "### END SOLUTION\nprint(a)\n### BEGIN SOLUTION\nd = b + c\n### END SOLUTION")
    assert generate.make_exercise_source(source) == (
        "a = 1\n# YOUR CODE HERE\nb = ...\nc = ...\nprint(a)\n# YOUR CODE HERE\n...")


@pytest.mark.parametrize("source, problem", [
    ("### BEGIN SOLUTION\nx = 1", "without ### END"),
    ("x = 1\n### END SOLUTION", "without ### BEGIN"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside another"),
    ("### STUB x = ...\n### BEGIN SOLUTION\n### END SOLUTION", "outside"),
    ("### BEGIN SOLUTION\n### STUB\n### END SOLUTION", "<code>"),
])
def test_malformed_markers_are_errors(source, problem):
    with pytest.raises(generate.MarkerError, match=problem):
        generate.make_exercise_source(source)


def test_notebook_untagged_cells_untouched_and_outputs_cleared():
    solution = solution_notebook()
    before = nbformat.writes(solution)
    exercise = generate.make_exercise_notebook(solution)
    assert nbformat.writes(solution) == before, "the solution notebook must not change"
    nbformat.validate(exercise)
    assert [c.source for c in exercise.cells] == [
        solution.cells[0].source, "x = 1\nx",
        "import engine as torch\n# YOUR CODE HERE\nanswer = ...\nprint(answer)", "check(answer)"]
    assert exercise.cells[2].metadata["tags"] == ["exercise"]
    assert [c.id for c in exercise.cells] == [c.id for c in solution.cells]
    for cell in exercise.cells[1:]:
        assert cell.outputs == [] and cell.execution_count is None
    assert exercise.metadata == solution.metadata


@pytest.mark.parametrize("cells, problem", [
    ([new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION")], "not tagged"),
    ([exercise_cell("x = 1")], "no ### BEGIN SOLUTION"),
    ([new_markdown_cell("### BEGIN SOLUTION\nanswer\n### END SOLUTION")], "markdown"),
])
def test_notebooks_that_could_leak_a_solution_are_errors(cells, problem):
    with pytest.raises(generate.MarkerError, match=problem):
        generate.make_exercise_notebook(new_notebook(cells=cells), "01_x.ipynb")


def test_idempotent_and_deterministic():
    solution = solution_notebook()
    once = generate.render(generate.make_exercise_notebook(solution))
    reread = nbformat.reads(nbformat.writes(solution), as_version=4)
    assert generate.render(generate.make_exercise_notebook(reread)) == once
    assert generate.render(nbformat.reads(once, as_version=4)) == once, "stable JSON layout"
    assert once.endswith("}\n")
    assert json.loads(once)["cells"][2]["source"] == [
        "import engine as torch\n", "# YOUR CODE HERE\n", "answer = ...\n", "print(answer)"]


@pytest.fixture
def course(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    exercises.mkdir()
    nbformat.write(solution_notebook(), solutions / "01_example.ipynb")
    (solutions / "README.md").write_text("not a notebook")
    return solutions, exercises


def run(course, *extra):
    solutions, exercises = course
    return generate.main(["--solutions", str(solutions), "--exercises", str(exercises), *extra])


def test_check_detects_missing_edited_and_stale_notebooks(course, capsys):
    solutions, exercises = course
    assert run(course, "--check") == 1
    assert "01_example.ipynb" in capsys.readouterr().err
    assert not (exercises / "01_example.ipynb").exists(), "--check writes nothing"

    assert run(course) == 0
    written = (exercises / "01_example.ipynb").read_bytes()
    assert run(course, "--check") == 0
    assert run(course) == 0 and (exercises / "01_example.ipynb").read_bytes() == written

    nb = nbformat.read(exercises / "01_example.ipynb", as_version=4)
    nb.cells[2].source = nb.cells[2].source.replace("answer = ...", "answer = 42")
    nbformat.write(nb, exercises / "01_example.ipynb")
    capsys.readouterr()
    assert run(course, "--check") == 1
    assert "01_example.ipynb" in capsys.readouterr().err

    (exercises / "02_orphan.ipynb").write_bytes(written)
    assert run(course) == 0
    assert (exercises / "01_example.ipynb").read_bytes() == written
    assert not (exercises / "02_orphan.ipynb").exists()
    assert run(course, "--check") == 0


def test_check_reports_malformed_markers(course, capsys):
    solutions, _ = course
    nbformat.write(new_notebook(cells=[exercise_cell("x = 1")]), solutions / "02_bad.ipynb")
    assert run(course, "--check") == 2
    assert "02_bad.ipynb, cell 0" in capsys.readouterr().err


def test_repository_exercises_are_in_sync():
    assert generate.sync(check=True) == [], "run `make exercises`"


# --- the toolkit -------------------------------------------------------------------

TORCH_INSTALLED = importlib.util.find_spec("torch") is not None


@pytest.fixture(params=["engine", pytest.param("torch", marks=pytest.mark.torch)])
def tm(request):
    """The tensor module: the engine, and real torch when it is installed."""
    if request.param == "engine":
        return engine
    return pytest.importorskip("torch")


def assert_correct(feedback):
    assert isinstance(feedback, Feedback) and feedback.status == "correct", feedback
    assert feedback and str(feedback).startswith("✅ Correct: ")


def assert_not_done(feedback):
    assert isinstance(feedback, Feedback) and feedback.status == "not_done", feedback
    assert not feedback and str(feedback).startswith("⏳ Not done yet: ")


def assert_wrong(feedback, *says, hidden=()):
    """A "not quite" that says each of ``says`` and none of ``hidden``."""
    assert isinstance(feedback, Feedback) and feedback.status == "wrong", feedback
    assert not feedback and str(feedback).startswith("❌ Not quite: ")
    for text in says:
        assert text in feedback.message, feedback
    for text in hidden:
        assert text not in feedback.message, feedback


def test_feedback_renders_deterministically():
    fb = Feedback("wrong", "x has shape (2,) & <more>.")
    assert str(fb) == repr(fb) == "❌ Not quite: x has shape (2,) & <more>."
    html = fb._repr_html_()
    assert html == fb._repr_html_() and "&amp; &lt;more&gt;" in html and "Not quite:" in html
    assert str(Feedback("correct", "yes.")) == "✅ Correct: yes."
    assert str(Feedback("not_done", "later.")) == "⏳ Not done yet: later."
    assert Feedback("correct", "a") == Feedback("correct", "a")
    with pytest.raises(ValueError):
        Feedback("maybe", "?")


@pytest.mark.parametrize("value, stub", [
    (..., True), (NotImplemented, True), ((1, ...), True), ({"a": ...}, True),
    ([..., ...], True), (0, False), ("", False), ([], False), ((1, 2), False), (False, False),
    (None, False), ((False, None), False), ({"grad": None}, False),
])
def test_is_stub(value, stub):
    assert is_stub(value) is stub


def test_is_stub_on_tensors(tm):
    assert not is_stub(tm.tensor([1.0])) and not is_stub(tm.tensor(0))


def test_expect_tensor_correct_and_stub(tm):
    x = tm.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    assert_correct(expect_tensor(x, shape=(2, 2), dtype="torch.float32",
                                 values=[[1.0, 2.0], [3.0, 4.0]], requires_grad=True,
                                 is_leaf=True, grad_fn=None, grad=[[2.0, 2.0], [2.0, 2.0]]))
    assert_correct(expect_tensor(x, dtype="float32", shape=tm.Size([2, 2])))
    assert_correct(expect_tensor(y, shape=(), values=20.0, is_leaf=False, grad_fn="SumBackward0"))
    assert_correct(expect_tensor(y, grad_fn="SumBackward", values=tm.tensor(20.0)))
    assert_correct(expect_tensor(x.detach(), grad=None, grad_fn=None, requires_grad=False))
    assert_correct(expect_tensor(tm.tensor([True, False]), values=[True, False], dtype=tm.bool))
    assert_correct(expect_tensor(tm.tensor([float("nan"), 1.0]), values=[float("nan"), 1.0]))
    assert "shape, dtype and values" in expect_tensor(
        x, shape=(2, 2), dtype="torch.float32", values=x).message
    for stub in (..., NotImplemented):
        assert_not_done(expect_tensor(stub, shape=(2, 2)))


def test_expect_tensor_names_the_wrong_property_not_the_expected_value(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    assert_wrong(expect_tensor([1.0, 2.0, 3.0], shape=(3,)), "is a list, not a tensor")
    assert_wrong(expect_tensor(x, shape=(3, 1)), "shape (3,)", hidden=["(3, 1)", "3, 1"])
    assert_wrong(expect_tensor(tm.tensor([1, 2, 3]), dtype="torch.float32",
                               hints={"dtype": "what does torch infer from 1.0?"}),
                 "dtype torch.int64", "Hint: what does torch infer from 1.0?",
                 hidden=["float32"])
    assert_wrong(expect_tensor(x, dtype=tm.float64), "dtype torch.float32", hidden=["float64"])
    assert_wrong(expect_tensor(x, values=[1.0, 2.0, 7.5]), "index [2] is 3.0", hidden=["7.5"])
    assert_wrong(expect_tensor(x, values=[0.5, 2.0, 7.5]), "index [0] is 1.0",
                 "and 1 other value", hidden=["0.5", "7.5"])
    assert_wrong(expect_tensor(tm.tensor(2.0), values=2.5), "its value 2.0", hidden=["2.5"])
    assert_wrong(expect_tensor(x, values=[1.0, 2.0]), "shape (3,)")
    assert_wrong(expect_tensor(x, requires_grad=True), "requires_grad=False")

    w = tm.tensor([1.0, 2.0], requires_grad=True)
    z = w * 3
    assert_wrong(expect_tensor(z, is_leaf=True), "is_leaf=False")
    assert_wrong(expect_tensor(z, grad_fn="AddBackward0"), "grad_fn MulBackward0",
                 hidden=["Add"])
    assert_wrong(expect_tensor(z, grad_fn=None), "has a grad_fn (MulBackward0)")
    assert_wrong(expect_tensor(w, grad_fn="MulBackward0"), "no grad_fn")
    assert_wrong(expect_tensor(w, grad=[3.0, 3.0]), "no .grad")
    z.sum().backward()
    assert_wrong(expect_tensor(w, grad=[6.0, 3.0]), ".grad of your answer", "index [0] is 3.0",
                 hidden=["6.0"])
    assert_wrong(expect_tensor(w, grad=None), "has a .grad")
    # a non-leaf's .grad is read without torch's warning escaping, and the order is fixed:
    assert_wrong(expect_tensor(z, what="z", grad=[1.0, 1.0]), "z has no .grad")
    assert_wrong(expect_tensor(z, shape=(3,), dtype="torch.int64"), "shape (2,)")


def test_expect_equal(tm):
    assert_correct(expect_equal(3, 3))
    assert_correct(expect_equal(0.1 + 0.2, 0.3, atol=1e-9))
    assert_correct(expect_equal(tm.tensor([1, 2]).dtype, "torch.int64"))
    assert_correct(expect_equal(tm.float32, tm.float32))
    assert_correct(expect_equal(tm.ones(2, 3).shape, (2, 3)))
    assert_correct(expect_equal(tm.tensor([1.0, 2.0]), tm.tensor([1.0, 2.0])))
    assert_not_done(expect_equal(..., 3))
    assert_wrong(expect_equal(4, 3, what="the count"), "the count is 4", hidden=["3"])
    assert_wrong(expect_equal(0.3001, 0.3, atol=1e-6), "0.3001")
    assert_wrong(expect_equal(tm.tensor([1]).dtype, "torch.float32", hint="integers"),
                 "torch.int64", "Hint: integers", hidden=["float32"])
    assert_wrong(expect_equal(tm.ones(3, 2).shape, (2, 3)), hidden=["(2, 3)"])
    assert_wrong(expect_equal(1, True), "True or False")
    assert_wrong(expect_equal(True, 1), "not True or False")
    assert_wrong(expect_equal(tm.tensor(3), 3), "is a tensor", ".item()")
    assert_wrong(expect_equal(tm.tensor([1, 2]), tm.tensor([1.0, 2.0])), "torch.int64")


def test_expect_error(tm):
    def bad_matmul():
        return tm.ones(2, 3) @ tm.ones(2, 3)

    assert_correct(expect_error(bad_matmul, RuntimeError, "cannot be multiplied"))
    assert_correct(expect_error(bad_matmul, "RuntimeError"))
    assert_correct(expect_error(bad_matmul, (TypeError, RuntimeError), "CANNOT BE"))
    assert_not_done(expect_error(..., RuntimeError))
    assert_not_done(expect_error(lambda: ..., RuntimeError))
    assert_wrong(expect_error(lambda: tm.ones(2) + 1, RuntimeError), "without raising")
    assert_wrong(expect_error(lambda: [][1], RuntimeError, "cannot"), "raised IndexError",
                 hidden=["RuntimeError", "cannot"])
    assert_wrong(expect_error(lambda: tm.ones(6).view(7), RuntimeError, "cannot be multiplied"),
                 "raised RuntimeError", "not for the reason", hidden=["cannot be multiplied"])
    assert_wrong(expect_error(tm.ones(2), RuntimeError), "a function is expected")


def test_expect_shares_memory(tm):
    x = tm.arange(6.0)
    assert_correct(expect_shares_memory(x, x.view(2, 3), True))
    assert_correct(expect_shares_memory(x, x[2:], True))
    assert_correct(expect_shares_memory(x, x.detach(), True))
    assert_correct(expect_shares_memory(x, x.clone(), False))
    assert_not_done(expect_shares_memory(x, ..., True))
    assert_wrong(expect_shares_memory(x, x.clone(), True, what="x and c"),
                 "x and c do not share memory")
    assert_wrong(expect_shares_memory(x, x[1:], False), "share memory: writing into one")
    assert_wrong(expect_shares_memory(x, [1.0], True), "one is a list")


def test_all_of(tm):
    x = tm.tensor([1.0])
    ok, bad = expect_tensor(x, shape=(1,)), expect_tensor(x, shape=(2,))
    assert all_of(ok, bad, ok) is bad
    assert_correct(all_of(ok, ok))
    assert all_of(ok, success="both right.").message == "both right."
    assert_not_done(all_of(ok, expect_tensor(..., shape=(1,)), bad))


@pytest.mark.parametrize("answer", [
    1, "text", [1, 2], {"a": 1}, 1.5, object(), (1, 2), engine.tensor([1.0]),
    engine.tensor([1.0]).dtype, print, Feedback("correct", "x"),
])
def test_helpers_never_raise_on_odd_answers(answer):
    for feedback in [
        expect_tensor(answer, shape=(1,), dtype="torch.float32", values=[1.0],
                      requires_grad=False, is_leaf=True, grad_fn=None, grad=None),
        expect_equal(answer, 2),
        expect_equal(answer, engine.tensor([2.0])),
        expect_error(answer, RuntimeError, "x"),
        expect_shares_memory(answer, engine.tensor([1.0]), True),
    ]:
        assert isinstance(feedback, Feedback) and feedback.status in {"correct", "wrong"}


def test_checker_decorator_handles_stubs_and_odd_answers():
    calls = []

    @checker
    def check_99_test_only(answer):
        calls.append(answer)
        return expect_equal(answer.real, 2)

    try:
        assert_not_done(check_99_test_only(...))
        assert_not_done(check_99_test_only((1, ...)))
        assert calls == [], "a stub never reaches the checker"
        assert_correct(check_99_test_only(2))
        assert_wrong(check_99_test_only("two"), "could not inspect your answer",
                     "AttributeError")
        assert check_99_test_only.__name__ == "check_99_test_only"
    finally:
        from exercises.checks import CHECKERS
        CHECKERS.pop("check_99_test_only", None)

    with pytest.raises(ValueError, match="check_"):
        checker(lambda answer: None)


# --- every registered checker: right, stub and plausible wrong answers ----------------

ALL_CHECKERS = discover()


def test_the_example_checkers_are_registered():
    assert {"check_00_float_tensor", "check_00_grad_and_detach",
            "check_00_matmul_error"} <= set(ALL_CHECKERS)


@pytest.mark.parametrize("name", sorted(ALL_CHECKERS))
def test_checker_accepts_right_rejects_stub_and_wrong(name, tm):
    check = ALL_CHECKERS[name]
    assert check.__doc__, f"{name}: say in a docstring which exercise it checks"
    assert check.right is not None and check.wrong is not None, \
        f"{name}: declare right= and wrong= examples"
    assert_correct(check(check.right(tm)))
    assert_not_done(check(...))
    wrong_answers = check.wrong(tm)
    assert wrong_answers, f"{name}: give at least one plausible wrong answer"
    for answer in wrong_answers:
        assert_wrong(check(answer))
        assert "could not inspect" not in check(answer).message, \
            f"{name}: a plausible wrong answer should get a specific message"


def test_checkers_never_import_torch():
    import re
    from pathlib import Path

    for path in Path(generate.__file__).parent.glob("*.py"):
        imports = re.findall(r"^\s*(?:import|from)\s+(torch|engine)\b", path.read_text(), re.M)
        assert not imports, f"{path.name} imports {imports}: checkers take tensors as given"


def test_expect_items_names_the_first_wrong_item_never_its_value():
    from exercises.checks import expect_items
    labels = ["a", "b", "c"]
    assert_correct(expect_items([True, False, True], [True, False, True], labels, form=bool))
    assert_not_done(expect_items([True, ..., True], [True, False, True], labels))
    said = expect_items([True, True, False], [True, False, True], labels, form=bool,
                        hints={"b": "look at b again"})
    assert_wrong(said, "for b is not right", "1 other is not right either", "look at b again")
    assert_wrong(expect_items([1, 0, 1], [True, False, True], labels, form=bool),
                 "for a is 1", "True or False")
    assert_wrong(expect_items(["ok", "OK"], ["ok", "error"], ["x", "y"], form=("ok", "error")),
                 "for y is 'OK'", "'ok' or 'error'")
    assert_wrong(expect_items([4, "5"], [4, 5], ["x", "y"], form=(int, float)), "a number")
    assert_wrong(expect_items([1, 2], [1, 2, 3], labels), "has 2 values", "a, b, c")
    assert_wrong(expect_items("abc", [1, 2, 3], labels), "is a str")
    assert_correct(expect_items(["int64"], ["torch.int64"], ["a"],
                                normalise=lambda v: v if v.startswith("torch.") else "torch." + v))
    # True == 1 to Python, but a bool is not the number asked for (and the reverse)
    assert_wrong(expect_items([True], [1], ["a"]), "for a is not right")
