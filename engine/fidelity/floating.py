"""torch computes inf and nan silently; numpy warns ("overflow encountered in multiply").

``quietly(function, *args)`` runs numpy with its floating-point warnings off, for that call
only (never globally: a learner's own numpy code keeps them). It is ``np.errstate(all=
"ignore")``; numpy 2 keeps that state in a context variable, and setting it directly costs a
fraction of np.errstate's microsecond, which counts on every ``x + y``.

A numpy ufunc (``np.add``, ``np.matmul`` ...) called on arrays runs no Python code, so it
can run inside a context of its own where numpy is already silent (``Context.run``: no
variable set and reset, a third of the cost again). Such a context can be entered by one
thread at a time, not twice: each thread has its own, and a call already inside one (the
state is already the silent one) calls the function directly.
"""
import contextvars
import threading

import numpy as np

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _state
except ImportError:  # numpy 1.x: np.errstate itself
    _state = None
else:
    with np.errstate(all="ignore"):
        _SILENT = _state.get()

_ufunc = np.ufunc
_contexts = threading.local()  # .run: this thread's silent context's run method


def _silent_run():
    context = contextvars.Context()  # empty: numpy's ufuncs read only their error state
    context.run(_state.set, _SILENT)
    _contexts.run = context.run
    return context.run


def quietly(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with numpy's floating-point warnings off."""
    if _state is None:
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
    if function.__class__ is _ufunc:
        if _state.get() is _SILENT:  # already inside
            return function(*args, **kwargs)
        try:
            run = _contexts.run
        except AttributeError:
            run = _silent_run()
        return run(function, *args, **kwargs)
    token = _state.set(_SILENT)
    try:
        return function(*args, **kwargs)
    finally:
        _state.reset(token)


def silent_runner():
    """``run``, such that ``run(ufunc, *args)`` is ``quietly(ufunc, *args)``: this thread's
    silent context's ``run`` (or quietly itself when that context cannot be entered)."""
    if _state is None or _state.get() is _SILENT:  # numpy 1.x; already inside
        return quietly
    try:
        return _contexts.run
    except AttributeError:
        return _silent_run()


def cast(values, np_dtype):
    """``values`` (a numpy array) in ``np_dtype`` as torch converts: a double becomes a half
    through a float (c10::Half is made from a float), so a float64 just past a float16
    midpoint that rounds to the midpoint as a float32 then rounds to even, one float16 ulp
    from numpy's direct rounding. Silent, as torch's casts: what does not fit becomes inf (a
    float) or wraps (an integer), nan becomes whatever the C cast gives."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.float16 and values.dtype == np.float64:
        return quietly(_through_float, values)
    if _widening(values.dtype, np_dtype):
        return values.astype(np_dtype)  # (exact: nothing to round, nothing to warn about)
    return quietly(values.astype, np_dtype)


def _widening(source, target):
    """Whether every value of ``source`` is exactly a value of ``target``."""
    if source == target or source.kind == "b":
        return True
    if target.kind != "f":
        return False
    return target.itemsize >= (4 if source.kind in "iu" else source.itemsize)


def _through_float(values):
    return values.astype(np.float32).astype(np.float16)


def copy_cast(destination, values, where=True):
    """np.copyto(destination, values, casting="unsafe"), silently (what does not fit becomes
    inf, as in torch), a double written into a half through a float as torch writes it
    (``cast``)."""
    source = np.asarray(values).dtype
    if _widening(source, destination.dtype):
        np.copyto(destination, values, casting="unsafe", where=where)
        return
    if destination.dtype == np.float16 and source == np.float64:
        values = quietly(np.asarray(values).astype, np.float32)
    quietly(np.copyto, destination, values, casting="unsafe", where=where)
