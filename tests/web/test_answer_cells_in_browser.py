"""exercises/checks/answer_cells.py in the browser edition: the Pyodide kernel does not hand IPython
the cell's id and metadata, so the log reads them from the request the kernel is answering
(the real thing runs in tests/web/test_site.py, in Chromium; simulated here in CPython)."""
import sys
from types import SimpleNamespace

import IPython

from exercises.checks import answer_cells


def fake_kernel(monkeypatch, metadata):
    shell = SimpleNamespace(kernel=SimpleNamespace(_parent_header={"metadata": metadata}))
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    monkeypatch.setattr(sys, "platform", "emscripten")


def start(log, source):
    """What IPython tells the log in Pyodide: no cell_id, no cell_meta."""
    log.pre_run_cell(SimpleNamespace(raw_cell=source, cell_id=None))
    return log.runs[-1]


def test_under_pyodide_the_request_gives_the_cell_id_and_answer(monkeypatch):
    fake_kernel(monkeypatch, {"cellId": "check_03_snapshot", "answerCellSource": "x = 1",
                              "recordTiming": False})
    run = start(answer_cells.CellLog({}), "check_03_snapshot(x)")
    assert run.cell_id == "check_03_snapshot"
    assert run.answer_source_now == "x = 1"


def test_without_metadata_nothing_changes(monkeypatch):
    fake_kernel(monkeypatch, {})
    run = start(answer_cells.CellLog({}), "x = 1")
    assert run.cell_id is None and run.answer_source_now is None


def test_outside_pyodide_the_kernel_is_not_read(monkeypatch):
    fake_kernel(monkeypatch, {"cellId": "answer_03_x"})
    monkeypatch.setattr(sys, "platform", "linux")
    run = start(answer_cells.CellLog({}), "x = 1")
    assert run.cell_id is None


def test_what_ipython_gives_wins(monkeypatch):
    fake_kernel(monkeypatch, {"cellId": "from_the_kernel"})
    log = answer_cells.CellLog({})
    log.pre_run_cell(SimpleNamespace(raw_cell="x = 1", cell_id="from_ipython"))
    assert log.runs[-1].cell_id == "from_ipython"
