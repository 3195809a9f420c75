"""Exact floating-point helpers that let ``arange`` and ``linspace`` match torch bit for bit.

torch's CPU kernels compute ``start + step * i`` with a fused multiply-add (one
rounding instead of two). numpy has no fused multiply-add, so ``fma`` below
rebuilds it from error-free transformations (Dekker's product, Knuth's sum).
"""
import numpy as np

_SPLITTER = 134217729.0  # 2**27 + 1: splits a double into two 26-bit halves


def _split(a):
    t = _SPLITTER * a
    high = t - (t - a)
    return high, a - high


def fma(a, b, c):
    """a * b + c in float64 with a single rounding (exact except in double-rounding ties)."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with np.errstate(over="ignore", invalid="ignore"):
        product = a * b
        a_hi, a_lo = _split(a)
        b_hi, b_lo = _split(b)
        product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
        total = product + c
        back = total - product
        sum_error = (product - (total - back)) + (c - back)
        result = total + (sum_error + product_error)
    # inf/nan inputs: the plain formula already gives torch's answer
    return np.where(np.isfinite(result), result, a * b + c)
