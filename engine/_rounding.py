"""Exact floating-point helpers that let ``arange`` and ``linspace`` match torch bit for bit.

torch's CPU kernels are compiled with fused multiply-adds: ``a * b + c`` is rounded
once, not twice. numpy has no fused multiply-add, so ``fma64`` and ``fma32`` rebuild
it from error-free transformations (Dekker's product, Knuth's sum, and rounding to
odd, after Boldo & Melquiond 2008). arange, linspace, add with alpha and the random
number kernels all use them.
"""
import math

import numpy as np


def _two_sum(a, b):
    """s + err == a + b exactly, with s = fl(a + b)."""
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def _two_prod(a, b):
    """p + err == a * b exactly (Veltkamp/Dekker splitting into 26-bit halves)."""
    p = a * b
    t = a * 134217729.0  # 2**27 + 1
    a_hi = t - (t - a)
    t = b * 134217729.0
    b_hi = t - (t - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _add_round_to_odd(a, b):
    """a + b rounded to odd: an inexact sum keeps an odd last bit, so a later rounding is exact."""
    s, err = _two_sum(a, b)
    s = np.asarray(s, dtype=np.float64)
    even = (s.view(np.int64) & 1) == 0
    return np.where((err != 0) & even, np.nextafter(s, np.copysign(np.inf, err)), s)


def fma64(a, b, c):
    """float64 a*b + c with a single rounding."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    p, p_err = _two_prod(a, b)
    s, s_err = _two_sum(c, p)
    return s + _add_round_to_odd(s_err, p_err)


def fma32(a, b, c):
    """float32 a*b + c with a single rounding (the float64 product is exact)."""
    p = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32)
    c = np.asarray(c, np.float32).astype(np.float64)
    return _add_round_to_odd(p, c).astype(np.float32)


def _significant_bits(x):
    """How many bits the mantissa of the float ``x`` really uses (1.0 uses 1, 0.1 uses 53)."""
    mantissa = int(abs(math.frexp(x)[0]) * 2**53)
    return (mantissa & -mantissa).bit_length() and \
        mantissa.bit_length() - (mantissa & -mantissa).bit_length() + 1


def fma(a, b, c):
    """a * b + c in float64 with a single rounding, taking the quick path when a * b is exact.

    ``a`` is a number; ``b`` and ``c`` may be arrays.
    """
    a = float(a)
    b = np.asarray(b, np.float64)
    # Shortcut: when a * b is exact in float64 (1.0 * i, 0.5 * i ...), the plain formula
    # rounds only once, in the addition, which is what a fused multiply-add does.
    if b.size and math.isfinite(a) and np.isfinite(b).all():
        largest = float(np.abs(b).max())
        if largest < 2**53 and float(largest).is_integer() and \
                _significant_bits(a) + int(largest).bit_length() <= 53:
            with np.errstate(over="ignore", invalid="ignore"):
                return np.asarray(a * b + np.asarray(c, np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        result = fma64(a, b, c)
        # inf/nan inputs, and exact zeros (whose sign the error terms would lose): the
        # plain formula already gives the fused answer there
        plain = a * b + np.asarray(c, np.float64)
    return np.where(np.isfinite(result) & (result != 0), result, plain)
