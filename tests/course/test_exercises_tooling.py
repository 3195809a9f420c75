"""The exercise tooling: the notebook generator (course_tools/generate.py) and the checker
toolkit (exercises/checks/toolkit.py), on engine tensors and, when installed, torch tensors."""
import importlib.util
import io
import json
import re
import tokenize
import warnings

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import engine
from course_tools import generate
from course_tools.execute import KERNELSPEC
from exercises.checks import shapes_indexing_broadcasting as checks_02
from exercises.checks.toolkit import (
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
                        metadata={"kernelspec": dict(KERNELSPEC)})


def test_region_is_replaced_by_its_stub():
    assert generate.make_exercise_source(SOLUTION_CELL) == (
        "import engine as torch\n# YOUR CODE HERE\nanswer = ...\nprint(answer)")


def test_default_stub_and_indentation():
    source = ("def f(x):\n    ### BEGIN SOLUTION\n    return x * 2\n    ### END SOLUTION\n"
              "\n\ndef g(x):\n    ### BEGIN SOLUTION\n    ### STUB return ...\n"
              "    return x + 1\n    ### END SOLUTION\n")
    assert generate.make_exercise_source(source) == (
        "def f(x):\n    # YOUR CODE HERE\n    ...\n\n\ndef g(x):\n    # YOUR CODE HERE\n"
        "    return ...\n")


# Solutions 12.2, 12.3, 12.4 and 13.5 had five spaces after the marker: the exercise put the
# stub 8 spaces deep under a `# YOUR CODE HERE` at 4, and a learner's line typed at 4 raised
# "IndentationError: unindent does not match any outer indentation level".
OLD_12_2 = ("def halve(grad):\n    ### BEGIN SOLUTION\n    ### STUB     grad = grad * 0.5\n"
            "    return grad * 0.5\n    ### END SOLUTION\n\nx = 1")


def test_the_stub_that_broke_a_learners_line_is_an_error():
    # what the learner met: the old stub, then a line at the YOUR CODE HERE indentation
    learner = "def halve(grad):\n    # YOUR CODE HERE\n        grad = grad * 0.5\n    return grad\n"
    with pytest.raises(IndentationError, match="unindent does not match"):
        compile(learner, "<cell>", "exec")
    with pytest.raises(generate.MarkerError) as error:
        generate.make_exercise_source(OLD_12_2, "12_hooks.ipynb, cell 7")
    assert str(error.value) == (
        "12_hooks.ipynb, cell 7, line 3: the stub starts at 8 spaces but # YOUR CODE HERE "
        "(the ### BEGIN SOLUTION line) is at 4 spaces, where a learner types: write "
        "'    ### STUB grad = grad * 0.5' (one space after ### STUB)")
    fixed = OLD_12_2.replace("### STUB     grad", "### STUB grad")
    assert generate.make_exercise_source(fixed) == (
        "def halve(grad):\n    # YOUR CODE HERE\n    grad = grad * 0.5\n\nx = 1")


@pytest.mark.parametrize("source, problem", [
    # a stub that starts deeper or shallower than the BEGIN line
    ("if True:\n    ### BEGIN SOLUTION\n        ### STUB x = ...\n    ### END SOLUTION",
     "line 3: the stub starts at 8 spaces but .* is at 4 spaces"),
    ("def f():\n    ### BEGIN SOLUTION\n    ### STUB  return ...\n    ### END SOLUTION",
     "line 3: the stub starts at 5 spaces but .* is at 4 spaces"),
    ("if True:\n\t### BEGIN SOLUTION\n\t### STUB  x = 1\n\t### END SOLUTION",
     r"line 3: the stub starts at '\\t ' but .* is at '\\t'"),
    # a learner's line would end the block the code after the stub continues
    ("def f():\n    ### BEGIN SOLUTION\n    ### STUB for i in range(3):\n"
     "    ### STUB     x = i\n    ### END SOLUTION\n        y = 2",
     "line 2: a learner's line at 4 spaces .* after the stub would not run: "
     "IndentationError: unexpected indent"),
    # cells that do not compile at all
    ("### BEGIN SOLUTION\n### STUB x = 1\n### STUB     y = 2\n### END SOLUTION",
     r"cell: the exercise cell would not run: IndentationError: unexpected indent \(line 3\)"),
    ("def f():\n    ### BEGIN SOLUTION\n    ### STUB if True:\n    ### END SOLUTION",
     "the exercise cell would not run: IndentationError: expected an indented block"),
    ("### BEGIN SOLUTION\n### STUB x = (\n### END SOLUTION", "the exercise cell would not run"),
])
def test_a_stub_must_start_where_the_learner_types(source, problem):
    with pytest.raises(generate.MarkerError, match=problem):
        generate.make_exercise_source(source)


@pytest.mark.parametrize("source", [
    # deeper stub lines inside a block the stub opens (04.5, 07.3, 13.4)
    "### BEGIN SOLUTION\n### STUB def f():\n### STUB     return 1\nf = 2\n### END SOLUTION",
    ("def d(f, x):\n    ### BEGIN SOLUTION\n    ### STUB with f:\n    ### STUB     y = x\n"
     "    ### STUB return y\n    ### END SOLUTION\n\nz = 1"),
    ("class A:\n    def f(self):\n        ### BEGIN SOLUTION\n        return 1\n"
     "        ### END SOLUTION"),
    "%time x = 1\n### BEGIN SOLUTION\n### STUB y = ...\n### END SOLUTION\n!echo",
    "### BEGIN SOLUTION\n### STUB y = await f()\n### END SOLUTION",
])
def test_stubs_that_take_a_learners_line(source):
    out = generate.make_exercise_source(source)
    assert "# YOUR CODE HERE" in out


def _exercise_cells(path):
    exercise = generate.make_exercise_notebook(nbformat.read(path, as_version=4), path.name)
    return [cell for cell in exercise.cells if "exercise" in cell.metadata.get("tags", [])]


