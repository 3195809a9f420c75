"""torch computes inf and nan silently; numpy warns ("overflow encountered in multiply").

``quietly(function, *args)`` runs numpy with its floating-point warnings off, for that call
only (never globally: a learner's own numpy code keeps them). It is ``np.errstate(all=
"ignore")``; numpy 2 keeps that state in a context variable, and setting it directly costs a
fraction of np.errstate's microsecond, which counts on every ``x + y``.
"""
import numpy as np

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _state
except ImportError:  # numpy 1.x: np.errstate itself
    _state = None
else:
    with np.errstate(all="ignore"):
        _SILENT = _state.get()


def quietly(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with numpy's floating-point warnings off."""
    if _state is None:
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
    token = _state.set(_SILENT)
    try:
        return function(*args, **kwargs)
    finally:
        _state.reset(token)
