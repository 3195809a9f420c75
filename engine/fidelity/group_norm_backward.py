"""group_norm's gradients as torch's CPU kernel computes them for a row-major input.

ATen's ``GroupNormBackwardKernelImpl`` (group_norm_kernel.cpp, AVX2 build), x of shape
(N, C, HxW) in groups of D = C / G channels, with the mean and rstd the forward saved:

1. per sample and channel, ``ds = sum of dy * x`` and ``db = sum of dy`` over the positions
   (``vec::map2_reduce_all`` and ``vec::reduce_all``: 8 float32 / 4 float64 lanes, then the
   lanes; a float16 row is read 16 values at a time into one float32 accumulator of 8
   lanes, the lanes added left to right from 0, the last values one by one);
2. per sample and group, ``ds_val = sum of ds * gamma`` and ``db_val = sum of db * gamma``
   over its channels (vectors of 8 float32 / 4 float64 / 16 float16 channels, lanes added
   left to right from 0, the last channels one by one), then
   ``c2 = (db_val * mean - ds_val) * rstd**3 / (D * HxW)`` and
   ``c3 = -c2 * mean - db_val * rstd / (D * HxW)``;
3. ``dx = c1 * dy + c2 * x + c3`` with ``c1 = rstd * gamma``;
4. ``dgamma = sum over samples of (ds - db * mean) * rstd``, ``dbeta = sum of db``.

float16 computes in float32 (its ``ds`` and ``db`` are float32) and rounds each result to
float16 once; its mean and rstd are the float16 values the forward saved, unless the weight
is float32 (torch's mixed types: statistics, ``dgamma`` and ``dbeta`` in float32).

Which multiply-adds the compiled kernel fuses was measured against torch 2.15: given
torch's mean and rstd, every dx, dgamma and dbeta of 150 random shapes per dtype (float16
with float32 parameters too) is torch's bit for bit, and each alternative below gets some
wrong (but where float16's last rounding hides it). In step 1 none is fused in float32,
only the last partial vector's in float64 (float16's products are exact in float32). In
step 2 the vectors' ``acc + ds * gamma`` are; of the channels after the last whole vector,
GCC adds the products of groups of 4 float32 (2 float64) in order without fusing (its
in-order vectorised reduction) and fuses the others (all of them with float16 parameters).
``db_val * mean - ds_val`` and ``-(db_val * rstd) * s + (-c2 * mean)`` are fused; dx is
``fma(c1, dy, c2 * x) + c3`` (float16: ``fma(c2, x, c1 * dy) + c3``); dgamma's ``acc +
(ds - db * mean) * rstd`` is two fused multiply-adds.
"""
import numpy as np

from .floating import quietly
from .reduce_all import reduce_all
from .rounding import fma32, fma64


def group_norm_backward(dy, x, mean, rstd, gamma, groups, needed=(True, True, True)):
    """``(dx, dgamma, dbeta)`` of torch's kernel, ``None`` where ``needed`` says no.

    ``dy`` and ``x``: row-major arrays (N, C, ...) of one dtype; ``mean`` and ``rstd``:
    (N, groups) as saved (their dtype is the parameters'); ``gamma``: (C,) or None."""
    return quietly(_backward, dy, x, mean, rstd, gamma, groups, needed)


def _backward(dy, x, mean, rstd, gamma, groups, needed):
    samples, channels = x.shape[:2]
    half = x.dtype == np.float16
    opmath = np.dtype(np.float32 if half else x.dtype)
    param = mean.dtype  # (torch's PT: float16's own, or float32 with float32 parameters)
    fma = fma64 if opmath == np.float64 else fma32
    rows = samples * channels
    dy_rows, x_rows = (np.ascontiguousarray(a).reshape(rows, -1) for a in (dy, x))
    if half:
        ds, db = _half_internal_gradients(dy_rows.astype(opmath), x_rows.astype(opmath))
    else:
        ds = _products_summed(dy_rows, x_rows, fma, fused_tail=opmath == np.float64)
        db = reduce_all(dy_rows, np.add, _lanes(opmath))
    ds, db = ds.reshape(samples, channels), db.reshape(samples, channels)
    dx = None
    if needed[0]:
        m, r = (s.astype(opmath).reshape(samples, groups, 1) for s in (mean, rstd))
        g = None if gamma is None else gamma.astype(opmath).reshape(1, groups, -1)
        dx = _input_gradient(dy, x, ds.reshape(samples, groups, -1),
                             db.reshape(samples, groups, -1), m, r, g, param, fma)
    return (dx,) + parameter_gradients(ds, db, mean, rstd, param, fma,
                                       (needed[1] and gamma is not None, needed[2]))


def parameter_gradients(ds, db, mean, rstd, param, fma, needed):
    """Step 4, GammaBackward and BetaBackward: ``(dgamma, dbeta)`` from each sample's
    per-channel sums ``ds`` and ``db`` (N, C) and the statistics (N, G) as saved, ``None``
    where ``needed`` (a pair) says no; torch's channels-last kernel ends the same way."""
    samples, channels = ds.shape
    groups = mean.shape[-1]
    dgamma = dbeta = None
    if needed[0]:  # acc = fma(fma(-db, mean, ds), rstd, acc)
        ds3, db3 = ds.reshape(samples, groups, -1), db.reshape(samples, groups, -1)
        m, r = (s.astype(ds.dtype).reshape(samples, groups, 1) for s in (mean, rstd))
        terms = fma(-db3, np.broadcast_to(m, db3.shape), ds3)
        acc = np.zeros(ds3.shape[1:], ds.dtype)
        for n in range(samples):
            acc = fma(terms[n], np.broadcast_to(r[n], acc.shape), acc)
        dgamma = acc.reshape(channels).astype(param)
    if needed[1]:
        dbeta = np.add.accumulate(db, axis=0)[-1].astype(param)
    return dgamma, dbeta