SOLUTION_PATHS = sorted(generate.SOLUTIONS.glob(generate.PATTERN)) + sorted(
    (generate.SOLUTIONS / "zh-CN").glob(generate.PATTERN))


@pytest.mark.parametrize("path", SOLUTION_PATHS,
                         ids=[str(p.relative_to(generate.SOLUTIONS)) for p in SOLUTION_PATHS])
def test_every_exercise_takes_a_learners_line_where_it_says_your_code_here(path):
    """Both editions (the Chinese exercise notebooks are generated from solutions/zh-CN)."""
    for cell in _exercise_cells(path):
        lines = cell.source.split("\n")
        for number, line in enumerate(lines):
            if line.strip() == generate.YOUR_CODE:
                indent = line[:line.index("#")]
                trial = lines[:number + 1] + [indent + "answer = 1"] + lines[number + 1:]
                compile("\n".join(trial), f"{path.name}, {cell.id}", "exec")


def _code(source):
    """A code cell's source without its comments (as the editions' test compares code)."""
    comments = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.start[1]
    lines = []
    for number, line in enumerate(source.split("\n"), 1):
        if number in comments:
            line = line[:comments[number]].rstrip()
            if not line:
                continue  # a whole-line comment
        lines.append(line)
    return lines


def test_a_stub_lines_comment_is_copied_as_it_is():
    source = ("### BEGIN SOLUTION\n### STUB backup = model.state_dict()  # 训练前的权重\n"
              "backup = 1\n### END SOLUTION")
    assert generate.make_exercise_source(source) == (
        "# YOUR CODE HERE\nbackup = model.state_dict()  # 训练前的权重")


@pytest.mark.parametrize("path", [p for p in SOLUTION_PATHS if p.parent.name == "zh-CN"],
                         ids=lambda p: p.name)
def test_both_editions_give_learners_the_same_stub_code(path):
    """A ### STUB line is a comment in the solution, so comparing the solutions' code
    overlooks it: the generated exercise cells must have the same code (only the text of
    comments, a STUB line's trailing one included, may be translated)."""
    english = _exercise_cells(generate.SOLUTIONS / path.name)
    chinese = _exercise_cells(path)
    assert [c.id for c in chinese] == [c.id for c in english]
    for zh, en in zip(chinese, english):
        assert _code(zh.source) == _code(en.source), zh.id


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
    fingerprint = exercise.metadata.pop(generate.FINGERPRINT)
    assert fingerprint["cells_sha256"] == generate.cells_digest(exercise)
    assert exercise.metadata == solution.metadata


def test_an_exercise_notebook_carries_the_kernelspec_jupyterlab_writes():
    """Even from a solution saved with an older kernelspec ("Python 3"): opened in JupyterLab,
    the exercise notebook is not marked changed."""
    solution = solution_notebook()
    solution.metadata["kernelspec"]["display_name"] = "Python 3"
    exercise = generate.make_exercise_notebook(solution)
    assert exercise.metadata["kernelspec"] == KERNELSPEC
    assert KERNELSPEC["display_name"] == "Python 3 (ipykernel)"


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

    # a generated notebook without a solution is removed; its cells were not edited
    (exercises / "02_orphan.ipynb").write_bytes(written)
    assert run(course) == 0
    assert not (exercises / "02_orphan.ipynb").exists()

    # answers typed into an exercise notebook are never overwritten (test_learner_work.py)
    nb = nbformat.read(exercises / "01_example.ipynb", as_version=4)
    nb.cells[2].source = nb.cells[2].source.replace("answer = ...", "answer = 42")
    nbformat.write(nb, exercises / "01_example.ipynb")
    edited = (exercises / "01_example.ipynb").read_bytes()
    capsys.readouterr()
    assert run(course, "--check") == 1
    assert "01_example.ipynb" in capsys.readouterr().err
    assert run(course) == 1
    assert (exercises / "01_example.ipynb").read_bytes() == edited


def test_check_reports_malformed_markers(course, capsys):
    solutions, _ = course
    nbformat.write(new_notebook(cells=[exercise_cell("x = 1")]), solutions / "02_bad.ipynb")
    assert run(course, "--check") == 2
    assert "02_bad.ipynb, cell 0" in capsys.readouterr().err


def test_a_translated_solution_gives_the_translated_exercise_notebook(course, capsys):
    """solutions/zh-CN/ -> exercises/zh-CN/ (issue 30), the translation's metadata kept."""
    solutions, exercises = course
    nb = solution_notebook()
    nb.metadata["course"] = {"language": "zh-CN"}
    nb.cells[0].metadata["translation"] = {"en_sha256": "0123456789abcdef"}
    (solutions / "zh-CN").mkdir()
    nbformat.write(nb, solutions / "zh-CN" / "01_example.ipynb")
    assert run(course, "--check") == 1
    assert "zh-CN/01_example.ipynb" in capsys.readouterr().err
    assert run(course) == 0
    written = nbformat.read(exercises / "zh-CN" / "01_example.ipynb", as_version=4)
    assert written.metadata["course"] == {"language": "zh-CN"}
    assert written.metadata[generate.FINGERPRINT]["solution"] == "solutions/zh-CN/01_example.ipynb"
    assert written.cells[0].metadata["translation"] == {"en_sha256": "0123456789abcdef"}
    english = nbformat.read(exercises / "01_example.ipynb", as_version=4)
    assert english.metadata[generate.FINGERPRINT]["solution"] == "solutions/01_example.ipynb"
    assert [c.source for c in written.cells] == [c.source for c in english.cells]
    assert run(course, "--check") == 0
    # "zh-CN/01" selects the Chinese one only
    (exercises / "zh-CN" / "01_example.ipynb").unlink()
    (exercises / "01_example.ipynb").unlink()
    assert run(course, "zh-CN/01") == 0
    assert (exercises / "zh-CN" / "01_example.ipynb").exists()
    assert not (exercises / "01_example.ipynb").exists()


