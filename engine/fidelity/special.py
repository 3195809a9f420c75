"""lgamma, digamma and trigamma computed the way torch's CPU kernels compute them.

lgamma is the C library's (``math.lgamma``, as torch calls ``std::lgamma``). digamma
and trigamma are torch's own (aten/src/ATen/native/Math.h): digamma after Cephes,
recurring up to x >= 10 and then an asymptotic series; trigamma recurring six steps
and then a series, with the reflection formula below 0.5. float32 inputs are computed
in float32 like torch's float kernels; results may still differ in the last bit where
the compiler fused operations.
"""
import math

import numpy as np

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
    asymptotic = result + np.log(v) - (f(0.5) / v) - y
    return np.where(v == 10, result + f(_PSI_10), asymptotic)


def trigamma(x):
    """d/dx digamma(x) (torch's polygamma(1, x))."""
    x = np.asarray(x)
    f = _computing_dtype(x)
    v = x.astype(f)
    with np.errstate(all="ignore"):
        reflect = v < f(0.5)
        sin_pi_x = np.sin(f(math.pi) * v)
        result = np.where(reflect, -(f(math.pi) * f(math.pi)) / (sin_pi_x * sin_pi_x), f(0))
        v = np.where(reflect, f(1) - v, v)
        for _ in range(6):
            result = result + f(1) / (v * v)
            v = v + f(1)
        ixx = f(1) / (v * v)
        tail = ixx * (f(1 / 6) - ixx * (f(1 / 30) - ixx * f(1 / 42)))
        result = result + (f(1) + f(1) / (f(2) * v) + tail) / v
    return np.where(reflect, -result, result).astype(x.dtype)


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
