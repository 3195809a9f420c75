"""``y += alpha * x`` in float32, rounded once per element, fast: an optimizer's update.

torch's ``p.add_(g, alpha=-lr)`` computes ``p + alpha * g`` with a fused multiply-add,
rounding once. ``rounding.fma32`` is the readable way to the same bits (exact product in
float64, one rounding, the rare ties fixed), but it makes about ten passes over the
weights. numpy's bundled OpenBLAS has a ``saxpy`` (``y += alpha * x``) whose kernels on
CPUs with FMA instructions (Haswell and later, Zen, ARM's NEON) are fused multiply-adds:
one pass, torch's bits.

Only the vector kernels are trusted: saxpy gets the longest prefix that is a multiple of
64 elements, ``fma32`` the rest (OpenBLAS finishes a row in plain C, which the compiler
may or may not fuse). Before its first use, ``axpy_into`` checks on this CPU that saxpy
gives ``fma32``'s bits on numbers where rounding once and rounding twice differ (subnormals
included); if it does not, or numpy's BLAS is not an OpenBLAS that ctypes can reach
(MKL, Apple's Accelerate), everything goes through ``fma32``. Either way the bits are the same.
"""
import ctypes
import functools
import glob
import os

import numpy as np

from .rounding import fma32_flat

_VECTOR = 64  # elements per step of the BLAS kernels, generously: the rest goes through fma32
_SAXPY_NAMES = (("scipy_cblas_saxpy64_", ctypes.c_int64),  # numpy's wheels (ILP64, prefixed)
                ("cblas_saxpy64_", ctypes.c_int64), ("cblas_saxpy", ctypes.c_int))


def axpy_into(alpha, x, y):
    """``y[...] = alpha * x + y`` rounded once: ``x`` and ``y`` float32 1-d C-contiguous
    arrays of one length that do not share memory, ``alpha`` a nonzero finite float."""
    saxpy = _fused_saxpy()
    fast = y.size - y.size % _VECTOR if saxpy is not None else 0
    if fast:
        saxpy(fast, alpha, x.ctypes.data, 1, y.ctypes.data, 1)
    if fast < y.size:
        y[fast:] = fma32_flat(x[fast:], np.float32(alpha), y[fast:])


def path():
    """Which way ``axpy_into`` goes on this machine, in words (for bench/run.py)."""
    saxpy = _fused_saxpy()
    if saxpy is None:
        return "fma32 (numpy's BLAS does not give fused saxpy here)"
    return f"BLAS {saxpy.__name__} + fma32 for the last < {_VECTOR} elements"


@functools.cache
def _fused_saxpy():
    """numpy's BLAS saxpy if it rounds ``alpha * x + y`` once on this CPU, else None."""
    saxpy = _load_saxpy()
    if saxpy is None:
        return None
    rng = np.random.default_rng(0)
    n = 16 * _VECTOR
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    x[::5], y[::5] = np.float32(3e-39), np.float32(-2e-39)  # subnormals (no flush to zero)
    alpha = np.float32(-0.1)
    expected = fma32_flat(x, alpha, y)
    rounded_twice = y + alpha * x
    got = y.copy()
    saxpy(n, float(alpha), x.ctypes.data, 1, got.ctypes.data, 1)
    # the check must tell the two roundings apart, and saxpy must round once
    telling = not np.array_equal(rounded_twice.view(np.int32), expected.view(np.int32))
    return saxpy if telling and np.array_equal(got.view(np.int32), expected.view(np.int32)) \
        else None


def _load_saxpy():
    """cblas_saxpy from the OpenBLAS numpy ships with (numpy.libs or numpy/.dylibs), or None."""
    folder = os.path.dirname(np.__file__)
    for library in sorted(glob.glob(os.path.join(folder + ".libs", "*openblas*")) +
                          glob.glob(os.path.join(folder, ".dylibs", "*openblas*"))):
        try:
            blas = ctypes.CDLL(library)  # already loaded by numpy: the same copy
        except OSError:
            continue
        for name, integer in _SAXPY_NAMES:
            saxpy = getattr(blas, name, None)
            if saxpy is not None:
                saxpy.argtypes = (integer, ctypes.c_float, ctypes.c_void_p, integer,
                                  ctypes.c_void_p, integer)
                saxpy.restype = None
                return saxpy
    return None