def test_repository_exercises_are_in_sync():
    refused = []
    for solutions, exercises in generate.editions(generate.SOLUTIONS, generate.EXERCISES):
        assert generate.sync(solutions, exercises, check=True, refused=refused) == [], (
            f"exercise notebooks of {exercises} out of date: `make exercises` writes them")
    assert refused == [], (
        f"someone typed into {[r.name for r in refused]} in exercises/ (answers belong in "
        f"workspace/): `python -m course_tools.generate --check` says how to keep them")


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


# What a learner should never read: Python's names for types, exception text, the checker's
# own failure, and "1 values". (A fix-the-bug exercise reports the error the learner's own code
# raised, with its name and message: assert_plain(..., learner_error=...) removes that first.)
JARGON = [re.compile(pattern) for pattern in (
    r"NoneType", r"could not inspect", r"cannot read this answer", r"Error:", r"entries",
    r"dict_", r"numpy\.", r"ndarray", r"object has no attribute", r"index out of range",
    r"<class", r"Traceback", r"not iterable", r"not subscriptable", r"unpack", r"type object",
    r"positional argument", r"\bis an? (int|str|float|bool|tuple|list|dict|Tensor|float64|"
    r"float32|int64|type|object|NoneType|ndarray)\s*[,;.:]",
    r"\b1 (values|entries|names|shapes|nodes|tensors|numbers|leaves)\b",
    r"np\.(float|int|bool|True|False)",
)]
LEARNER_ERROR = re.compile(r"raised [A-Z]\w*(: .*?)?(?= Hint: |$)")


def assert_plain(feedback, context="", learner_error=None):
    """``feedback`` is a Feedback whose message has none of the JARGON; ``learner_error`` is
    the part to leave out (True: any "raised SomeError: its message")."""
    assert isinstance(feedback, Feedback), (context, feedback)
    message = feedback.message
    if learner_error is True:
        message = LEARNER_ERROR.sub("", message)
    elif learner_error is not None:
        message = message.replace(learner_error, "")
    for pattern in JARGON:
        assert not pattern.search(message), f"{context}: {pattern.pattern!r} in: {feedback}"


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
    assert_wrong(expect_tensor([1.0, 2.0, 3.0], shape=(3,)), "is a list of 3 values, not a tensor")
    assert_wrong(expect_tensor(np.array([1.0, 2.0, 3.0]), shape=(3,)),
                 "is a NumPy array of shape (3,), not a tensor")
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
    assert_wrong(expect_equal(1, True), "should be True or False, not the number 1")
    assert_wrong(expect_equal(True, 1), "should be a number, not True")
    assert_wrong(expect_equal(tm.tensor(3), 3), "not a tensor holding one number", ".item()")
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
    assert_wrong(expect_error(tm.ones(2), RuntimeError),
                 "should be a function", "not a tensor of shape (2,)")


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
        assert_wrong(check_99_test_only("two"), "the check cannot read this answer",
                     hidden=["AttributeError", "attribute", "could not inspect"])
        assert check_99_test_only.__name__ == "check_99_test_only"
    finally:
        from exercises.checks.toolkit import CHECKERS
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
        feedback = check(answer)
        assert_wrong(feedback)
        assert_plain(feedback, f"{name}: a plausible wrong answer should get a specific message",
                     learner_error=True)


def test_checkers_never_import_torch():
    import re
    from pathlib import Path

    for path in Path(checks_02.__file__).parents[1].rglob("*.py"):  # all of exercises/
        imports = re.findall(r"^\s*(?:import|from)\s+(torch|engine)\b", path.read_text(), re.M)
        assert not imports, f"{path.name} imports {imports}: checkers take tensors as given"


def test_expect_items_names_the_first_wrong_item_never_its_value():
    from exercises.checks.toolkit import expect_items
    labels = ["a", "b", "c"]
    assert_correct(expect_items([True, False, True], [True, False, True], labels, form=bool))
    assert_not_done(expect_items([True, ..., True], [True, False, True], labels))
    said = expect_items([True, True, False], [True, False, True], labels, form=bool,
                        hints={"b": "look at b again"})
    assert_wrong(said, "for b is not right", "1 other is not right either", "look at b again")
    assert_wrong(expect_items([1, 0, 1], [True, False, True], labels, form=bool),
                 "for a should be True or False, not the number 1")
    assert_wrong(expect_items(["ok", "OK"], ["ok", "error"], ["x", "y"], form=("ok", "error")),
                 'for y should be "ok" or "error", not the string "OK"')
    assert_wrong(expect_items([4, "5"], [4, 5], ["x", "y"], form=(int, float)), "a number")
    assert_wrong(expect_items([1, 2], [1, 2, 3], labels), "has 2 values", "a, b, c")
    assert_wrong(expect_items("abc", [1, 2, 3], labels),
                 'should be a list of 3 values, one for each of a, b, c, not the string "abc"')
    assert_correct(expect_items(["int64"], ["torch.int64"], ["a"],
                                normalise=lambda v: v if v.startswith("torch.") else "torch." + v))
    # True == 1 to Python, but a bool is not the number asked for (and the reverse)
    assert_wrong(expect_items([True], [1], ["a"]), "for a is not right")


# --- describing answers in plain words ----------------------------------------------------

def test_describe_names_a_value_in_plain_words(tm):
    from exercises.checks.toolkit import describe
    x = tm.tensor([1.0, 2.0], requires_grad=True)
    cases = [
        (None, "None"), (True, "True"), (np.bool_(False), "False"), (3, "the number 3"),
        (2.5, "the number 2.5"), (np.float64(0.5), "the number 0.5"),
        (np.float32(1.5), "the number 1.5"), (np.int64(7), "the number 7"),
        ("True", 'the string "True"'), ("", "an empty string"), ("x" * 60, "a string"),
        ([], "an empty list"), ([1], "a list of 1 value"), ((1, 2), "a tuple of 2 values"),
        ({}, "an empty dict"), ({"a": 1, "b": 2}, "a dict with keys 'a', 'b'"),
        ({"a": 1}.keys(), "the keys of a dict (list(...) makes a list of them)"),
        ({1, 2}, "a set of 2 values"), (tm.tensor(1.0), "a tensor holding one number"),
        (tm.ones(2, 3), "a tensor of shape (2, 3)"), (np.zeros(3), "a NumPy array of shape (3,)"),
        (np.array(2.0), "a NumPy array holding one value"), (tm.float32, "the dtype torch.float32"),
        (tm.ones(2, 3).shape, "the shape (2, 3)"), (int, "the class int"),
        (lambda: 1, "a function"), (print, "a function"), (tm.nn.Linear(2, 1), "a model (Linear)"),
        (tm.optim.SGD([x], lr=0.1), "an optimizer (SGD)"),
        ((x * 2).grad_fn, "a graph node (MulBackward0)"),
        (iter([1]), "a generator (list(...) makes a list of its values)"),
        (object(), "a plain object"), (Feedback("correct", "x"), "a Feedback object"),
    ]
    for value, words in cases:
        assert describe(value) == words, (value, describe(value))
        assert_plain(Feedback("wrong", describe(value)))


