"""lgamma, digamma, trigamma and polygamma computed the way torch's CPU kernels compute them.

lgamma is the C library's (``math.lgamma``, as torch calls ``std::lgamma``). digamma
and trigamma are torch's own (aten/src/ATen/native/Math.h): digamma after Cephes,
recurring up to x >= 10 and then an asymptotic series; trigamma recurring six steps
and then a series, with the reflection formula below 0.5. float32 inputs are computed
in float32 like torch's float kernels; results may still differ in the last bit where
the compiler fused operations. polygamma(n, x) for n >= 2 is n! (-1) ** (n + 1) times
Hurwitz's zeta(n + 1, x), summed as torch's Cephes-derived kernel sums it.
"""
import functools
import math

import numpy as np

from .float32_math import libc_powf  # (glibc's powf: numpy's may be SIMD code of its own)

_PSI_10 = 2.25175258906672110764  # digamma(10)
_DIGAMMA_SERIES = (8.33333333333333333333E-2, -2.10927960927960927961E-2,
                   7.57575757575757575758E-3, -4.16666666666666666667E-3,
                   3.96825396825396825397E-3, -8.33333333333333333333E-3,
                   8.33333333333333333333E-2)


def _computing_dtype(x):
    return np.float64 if x.dtype == np.float64 else np.float32  # float16 goes through float


