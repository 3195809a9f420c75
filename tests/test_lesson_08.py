"""Lesson 8 (notebooks/08_inside_the_engine.ipynb) quotes the engine's source in markdown:
these tests keep the quotes in sync with the code they quote."""
import inspect
import re
from pathlib import Path

import nbformat

from engine import _autograd, _ops

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "08_inside_the_engine.ipynb"


def _code_blocks():
    nb = nbformat.read(LESSON, as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return re.findall(r"```python\n(.*?)```", markdown, re.S)


def _code_lines(source):
    """Lines without comments and blank lines, stripped."""
    lines = (line.split("  #")[0].rstrip() for line in source.splitlines())
    return [line.strip() for line in lines if line.strip()]


def test_the_quoted_mul_backward_is_the_engines():
    block = next(b for b in _code_blocks() if "class MulBackward0" in b)
    quoted = block[block.index("class MulBackward0"):]
    assert quoted.strip() == inspect.getsource(_ops.MulBackward0).strip()


def test_every_line_of_the_quoted_mul_is_in_the_engines_mul():
    block = next(b for b in _code_blocks() if "def mul(" in b)
    quoted = block[:block.index("class MulBackward0")]
    real = _code_lines(inspect.getsource(_ops.mul))
    for line in _code_lines(quoted):
        assert line in real, line


def test_the_sketch_of_run_backward_names_real_functions_and_steps():
    block = next(b for b in _code_blocks() if "dependencies = " in b)
    for name in re.findall(r"\b(_\w+)\(", block):
        assert hasattr(_autograd, name), name
    real = inspect.getsource(_autograd.run_backward)
    for step in ("_count_dependencies(roots)", "buffers.pop(", "dependencies[",
                 "node.next_functions"):
        assert step in real, step
    assert "_validated(node, node.backward(*grads))" in inspect.getsource(_autograd._run_node)
