"""Lesson 9 (notebooks/09_inside_the_engine.ipynb) quotes and prints the engine's source:
these tests keep the quotes in sync with the code they quote, and the lesson's imports
and file names in sync with the engine's layout."""
import ast
import importlib
import inspect
import re
from pathlib import Path

import nbformat

from engine.core import backward
from engine.ops import arithmetic

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "notebooks" / "09_inside_the_engine.ipynb"


def _cells(cell_type):
    nb = nbformat.read(LESSON, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == cell_type]


def _code_blocks():
    """The ```python blocks quoted in the lesson's markdown."""
    return re.findall(r"```python\n(.*?)```", "\n".join(_cells("markdown")), re.S)


def _quoted(start):
    """The one quoted block that starts with ``start``."""
    blocks = [b for b in _code_blocks() if b.startswith(start)]
    assert len(blocks) == 1, f"expected one quoted block starting with {start!r}"
    return blocks[0]


def _code_lines(source):
    """Lines without comments and blank lines, stripped."""
    lines = (line.split("  #")[0].rstrip() for line in source.splitlines())
    return [line.strip() for line in lines if line.strip()]


def test_the_quoted_run_backward_is_the_engines_verbatim():
    quoted = _quoted("def run_backward(")
    assert quoted.rstrip() == inspect.getsource(backward.run_backward).rstrip()


def test_the_quoted_mul_backward_is_the_engines():
    block = _quoted("@takes_out\ndef mul(")
    quoted = block[block.index("class MulBackward0"):]
    assert quoted.rstrip() == inspect.getsource(arithmetic.MulBackward0).rstrip()


def test_every_line_of_the_quoted_mul_is_in_the_engines_mul():
    block = _quoted("@takes_out\ndef mul(")
    quoted = block[:block.index("class MulBackward0")]
    real = _code_lines(inspect.getsource(arithmetic.mul))
    for line in _code_lines(quoted):
        assert line in real, line


def _imports(tree):
    """``(module, names)`` for every import statement in a parsed cell."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            yield node.module, tuple(alias.name for alias in node.names)


def test_every_import_of_the_lesson_exists():
    for source in _cells("code"):
        for module_name, names in _imports(ast.parse(source)):
            module = importlib.import_module(module_name)
            for name in names:
                assert hasattr(module, name), f"from {module_name} import {name}"


def test_every_getsource_cell_shows_a_real_engine_function():
    shown = []
    for source in _cells("code"):
        tree = ast.parse(source)
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and ast.unparse(node.func) == "inspect.getsource"]
        if not calls:
            continue
        namespace = {}
        for statement in tree.body:  # the cell's imports only, then what it shows
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                exec(compile(ast.Module([statement], []), "<cell>", "exec"), namespace)
        for call in calls:
            obj = eval(compile(ast.Expression(call.args[0]), "<cell>", "eval"), namespace)
            assert inspect.isfunction(obj) or inspect.isclass(obj), ast.unparse(call)
            assert obj.__module__.startswith("engine."), ast.unparse(call)
            shown.append(obj)
    assert shown == [backward.count_dependencies, backward.sum_to]


def test_every_engine_file_the_lesson_names_exists():
    markdown = "\n".join(_cells("markdown"))
    named = set(re.findall(r"`(engine/[\w/]*?(?:\.py|/))`", markdown))
    assert {"engine/core/backward.py", "engine/ops/arithmetic.py"} <= named
    for path in sorted(named):
        assert (ROOT / path).exists(), path
