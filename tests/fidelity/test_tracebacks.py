"""Errors read like PyTorch's in Jupyter: the learner's cell and the message, no engine frames.

engine/fidelity/tracebacks.py trims the tracebacks a real IPython kernel shows (driven here with
nbclient, on a small notebook made in memory): an error the engine raises on purpose shows
no engine frame, the learner's own frames always stay (their cell, their module, their
hook, their ``autograd.Function.backward``, their module's ``forward``), an engine bug keeps
every frame, and ``%xmode --show`` shows them all. Plain Python keeps full tracebacks.
"""
import json
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import nbformat
import pytest

import engine
from engine.fidelity import tracebacks as _tracebacks

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# One frame of IPython's Context mode: "Cell In[5], line 1" or "File /path.py:12, in f(...)".
FRAME = re.compile(r"(?m)^(?:Cell In\[\d+\], line \d+.*|File .*?:\d+, in .*)$")
ENGINE_FRAME = re.compile(r"(?m)^File .*?[/\\]engine[/\\].*$")

LEARNER_MODULE = '''\
def double_then_multiply(a, b):
    return (a * 2) @ b
'''

CELLS = {
    "setup": "import engine as torch",
    "op_error": "torch.ones(2, 3) @ torch.ones(2, 3)",
    "broadcast_error": "torch.ones(2, 3) + torch.ones(2)",
    "backward_twice": """\
        x = torch.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()""",
    "version_counter": """\
        x = torch.ones(3, requires_grad=True)
        s = x.sigmoid()
        s.mul_(2)
        s.sum().backward()""",
    "hook_raises": """\
        x = torch.ones(3, requires_grad=True)
        def my_hook(grad):
            raise ValueError("my hook failed")
        x.register_hook(my_hook)
        (x * 2).sum().backward()""",
    "function_backward_raises": """\
        class MySquare(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * x
            @staticmethod
            def backward(ctx, grad):
                raise ValueError("my backward failed")
        x = torch.ones(3, requires_grad=True)
        MySquare.apply(x).sum().backward()""",
    "lambda_hook_op_error": """\
        x = torch.ones(3, requires_grad=True)
        x.register_hook(lambda grad: grad @ torch.ones(5, 5))
        (x * 2).sum().backward()""",
    "module_forward_op_error": """\
        class MyNet(torch.nn.Module):
            def forward(self, x):
                return x @ torch.ones(4, 4)
        MyNet()(torch.ones(2, 3))""",
    "learner_module": """\
        from learner_module import double_then_multiply
        double_then_multiply(torch.ones(2, 3), torch.ones(2, 3))""",
    "chained": """\
        x = torch.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        try:
            y.backward()
        except RuntimeError as error:
            raise ValueError("my wrapper") from error""",
    "engine_bug": """\
        t = torch.ones(3)
        t._data = None  # corrupt the engine's state: its next operation fails inside it
        t.exp()""",
    "custom_handler": """\
        # another package's handler (set_custom_exc) that shows tracebacks as IPython does
        def handler(self, etype, value, tb, tb_offset=None):
            self.showtraceback((etype, value, tb), tb_offset=tb_offset)
        get_ipython().set_custom_exc((RuntimeError,), handler)
        torch.ones(2, 3) @ torch.ones(2, 3)""",
    "reloaded": """\
        get_ipython().set_custom_exc((), None)
        import importlib
        import engine.fidelity.tracebacks
        importlib.reload(engine.fidelity.tracebacks)  # wraps IPython's formatter once, not twice
        formatter = get_ipython().InteractiveTB
        assert (formatter.structured_traceback._engine_original.__func__
                is type(formatter).structured_traceback)
        torch.ones(2, 3) @ torch.ones(2, 3)""",
    "show": "%xmode --show",
    "op_error_shown": "torch.ones(2, 3) @ torch.ones(2, 3)",
    "hide": "%xmode --hide",
    "op_error_hidden_again": "torch.ones(2, 3) @ torch.ones(2, 3)",
}


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    """The traceback text (colours taken out) each cell of CELLS shows in a kernel."""
    from nbclient import NotebookClient

    folder = tmp_path_factory.mktemp("kernel")
    (folder / "learner_module.py").write_text(LEARNER_MODULE)
    nb = nbformat.v4.new_notebook()
    for source in CELLS.values():
        nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent(source),
                                                  metadata={"tags": ["raises-exception"]}))
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    texts = {}
    for name, cell in zip(CELLS, nb.cells):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        texts[name] = (ANSI.sub("", "\n".join(errors[0].traceback)), errors[0]) if errors \
            else ("", None)
    return texts


