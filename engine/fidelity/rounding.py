"""Exact floating-point helpers that let ``arange`` and ``linspace`` match torch bit for bit.

torch's CPU kernels are compiled with fused multiply-adds: ``a * b + c`` is rounded
once, not twice. numpy has no fused multiply-add, so ``fma64`` and ``fma32`` rebuild
it from error-free transformations (Dekker's product, Knuth's sum, and rounding to
odd, after Boldo & Melquiond 2008). arange, linspace, add with alpha and the random
number kernels all use them.
"""
import math

import numpy as np

from .reduce_all import reduce_all
from .floating import quietly


def two_sum(a, b):
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
    s, err = two_sum(a, b)
    s = np.asarray(s, dtype=np.float64)
    even = (s.view(np.int64) & 1) == 0
    return np.where((err != 0) & even, np.nextafter(s, np.copysign(np.inf, err)), s)


def fma64(a, b, c):
    """float64 a*b + c with a single rounding."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):
        result = _fma64_finite(a, b, c)
        if not np.isfinite(result).all():
            # Dekker's split of a product near the top of the range overflows (inf - inf):
            # there the same sum is computed 2**64 times smaller and scaled back (exact), and
            # with an infinite or nan operand the plain a * b + c is the fused result
            half = 2.0**32
            scaled = _fma64_finite(a / half, b / half, c / (half * half)) * (half * half)
            plain = a * b + c
            result = np.where(np.isfinite(result), result,
                              np.where(np.isfinite(plain) | (np.isfinite(a) & np.isfinite(b) &
                                                             np.isfinite(c)), scaled, plain))
        # a zero takes the sign IEEE gives a*b + c (the error terms above add a +0.0):
        # fma(-1, 0, -0.0) is -0.0
        result = np.where(result == 0, np.copysign(result, a * b + c), result)
    return result


def _fma64_finite(a, b, c):
    p, p_err = _two_prod(a, b)
    s, s_err = two_sum(c, p)
    return s + _add_round_to_odd(s_err, p_err)


_BLOCK = 2**15  # elements per pass of fma32: its float64 scratch (256 KiB) stays in the cache


def fma32(a, b, c):
    """float32 a*b + c with a single rounding.

    In float64 the product of two float32 numbers is exact and the sum is rounded once;
    rounding that sum to float32 then gives the fused result, unless the float64 sum landed
    exactly halfway between two float32 numbers (the tie may break the wrong way) or among
    float32's subnormals (whose halfway points lie elsewhere). Only those rare elements
    need the slower exact sum, rounded to odd.

    An optimizer step calls this on every weight, so big arrays go through in blocks: the
    float64 scratch of a block stays in the cache, and the same memory serves every block
    (a whole-array float64 scratch is handed back to the system and paged in again).
    """
    a, b, c = (np.asarray(v, np.float32) for v in (a, b, c))
    if a.shape == b.shape == c.shape and 0 < a.size <= _BLOCK:  # (a gradient's: no broadcasting)
        return fma32_flat(a.reshape(-1), b.reshape(-1), c.reshape(-1)).reshape(a.shape)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    result = np.empty(shape, np.float32)
    # one flat vector per argument; a single number (SGD's learning rate) stays a number,
    # unless all three are: numpy computes on 0-d arrays into numbers, not arrays
    flat = [v if v.ndim == 0 and shape else np.ravel(np.broadcast_to(v, shape))
            for v in (a, b, c)]
    flat_result = result.reshape(-1)
    for start in range(0, flat_result.size, _BLOCK):
        block = slice(start, start + _BLOCK)
        flat_result[block] = fma32_flat(*(v if v.ndim == 0 else v[block] for v in flat))
    return result


def fma32_flat(a, b, c):
    """fma32 of float32 vectors of the same length (or single numbers), without fma32's
    broadcasting and blocks: for callers that already hold flat, cache-sized vectors.
    Silent, as torch: inf * 0, inf - inf and sums beyond float32's range warn in numpy."""
    return quietly(_fma32_flat, a, b, c)


