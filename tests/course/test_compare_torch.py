"""course_tools/compare_torch.py: what it rewrites, what it skips, and that it catches a
difference."""
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from course_tools import compare_torch


def test_imports_are_rewritten_but_course_tools_stay():
    source = ("import engine as torch\nfrom engine import nn\nfrom engine.nn import functional"
              " as F\nfrom engine.viz import draw_graph\nfrom engine.widgets import X\n"
              "import engine\n    import engine as torch")
    assert compare_torch.to_torch(source) == (
        "import torch\nfrom torch import nn\nfrom torch.nn import functional as F\n"
        "from engine.viz import draw_graph\nfrom engine.widgets import X\nimport engine\n"
        "    import torch")


def test_only_engine_only_cells_are_skipped():
    picture = new_code_cell("draw_graph(y, names=locals())")
    tagged = new_code_cell("x + 1", metadata={"tags": ["engine-only"]})
    assert not compare_torch.skipped(picture)  # the pictures draw torch tensors too
    assert compare_torch.skipped(tagged)


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


def test_stdout_and_stderr_compare_apart_whichever_was_flushed_first():
    """A warning raised before a print may reach the notebook after it: a race in the kernel."""
    warning = new_output("stream", name="stderr", text="UserWarning: w\n")
    printed = [new_output("stream", name="stdout", text="None "),
               new_output("stream", name="stdout", text="tensor(1.)\n")]
    result = new_output("execute_result", {"text/plain": "1"}, execution_count=1)
    one_order = compare_torch.comparable([warning, *printed, result], [])
    assert one_order == compare_torch.comparable([*printed, warning, result], [])
    assert one_order == ["[stdout]\nNone tensor(1.)\n", "[stderr]\nUserWarning: w\n",
                         "[text/plain]\n1"]
    assert one_order != compare_torch.comparable([warning, result], [])


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
                 new_output("execute_result", {"text/plain": "'whatever'"}, execution_count=5)]),
             new_code_cell("from engine.viz import draw_memory\na = torch.arange(3.0)\n"
                           "print(draw_memory(a=a, v=a[1:], c=a.clone()))",  # (with or
                           execution_count=6, outputs=[  # without Graphviz)
                 new_output("stream", name="stdout",
                            text="Memory: 2 storages: storage 0: a, v | storage 1: c\n")])]
    cells[3].metadata["tags"] = ["differs-from-torch"]
    cells[4].metadata["tags"] = ["engine-only"]
    path = tmp_path / "nb.ipynb"
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}}), path)
    report = compare_torch.compare(path, compare_torch.read_sanitizers())
    assert report["cells"] == 6 and report["same"] == 3 and report["skipped"] == 1  # + picture
    assert [index for index, _, _ in report["differ"]] == [2]
    assert "-torch.float64" in report["differ"][0][2] and "+torch.float32" in report["differ"][0][2]
    assert [index for index, _, _ in report["explained"]] == [3]


def test_every_notebook_of_both_editions_is_compared(tmp_path):
    for name in ("notebooks/00_welcome.ipynb", "notebooks/zh-CN/00_welcome.ipynb",
                 "solutions/01_x.ipynb", "exercises/zh-CN/01_x.ipynb", "notebooks/zh-CN/notes.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = [p.relative_to(tmp_path).as_posix() for p in compare_torch.notebooks([], tmp_path)]
    assert found == ["notebooks/00_welcome.ipynb", "solutions/01_x.ipynb",
                     "notebooks/zh-CN/00_welcome.ipynb", "exercises/zh-CN/01_x.ipynb"]
