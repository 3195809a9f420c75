"""The committed notebooks' outputs are the same on every machine and read like PyTorch's.

* No output of a committed notebook (notebooks/, solutions/, exercises/) carries an absolute
  path of the machine it ran on: not in stream text, error names, messages and tracebacks,
  ``text/plain``, ``text/html`` or any other text. ``make execute`` (course_tools/execute.py)
  replaces them with placeholders (``<cell>``, ``<course>``, ``<site-packages>``, ...).
* No traceback of an error shown on purpose has a frame of the engine: in Jupyter, the
  engine's errors show the learner's cell and torch's message, as torch's do
  (engine/fidelity/tracebacks.py).

These fail on notebooks executed before those two changes: run ``make execute`` (and
``make exercises``) again.
"""
import html
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("notebooks", "solutions", "exercises")
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
BINARY = ("image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf")

_NOT_IN_A_WORD = r"(?<![\w.~/\\:+=-])"
_REST = r"[^\s\"'<>()]*"
# Absolute paths of a machine, and the pieces of one that only a machine path has.
MACHINE_PATH = re.compile(
    # POSIX: the usual top-level folders (not "1/2", not a URL's path: "example.org/usr/x")
    _NOT_IN_A_WORD + r"/(?:home|root|work|tmp|Users|usr|opt|var|private|mnt|srv|Volumes|"
    r"Library|nix|snap|etc|data|scratch|builds?|runner|workspace|github)/" + _REST
    # Windows: C:\Users\... (also with doubled backslashes, as in a repr) or C:/Users/...
    + r"|(?<![\w])[A-Za-z]:(?:\\{1,2}|/)[\w .$~()-]+(?:\\{1,2}|/)" + _REST
    # wherever they are: installed packages, a kernel's cell files, file: URLs
    + r"|" + _REST + r"[/\\](?:site|dist)-packages\b" + _REST
    + r"|" + _REST + r"ipykernel_\d+" + _REST
    + r"|file:///" + _REST)
# A frame of the engine in a traceback: IPython's "File .../engine/ops/arithmetic.py:450, in add"
# (also after `make execute` made it "<course>/engine/...") or Python's 'File "...", line'.
ENGINE_FRAME = re.compile(r'(?m)^\s*File\s+"?[^\n"]*?\bengine[/\\][\w/\\]*\.py')


def committed_notebooks():
    # both editions (the Chinese notebooks run from notebooks/zh-CN/, ...: the same rules)
    return sorted(path for folder in FOLDERS for where in (folder, f"{folder}/zh-CN")
                  for path in (ROOT / where).glob("*.ipynb"))


def machine_paths(text):
    """The machine paths in ``text`` (colour codes and HTML escapes taken out first)."""
    return [m.group(0) for m in MACHINE_PATH.finditer(html.unescape(ANSI.sub("", text)))]


def output_texts(output):
    """(field, text) for every text an output holds."""
    kind = output.get("output_type")
    if kind == "stream":
        yield f"stream {output.get('name')}", _joined(output.get("text", ""))
    elif kind == "error":
        yield "ename", output.get("ename", "")
        yield "evalue", output.get("evalue", "")
        for line in output.get("traceback", []):
            yield "traceback", line
    for mime, value in output.get("data", {}).items():
        if mime not in BINARY:
            yield mime, value if isinstance(value, str) else (
                _joined(value) if isinstance(value, list) else repr(value))


def _joined(value):
    return value if isinstance(value, str) else "".join(value)


def path_findings(nb):
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for field, text in output_texts(output):
                found += [(index, field, path) for path in machine_paths(text)]
    return found


def engine_frame_findings(nb):
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                text = ANSI.sub("", "\n".join(output.get("traceback", [])))
                found += [(index, m.group(0).strip()) for m in ENGINE_FRAME.finditer(text)]
    return found