def test_as_number_and_as_values(tm):
    from exercises.checks.toolkit import as_number, as_values, is_tensor_like
    assert as_number(3) == 3 and as_number(np.float32(1.5)) == 1.5
    assert type(as_number(np.float64(0.5))) is float and as_number(np.array(2.0)) == 2.0
    for not_a_number in (True, np.bool_(True), "3", None, [3], tm.tensor(3.0)):
        assert as_number(not_a_number) is None, not_a_number
    assert as_number(tm.tensor(3.0), tensors=True) == 3.0
    assert as_number(tm.tensor([[3.0]]), tensors=True) == 3.0
    assert as_number(tm.tensor([1.0, 2.0]), tensors=True) is None
    assert as_number(tm.tensor(True), tensors=True) is None
    assert as_values((1, 2)) == [1, 2] and as_values(np.array([1.5, 2.5])) == [1.5, 2.5]
    assert as_values(tm.tensor([[1, 2]])) == [[1, 2]] and as_values(tm.ones(2).shape) == [2]
    assert as_values([np.int64(1), np.bool_(True), tm.tensor(2.0)]) == [1, True, 2.0]
    assert [type(v) for v in as_values(np.array([1.0, 2.0]))] == [float, float]
    for not_values in (None, 3, "ab", {"a": 1}, tm.tensor(1.0), np.array(1.0)):
        assert as_values(not_values) is None, not_values
    assert not is_tensor_like(np.zeros(3)) and not is_tensor_like(np.float64(1.0))


def test_the_last_resort_message_is_plain():
    from exercises.checks.toolkit import _unreadable
    said = _unreadable(AttributeError("'str' object has no attribute 'real'"))
    assert_plain(Feedback("wrong", said.replace("cannot read this answer", "")))
    assert "attribute" not in said and "Error" not in said


# --- every registered checker: odd answers, equivalent forms and type mistakes ------------