def frames(text):
    return FRAME.findall(text)


@pytest.mark.parametrize("name, message", [
    ("op_error", "RuntimeError: mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ("broadcast_error", "RuntimeError: The size of tensor a (3) must match the size of tensor b"),
    ("backward_twice", "RuntimeError: Trying to backward through the graph a second time"),
    ("version_counter", "RuntimeError: one of the variables needed for gradient computation "
                        "has been modified by an inplace operation"),
])
def test_engine_error_shows_the_cell_and_the_message_only(shown, name, message):
    text, error = shown[name]
    assert message in text
    assert error.ename == "RuntimeError"
    assert not ENGINE_FRAME.findall(text), text
    cell_frames = frames(text)
    assert len(cell_frames) == 1 and cell_frames[0].startswith("Cell In["), text
    assert len(text.splitlines()) <= 12, text  # torch: 6 lines, or 44 for a failed backward


@pytest.mark.parametrize("name, learner_frame, message", [
    ("hook_raises", "in my_hook(grad)", "ValueError: my hook failed"),
    ("function_backward_raises", "in MySquare.backward(ctx, grad)",
     "ValueError: my backward failed"),
    ("lambda_hook_op_error", "in <lambda>(grad)",
     "RuntimeError: mm: mat1 and mat2 shapes cannot be multiplied (1x3 and 5x5)"),
    ("module_forward_op_error", "in MyNet.forward(self, x)",
     "RuntimeError: mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)"),
])
def test_learner_code_called_by_the_engine_keeps_its_frame(shown, name, learner_frame, message):
    text, _ = shown[name]
    assert message in text, text
    assert not ENGINE_FRAME.findall(text), text
    found = frames(text)
    assert len(found) == 2 and found[0].startswith("Cell In[") and learner_frame in found[1], text


def test_learner_module_keeps_its_frame(shown):
    text, _ = shown["learner_module"]
    assert not ENGINE_FRAME.findall(text), text
    found = frames(text)
    assert len(found) == 2, text
    assert "learner_module.py:2, in double_then_multiply(a, b)" in found[1], text
    assert "mat1 and mat2 shapes cannot be multiplied" in text


def test_chained_exceptions_are_shown_and_trimmed(shown):
    text, error = shown["chained"]
    assert error.ename == "ValueError" and error.evalue == "my wrapper"
    assert "Trying to backward through the graph a second time" in text
    assert "The above exception was the direct cause of the following exception" in text
    assert not ENGINE_FRAME.findall(text), text
    assert len(frames(text)) == 2, text  # the cell, once for each exception


@pytest.mark.parametrize("name", ["custom_handler", "reloaded"])
def test_trimmed_through_a_custom_handler_and_after_a_reload(shown, name):
    text, error = shown[name]
    assert error.ename == "RuntimeError", text
    assert len(frames(text)) == 1 and not ENGINE_FRAME.findall(text), text


def test_an_engine_bug_keeps_every_frame(shown):
    text, error = shown["engine_bug"]
    assert error.ename == "AttributeError"
    assert ENGINE_FRAME.findall(text), text


def test_xmode_show_shows_engine_frames_and_hide_hides_them_again(shown):
    text, _ = shown["op_error_shown"]
    assert len(ENGINE_FRAME.findall(text)) >= 2, text
    assert not ENGINE_FRAME.findall(shown["op_error_hidden_again"][0])


def test_error_names_and_messages_are_torchs(shown):
    """The trimming changes which frames are shown, never what is reported."""
    for name in ("op_error", "backward_twice", "hook_raises"):
        text, error = shown[name]
        assert text.rstrip().endswith(f"{error.ename}: {error.evalue}")


# --- outside IPython: nothing changes --------------------------------------------------

SCRIPT = """\
import IPython  # importable, but not running: tracebacks must stay complete
import engine as torch
x = torch.ones(3, requires_grad=True)
y = (x * x).sum()
y.backward()
y.backward()
"""


def test_plain_python_keeps_engine_frames(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert run.returncode == 1
    assert "Trying to backward through the graph a second time" in run.stderr
    engine_frames = re.findall(r'File "[^"]*[/\\]engine[/\\][^"]*"', run.stderr)
    assert len(engine_frames) >= 3, run.stderr


def test_importing_the_engine_does_not_import_ipython(tmp_path):
    code = ("import json, sys, engine; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('IPython'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []


# --- trim(), frame by frame (no kernel) ----------------------------------------------------

ENGINE_DIR = Path(engine.__file__).parent


def engine_code(source):
    """Functions compiled as if they were in engine/ (their frames count as the engine's)."""
    namespace = {}
    exec(compile(textwrap.dedent(source), str(ENGINE_DIR / "_fake_for_tests.py"), "exec"),
         namespace)
    return types.SimpleNamespace(**namespace)


FAKE = engine_code("""\
    import json

    def deliberate(x):
        return _check(x)

    def _check(x):
        if x < 0:
            raise RuntimeError("torch's message")
        return x

    def invariant(x):
        assert x >= 0, "an engine invariant"
        return x

    def c_level(x):
        return [][x]

    def calls_back(fn, x):
        return fn(x)

    def through_library(hook):
        return json.loads('{"a": 1}', object_hook=hook)
""")


def traceback_of(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001
        return error.__traceback__
    raise AssertionError("did not raise")


def names(tb):
    found = []
    while tb is not None:
        found.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return found


def test_trim_drops_the_engine_frames_of_a_deliberate_error():
    tb = traceback_of(lambda: FAKE.deliberate(-1))
    assert names(tb)[-2:] == ["deliberate", "_check"]
    assert names(_tracebacks.trim(tb)) == ["traceback_of", "<lambda>"]
    assert names(tb)[-2:] == ["deliberate", "_check"]  # the original is left as it was


@pytest.mark.parametrize("call", [lambda: FAKE.invariant(-1), lambda: FAKE.c_level(3)],
                         ids=["assert", "IndexError from a list"])
def test_trim_keeps_every_frame_of_an_engine_bug(call):
    tb = traceback_of(call)
    assert _tracebacks.trim(tb) is tb


def test_trim_keeps_the_learners_callback():
    def learner_hook(x):
        raise ValueError("mine")

    tb = traceback_of(lambda: FAKE.calls_back(learner_hook, 1))
    assert names(_tracebacks.trim(tb)) == ["traceback_of", "<lambda>", "learner_hook"]


def test_trim_drops_library_frames_the_engine_called_but_not_the_learners():
    def learner_hook(obj):
        return FAKE.deliberate(-1)  # the engine's error, inside the learner's callback

    tb = traceback_of(lambda: FAKE.through_library(learner_hook))
    assert "decode" in names(tb)  # json's own frames, between the engine and the hook
    assert names(_tracebacks.trim(tb)) == ["traceback_of", "<lambda>", "learner_hook"]


def test_trim_of_a_traceback_without_engine_frames_is_the_traceback():
    tb = traceback_of(lambda: {}["missing"])
    assert _tracebacks.trim(tb) is tb
    assert _tracebacks.trim(None) is None