def _lanes(dtype):
    return 32 // np.dtype(dtype).itemsize  # an AVX2 vector


def _products_summed(a, b, fma, fused_tail):
    """``vec::map2_reduce_all`` of ``a * b`` along each row: the products of whole vectors
    added lane by lane, the last partial vector's into the first lanes (fused or not), then
    the lanes as ``reduce_all`` folds them; a row shorter than a vector left to right."""
    lanes = _lanes(a.dtype)
    length = a.shape[1]
    whole = length - length % lanes
    if length < lanes or not fused_tail:
        return reduce_all(a * b, np.add, lanes)
    acc = _lane_sums(a[:, :whole] * b[:, :whole], lanes)
    rest = length - whole
    if rest:
        acc[:, :rest] = fma(a[:, whole:], b[:, whole:], acc[:, :rest])
    return reduce_all(acc, np.add, lanes)


def _lane_sums(terms, lanes, acc=None):
    """Each lane's sum over the vectors of each row, vector after vector (onto ``acc``, or
    from the first vector)."""
    if acc is None:
        acc, terms = terms[:, :lanes].copy(), terms[:, lanes:]
    for start in range(0, terms.shape[1], lanes):
        acc += terms[:, start:start + lanes]
    return acc


def _in_order(start, terms):
    """``start`` plus the columns of ``terms`` one after the other (std::accumulate)."""
    for column in range(terms.shape[1]):
        start = start + terms[:, column]
    return start


def _half_internal_gradients(dy, x):
    """Step 1 for float16, in float32: 16 values a step into 8 lanes (two vectors added one
    after the other), the lanes from 0 left to right, the last values one by one."""
    length = dy.shape[1]
    whole = length - length % 16
    zero = np.zeros(dy.shape[0], np.float32)
    sums = []
    for terms in (dy * x, dy):  # (float16 products are exact in float32)
        lanes = _lane_sums(terms[:, :whole], 8, np.zeros((len(zero), 8), np.float32))
        sums.append(_in_order(_in_order(zero, lanes), terms[:, whole:]))
    return sums


def _input_gradient(dy, x, ds, db, m, r, g, param, fma):
    samples, groups, per_group = ds.shape
    opmath = ds.dtype.type
    positions = x[0, 0].size
    ds_val, db_val = _group_sums(ds, db, g, param, fma)
    s = opmath(1) / opmath(per_group * positions)
    c2 = fma(db_val, m, -ds_val) * r * r * r * s
    c3 = fma(-(db_val * r), np.full_like(r, s), -c2 * m)
    c1 = r if g is None else r * g
    shape = (samples, groups, per_group, positions)
    dy_, x_ = (np.ascontiguousarray(a).reshape(shape).astype(opmath, copy=False)
               for a in (dy, x))
    c1, c2, c3 = (np.broadcast_to(c[..., None], shape) for c in (c1, c2, c3))
    if x.dtype == np.float16:
        out = _in_blocks(fma, c2, x_, c1 * dy_)
    else:
        out = _in_blocks(fma, c1, dy_, c2 * x_)
    out += c3.reshape(-1)
    return out.astype(x.dtype, copy=False).reshape(x.shape)


def _in_blocks(fma, a, b, c, block=2**13):
    """``fma(a, b, c)`` of arrays of one shape, flat, a block of elements at a time (the
    scratch of fma64's error-free steps then stays in the cache: twice as fast)."""
    a, b, c = (np.ascontiguousarray(v).reshape(-1) for v in (a, b, c))
    out = np.empty_like(a)
    for start in range(0, a.size, block):
        part = slice(start, start + block)
        out[part] = fma(a[part], b[part], c[part])
    return out


def _group_sums(ds, db, g, param, fma):
    """Step 2's ``ds_val`` and ``db_val`` of each sample's groups, (N, G, 1)."""
    samples, groups, per_group = ds.shape
    opmath = ds.dtype
    weights = np.ones_like(ds) if g is None else np.broadcast_to(g, ds.shape)
    step = _lanes(param)  # channels a vector load of the parameters reads
    lanes = _lanes(opmath)
    whole = per_group - per_group % step
    ds, db, weights = (a.reshape(samples * groups, per_group) for a in (ds, db, weights))
    acc_s, acc_b = (np.zeros((len(ds), lanes), opmath) for _ in range(2))
    for j in range(0, whole, lanes):
        acc_s = fma(ds[:, j:j + lanes], weights[:, j:j + lanes], acc_s)
        acc_b = fma(db[:, j:j + lanes], weights[:, j:j + lanes], acc_b)
    zero = np.zeros(len(ds), opmath)
    ds_val, db_val = _in_order(zero, acc_s), _in_order(zero, acc_b)
    # the channels left: in-order groups of 4 float32 (2 float64) products, then fused
    unfused = 0 if param == np.float16 else (per_group - whole) // (lanes // 2) * (lanes // 2)
    for j in range(whole, per_group):
        if j < whole + unfused:
            ds_val = ds_val + ds[:, j] * weights[:, j]
            db_val = db_val + db[:, j] * weights[:, j]
        else:
            ds_val = fma(ds[:, j], weights[:, j], ds_val)
            db_val = fma(db[:, j], weights[:, j], db_val)
    return ds_val.reshape(samples, groups, 1), db_val.reshape(samples, groups, 1)
