"""The mean and variance of each row as torch's CPU layer_norm and group_norm kernels get them.

torch's ``RowwiseMoments`` (ATen's moments_utils.h, AVX2 build) runs Welford's algorithm on
vectors of the row: 8 floats (4 doubles) side by side, in chunks of 16 vectors; each chunk's
moments are merged into a stack that adds chunks pairwise (a cascade: 1+1, 2+2, 4+4 ...), the
stack is then merged into its bottom, the elements after the last whole vector go through a
scalar Welford, and finally the 8 (4) lanes are merged into that, one after the other. A
float16 row is read 16 elements at a time, as two float vectors, both merged into the same
stack. The arithmetic is the row's dtype (float32 for float16), and its roundings are the
compiled kernel's: the vector loop's ``m1 += delta * c`` and ``m2 += delta * (x - m1)`` and
the scalar merges are fused multiply-adds, the vector merges are not (measured against
torch 2.15: the means of 1,300 rows of 1 to 5,000 elements all equal, their 1 / sqrt(var +
eps) all but 2). Replayed here with numpy across all rows at once (and across the chunks,
whose Welford loops are independent), so float32 statistics, and results that depend on
their last bit (a group of one element: x - mean exactly 0, or not), are torch's.

The loop is a few hundred numpy calls on a few vectors each, so their number is its cost:
the float32 fused multiply-adds go through ``DeferredFma32`` (fidelity/rounding.py), four
calls each, whose rare hard cases are checked once at the end, and the loop runs again with
``fma32_flat`` when one is found (bench/run.py --only norms measures it).
"""
import numpy as np

from .rounding import DeferredFma32, fma32_flat, fma64

CHUNK = 16  # vectors per Welford chunk (kChunkSize)


def rowwise_moments(rows):
    """``(mean, variance)`` (biased) of each row of the 2-d float array ``rows``, in the
    kernel's arithmetic dtype (float32 for float16 and float32 rows, float64 for float64);
    inf and nan in a row go through silently, as in torch's kernel."""
    with np.errstate(all="ignore"):
        if rows.dtype == np.float64:
            return _moments(rows, fma64)
        fma = DeferredFma32()
        moments = _moments(rows, fma)
        # (rare: a float64 sum exactly halfway between float32 numbers but not exact, or a
        # float32 subnormal; then every sum is checked as it is made)
        return moments if fma.all_fused() else _moments(rows, fma32_flat)


def _moments(rows, fma):
    math = np.dtype(np.float64 if rows.dtype == np.float64 else np.float32)
    lanes = 32 // math.itemsize          # an AVX2 vector of the arithmetic type
    width = 16 if rows.dtype == np.float16 else lanes  # elements one vector load reads
    count, length = rows.shape
    vectors = length // width
    values = rows.astype(math)
    chunks = _chunk_moments(values[:, :vectors * width].reshape(count, vectors, width), fma)
    stack = [[0, np.zeros((count, lanes), math), np.zeros((count, lanes), math)]
             for _ in range(_ceil_log2(len(chunks)))]
    for index, (size, m1, m2) in enumerate(chunks):
        for part in range(0, width, lanes):  # (float16: the two float halves, in order)
            stack[0] = _merged(size, m1[:, part:part + lanes], m2[:, part:part + lanes],
                               *stack[0], math, fma, fused=False)
        carry = index + 1
        for level in range(1, len(stack)):
            if carry & 1:
                break
            stack[level] = _merged(*stack[level - 1], *stack[level], math, fma, fused=False)
            stack[level - 1] = [0, np.zeros_like(stack[0][1]), np.zeros_like(stack[0][2])]
            carry >>= 1
    for level in range(1, len(stack)):
        stack[0] = _merged(*stack[level], *stack[0], math, fma, fused=False)
    seen, mean, m2 = 0, np.zeros(count, math), np.zeros(count, math)
    for column in range(vectors * width, length):  # the tail, element by element
        x = values[:, column]
        delta = x - mean
        seen += 1
        mean = mean + delta / math.type(seen)
        m2 = m2 + delta * (x - mean)
    if stack:
        per_lane = vectors * width // lanes
        for lane in range(lanes):
            seen, mean, m2 = _merged(per_lane, stack[0][1][:, lane], stack[0][2][:, lane],
                                     seen, mean, m2, math, fma, fused=True)
    return mean, m2 / math.type(length)


def _chunk_moments(vectors, fma):
    """Welford over each chunk of 16 vectors (the last may be shorter): ``[(size, m1, m2)]``,
    every chunk's lanes at once (the chunks' loops do not depend on one another)."""
    count, total, width = vectors.shape
    whole = total // CHUNK
    found = []
    if whole:
        blocks = vectors[:, :whole * CHUNK].reshape(count, whole, CHUNK, width)
        m1, m2 = _welford(blocks, CHUNK, fma)
        found += [(CHUNK, m1[:, i], m2[:, i]) for i in range(whole)]
    if total % CHUNK:
        rest = vectors[:, whole * CHUNK:][:, None]
        m1, m2 = _welford(rest, total % CHUNK, fma)
        found.append((total % CHUNK, m1[:, 0], m2[:, 0]))
    return found


def _welford(blocks, size, fma):
    x = blocks[:, :, 0]
    # the first step, exactly: m1 = fma(x, 1, 0) and m2 = fma(x, x - m1, 0) (+0, or nan for
    # inf and nan); a +0.0 added turns -0.0 into the fused sum's +0.0
    m1 = x + blocks.dtype.type(0)
    m2 = (x - m1) * x + blocks.dtype.type(0)
    dtype = blocks.dtype.type
    for j in range(1, size):
        x = blocks[:, :, j]
        delta = x - m1
        m1 = fma(delta, dtype(1) / dtype(j + 1), m1)
        m2 = fma(delta, x - m1, m2)
    return m1, m2


def _merged(added, m1_added, m2_added, seen, m1, m2, math, fma, fused):
    """Chan's merge of (added, m1_added, m2_added) into (seen, m1, m2): AddMomentsVec
    (``fused=False``) or the scalar AddMoments (fused multiply-adds)."""
    total = seen + added
    c = math.type(0) if total == 0 else math.type(added) / math.type(total)
    delta = m1_added - m1
    spread = delta * delta * c
    if fused:
        return total, fma(delta, c, m1), m2 + fma(spread, math.type(seen), m2_added)
    return total, m1 + c * delta, (m2 + m2_added) + spread * math.type(seen)


def _ceil_log2(value):
    """utils::CeilLog2 (1 for 0, 1 and 2): the stack's depth."""
    return 1 if value <= 2 else (value - 1).bit_length()