def _fma32_flat(a, b, c):
    # (numpy multiplies and adds float64 arrays faster than mixed float32/float64 ones)
    total = a.astype(np.float64) * b.astype(np.float64)  # exact product
    total += c.astype(np.float64)  # rounded sum
    result = total.astype(np.float32)  # and rounded once more
    unsure = (total.view(np.int64) & (2**29 - 1)) == 2**28  # the 29 bits float32 drops: 10...0
    if result.size and np.abs(result).min() <= 2.0**-126:  # (a cheap look for subnormals)
        unsure |= (np.abs(total) < 2.0**-126) & (total != 0)
    if unsure.any():
        a, b, c = np.broadcast_arrays(a, b, c)
        product = np.multiply(a[unsure], b[unsure], dtype=np.float64)
        result[unsure] = _add_round_to_odd(product, c[unsure].astype(np.float64))
    return result


class DeferredFma32:
    """fma32 for a loop of many calls on a few numbers each (the Welford replay of
    fidelity/moments.py), where fma32's checks would cost more than its sums: each call rounds
    the float64 sum of the exact product to float32 (four numpy calls) and keeps that sum;
    ``all_fused()`` then checks them all at once. Rounding twice is the fused result unless a
    float64 sum landed exactly halfway between two float32 numbers without being exact, or
    among float32's subnormals; if ``all_fused()`` says False the caller runs its loop again
    with ``fma32_flat``. Call it with numpy's warnings off."""

    def __init__(self):
        self.calls = []

    def __call__(self, a, b, c):
        if a.size > 4096:  # big enough for its checks to cost little next to its sums
            return fma32_flat(a, b, c)
        total = a.astype(np.float64)
        total *= b  # exact: float32 times float32
        total += c  # rounded once
        self.calls.append((total, a, b, c))
        return total.astype(np.float32)

    def _may_tie_wrongly(self, b):
        """False for a ``b`` that is one power of two: a * b is then a float32 number (up to
        its exponent) and a float64 sum of two such rounds to float32 as the fused one does."""
        return np.ndim(b) or b == 0 or abs(math.frexp(b)[0]) != 0.5

    def all_fused(self):
        if not self.calls:
            return True
        every = np.concatenate([total.ravel() for total, *_ in self.calls])
        if np.count_nonzero(np.abs(every) < 2.0**-126) > every.size - np.count_nonzero(every):
            return False  # a subnormal float32 result: its halfway points lie elsewhere
        calls = [call for call in self.calls if self._may_tie_wrongly(call[2])]
        if not calls:
            return True
        every = np.concatenate([total.ravel() for total, *_ in calls])
        halfway = (every.view(np.int64) & (2**29 - 1)) == 2**28
        if not np.count_nonzero(halfway):
            return True
        start = 0
        for total, a, b, c in calls:  # (the few calls with a sum exactly halfway)
            here = halfway[start:start + total.size].reshape(total.shape)
            start += total.size
            if total.size and np.count_nonzero(here):
                a, b, c = (np.broadcast_to(v, total.shape)[here].astype(np.float64)
                           for v in (a, b, c))
                if np.count_nonzero(two_sum(a * b, c)[1]):
                    return False  # not exact: the fused sum may round the other way
        return True


def fma32_power_of_two(a, b, c):
    """fma32(a, b, c) for a ``b`` (broadcast against ``a`` and ``c``) that holds only powers of
    two and zeros, as the row sums of a mean loss's gradient do (-1/64 for a batch of 64).

    Then a * b is exact in float32, unless it leaves float32's normal range, and a * b + c in
    float32 rounds once, as the fused sum does: two numpy calls instead of fma32's dozen. Any
    other ``b``, or a product that may be subnormal or overflow, takes fma32. All float32."""
    with np.errstate(all="ignore"):
        nonzero = np.abs(b[b != 0])
        if not nonzero.size:  # (a * 0 is exact too: a signed zero, or nan for inf and nan)
            return a * b + c
        if np.all(np.frexp(nonzero)[0] == 0.5):
            smallest = np.float64(np.min(np.abs(a))) * np.min(nonzero)
            largest = np.float64(np.max(np.abs(a))) * np.max(nonzero)
            if smallest >= 2.0**-126 and largest <= np.finfo(np.float32).max:
                return a * b + c
    return fma32(a, b, c)


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


def reduce_all_sum(rows, lanes):
    """Each row's sum (the last axis), added in the order of torch's ``vec::reduce_all``
    (see reduce_all.reduce_all), as softmax's kernels add along their last dim."""
    return reduce_all(rows, np.add, lanes)