def _name(path):
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", committed_notebooks(), ids=_name)
def test_no_machine_paths_in_outputs(path):
    found = path_findings(nbformat.read(path, as_version=4))
    assert not found, (
        f"{_name(path)} has outputs with this machine's paths (run `make execute` on it):\n"
        + "\n".join(f"  cell {index} ({field}): {found_path}"
                    for index, field, found_path in found[:20]))


@pytest.mark.parametrize("path", committed_notebooks(), ids=_name)
def test_tracebacks_have_no_engine_frames(path):
    found = engine_frame_findings(nbformat.read(path, as_version=4))
    assert not found, (
        f"{_name(path)} shows engine frames in error tracebacks (run `make execute` on it; "
        f"if they stay, the error escaped from the engine: see engine/fidelity/tracebacks.py):\n"
        + "\n".join(f"  cell {index}: {frame}" for index, frame in found[:20]))


def test_there_are_notebooks_to_check():
    assert len(committed_notebooks()) >= 20


# --- the detectors themselves ---------------------------------------------------------

@pytest.mark.parametrize("text", [
    "/tmp/ipykernel_12345/678.py:3: UserWarning: careful",
    "File \x1b[32m/work/main/engine/_ops.py:450\x1b[39m, in add",
    "File /home/alice/course/engine/_ops.py:12",
    "/Users/bob/miniconda3/lib/python3.12/contextlib.py",
    "/usr/lib/python3.11/contextlib.py:155",
    "/opt/conda/lib/python3.11/site-packages/numpy/_core/fromnumeric.py",
    "/private/var/folders/xy/T/ipykernel_77/1.py:2",
    "C:\\Users\\carol\\course\\engine\\_ops.py",
    "'C:\\\\Users\\\\carol\\\\x.py'",
    "see D:/Users/dave/x.py",
    "in /srv/venv/lib/python3.10/dist-packages/torch/_tensor.py",
    "&lt;img src=&quot;file:///home/eve/pic.png&quot;&gt;",
    "src='/root/x.png'",
])
def test_machine_paths_are_found(text):
    assert machine_paths(text), text


@pytest.mark.parametrize("text", [
    "1/2 + 3/4",
    "tensor([0.5000, 1/3])",
    "https://pytorch.org/docs/stable/tmp/x.html and http://example.com/home/",
    "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>",
    "<cell>: UserWarning: careful",
    "File <course>/exercises/checks/toolkit.py:12, in run",
    "<site-packages>/numpy/_core/fromnumeric.py",
    "'a:\\n'",
    "x.grad is None; see exercises/06_gradient_accumulation.ipynb",
    "workspace/tmp/x",
    "{'sum': 1, 'mean': 2}",
])
def test_ordinary_text_is_not_a_machine_path(text):
    assert not machine_paths(text), machine_paths(text)


def test_engine_frames_are_found():
    assert engine_frame_findings(_notebook_with_error(
        "File \x1b[32m/work/main/engine/_ops.py:450\x1b[39m, in \x1b[36madd\x1b[39m"))
    assert engine_frame_findings(_notebook_with_error("File <course>/engine/_autograd.py:9, in f"))
    assert engine_frame_findings(_notebook_with_error('  File "/x/engine/nn/loss.py", line 3'))
    assert not engine_frame_findings(_notebook_with_error("Cell In[5], line 1"))
    assert not engine_frame_findings(_notebook_with_error("----> 1 engine_dir = 'engine/x.py'"))


def _notebook_with_error(line):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("error", ename="RuntimeError", evalue="boom",
                                           traceback=["-" * 10, line, "RuntimeError: boom"])]
    nb.cells.append(cell)
    return nb


# --- the executor's placeholders and the nbval sanitizer ----------------------------------

def _sanitize(text):
    """What strict nbval does to an output with tests/nbval_sanitize.cfg."""
    pairs = re.findall(r"^regex: (.*)$\n^replace: (.*)$", SANITIZE.read_text(), flags=re.M)
    assert pairs
    for regex, replace in pairs:
        text = re.sub(regex, replace, text)
    return text


