"""tests/compare_torch.py: what it rewrites, what it skips, and that it catches a difference."""
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_torch  # noqa: E402


def test_imports_are_rewritten_but_course_tools_stay():
    source = ("import engine as torch\nfrom engine import nn\nfrom engine.nn import functional"
              " as F\nfrom engine.viz import draw_graph\nfrom engine.widgets import X\n"
              "import engine\n    import engine as torch")
    assert compare_torch.to_torch(source) == (
        "import torch\nfrom torch import nn\nfrom torch.nn import functional as F\n"
        "from engine.viz import draw_graph\nfrom engine.widgets import X\nimport engine\n"
        "    import torch")


@pytest.mark.parametrize("source, picture", [
    ("draw_graph(y, names=locals())", True),
    ("draw_memory(a=a,\n            b=b)", True),
    ("pic = make_dot(out)\npic", False),
    ("y = x * 2\ndraw_graph(y)", False),
    ("# a comment\ndraw_graph(y)", True),
    ("x + 1", False),
])
def test_only_cells_that_just_draw_count_as_pictures(source, picture):
    assert compare_torch.is_picture(source) is picture


def test_outputs_are_sanitised_and_streams_merged():
    sanitizers = compare_torch.read_sanitizers()
    outputs = [new_output("stream", name="stdout", text="a at 0x7f00aa\n"),
               new_output("stream", name="stdout", text="b\n"),
               new_output("stream", name="stderr",
                          text="/tmp/ipykernel_123/456.py:2: UserWarning: w\n"),
               new_output("execute_result", {"text/plain": "1", "image/png": "xx"},
                          execution_count=1)]
    assert compare_torch.comparable(outputs, sanitizers) == [
        "[stdout]\na at 0xADDRESS\nb\n", "[stderr]\n<cell>: UserWarning: w\n",
        "[text/plain]\n1"]


@pytest.mark.torch
def test_a_difference_is_reported_and_an_explained_one_is_not(tmp_path, torch_or_skip):
    cells = [new_code_cell("import engine as torch", execution_count=1),
             new_code_cell("torch.tensor([1, 2]).dtype", execution_count=2, outputs=[
                 new_output("execute_result", {"text/plain": "torch.int64"}, execution_count=2)]),
             new_code_cell("torch.tensor([1.5]).dtype", execution_count=3, outputs=[
                 new_output("execute_result", {"text/plain": "torch.float64"},
                            execution_count=3)]),
             new_code_cell("1 + 1", execution_count=4, outputs=[
                 new_output("execute_result", {"text/plain": "3"}, execution_count=4)]),
             new_code_cell("import engine\nengine.__name__", execution_count=5, outputs=[
                 new_output("execute_result", {"text/plain": "'whatever'"}, execution_count=5)])]
    cells[3].metadata["tags"] = ["differs-from-torch"]
    cells[4].metadata["tags"] = ["engine-only"]
    path = tmp_path / "nb.ipynb"
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}}), path)
    report = compare_torch.compare(path, compare_torch.read_sanitizers())
    assert report["cells"] == 5 and report["same"] == 2 and report["skipped"] == 1
    assert [index for index, _, _ in report["differ"]] == [2]
    assert "-torch.float64" in report["differ"][0][2] and "+torch.float32" in report["differ"][0][2]
    assert [index for index, _, _ in report["explained"]] == [3]
