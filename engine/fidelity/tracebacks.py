"""Error tracebacks that read like PyTorch's, in IPython and Jupyter only.

Fidelity machinery, not part of the engine's story: a reader can skip this module.

PyTorch raises most of its errors in C++, so a notebook shows the learner's cell and the
message; the engine raises the same errors from Python, which would put 4-9 frames of
engine code (40-60 lines) above that message. When ``engine`` is imported inside IPython
(a Jupyter kernel, the ``ipython`` terminal), this module wraps the ``structured_traceback``
method of that shell's traceback formatter (``get_ipython().InteractiveTB``), so that
before a traceback is formatted:

* the engine's frames are left out, with the frames of libraries that engine code called
  (numpy, the standard library);
* every other frame stays: the learner's cells, their own modules, and their functions
  that the engine calls back (tensor hooks, ``autograd.Function.forward``/``backward``,
  a module's ``forward``, a lambda), with whatever they call;
* the same holds for chained exceptions (``raise ... from``, ``__context__``), each judged
  on its own.

Only errors meant for the learner are trimmed: one raised by a ``raise`` statement of the
engine (torch's error, torch's message) or by the learner's own code. An error that
escapes from elsewhere inside the engine (numpy's ``IndexError`` from a bad index, an
``AttributeError`` of a typo, a failed ``assert``) is an engine bug: its traceback keeps
every frame, because whoever fixes it needs them.

Nothing changes outside IPython (plain Python, pytest, scripts): tracebacks stay complete.
Nothing is added to any operation: the work is done only when a traceback is shown, and
the exception and its ``__traceback__`` are left as they were (``%debug`` and ``%tb`` see
every frame).

To see the engine's frames in a notebook: ``%xmode --show`` (IPython's own switch for
hidden frames, which also shows frames marked ``__tracebackhide__``), then ``%tb`` to show
the last error again; ``%xmode --hide`` goes back.
"""
import os
import sys
import types

# the engine package: this file sits in engine/fidelity/
_ENGINE_DIR = os.path.normcase(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep

_ENGINE, _LIBRARY, _USER = "engine", "library", "user"


def _library_dirs():
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    dirs = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    try:
        dirs.update(site.getsitepackages())
        dirs.add(site.getusersitepackages())
    except AttributeError:  # an embedded interpreter's reduced site module
        pass
    return tuple(os.path.normcase(os.path.abspath(d)) + os.sep for d in dirs if d)


_LIBRARY_DIRS = None  # found when the first traceback is shown: importing costs nothing
_KINDS = {}  # filename -> kind (a cache: tracebacks repeat the same files)


def _kind(code):
    global _LIBRARY_DIRS
    filename = code.co_filename
    kind = _KINDS.get(filename)
    if kind is None:
        if _LIBRARY_DIRS is None:
            _LIBRARY_DIRS = _library_dirs()
        if filename.startswith("<frozen "):
            kind = _LIBRARY
        elif filename.startswith("<"):  # a cell of the terminal IPython, code exec'd by the learner
            kind = _USER
        else:
            path = os.path.normcase(os.path.abspath(filename))
            kind = (_ENGINE if path.startswith(_ENGINE_DIR)
                    else _LIBRARY if path.startswith(_LIBRARY_DIRS) else _USER)
        _KINDS[filename] = kind
    return kind


def _raised_by_raise_statement(entry):
    """Whether the traceback entry's frame raised with a ``raise`` statement (not an
    ``assert``, not an error from a call into numpy or Python's C code)."""
    import dis

    code, lasti = entry.tb_frame.f_code, entry.tb_lasti
    if not 0 <= lasti < len(code.co_code) or code.co_code[lasti] != dis.opmap["RAISE_VARARGS"]:
        return False
    # ``assert`` compiles to LOAD_ASSERTION_ERROR ... RAISE_VARARGS in one basic block
    instructions = [i for i in dis.get_instructions(code) if i.offset <= lasti]
    for instruction in reversed(instructions[:-1]):
        if instruction.opname == "LOAD_ASSERTION_ERROR":
            return False
        if instruction.is_jump_target or instruction.opname.startswith(
                ("RAISE", "RERAISE", "RETURN", "JUMP", "POP_JUMP")):
            break
    return True


def trim(tb):
    """The traceback ``tb`` without the engine's frames, as a new chain of traceback objects
    (``tb`` is not changed); ``tb`` itself when nothing is to be left out: no engine frame,
    or an error that escaped from inside the engine (a bug: every frame is kept)."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    hidden, inside, any_hidden = [], False, False
    for entry in entries:
        kind = _kind(entry.tb_frame.f_code)
        if kind is _ENGINE:
            inside = True
        elif kind is _USER:
            inside = False
        # a library frame is hidden when engine code called it, shown when the learner did
        hidden.append(inside)
        any_hidden = any_hidden or inside
    if not any_hidden:
        return entries[0] if entries else None
    last = entries[-1]
    if hidden[-1] and not (_kind(last.tb_frame.f_code) is _ENGINE
                           and _raised_by_raise_statement(last)):
        return entries[0]  # not an error the engine meant to raise: keep everything
    trimmed = None
    for entry, hide in zip(reversed(entries), reversed(hidden)):
        if not hide:
            trimmed = types.TracebackType(trimmed, entry.tb_frame, entry.tb_lasti,
                                          entry.tb_lineno)
    return trimmed


def _chained(exception):
    """The exceptions shown above ``exception``: its cause or context, theirs, and so on."""
    seen = {id(exception)}
    while True:
        cause = exception.__cause__
        exception = cause if cause is not None else (
            None if exception.__suppress_context__ else exception.__context__)
        if exception is None or id(exception) in seen:
            return
        seen.add(id(exception))
        yield exception


def _wrap(formatter):
    """Wrap ``formatter.structured_traceback`` (an IPython ``AutoFormattedTB``) once."""
    current = formatter.structured_traceback
    original = getattr(current, "_engine_original", current)  # a re-import wraps only once

    def structured_traceback(etype=None, evalue=None, etb=None, *args, **kwargs):
        if etype is None:
            etype, evalue, etb = sys.exc_info()
        if (not getattr(formatter, "skip_hidden", True)  # %xmode --show: every frame
                or not isinstance(evalue, BaseException)
                or not (etb is None or isinstance(etb, types.TracebackType))):
            return original(etype, evalue, etb, *args, **kwargs)
        swapped = []
        try:
            short = trim(etb)
            for exception in _chained(evalue):
                full = exception.__traceback__
                shorter = trim(full)
                if shorter is not full:
                    swapped.append((exception, full))
                    exception.__traceback__ = shorter
        except Exception:  # never let this module stand between an error and the learner
            short = etb
        try:
            return original(etype, evalue, short, *args, **kwargs)
        finally:
            for exception, full in swapped:
                exception.__traceback__ = full
            if getattr(formatter, "tb", None) is short is not etb:
                formatter.tb = etb  # what %debug starts from, as if nothing had been trimmed

    structured_traceback._engine_original = original
    formatter.structured_traceback = structured_traceback


def install(shell=None):
    """Trim the tracebacks of this IPython shell (the running one by default); return whether
    there is one. Plain Python has none: nothing happens there."""
    if shell is None:
        ipython = sys.modules.get("IPython")  # not imported: not running inside IPython
        shell = ipython.get_ipython() if ipython is not None else None
    formatter = getattr(shell, "InteractiveTB", None)
    if formatter is None or not hasattr(formatter, "structured_traceback"):
        return False
    _wrap(formatter)
    return True


install()
