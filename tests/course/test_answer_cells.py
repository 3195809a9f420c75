"""A check judges only an answer cell that ran without an error (exercises/checks/answer_cells.py).

In real kernels, the way JupyterLab runs cells (sending cell ids) and the way nbclient and
nbval run them (no ids): for every exercise of the course, an answer cell that raises is
followed by "fix the cell above", never by a verdict; and the stale cases one by one.
"""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from exercises.checks import answer_cells
from exercises.checks.answer_cells import CellLog, names_bound_by, names_in_check_call

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))


# --- reading sources ------------------------------------------------------------------------

@pytest.mark.parametrize("source, names", [
    ("a = 1\nb, c = 2, 3\nd += 1\ne: int = 4", {"a", "b", "c", "d", "e"}),
    ("def f():\n    inner = 1\nclass K: pass\nimport numpy as np\nimport os.path",
     {"f", "K", "np", "os"}),
    ("squares = [n * n for n in range(3)]\nscale = lambda t: 2 * t", {"squares", "scale"}),
    ("for i in range(3):\n    total = i\nwith open('x') as handle: pass", {"i", "total", "handle"}),
    ("snapshot = w[5", {"snapshot"}),  # a SyntaxError: read line by line
    ("def broken(:\n    pass\nx, y = 1", {"broken", "x", "y"}),
    ("print(a == b)", set()),
])
def test_names_a_cell_binds(source, names):
    assert names_bound_by(source) == names


@pytest.mark.parametrize("source, names", [
    ("check_04_snapshot((w, snapshot))", {"w", "snapshot"}),
    ("pixels[0, 0] = 1.0\ncheck_01_share_numpy(image)", {"image"}),
    ("def f(t):\n    return t\nX = 1\ncheck_07_numerical_grad(numerical_grad(f, X))",
     {"numerical_grad"}),
    ("check_06_micro_batches(w.grad)", {"w"}),
])
def test_names_a_check_passes(source, names):
    checker = re.search(r"check_\d\d_\w+", source)[0]
    assert names_in_check_call(source, checker) == names
    assert names_in_check_call(source, "check_09_another") == frozenset()


# --- the log, with a pretend kernel --------------------------------------------------------

class PretendKernel:
    """Runs cells as IPython does, telling a CellLog before and after each one."""

    def __init__(self):
        self.namespace = {}
        self.log = CellLog(self.namespace)

    def run(self, source, cell_id=None):
        self.log.pre_run_cell(SimpleNamespace(raw_cell=source, cell_id=cell_id))
        error = None
        verdict = None
        answer_cells._LOG, saved = self.log, answer_cells._LOG
        try:
            checker = re.search(r"\b(check_\d\d_\w+)\s*\(", source)
            if checker:
                verdict = answer_cells.stale_answer(checker[1])
            exec(source, self.namespace)  # noqa: S102 - the pretend cell
        except Exception as exc:  # a cell that raises, as in a notebook
            error = exc
        finally:
            answer_cells._LOG = saved
        self.log.post_run_cell(SimpleNamespace(error_before_exec=None, error_in_exec=error))
        return verdict


def test_with_ids_the_answer_cell_is_found_by_its_id():
    kernel = PretendKernel()
    kernel.namespace["check_01_a"] = kernel.namespace["check_01_b"] = lambda answer: None
    assert kernel.run("check_01_a(answer)", "check_01_a") is not None  # NameError aside
    kernel.run("answer = 1", "answer_01_a")
    assert kernel.run("check_01_a(answer)", "check_01_a") is None
    # exercise b's answer cell never ran: exercise a's `answer` is not b's
    assert kernel.run("check_01_b(answer)", "check_01_b") == answer_cells.RUN_FIRST
    kernel.run("answer = 2\n1 / 0", "answer_01_b")
    assert "raised an error (ZeroDivisionError)" in kernel.run("check_01_b(answer)", "check_01_b")
    kernel.run("answer = 2", "answer_01_b")
    assert kernel.run("check_01_b(answer)", "check_01_b") is None
    kernel.run("answer = 3", "scratch")
    assert "answer was changed by another cell" in kernel.run("check_01_b(answer)", "check_01_b")
    kernel.run("print(answer)", "looking")  # reading a name is not changing it
    kernel.run("answer = 2", "answer_01_b")
    kernel.run("print(answer)", "looking")
    assert kernel.run("check_01_b(answer)", "check_01_b") is None


def test_without_ids_the_latest_cell_binding_the_names_is_the_answer():
    kernel = PretendKernel()
    kernel.namespace["check_01_a"] = kernel.namespace["check_01_b"] = lambda answer: None
    kernel.run("answer = 1")
    assert kernel.run("check_01_a(answer)") is None
    # b's check right after a's: `answer` was judged by another exercise's check since
    assert kernel.run("check_01_b(answer)") == answer_cells.RUN_FIRST
    assert kernel.run("check_01_a(answer)") is None, "the same check again is fine"
    kernel.run("answer = [1, 2][5]")
    kernel.run("unrelated = 1")
    assert "raised an error (IndexError)" in kernel.run("check_01_b(answer)")
    kernel.run("answer = 2")
    assert kernel.run("check_01_b(answer)") is None


def test_outside_a_kernel_every_answer_is_judged():
    assert answer_cells._LOG is None or answer_cells._LOG.running is None
    assert answer_cells.stale_answer("check_04_snapshot") is None