def lgamma(x):
    """ln |Gamma(x)| elementwise (float arrays), from the C library."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        values = np.frompyfunc(_lgamma_or_inf, 1, 1)(x.astype(np.float64))
    return np.asarray(values, dtype=np.float64).astype(x.dtype)


def _lgamma_or_inf(v):
    try:
        return math.lgamma(v)
    except ValueError:  # a pole (0, -1, -2 ...): C's lgamma returns +inf
        return math.inf


def digamma(x):
    """d/dx ln Gamma(x): +-inf at 0, nan at negative integers, reflection below 0."""
    x = np.asarray(x)
    f = _computing_dtype(x)
    v = x.astype(f)
    with np.errstate(all="ignore"):
        negative = v < 0
        fraction = np.modf(v)[0]
        reflected = (np.pi / np.tan(np.pi * fraction.astype(np.float64))).astype(f)
        result = _digamma_positive(np.where(negative, f(1) - v, v), f)
        result = np.where(negative, result - reflected, result)
        result = np.where(negative & (v == np.trunc(v)), np.nan, result)
        result = np.where(v == 0, np.copysign(np.inf, -v), result)
    return result.astype(x.dtype)


def _digamma_positive(v, f):
    result = np.zeros_like(v)
    for _ in range(10):  # push x up to 10 or more: psi(x) = psi(x + 1) - 1 / x
        small = v < 10
        result = np.where(small, result - f(1) / v, result)
        v = np.where(small, v + f(1), v)
    z = f(1) / (v * v)
    series = np.zeros_like(v)
    for coefficient in _DIGAMMA_SERIES:
        series = series * z + f(coefficient)
    y = np.where(v < f(1.0e17), z * series, f(0))
    asymptotic = result + _c_library(np.log, v) - (f(0.5) / v) - y
    return np.where(v == 10, result + f(_PSI_10), asymptotic)


def _c_library(ufunc, v):
    """The C library's logf/sinf for float32 (torch's scalar kernels call them): the float64
    value rounded once agrees nearly always, where numpy's float32 functions are SIMD code of
    their own (digamma: 224 of 5000 float32 values an ulp away, 4 now; trigamma: 188, 17)."""
    if v.dtype == np.float32:
        return ufunc(v.astype(np.float64)).astype(np.float32)
    return ufunc(v)


def trigamma(x):
    """d/dx digamma(x) (torch's polygamma(1, x))."""
    x = np.asarray(x)
    f = _computing_dtype(x)
    v = x.astype(f)
    with np.errstate(all="ignore"):
        reflect = v < f(0.5)
        sin_pi_x = _c_library(np.sin, f(math.pi) * v)
        result = np.where(reflect, -(f(math.pi) * f(math.pi)) / (sin_pi_x * sin_pi_x), f(0))
        v = np.where(reflect, f(1) - v, v)
        for _ in range(6):
            result = result + f(1) / (v * v)
            v = v + f(1)
        ixx = f(1) / (v * v)
        tail = ixx * (f(1 / 6) - ixx * (f(1 / 30) - ixx * f(1 / 42)))
        result = result + (f(1) + f(1) / (f(2) * v) + tail) / v
    return np.where(reflect, -result, result).astype(x.dtype)


# ====================================================================== polygamma
# Cephes' zeta(s, q) = sum over k >= 0 of (q + k) ** -s (aten/src/ATen/native/Math.h): the terms
# added up one by one until q + k > 9 (and at least 9 of them), then the Euler-Maclaurin tail
# with these Bernoulli-number denominators, each sum stopping once its last term is below
# the float64 epsilon (MACHEP) of the sum. torch adds in float64 for float32 inputs too (its
# accumulate type), except the first term, (q ** -s in float: powf); float16 adds in float32.
_ZETA_DENOMINATORS = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                      7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                      -4.5979787224074726105e15, 1.8152105401943546773e17,
                      -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042E-16


def polygamma(n, x):
    """The n-th derivative of digamma (n >= 0) of a float array, as torch's kernels compute it:
    digamma and trigamma for n = 0 and 1, else (-1) ** (n + 1) n! zeta(n + 1, x)."""
    x = np.asarray(x)
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    def powf(base, exponent):
        return libc_powf(base, np.full(base.shape, exponent, np.float32))

    f32 = np.float32
    s = float(n + 1)
    with np.errstate(all="ignore"):
        if x.dtype == np.float64:
            zeta = _zeta(s, x, np.power, np.power)
            return (1.0 if n % 2 else -1.0) * _factorial(n, False) * zeta
        if x.dtype == np.float32:  # float64 sums, but the first term in float
            zeta = _zeta(s, x.astype(np.float64),
                         lambda q, e: powf(q.astype(f32), e).astype(np.float64), np.power)
            return f32(1 if n % 2 else -1) * _factorial(n, True) * zeta.astype(f32)
        # float16: float32 sums, rounded to float16; the product in float32, rounded again
        zeta = _zeta(s, x.astype(f32), powf, powf).astype(x.dtype)
        return (f32(1 if n % 2 else -1) * _factorial(n, True) * zeta.astype(f32)).astype(x.dtype)


def _zeta(s, q, first_power, power):
    """zeta(s, q) elementwise for an integer s > 1, in q's dtype (float64 or float32)."""
    acc = q.dtype.type
    s, one, machep = acc(s), acc(1), acc(_MACHEP)
    shape, q = q.shape, q.reshape(-1)
    result = np.full(q.shape, np.inf, acc)  # at 0 and the negative integers (and -inf)
    todo = np.flatnonzero(~((q <= 0) & (q == np.floor(q))))
    tails, i = [], 0
    far = q[todo] < -64  # (thousands of terms: added up a block at a time)
    for index in todo[far]:
        _far_terms(s, q[index:index + 1], first_power, power, machep, result, index, tails)
    todo = todo[~far]
    total, a, b = first_power(q[todo], -s), q[todo], np.zeros(todo.size, acc)
    while todo.size:
        if i >= 9:  # (torch's loop: while i < 9 or a <= 9)
            leaving = ~(a <= 9)
            tails.append((todo[leaving], a[leaving], b[leaving], total[leaving]))
            todo, a, b, total = todo[~leaving], a[~leaving], b[~leaving], total[~leaving]
        i += 1
        a = a + one
        b = power(a, -s)
        total = total + b
        done = (-machep * total < b) & (b < machep * total)
        result[todo[done]] = total[done]
        todo, a, b, total = todo[~done], a[~done], b[~done], total[~done]
    empty = (np.zeros(0, np.intp), *(np.zeros(0, acc),) * 3)
    todo, w, b, total = (np.concatenate(parts) for parts in zip(*tails)) if tails else empty
    total = total + b * w / (s - one)
    total = total - acc(0.5) * b
    a, k, done = one, acc(0), np.zeros(todo.size, bool)
    for denominator in _ZETA_DENOMINATORS:
        a = a * (s + k)
        b = b / w
        t = a * b / acc(denominator)
        total = np.where(done, total, total + t)
        done = done | (np.abs(t / total) < machep)
        k = k + one
        a = a * (s + k)
        b = b / w
        k = k + one
    result[todo] = total
    return result.reshape(shape)


def _far_terms(s, q, first_power, power, machep, result, index, tails):
    """zeta's first sum for one q < -64, in blocks of terms: the same additions in the same
    order (cumsum adds one by one; q + k is exact there, as the repeated a + 1)."""
    acc = q.dtype.type
    total, start = first_power(q, -s)[0], 1
    while True:
        count = max(9 - start + 1, int(9 - q[0]) - start + 2, 1)  # (past a > 9, and i >= 9)
        count = min(count, 1 << 16)
        a = q[0] + np.arange(start, start + count, dtype=acc)
        b = power(a, -s)
        totals = np.cumsum(np.concatenate(([total], b)))[1:]
        done = np.flatnonzero((-machep * totals < b) & (b < machep * totals))
        stop = np.flatnonzero((np.arange(start, start + count) >= 9) & ~(a <= 9))
        if done.size and (not stop.size or done[0] <= stop[0]):
            result[index] = totals[done[0]]
            return
        if stop.size:  # the last term added is stop[0]'s: the loop ends there
            k = stop[0]
            tails.append((np.array([index]), a[k:k + 1], b[k:k + 1], totals[k:k + 1]))
            return
        total, start = totals[-1], start + count


@functools.cache
def _factorial(n, single):
    """n! as torch's polygamma computes it: exp(lgamma(n + 1)) from the C library, in float
    (lgammaf, expf) for float32 and float16 inputs: a few ulp from n! (720.00006 for n = 6)."""
    try:
        import ctypes
        import ctypes.util
        libm = ctypes.CDLL(ctypes.util.find_library("m") or None)
        kind = ctypes.c_float if single else ctypes.c_double
        lgamma, exp = (libm.lgammaf, libm.expf) if single else (libm.lgamma, libm.exp)
        for function in (lgamma, exp):
            function.restype, function.argtypes = kind, (kind,)
        value = exp(lgamma(n + 1.0))
    except (OSError, AttributeError):  # (no C library to ask)
        value = float(math.factorial(n)) if n <= 170 else math.inf
    return np.float32(value) if single else value


# ====================================================================== erf, erfc, erfinv
# torch hands float32 and float64 erf, erfc and erfinv to Intel MKL's vector math (vmsErf ...,
# "high accuracy", element by element whatever the layout), whose algorithms are not public.
# The engine answers the correctly rounded float32 value (from float64) and the C library's
# float64 one: measured in bench/erf_parity.py. float16 runs ATen's own vectorised code.
def _float64_elementwise(function, x):
    with np.errstate(all="ignore"):
        return np.asarray(np.frompyfunc(function, 1, 1)(np.asarray(x, np.float64)), np.float64)


def erf(x):
    """erf elementwise in float64 (the C library's, as Python's math.erf)."""
    return _float64_elementwise(math.erf, x)


def erfc(x):
    """1 - erf(x) elementwise in float64, accurate where erf is near 1 (math.erfc)."""
    return _float64_elementwise(math.erfc, x)


# Giles' single-precision approximation ("Approximating the erfinv function", 2010) as the
# start of Newton's method: two float64 steps reach the float64 answer.
_ERFINV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                   0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_TWO_OVER_ROOT_PI = 2.0 / math.sqrt(math.pi)


def erfinv(y):
    """The x with erf(x) = y, elementwise in float64 (inf at +-1, nan outside [-1, 1])."""
    y = np.asarray(y, np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        central = w < 5.0
        s = np.where(central, w - 2.5, np.sqrt(w) - 3.0)
        p = np.where(central, _ERFINV_CENTRAL[0], _ERFINV_TAIL[0])
        for c_central, c_tail in zip(_ERFINV_CENTRAL[1:], _ERFINV_TAIL[1:]):
            p = np.where(central, c_central, c_tail) + p * s
        x = p * y
        # near +-1 erf(x) - y loses every digit: Newton on erfc(|x|) - (1 - |y|) there
        # (1 - |y| is exact for |y| >= 0.5)
        far = np.abs(y) >= 0.5
        for _ in range(3):
            slope = _TWO_OVER_ROOT_PI * np.exp(-x * x)
            residual = np.where(far, np.sign(y) * ((1.0 - np.abs(y)) - erfc(np.abs(x))),
                                erf(x) - y)
            step = np.where(slope > 0, residual / slope, 0.0)
            x = np.where(np.isfinite(step), x - step, x)
        x = np.where(np.abs(y) == 1.0, np.copysign(np.inf, y), x)
        x = np.where((np.abs(y) > 1.0) | np.isnan(y), np.nan, x)
        return np.where(y == 0, y, x)  # (-0.0 keeps its sign)
