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
    """float32 a*b + c with a single rounding.

    In float64 the product of two float32 numbers is exact and the sum is rounded once;
    rounding that sum to float32 then gives the fused result, unless the float64 sum landed
    exactly halfway between two float32 numbers (the tie may break the wrong way) or among
    float32's subnormals (whose halfway points lie elsewhere). Only those rare elements
    need the slower exact sum, rounded to odd.

    An optimizer step calls this on every weight, so it keeps few big temporary arrays
    alive at once (the product is made again for the rare elements): then the memory of
    one step is reused by the next instead of going back to the operating system.
    """
    a, b, c = (np.asarray(v, np.float32) for v in (a, b, c))
    total = np.asarray(np.multiply(a, b, dtype=np.float64) + c)  # exact product, rounded sum
    result = total.astype(np.float32)  # and rounded once more
    halfway = (total.view(np.int64) & (2**29 - 1)) == 2**28  # the 29 bits float32 drops: 10...0
    unsure = halfway | ((np.abs(total) < 2.0**-126) & (total != 0))
    if unsure.any():
        product, c = np.broadcast_arrays(np.multiply(a, b, dtype=np.float64), c)
        result[unsure] = _add_round_to_odd(product[unsure], c[unsure].astype(np.float64))
    return result


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
