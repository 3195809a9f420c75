"""Which zero torch's whole-tensor max() / min() return: its vectorised reduce_all, replayed.

``x.max()`` and ``x.min()`` (no dim) run aten's ``reduce_all_kernel`` over the contiguous
data: ``vec::reduce_all`` loads vectors (AVX2: 8 float32, 4 float64; float16 is loaded 16
at a time and widened to two float32 vectors), folds them lane by lane with
``maximum``/``minimum``, then folds the lanes (float32: by 128/64/32-bit shuffles;
otherwise lane after lane). The x86 instructions behind ``maximum``/``minimum``
(``vmaxps``/``vminps``) return their second operand when both are zeros, so of -0.0 and 0.0
the result is whichever zero that order meets last: ``tensor([-0., 0., -0., 0.]).min()``
is 0.0. The values themselves are the same whatever the order; only a zero's sign (the
engine's np.maximum.reduce picks either) needs the replay. Tensors of more than 32,768
elements are split across threads by torch: not replayed.
"""
import numpy as np

_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_REPLAYED_UP_TO = 32768  # aten's GRAIN_SIZE: one piece, one thread


def signed_zero(data, largest):
    """The zero torch's ``data.max()`` (``largest``) or ``data.min()`` returns, given that the
    result is a zero and ``data`` (float16/32/64) holds no nan."""
    flat = np.ascontiguousarray(data).reshape(-1)
    if flat.size > _REPLAYED_UP_TO:
        return None

    def fold(a, b):  # vmaxps / vminps: b unless a is strictly beyond it
        return np.where(a > b, a, b) if largest else np.where(a < b, a, b)

    if flat.dtype == np.float16:
        return _reduced_float(flat.astype(np.float32), fold).astype(np.float16)
    return reduce_all(flat, fold, _LANES[flat.dtype])


def reduce_all(rows, fold, lanes):
    """``fold`` over each row (the last axis) in the order of torch's ``vec::reduce_all``
    (ATen/cpu/vec/functional_base.h): softmax's sums along the last dim, max()/min().

    ``lanes``: elements in one of torch's SIMD vectors. A row shorter than a vector is folded
    left to right. A longer one is folded in vector lanes (element i into lane i % lanes, the
    last partial vector into the first lanes), then the lanes: float32's by halves (lane i
    with lane i ^ 4, ^ 2, ^ 1 with 8 lanes, as its 128/64/32-bit shuffles), others left to
    right. ``fold(a, b)``'s operands keep that order (it matters for max's zeros)."""
    with np.errstate(over="ignore", invalid="ignore"):  # (inf and nan as torch's: no warning)
        return _reduce_all(rows, fold, lanes)


def _reduce_all(rows, fold, lanes):
    n = rows.shape[-1]
    if n < lanes:
        return _lane_after_lane(rows, fold, n)
    full = n - n % lanes
    acc = rows[..., :lanes].copy()
    for start in range(lanes, full, lanes):
        acc = fold(acc, rows[..., start:start + lanes])
    if full < n:
        acc[..., :n - full] = fold(acc[..., :n - full], rows[..., full:])
    if rows.dtype != np.float32:
        return _lane_after_lane(acc, fold, lanes)
    return _by_halves(acc, fold)


def _lane_after_lane(vectors, fold, size):
    acc = vectors[..., 0].copy()  # (a result of one element must not be a view of the data)
    for i in range(1, size):
        acc = fold(acc, vectors[..., i])
    return acc


def _by_halves(vectors, fold):
    half = vectors.shape[-1] // 2
    while half:  # lane i with lane i ^ half: the lanes from half on only repeat the first ones
        vectors = fold(vectors[..., :half], vectors[..., half:2 * half])
        half //= 2
    return vectors[..., 0]


def _padded(values, lanes):
    vector = np.zeros(lanes, values.dtype)  # (loadu with a count fills the rest with 0)
    vector[:values.size] = values
    return vector


def _reduced_float(flat, fold):
    """float16 (widened to float32): 16 elements a load, two float32 accumulators."""
    n = flat.size
    if n < 16:
        low, high = np.split(_padded(flat, 16), 2)
        if n > 8:
            low[:n - 8] = fold(low, high)[:n - 8]
            return _lane_after_lane(low, fold, 8)
        return _lane_after_lane(low, fold, n)
    low, high, d = flat[:8].copy(), flat[8:16].copy(), 16
    while d < n - n % 16:
        low, high = fold(low, flat[d:d + 8]), fold(high, flat[d + 8:d + 16])
        d += 16
    if n > d:
        tail_low, tail_high = np.split(_padded(flat[d:], 16), 2)
        if n - d > 8:
            low = fold(low, tail_low)
            high[:n - d - 8] = fold(high, tail_high)[:n - d - 8]
        else:
            low[:n - d] = fold(low, tail_low)[:n - d]
    return _by_halves(fold(low, high), fold)