def _leaves(value, change):
    """``value`` with each bool and number inside lists, tuples and dicts passed to ``change``."""
    if isinstance(value, dict):
        return {k: _leaves(v, change) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and type(value).__name__ != "Size":
        return type(value)(_leaves(v, change) for v in value)
    if isinstance(value, (bool, int, float)):
        return change(value)
    return value


def _has_non_strings(value):
    found = []
    _leaves(value, found.append)
    return bool(found)


def odd_answers(tm):
    """Answers no exercise asks for: each should get a plain "not quite" (or "not done")."""
    return {
        "None": None, "a word": "text", "True in quotes": "True", "a number": 42,
        "a float": 3.5, "True": True, "an empty list": [], "an empty tuple": (),
        "an empty dict": {}, "a dict": {"a": 1}, "dict keys": {"a": 1}.keys(),
        "[None]": [None], "(None, None)": (None, None), "(None, None, None)": (None,) * 3,
        "(None,) * 4": (None,) * 4, "a list of numbers": [1.0, 2.0], "nested lists": [[1.0]],
        "a function returning None": lambda *args, **kwargs: None,
        "a function that raises": lambda *args, **kwargs: 1 / 0,
        "a NumPy array": np.array([1.0, 2.0]), "a NumPy number": np.float64(2.0),
        "a one-value tensor": tm.tensor([1.0]), "a 0-d tensor": tm.tensor(1.0),
        "an object": object(), "a class": int, "a generator": iter([1, 2]),
        "a model": tm.nn.Linear(2, 1), "a set": {1, 2},
    }


RAISED = "raised ZeroDivisionError: division by zero"


@pytest.mark.parametrize("name", sorted(ALL_CHECKERS))
def test_odd_answers_get_plain_feedback(name, tm):
    check = ALL_CHECKERS[name]
    for label, answer in odd_answers(tm).items():
        feedback = check(answer)
        assert isinstance(feedback, Feedback), (name, label)
        assert feedback.status != "correct", f"{name} accepts {label}: {feedback}"
        assert_plain(feedback, f"{name}, {label}",
                     learner_error=RAISED if label == "a function that raises" else None)


@pytest.mark.parametrize("name", sorted(ALL_CHECKERS))
def test_other_forms_of_the_right_answer_get_plain_feedback(name, tm):
    """The right answer as a list instead of a tuple (and back), as a NumPy array, as a
    tensor, and with its numbers and bools in quotes: never a jargon message, and never ✅
    for numbers or bools written as strings."""
    check = ALL_CHECKERS[name]
    right = check.right(tm)
    forms = {}
    if isinstance(right, tuple) and type(right).__name__ != "Size":
        forms["as a list"] = list(right)
    if isinstance(right, list):
        forms["as a tuple"] = tuple(right)
        for kind, make in (("as a NumPy array", np.array), ("as a tensor", tm.tensor)):
            try:
                with warnings.catch_warnings():  # torch warns about tensors that need grad
                    warnings.simplefilter("ignore")
                    forms[kind] = make(right)
            except Exception:  # not an array of numbers (tensors, functions, ...)
                pass
    if hasattr(right, "tolist") and hasattr(right, "detach"):
        forms["as a NumPy array"] = np.array(right.detach().tolist())
        forms["as a list"] = right.tolist()
    if isinstance(right, dict):
        forms["as a list of its values"] = list(right.values())
    quoted = _leaves(right, str)
    for label, answer in forms.items():
        assert_plain(check(answer), f"{name}, {label}")
    if _has_non_strings(right):
        feedback = check(quoted)
        assert feedback.status == "wrong", f"{name} accepts numbers in quotes: {feedback}"
        assert_plain(feedback, f"{name}, numbers in quotes")


def _dtype_objects(tm):
    from exercises.checks.creating_tensors import DTYPES
    return [getattr(tm, name.removeprefix("torch.")) for name in DTYPES]


def _equivalent_forms(tm):
    """Other ways of writing each right answer, all accepted as right."""
    from exercises.checks.creating_tensors import DTYPES, LENGTHS
    from exercises.checks.copying import CHANGES, FLAGS
    from exercises.checks.views_copies_inplace import IN_PLACE, _sharing
    from exercises.checks.graphs_and_leaves import (
        GRAD_VALUES,
        HAS_GRAD,
        LEAF_FLAGS,
        NODE_EXPECTED,
        SIN_CHAIN_GRAD,
        _sin_chain,
    )
    from exercises.checks.gradient_accumulation import _JACOBIAN, _vjp
    from exercises.checks.hooks_and_saved_tensors import ORDER
    from exercises.checks.training_loop import _losses

    shapes = [(4, 3), (5, 4, 3), (3, 3), (2, 3)]
    losses_50, losses_20 = _losses(tm, 50, 0.05), _losses(tm, 20, 0.1)
    order = ["AddBackward0", "SinBackward0", "ExpBackward0", "MulBackward0", "AccumulateGrad"]
    return {
        "check_01_predict_dtypes": [
            tuple(DTYPES), np.array(DTYPES), _dtype_objects(tm),
            [name.removeprefix("torch.") for name in DTYPES],
            ["torch.long", "torch.float", "torch.double", "torch.long", "torch.float",
             "torch.long"], [f"  {name} " for name in DTYPES]],
        "check_01_predict_lengths": [
            tuple(LENGTHS), np.array(LENGTHS), tm.tensor(LENGTHS),
            [np.int64(n) for n in LENGTHS], [float(n) for n in LENGTHS]],
        "check_02_broadcast_shapes": [
            tuple(shapes), [list(s) for s in shapes], [tm.ones(*s).shape for s in shapes],
            [np.array(s) for s in shapes]],
        "check_03_shares_memory": [{k: np.bool_(v) for k, v in _sharing(tm).items()}],
        "check_03_in_place": [((1, 1, 5), (7, 0, 5)), np.array(IN_PLACE), tm.tensor(IN_PLACE),
                              [[np.float32(1), 1.0, 5], [7, np.int64(0), 5.0]]],
        "check_04_does_b_change": [{k: np.bool_(v) for k, v in CHANGES.items()}],
        "check_04_requires_grad_and_grad_fn": [
            {k: list(v) for k, v in FLAGS.items()},
            {k: (np.bool_(f), None if node == "None" else node) for k, (f, node) in FLAGS.items()},
            {**FLAGS, "c1": (True, "<CloneBackward0>"), "c2": (False, "none")}],
        "check_04_data_gradient": [
            (20.0, 40.0, 60.0), [20, 40, 60], np.array([20.0, 40.0, 60.0]),
            tm.tensor([20.0, 40.0, 60.0]), [np.float32(20), np.float64(40), 60]],
        "check_05_leaves": [tuple(LEAF_FLAGS), np.array(LEAF_FLAGS), tm.tensor(LEAF_FLAGS),
                            [np.bool_(v) for v in LEAF_FLAGS]],
        "check_05_node_names": [tuple(NODE_EXPECTED), np.array(NODE_EXPECTED),
                                [f"<{n}>" for n in NODE_EXPECTED]],
        "check_05_surviving_grads": [
            (np.array(HAS_GRAD), tm.tensor(GRAD_VALUES)),
            [tuple(HAS_GRAD), [tm.tensor(36.0), np.float32(12.0)]],
            (tm.tensor(HAS_GRAD), (36, 12))],
        "check_05_gradient_by_hand": [
            (tm.tensor(SIN_CHAIN_GRAD), _sin_chain(tm)), [np.float64(SIN_CHAIN_GRAD),
                                                          _sin_chain(tm)],
            (tm.tensor([SIN_CHAIN_GRAD]), _sin_chain(tm))],
        "check_06_predict_grad": [(1.5,) * 4, np.full(4, 1.5), tm.tensor([1.5] * 4),
                                  [np.float32(1.5)] * 4, [1.5, 1.5, 1.5, np.float64(1.5)]],
        "check_06_second_backward": [(False, True, False, True),
                                     np.array([False, True, False, True]),
                                     tm.tensor([False, True, False, True])],
        "check_06_vjp": [(np.array(_JACOBIAN), _vjp(tm)[1]), (tm.tensor(_JACOBIAN), _vjp(tm)[1]),
                         (tuple(tuple(row) for row in _JACOBIAN), _vjp(tm)[1]),
                         [[[3, 2], [1, 1], [0, 6]], _vjp(tm)[1]]],
        "check_07_predict_requires_grad": [(False, True, False, True),
                                           np.array([False, True, False, True]),
                                           tm.tensor([False, True, False, True])],
        "check_07_predict_errors": [("error", "ok", "error", "ok"),
                                    np.array(["error", "ok", "error", "ok"])],
        "check_08_predict_grad": [[2.0, 7.0, True], (2, 7, True),
                                  (tm.tensor(2.0), tm.tensor([7.0]), np.bool_(True)),
                                  (np.float32(2.0), np.float64(7.0), True)],
        "check_09_next_functions": [
            [["MulBackward0", "AccumulateGrad"], ["ExpBackward0", "None"]],
            (("MulBackward0", "torch::autograd::AccumulateGrad"), ("ExpBackward0", None)),
            (np.array(["MulBackward0", "AccumulateGrad"]), ["ExpBackward0", "none"])],
        "check_09_backward_order": [tuple(order), np.array(order),
                                    order[:-1] + ["torch::autograd::AccumulateGrad"]],
        "check_11_predict_sgd_step": [((0.95, -2.05),), np.array([[0.95, -2.05]]),
                                      tm.tensor([[0.95, -2.05]]), [[np.float32(0.95), -2.05]]],
        "check_11_training_loop": [tuple(losses_50), np.array(losses_50),
                                   [np.float32(v) for v in losses_50]],
        "check_11_fixed_loop": [tuple(losses_20), np.array(losses_20)],
        "check_12_hook_order": [tuple(ORDER), np.array(ORDER)],
        "check_12_backward_inputs": [[None, 12], (None, np.float32(12.0)),
                                     (None, tm.tensor(12.0)), (None, tm.tensor([12.0]))],
        "check_13_products": [[3, 50, "jacfwd"], (np.int64(3), tm.tensor(50), " JacFwd")],
        "check_13_kinks": [(0, 0, float("inf"), 0.5), np.array([0.0, 0.0, np.inf, 0.5]),
                           [tm.tensor(0.0), tm.tensor(0.0), tm.tensor(float("inf")),
                            tm.tensor(0.5)]],
    }


@pytest.mark.parametrize("name", sorted(_equivalent_forms(engine)))
def test_equivalent_forms_of_the_right_answer_are_accepted(name, tm):
    for answer in _equivalent_forms(tm)[name]:
        assert_correct(ALL_CHECKERS[name](answer))


def _flags_with(**changes):
    from exercises.checks.copying import FLAGS
    return {**FLAGS, **changes}


def _type_mistakes(tm):
    """(checker, answer, what the message says) for answers written in the wrong form: the
    message is about the form, not the value."""
    from exercises.checks.creating_tensors import DTYPES
    from exercises.checks.views_copies_inplace import _sharing
    from exercises.checks.forward_mode_and_torch_func import (_directional_right,
                                                              _per_sample_right)
    from exercises.checks.copying import CHANGES
    from exercises.checks.graphs_and_leaves import HAS_GRAD, _sin_chain
    from exercises.checks.gradient_accumulation import _vjp
    from exercises.checks.turning_gradients_off import _model
    from exercises.checks.training_loop import _losses, _predict

    def raises():
        return 1 / 0

    return [
        # lesson 1
        ("check_01_predict_dtypes", [int, float, float, int, float, int],
         'should be a dtype name in quotes, such as "torch.bool", not the class int'),
        ("check_01_predict_dtypes", DTYPES[:5] + [None], "for f should be a dtype name"),
        ("check_01_predict_lengths", [4, 5, 10, 3, 10, "7"],
         'for f should be a number, not the string "7"'),
        ("check_01_bias_like_weight", np.zeros(3), "bias is a NumPy array of shape (3,), not a "
                                                   "tensor"),
        ("check_01_dice", np.array([3, 4, 6, 1, 2, 4, 2, 2, 2, 4]), "dice is a NumPy array"),
        ("check_01_share_numpy", np.zeros((2, 3), dtype=np.float32),
         "image is a NumPy array of shape (2, 3), not a tensor"),
        ("check_01_fix_requires_grad", tm.tensor([1.0, 2.0, 3.0], requires_grad=True),
         "make_weights is a tensor of shape (3,); pass the function itself"),
        ("check_01_fix_requires_grad", lambda: [1.0, 2.0, 3.0],
         "make_weights() returns a list of 3 values; it should return a tensor"),
        # lesson 2
        ("check_02_broadcast_shapes", ["(4, 3)", "(5, 4, 3)", "(3, 3)", "(2, 3)"],
         'shape for line 1 should be a tuple of sizes, like (1, 2), not the string "(4, 3)"'),
        ("check_02_broadcast_shapes", (4, 3), "your prediction, (4, 3), is one shape"),
        ("check_02_broadcast_shapes", [(4, 3), (5, 4, 3)], "your list has 2 shapes"),
        ("check_02_indexing", [tm.arange(4)] * 3, "pass the tuple (last_col, inner, big_evens, "
                                                   "corners) to the check, not a list of 3 values"),
        ("check_02_layouts", (np.zeros((4, 2, 3)), np.zeros((6, 4)), np.zeros((4, 6))),
         "chw is a NumPy array of shape (4, 2, 3), not a tensor"),
        ("check_02_center_rows", (lambda x: None, tm.ones(3, 3)),
         "center_rows(scores) returned None: does the function end with return?"),
        # lesson 3
        ("check_03_shares_memory", {k: str(v) for k, v in _sharing(tm).items()},
         """the answer for 'a' should be True or False, not the string "True\""""),
        ("check_03_shares_memory", list(_sharing(tm).values()),
         'should be a dict that maps each name, "a" to "i", to True or False, not a list of '
         '9 values'),
        ("check_03_shares_memory", {k.upper(): v for k, v in _sharing(tm).items()},
         "(its other keys: 'A', 'B'"),
        ("check_03_columns", ((lambda m: m.T.reshape(-1))(tm.ones(2, 3)), tm.ones(2, 3)),
         "columns_in_order is a tensor of shape (6,); pass the function itself"),
        ("check_03_in_place", [["1", "1", "5"], ["7", "0", "5"]],
         'your value in row 0, column 0 should be a number, not the string "1"'),
        ("check_03_in_place", [1, 1, 5, 7, 0, 5],
         "should be a list of two rows of three numbers"),
        ("check_03_numpy_copy", (tm.zeros(4).numpy(), tm.zeros(4)),
         "scaled_copy is a NumPy array of shape (4,); pass the function itself"),
        ("check_03_numpy_copy", (lambda t: t.detach().tolist(), tm.zeros(4)),
         "scaled_copy returned a list of 4 values; it should return a NumPy array"),
        # lesson 4
        ("check_04_requires_grad_and_grad_fn", _flags_with(c1=("True", "CloneBackward0")),
         'for c1, requires_grad should be written as True or False, not the string "True"'),
        ("check_04_requires_grad_and_grad_fn", _flags_with(c1=(1, "CloneBackward0")),
         "requires_grad should be written as True or False, not the number 1"),
        ("check_04_requires_grad_and_grad_fn", _flags_with(c2=(False, False)),
         "for c2, grad_fn should be written as a node's name in quotes"),
        ("check_04_requires_grad_and_grad_fn", _flags_with(c3=False),
         "your prediction for c3 should be a pair (requires_grad, grad_fn)"),
        ("check_04_does_b_change", {**CHANGES, "b2": 0},
         "your prediction for b2 should be True or False, not the number 0"),
        ("check_04_does_b_change", [True, False, True, False, True],
         "should be a dict like the one given, with a value for each of b1, b2, b3, b4, b5, "
         "not a list of 5 values"),
        ("check_04_snapshot", (tm.ones(3), np.ones(3)), "snapshot is a NumPy array"),
        ("check_04_data_gradient", ["20", "40", "60"],
         'the first value of your prediction should be a number, not the string "20"'),
        ("check_04_data_gradient", "Error", "you predict an error"),
        ("check_04_data_gradient", "20, 40, 60",
         'should be a list of three numbers, or the string "error", not the string'),
        ("check_04_backup", raises, "calling train_one_step() raised ZeroDivisionError"),
        ("check_04_backup", lambda: (tm.nn.Linear(3, 1), [1.0]),
         "backup is a list of 1 value; a dict like state_dict() is expected here"),
        # lesson 5
        ("check_05_leaves", [1, 1, 0, 1, 0], "for p should be True or False, not the number 1"),
        ("check_05_node_names", ["MulBackward0", None, "MeanBackward0"],
         "for z should be a string, in quotes, not None"),
        ("check_05_surviving_grads", (HAS_GRAD, ["36", "12"]),
         'your value for a.grad should be a number, not the string "36"'),
        ("check_05_surviving_grads", (HAS_GRAD, 36.0),
         "grads should be a list of two numbers: a.grad and c.grad, not the number 36.0"),
        ("check_05_gradient_by_hand", ("-3.27", _sin_chain(tm)),
         'by_hand should be a number, not the string "-3.27"'),
        ("check_05_gradient_by_hand", (tm.tensor([1.0, 2.0]), _sin_chain(tm)),
         "by_hand should be one number, not a tensor of shape (2,)"),
        ("check_05_build_graph", np.array(3.0), "z is a NumPy array holding one value"),
        ("check_05_find_leaves", (lambda node: {"p1": 1}, _sin_chain(tm, backward=False) * 2),
         "returned a dict with key 'p1', not a list"),
        # lesson 6
        ("check_06_predict_grad", ["1.5", "1.5", "1.5", "1.5"],
         'the first value of your prediction should be a number, not the string "1.5"'),
        ("check_06_predict_grad", 1.5, "should be a list of 4 numbers, not the number 1.5"),
        ("check_06_predict_grad", [1.5, 1.5, 1.5], "your prediction has 3 values"),
        ("check_06_second_backward", [0, 1, 0, 1],
         "your prediction for a should be True or False, not the number 0"),
        ("check_06_vjp", ([["3", "2"], ["1", "1"], ["0", "6"]], _vjp(tm)[1]),
         'J[0][0] should be a number, not the string "3"'),
        ("check_06_vjp", ([3.0, 2.0, 1.0, 1.0, 0.0, 6.0], _vjp(tm)[1]),
         "J is a flat list of 6 values"),
        ("check_06_train_loop", lambda: 3.0, "train() returned the number 3.0; it should "
                                             "return w"),
        ("check_06_two_losses", "two_losses", 'two_losses is the string "two_losses"; pass '
                                              'the function itself'),
        # lesson 7
        ("check_07_predict_requires_grad", ["False", "True", "False", "True"],
         'for a.requires_grad should be True or False, not the string "False"'),
        ("check_07_predict_errors", [True, False, True, False],
         'for snippet A should be "ok" or "error", not True'),
        ("check_07_freeze_first_layer", (_model(tm), "SGD"),
         'optimizer is the string "SGD", not an optimizer from optim'),
        ("check_07_freeze_first_layer", ("model", None),
         'model is the string "model"; pass the model of the exercise'),
        ("check_07_fix_saved_tensor", lambda: (1, 2), "probabilities_and_grad() returned a "
                                                      "tuple of 2 values"),
        # lesson 8
        ("check_08_predict_grad", ("2", "7", "True"),
         'your first number (df/du) should be a number, not the string "2"'),
        ("check_08_predict_grad", (2.0, 7.0, None),
         "(is u.grad still None?) should be True or False, not None"),
        ("check_08_predict_grad", (2.0, 7.0), "three values in a tuple: (number, number, True "
                                              "or False), not a tuple of 2 values"),
        ("check_08_derivatives", tm.tensor([14.0, 12.0, 6.0]),
         "should be a list of three tensors: [d1, d2, d3], not a tensor of shape (3,)"),
        ("check_08_derivatives", [14.0, 12.0, 6.0],
         "the first derivative is the number 14.0, not a tensor"),
        ("check_08_numerical_grad", np.zeros((2, 3)),
         "numerical_grad(f, X) is a NumPy array of shape (2, 3), not a tensor"),
        ("check_08_float32_eps", lambda: (12.0, 12.0),
         "numerical should be a tensor holding one number, not the number 12.0"),
        # lesson 9
        ("check_09_next_functions", (["MulBackward0", "AccumulateGrad"], ["ExpBackward0", 2.0]),
         "the second name in your second list should be a node's name in quotes"),
        ("check_09_next_functions", ("MulBackward0, AccumulateGrad", "ExpBackward0, None"),
         'your first list should be a list of names, like ["...", "..."], not the string'),
        ("check_09_backward_order", "AddBackward0, SinBackward0",
         "should be a list of node names, in the order they run, not the string"),
        ("check_09_backward_order", ["AddBackward0"], "your list has 1 name;"),
        ("check_09_cube", "Cube", 'your answer is the string "Cube"; the class Cube'),
        ("check_09_multiply", lambda x, w: x * w, "your answer is a function; the class "
                                                  "Multiply is expected here"),
        # lesson 10
        ("check_10_leaf_dtype", "weight_and_grad", 'weight_and_grad is the string '
                                                   '"weight_and_grad", not a function'),
        ("check_10_leaf_dtype", lambda: [1.0, 2.0, 3.0], "weight_and_grad() returned a list of "
                                                         "3 values; it should return w"),
        ("check_10_plogp", (lambda p: p, [0.0, 0.5, 1.0]), "p is a list of 3 values"),
        ("check_10_keep_losses", lambda: 3.0, "train() returned the number 3.0"),
        ("check_10_keep_losses", lambda: ["1.0"] * 5, 'the first loss is the string "1.0", '
                                                      'not a number'),
        ("check_10_hidden_state", None, "run_steps is None, not a function"),
        # lesson 11
        ("check_11_predict_sgd_step", [["0.95", "-2.05"]],
         'the value at [0][0] should be a number, not the string "0.95"'),
        ("check_11_predict_sgd_step", [0.95, -2.05], "your prediction is a flat list of 2 "
                                                     "values"),
        ("check_11_sgd_by_hand", None, "model is None; pass the model of the exercise"),
        ("check_11_training_loop", _losses(tm, 50, 0.05, item=False),
         "the loss at step 0 is a tensor holding one number; losses should hold plain numbers"),
        ("check_11_training_loop", tm.tensor(_losses(tm, 50, 0.05)),
         "losses is a tensor of shape (50,); it should be a list of plain numbers"),
        ("check_11_training_loop", [str(v) for v in _losses(tm, 50, 0.05)],
         "the loss at step 0 should be a number, not the string"),
        ("check_11_fixed_loop", _losses(tm, 20, 0.1)[:19], "fixed_losses has 19 values"),
        ("check_11_predict_without_graph", np.array(_predict(tm).tolist()),
         "the prediction is a NumPy array of shape (2, 1), not a tensor"),
        # lesson 12
        ("check_12_hook_order", "pre-hook of b.grad_fn, tensor hook on a",
         "write a list of the five labels of HOOKS"),
        ("check_12_hook_order", [0, 1, 2, 3, 4], "should be one of the labels of HOOKS"),
        ("check_12_halve", (None, tm.tensor([1.0, 2.0, 3.0])), "halve is None, not a function"),
        ("check_12_clip_hooks", (lambda model, limit: None, "make_model"),
         'make_model is the string "make_model", not a function'),
        ("check_12_count_saved", (lambda fn: (0, 0), [1.0, 2.0]), "pass the x of the exercise"),
        ("check_12_backward_inputs", ("None", "12"), "write a number, or None"),
        # lesson 13
        ("check_13_products", ("3", "50", "jacfwd"), "write a whole number"),
        ("check_13_products", (3, 50, max), "write the name of a transform"),
        ("check_13_directional", (_directional_right(tm), [1.0, 2.0, 3.0]),
         "pass the x of the exercise"),
        ("check_13_per_sample", (list(_per_sample_right(tm)[0].values()),
                                 *_per_sample_right(tm)[1:]), "gives a dict with the same names"),
        ("check_13_kinks", [0, 0, "inf", 0.5], "write a number"),
        ("check_13_hvp", (_directional_right(tm), "x"), "pass the x of the exercise"),
    ]


def test_type_mistakes_are_told_about_the_form(tm):
    mistakes = _type_mistakes(tm)
    lessons = {path.name[:2] for path in generate.SOLUTIONS.glob(generate.PATTERN)}
    assert {name[6:8] for name, _, _ in mistakes} >= lessons, "a few type mistakes per lesson"
    for name, answer, says in mistakes:
        feedback = ALL_CHECKERS[name](answer)
        assert_wrong(feedback, says)
        assert "is not right" not in feedback.message, f"{name}: about the form: {feedback}"
        assert_plain(feedback, name,
                     learner_error=RAISED if "ZeroDivisionError" in says else None)


def _outer_by_loop(a, b):
    rows = [x * b for x in a]
    return rows


def _outer_by_broadcasting(a, b):
    return a[:, None] * b


def _diagonal_by_method(m):
    return m.diagonal()


def test_the_puzzles_rule_is_read_from_the_learners_source(tm):
    """A loop, a comprehension or the ready-made function is refused before any value is
    compared; a function's own name (def diagonal) is not a use of the ready-made one."""
    a, b = tm.tensor([1.0, 2.0, 3.0]), tm.tensor([10.0, 20.0])
    assert_wrong(ALL_CHECKERS["check_02_outer"]((_outer_by_loop, a, b)),
                 "uses a Python loop or comprehension")
    assert_correct(ALL_CHECKERS["check_02_outer"]((_outer_by_broadcasting, a, b)))
    assert_wrong(ALL_CHECKERS["check_02_diagonal"]((_diagonal_by_method, tm.ones(3, 3))),
                 "uses diagonal, which the puzzle asks you to do without")

    def diagonal(m):
        index = tm.arange(m.shape[0])
        return m[index, index]
    assert checks_02._source_problem(diagonal, "diagonal") is None
    assert_correct(ALL_CHECKERS["check_02_diagonal"]((diagonal, tm.arange(9.0).reshape(3, 3))))


def test_the_issue_example_3_2():
    """("True", "CloneBackward0") is a type mistake, not a wrong requires_grad."""
    check = ALL_CHECKERS["check_04_requires_grad_and_grad_fn"]
    feedback = check(_flags_with(c1=("True", "CloneBackward0")))
    assert str(feedback) == ('❌ Not quite: for c1, requires_grad should be written as True or '
                             'False, not the string "True".')
    assert_correct(check(_flags_with(c1=(True, "CloneBackward0"))))
    assert_wrong(check(_flags_with(c1=(False, "CloneBackward0"))),
                 "your requires_grad for c1 is not right")