FRESH = [  # outputs as a fresh run prints them on some machine
    "/tmp/ipykernel_4242/3354788693.py:3: UserWarning: careful\n  x.grad\n",
    "/private/var/folders/q1/T/ipykernel_7/12.py:1: UserWarning: careful\n",
    "C:\\Users\\A\\AppData\\Local\\Temp\\ipykernel_9\\4.py:2: UserWarning: careful\n",
]


@pytest.mark.parametrize("fresh", FRESH)
def test_saved_placeholders_match_a_fresh_run_under_nbval(fresh):
    from course_tools.execute import scrub_text

    saved = scrub_text(fresh)
    assert not machine_paths(saved), saved
    assert saved.startswith("<cell>: UserWarning: careful")
    assert _sanitize(saved) == _sanitize(fresh) == saved
    assert _sanitize(fresh.replace("careful", "other")) != _sanitize(saved)  # the rest counts


def test_executor_and_sanitizer_agree_on_cell_files():
    from course_tools.execute import CELL_LINE, CELL_PLACEHOLDER

    sanitize = SANITIZE.read_text()
    assert f"regex: {CELL_LINE.pattern}\nreplace: {CELL_PLACEHOLDER}\n" in sanitize


def test_scrub_rewrites_this_machines_folders():
    import sysconfig
    import tempfile

    from course_tools.execute import scrub_text

    stdlib = sysconfig.get_paths()["stdlib"]
    texts = {
        f"File \x1b[32m{ROOT}/exercises/checks/toolkit.py:12\x1b[39m, in run":
            "File \x1b[32m<course>/exercises/checks/toolkit.py:12\x1b[39m, in run",
        f"File {stdlib}/contextlib.py:155": "File <stdlib>/contextlib.py:155",
        "/srv/py/lib/python3.10/site-packages/numpy/x.py": "<site-packages>/numpy/x.py",
        f"{tempfile.gettempdir()}/ipykernel_1/2.py:3: UserWarning": "<cell>: UserWarning",
        f"File {tempfile.gettempdir()}/ipykernel_1/2.py, line 3": "File <cell>, line 3",
        "1/2 and https://example.org/home/x": "1/2 and https://example.org/home/x",
    }
    for text, expected in texts.items():
        assert scrub_text(text) == expected
    assert scrub_text(f"<pre>{ROOT}/x.py</pre>", markup=True) == "<pre>&lt;course&gt;/x.py</pre>"


@pytest.mark.slow
def test_executor_saves_outputs_that_strict_nbval_accepts(tmp_path):
    """A small notebook with a warning, an engine error shown on purpose and a print of a
    temporary path: executed by course_tools/execute.py, it has no machine path and no engine
    frame, and strict nbval (with the sanitizer) matches a fresh run against it."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import engine as torch\nimport warnings"),
        nbformat.v4.new_code_cell("x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad"),
        nbformat.v4.new_code_cell("warnings.warn('careful')"),
        nbformat.v4.new_code_cell("torch.ones(2, 3) @ torch.ones(2, 3)",
                                  metadata={"tags": ["raises-exception"]}),
    ]
    path = tmp_path / "small.ipynb"
    nbformat.write(nb, path)
    run = subprocess.run([sys.executable, "-m", "course_tools.execute", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    saved = nbformat.read(path, as_version=4)
    assert not path_findings(saved) and not engine_frame_findings(saved)
    stderr = "".join(o.get("text", "") for c in saved.cells for o in c.get("outputs", [])
                     if o.get("name") == "stderr")
    assert "<cell>: UserWarning: The .grad attribute" in stderr
    assert "<cell>: UserWarning: careful" in stderr
    nbval = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env", "--nbval-sanitize-with", str(SANITIZE), str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert nbval.returncode == 0, nbval.stdout[-3000:]