def test_a_check_cell_names_an_undefined_answer_kindly():
    shown = []
    previous_calls = []

    class Shell:
        custom_exceptions = (KeyError,)
        user_ns = {}

        def __init__(self):
            self.events = SimpleNamespace(register=lambda *a: None)

        def CustomTB(self, *args):  # noqa: N802 - IPython's name
            previous_calls.append(args[0])

        def set_custom_exc(self, types, handler):
            self.custom_exceptions, self.handler = types, handler

        def showtraceback(self, exc_tuple, **kwargs):
            shown.append(exc_tuple[0])

    shell = Shell()
    saved = answer_cells._LOG
    try:
        log = answer_cells.install(shell)
        assert set(shell.custom_exceptions) == {KeyError, NameError}
        import IPython.display
        displayed = []
        original, IPython.display.display = IPython.display.display, displayed.append
        try:
            log.pre_run_cell(SimpleNamespace(raw_cell="check_04_snapshot((w, snapshot))",
                                             cell_id=None))
            shell.handler(shell, NameError, NameError("name 'snapshot' is not defined",
                                                      name="snapshot"), None)
            assert len(displayed) == 1 and displayed[0].status == "not_checked"
            assert str(displayed[0]).startswith("⚠️ Not checked yet: snapshot is not defined yet")
            shell.handler(shell, KeyError, KeyError("k"), None)
            assert previous_calls == [KeyError], "the handler that was there before still runs"
            log.post_run_cell(SimpleNamespace(error_before_exec=None, error_in_exec=None))
            log.pre_run_cell(SimpleNamespace(raw_cell="print(undefined)", cell_id=None))
            shell.handler(shell, NameError, NameError("undefined"), None)
            assert shown == [NameError], "outside check cells a NameError is shown as usual"
        finally:
            IPython.display.display = original
    finally:
        answer_cells._LOG = saved


# --- every exercise of the course, in a real kernel ----------------------------------------

def run_in_kernel(cells, *, send_ids: bool, cwd: Path):
    """Run every code cell like a front end: JupyterLab sends each cell's id, nbclient does
    not. Returns the text each cell showed (outputs and error names)."""
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", cwd=str(cwd))
    shown = []
    try:
        for cell in cells:
            if cell.cell_type != "code":
                shown.append("")
                continue
            content = dict(code=cell.source, silent=False, store_history=True,
                           user_expressions={}, allow_stdin=False, stop_on_error=False)
            msg = kc.session.msg("execute_request", content,
                                 metadata={"cellId": cell.id} if send_ids else {})
            kc.shell_channel.send(msg)
            texts = []
            while True:
                reply = kc.get_iopub_msg(timeout=120)
                if reply["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
                    continue
                kind, body = reply["msg_type"], reply["content"]
                if kind in ("execute_result", "display_data"):
                    texts.append(body["data"].get("text/plain", ""))
                elif kind == "stream":
                    texts.append(body["text"])
                elif kind == "error":
                    texts.append(f"ERROR {body['ename']}")
                elif kind == "status" and body["execution_state"] == "idle":
                    break
            shown.append("\n".join(texts))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return shown


def with_raising_answers(path):
    """The solution notebook with every answer cell made to raise after its right answer
    (the worst case: a right value is there, but the cell the learner sees failed)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if "exercise" in cell.metadata.get("tags", []):
            cell.source += "\nraise RuntimeError('a mistake in the answer cell')"
    return nb


def check_cells(nb):
    return [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            and re.match(r"\s*check_\d\d_\w+\s*\(", cell.source.split("\n")[-1])]


@pytest.mark.slow
@pytest.mark.parametrize("send_ids", [True, False], ids=["JupyterLab", "nbclient"])
@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_an_answer_cell_that_raises_is_never_judged(path, send_ids):
    nb = with_raising_answers(path)
    shown = run_in_kernel(nb.cells, send_ids=send_ids, cwd=path.parent)
    checks = check_cells(nb)
    assert len(checks) >= 5
    for index in checks:
        assert shown[index].startswith("⚠️ Not checked yet: the answer cell above raised an "
                                       "error (RuntimeError): fix it"), (index, shown[index])


@pytest.mark.slow
def test_jupyterlab_run_order_mistakes_in_a_real_kernel():
    """Checks run out of order, after a failed answer, after another cell changed the answer,
    and after a restart (the answer not defined): never a verdict, always what to do."""
    nb = nbformat.read(ROOT / "solutions" / "04_copying.ipynb", as_version=4)
    by_id = {cell.id: cell for cell in nb.cells}
    steps = [
        by_id[nb.cells[1].id],                     # the imports
        by_id["answer_04_does_b_change"], by_id["check_04_does_b_change"],
        by_id["check_04_requires_grad_and_grad_fn"],  # its answer cell never ran
        by_id["answer_04_snapshot"], by_id["check_04_snapshot"],
        nbformat.v4.new_code_cell("snapshot = w"),  # a scratch cell changes the answer
        by_id["check_04_snapshot"],
        by_id["check_04_masked_copy"],             # `x` and `masked` are not defined yet
    ]
    shown = run_in_kernel(steps, send_ids=True, cwd=ROOT / "solutions")
    assert shown[2].startswith("✅ Correct")
    assert shown[3] == "⚠️ Not checked yet: " + answer_cells.RUN_FIRST
    assert shown[5].startswith("✅ Correct")
    assert shown[7].startswith("⚠️ Not checked yet: snapshot was changed by another cell")
    assert shown[8].startswith("⚠️ Not checked yet: x is not defined yet"), shown[8]
    assert "ERROR" not in shown[8], "a kind message, not a NameError traceback"
