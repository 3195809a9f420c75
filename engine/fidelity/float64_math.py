"""torch's float64 exp and log inside its softmax kernels, reproduced with numpy.

Fidelity machinery, not part of the engine's story: a reader can skip this module.

``log_softmax``'s gradient ``g - exp(out) * sum(g)`` is 0 where the terms cancel, or a residue
of 1e-17 where they do not quite: the residue shows in a second derivative, and it follows
the exp of each element to its last bit. torch's softmax kernels compute that exp with SLEEF's
vector ``expd`` (the 1-ulp "u10" version, compiled with fused multiply-adds); the elements a
loop across a non-last dimension leaves after its last whole vector take the C library's
``exp``. numpy's float64 exp is the C library's on some CPUs and its own AVX-512 code on
others; SLEEF's agrees with either on about 94% of inputs. This module replays SLEEF's
algorithm step by step (Cody and Waite's reduction by ln 2, a degree-10 polynomial in
Estrin's scheme, each step one exact fused multiply-add) and asks the C library itself for
the rest, so that every element is torch's, bit for bit, on any x86-64 CPU. The same goes
for the log of log_softmax's sums (SLEEF's ``logd``, in double-double arithmetic).
"""
import math

import numpy as np

from .rounding import fma64, two_sum

# Each fused step is some forty numpy operations: SLEEF's exp costs 0.5 us an element (numpy's
# 2 ns), so tensors of more elements than this take numpy's exp and log, an ulp from torch's
# for one element in sixteen (notebooks/DIFFERENCES.md)
REPLAYED = 65536

# SLEEF's constants: 1 / ln 2, and ln 2 split in two (its upper part has few bits, so that
# q * upper is exact), then the polynomial's coefficients, the highest degree first
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U = .69314718055966295651160180568695068359375
_L2L = .28235290563031577122588448175013436025525412068e-12
_COEFFICIENTS = (+0.2081276378237164457e-8, +0.2511210703042288022e-7,
                 +0.2755762628169491192e-6, +0.2755723402025388239e-5,
                 +0.2480158687479686264e-4, +0.1984126989855865850e-3,
                 +0.1388888888914497797e-2, +0.8333333333314938210e-2,
                 +0.4166666666666602598e-1, +0.1666666666666669072e+0)
_OVERFLOW = 709.78271114955742909217217426  # above: inf
_UNDERFLOW = -1000.0  # below: 0


def sleef_exp(d):
    """SLEEF's expd u10 of a float64 array: e^d = 2^q e^s, |s| <= ln2 / 2."""
    d = np.asarray(d, np.float64)
    with np.errstate(all="ignore"):
        q = np.rint(d * _R_LN2)
        s = fma64(q, -_L2U, d)
        s = fma64(q, -_L2L, s)
        s2 = s * s
        s4 = s2 * s2
        c9, c8, c7, c6, c5, c4, c3, c2, c1, c0 = _COEFFICIENTS
        high = fma64(s2, fma64(s, c7, c6), fma64(s, c5, c4))
        low = fma64(s2, fma64(s, c3, c2), fma64(s, c1, c0))
        u = fma64(s4 * s4, fma64(s, c9, c8), fma64(s4, high, low))
        for coefficient in (0.5, 1.0, 1.0):
            u = fma64(u, s, coefficient)
        # 2^q in two factors, as SLEEF's ldexp2k (one could overflow where the product does
        # not); q is clipped only where the result is decided below anyway
        k = np.clip(np.where(np.isfinite(q), q, 0), -1100, 1100).astype(np.int64)
        half = k >> 1
        result = u * np.exp2(half.astype(np.float64)) * np.exp2((k - half).astype(np.float64))
        result = np.where(d > _OVERFLOW, np.inf, np.where(d < _UNDERFLOW, 0.0, result))
    return np.where(np.isnan(d), d, result)


def libc_exp(x):
    """The C library's exp, element by element (numpy's may be its own AVX-512 code)."""
    x = np.asarray(x, np.float64)
    flat = x.reshape(-1)
    result = np.empty(flat.shape, np.float64)
    for index, value in enumerate(flat.tolist()):
        try:
            result[index] = math.exp(value)
        except OverflowError:
            result[index] = math.inf
    return result.reshape(x.shape)


# ln 2 as a double-double, and the polynomial of sleef_log, the highest degree first
_LN2 = (0.693147180559945286226764, 2.319046813846299558417771e-17)
_LOG_COEFFICIENTS = (0.1532076988502701353e+0, 0.1525629051003428716e+0,
                     0.1818605932937785996e+0, 0.2222214519839380009e+0,
                     0.2857142932794299317e+0, 0.3999999999635251990e+0,
                     0.6666666666667333541e+0)


def _dd_div(n, d):  # double-double n / d, SLEEF's fused steps
    t = 1.0 / d[0]
    s = n[0] * t
    u = fma64(t, n[0], -s)
    v = fma64(-d[1], t, fma64(-d[0], t, 1.0))
    return s, fma64(s, v, fma64(n[1], t, u))


def sleef_log(d):
    """SLEEF's log_u10 of a float64 array (torch's Vectorized<double>::log): d = m 2^e with m
    in [0.75, 1.5), ln m = 2 atanh(x) with x = (m - 1) / (m + 1), in double-double."""
    d = np.asarray(d, np.float64)
    with np.errstate(all="ignore"):
        tiny = d < 2.2250738585072014e-308
        scaled = np.where(tiny, d * 2.0**64, d)
        e = (((scaled * (1.0 / 0.75)).view(np.int64) >> 52) & 0x7FF) - 0x3FF
        m = (scaled.view(np.int64) - (e << 52)).view(np.float64)
        e = np.where(tiny, e - 64, e).astype(np.float64)
        x = _dd_div(two_sum(-1.0, m), two_sum(1.0, m))
        x2 = x[0] * x[0]
        x4 = x2 * x2
        c6, c5, c4, c3, c2, c1, c0 = _LOG_COEFFICIENTS
        t = fma64(x4 * x4, fma64(x4, c6, fma64(x2, c5, c4)),
                  fma64(x4, fma64(x2, c3, c2), fma64(x2, c1, c0)))
        high = _LN2[0] * e  # ln 2 times e, a double-double
        s = (high, fma64(_LN2[1], e, fma64(_LN2[0], e, -high)))
        total = s[0] + x[0] * 2.0
        s = (total, (((s[0] - total) + x[0] * 2.0) + s[1]) + x[1] * 2.0)
        tail = (x2 * x[0]) * t
        total = s[0] + tail
        result = total + (((s[0] - total) + tail) + s[1])
        result = np.where(np.isposinf(d), np.inf, result)
        result = np.where((d < 0) | np.isnan(d), np.nan, result)
    return np.where(d == 0, -np.inf, result)
