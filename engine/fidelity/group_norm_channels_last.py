"""group_norm of a channels-last input as torch's CPU kernels compute it, forward and backward.

Of an (N, C, H, W) input laid out channels-last (or (N, C, D, H, W) channels-last-3d) ATen's
group_norm kernels (group_norm_kernel.cpp, AVX2 build) read it as N samples of HxW positions
of C channels, in groups of D = C / G channels, with two algorithms each:

Forward, HxW < 1024 (``ColumnwiseMoments``): per sample and group, vector accumulators (8
float32 / 4 float64 lanes) take ``acc += x`` and ``acc += x * x`` for each position, its D
channels a vector at a time (the last partial one padded with zeros), so lane l adds
channels l, l + 8, ... of one position after the other, positions in order; float16 loads
16 channels, adds their two float32 halves (and the halves' squares), then into 8 lanes.
The lanes are then added as ``vec_reduce_all`` does (float32 by halves, float64 in order).
Forward, HxW >= 1024 (``CalcMeanVar``): each thread's share of the N * HxW positions adds
each channel's ``x`` and ``x * x`` position after position into a buffer of its own; each
group's sums are those buffers added channel after channel (each channel's threads in
order). Then, in the arithmetic type (float32 for float16): ``mean = sum * s`` with ``s =
1 / (D * HxW)``, ``var = max(sumsq * s - mean * mean, 0)``, ``rstd = 1 / sqrt(var + eps)``
(in double: eps is one), per channel ``scale = rstd * gamma`` and ``bias = -scale * mean +
beta``, and ``out = x * scale + bias``.

Backward, HxW < 2048 (``CalcInternalGradientsChannelsLast``): per sample and channel ``ds =
sum of x * dy`` and ``db = sum of dy`` over the positions in order; per group ``ds_gamma``
and ``db_gamma`` add, for each vector of channels, ``vec_reduce_all(ds * gamma)`` (float16:
of each float32 half of 16 channels, then the channels after the last 16 one by one).
Backward, HxW >= 2048 (``DsDbRowwiseMomentsChannelsLast``): ds and db per thread as the
forward's sums; ``ds_gamma`` adds ``ds * gamma`` channel after channel (threads in order).
Then ``c2 = (db_gamma * mean - ds_gamma) * rstd**3 * s``, ``c3 = -c2 * mean - db_gamma *
rstd * s`` and ``dx = c1 * dy + c2 * x + c3`` with ``c1 = rstd * gamma``; ``dgamma`` and
``dbeta`` as for a row-major input (group_norm_backward.py).

Which multiply-adds the compiled kernels fuse was measured against torch 2.15 on an AVX2
build: with the choices below, every output, mean, rstd, dx, dgamma and dbeta of 150 random
shapes per dtype (HxW from 1 to 3,000 across both thresholds, D from 1 to 40, with and
without weight and bias; float32, float64, float16, and float16 with float32 parameters) is
torch's bit for bit, with torch on one thread and (HxW >= 1024) on 2, 3 and 4; each
alternative gets some wrong. Fused: the forward's ``x * x`` sums of HxW >= 1024 (not those
of HxW < 1024), ``var = fma(sumsq, s, -(mean * mean))``, ``out = fma(x, scale, bias)``, the
backward's ``x * dy`` sums of HxW >= 2048 (not those below), ``c2 = fma(db_gamma, mean,
-ds_gamma) * ...``, ``c3 = fma(-c2, mean, -(db_gamma * rstd * s))`` and ``dx = fma(c2, x,
c1 * dy) + c3``. The forward's ``bias = -scale * mean + beta`` is fused where GCC ran its
loop over a group's D channels in vectors: AVX2 ones of 8 float32 / 4 float64 while D allows
one, then one SSE vector of 4 / 2, the rest one by one unfused; its vector code runs only if
the scale and bias buffers it writes are a vector apart (D elements apart in the first
algorithm, C in the second: for D = 5 the first 4 channels are fused when HxW >= 1024 and
G > 1, none when HxW < 1024), and not at all with float16 parameters. Of float16 values,
the backward's channels after the last 16 add ``ds * gamma`` fused with float32
parameters, unfused with float16 ones. The ``ds * gamma`` sums of HxW >= 2048 are fused
with float16 parameters, unfused with float32 ones, and of float64 GCC's loop over the
threads' buffers takes them two at a time unfused and fuses the last of an odd number
(one thread: fused).

Threads: only the algorithms for many positions depend on them. torch splits the N * HxW
positions into ``torch_threads`` (fidelity/float32_math.py) equal runs, one a thread, each
summed into its own buffer; the replay does the same with that number (tests pin both to
one).
"""
import numpy as np

from .float32_math import torch_threads
from .floating import quietly
from .group_norm_backward import parameter_gradients
from .reduce_all import reduce_all
from .rounding import DeferredFma32, fma32, fma32_flat, fma64

FORWARD_BY_THREADS = 1024   # HxW from which the forward sums per thread (feature_map_threshold)
BACKWARD_BY_THREADS = 2048  # and the backward


def group_norm_channels_last(x, groups, gamma, beta, eps, threads=None):
    """``(out, mean, rstd)`` of torch's kernel: ``x`` an (N, C, ...) array of float16/32/64,
    ``gamma`` and ``beta`` (C,) arrays or None; ``out`` of x's shape and dtype, ``mean`` and
    ``rstd`` (N, groups) in the arithmetic dtype (float32 for float16)."""
    return quietly(_forward, x, groups, gamma, beta, eps, threads or torch_threads)


def group_norm_channels_last_backward(dy, x, mean, rstd, gamma, groups,
                                      needed=(True, True, True), threads=None):
    """``(dx, dgamma, dbeta)`` of torch's kernel, ``None`` where ``needed`` says no: ``dy``
    and ``x`` (N, C, ...) arrays of one dtype, ``mean`` and ``rstd`` (N, groups) as the
    forward saved them (their dtype is the parameters'), ``gamma`` (C,) or None."""
    return quietly(_backward, dy, x, mean, rstd, gamma, groups, needed,
                   threads or torch_threads)


# ---------------------------------------------------------------- forward
def _forward(x, groups, gamma, beta, eps, threads):
    values = _positions_last(x)
    samples, positions, channels = values.shape
    opmath = _opmath(x.dtype)
    fma = fma64 if opmath == np.float64 else fma32
    if positions < FORWARD_BY_THREADS:
        sums, squares = _columnwise_moments(values, groups, opmath)
    else:
        sums, squares = _moments_by_threads(values, groups, opmath, threads)
    s = opmath.type(1) / opmath.type(channels // groups * positions)
    mean = sums * s
    var = np.maximum(fma(squares, np.full_like(squares, s), -(mean * mean)), 0)
    rstd = (1 / np.sqrt(var.astype(np.float64) + eps)).astype(opmath)
    param = next((t.dtype for t in (gamma, beta) if t is not None), x.dtype)
    # (the first algorithm keeps each group's scale and then bias, the second all channels')
    apart = channels // groups if positions < FORWARD_BY_THREADS else channels
    scale, bias = _scale_and_bias(mean, rstd, gamma, beta, channels, param, fma, apart)
    out = _in_blocks(fma, values.astype(opmath, copy=False), scale[:, None], bias[:, None])
    return _positions_back(out.astype(x.dtype, copy=False), x.shape), mean, rstd


def _columnwise_moments(values, groups, opmath):
    """Each group's sums of x and x * x as ColumnwiseMoments adds them: (N, G) each."""
    samples, positions, channels = values.shape
    per_group = channels // groups
    width = 16 if values.dtype == np.float16 else _lanes(opmath)  # channels a load reads
    vectors = -(-per_group // width)
    padded = np.zeros((samples, positions, groups, vectors * width), opmath)
    padded[..., :per_group] = values.reshape(samples, positions, groups, per_group)
    # (position, vector) after one another, for each (sample, group) and lane
    steps = padded.reshape(samples, positions, groups, vectors, width) \
        .transpose(1, 3, 0, 2, 4).reshape(positions * vectors, samples * groups, width)
    if width == 16:  # float16: the two float32 halves of each load added first
        low, high = steps[..., :8], steps[..., 8:]
        terms, squares = low + high, low * low + high * high
    else:
        terms, squares = steps, steps * steps
    lanes = terms.shape[-1]
    both = _in_order(np.stack([terms, squares], axis=1))  # (one loop for the two sums)
    return tuple(reduce_all(b, np.add, lanes).reshape(samples, groups) for b in both)


def _moments_by_threads(values, groups, opmath, threads):
    """Each group's sums of x and x * x as CalcMeanVar's threads add them: (N, G) each."""
    pieces, steps = _thread_pieces(values, threads)
    steps = steps.astype(opmath, copy=False)
    sums = _in_order(steps)
    if values.dtype == np.float16:  # (float16 squares are exact in float32)
        squares = _in_order(steps * steps)
    else:
        squares = _fused_in_order(steps, steps)
    return (_across_channels(_per_sample(b, pieces, values.shape[0], threads), groups)
            for b in (sums, squares))


def _scale_and_bias(mean, rstd, gamma, beta, channels, param, fma, apart):
    """Per sample and channel ``scale = rstd * gamma`` and ``bias = -scale * mean + beta``,
    fused where the compiler vectorised the loop over each group's channels (``apart``:
    how far its scale and bias buffers are, in elements): (N, C) each."""
    samples, groups = mean.shape
    opmath, per_group = mean.dtype, channels // groups
    g = np.ones(channels, opmath) if gamma is None else gamma.astype(opmath)
    b = np.zeros(channels, opmath) if beta is None else beta.astype(opmath)
    scale = rstd[..., None] * g.reshape(groups, per_group)
    m = np.broadcast_to(mean[..., None], scale.shape)
    b = np.broadcast_to(b.reshape(groups, per_group), scale.shape)
    fused = _vectorised(per_group, param, apart)
    bias = np.concatenate([fma(-scale[..., :fused], m[..., :fused], b[..., :fused]),
                           -scale[..., fused:] * m[..., fused:] + b[..., fused:]], axis=-1)
    return scale.reshape(samples, channels), bias.reshape(samples, channels)


def _vectorised(count, param, apart):
    """How many of a loop's ``count`` iterations GCC ran in vectors, each a fused multiply-add
    (the scalar rest is not fused): AVX2 vectors (8 float32, 4 float64) while ``count``
    allows one, then one SSE vector of half as many. Its vector code runs only where the
    buffers it writes are a vector apart (its check for overlap); with float16 parameters,
    which it did not vectorise, none."""
    lanes = _lanes(param)
    if param == np.float16 or apart < lanes:
        return 0
    half = lanes // 2
    return count - count % lanes + count % lanes // half * half


# ---------------------------------------------------------------- backward
def _backward(dy, x, mean, rstd, gamma, groups, needed, threads):
    values, grads = _positions_last(x), _positions_last(dy)
    samples, positions, channels = values.shape
    opmath = _opmath(x.dtype)
    param = mean.dtype
    fma = fma64 if opmath == np.float64 else fma32
    g = np.ones(channels, opmath) if gamma is None else gamma.astype(opmath)
    if positions < BACKWARD_BY_THREADS:
        ds, db, ds_gamma, db_gamma = _internal_gradients_by_groups(values, grads, g, groups,
                                                                   param, fma)
    else:
        ds, db, ds_gamma, db_gamma = _internal_gradients_by_threads(values, grads, g, groups,
                                                                    param, threads)
    m, r = (a.astype(opmath).reshape(samples, groups) for a in (mean, rstd))
    dx = None
    if needed[0]:
        s = opmath.type(1) / opmath.type(channels // groups * positions)
        c2 = fma(db_gamma, m, -ds_gamma) * r * r * r * s
        c3 = fma(-c2, m, -(db_gamma * r * s))
        c2, c3 = (np.repeat(c, channels // groups, axis=1)[:, None] for c in (c2, c3))
        c1 = (r[..., None] * g.reshape(groups, -1)).reshape(samples, 1, channels)
        v = values.astype(opmath, copy=False)
        out = _in_blocks(fma, v, c2, c1 * grads.astype(opmath, copy=False))
        out += c3
        dx = _positions_back(out.astype(x.dtype, copy=False), x.shape)
    dgamma, dbeta = parameter_gradients(ds, db, mean, rstd, param, fma,
                                        (needed[1] and gamma is not None, needed[2]))
    return dx, dgamma, dbeta


def _internal_gradients_by_groups(values, grads, g, groups, param, fma):
    """CalcInternalGradientsChannelsLast: ds and db (N, C), ds_gamma and db_gamma (N, G)."""
    samples, positions, channels = values.shape
    opmath = g.dtype
    per_group = channels // groups
    steps = np.moveaxis(values, 1, 0).astype(opmath), np.moveaxis(grads, 1, 0).astype(opmath)
    ds, db = _in_order(np.stack([steps[0] * steps[1], steps[1]], axis=1))
    weights = np.broadcast_to(g.reshape(groups, per_group), (samples, groups, per_group))
    sums = []
    for internal in (ds, db):
        products = internal.reshape(samples, groups, per_group) * weights
        if values.dtype != np.float16:
            sums.append(_by_vectors(products, _lanes(opmath)))
            continue
        whole = per_group - per_group % 16  # float16: two float32 halves of 16 channels,
        total = _by_vectors(products[..., :whole], 8)  # then channel after channel
        grouped = internal.reshape(samples, groups, per_group)
        for j in range(whole, per_group):
            if param == np.float16:
                total = total + grouped[..., j] * weights[..., j]
            else:
                total = fma(grouped[..., j], weights[..., j], total)
        sums.append(total)
    return ds, db, sums[0], sums[1]


def _by_vectors(products, lanes):
    """From 0, ``+= vec_reduce_all`` of each vector of ``lanes`` products (the last one
    padded with zeros) along the last axis."""
    count = products.shape[-1]
    vectors = -(-count // lanes)
    padded = np.zeros(products.shape[:-1] + (vectors * lanes,), products.dtype)
    padded[..., :count] = products
    reduced = reduce_all(padded.reshape(-1, lanes), np.add, lanes)
    return _in_order(np.moveaxis(reduced.reshape(products.shape[:-1] + (vectors,)), -1, 0))


def _internal_gradients_by_threads(values, grads, g, groups, param, threads):
    """DsDbRowwiseMomentsChannelsLast and the sums after it: ds and db (N, C), ds_gamma and
    db_gamma (N, G)."""
    samples = values.shape[0]
    opmath = g.dtype
    pieces, x_steps = _thread_pieces(values, threads)
    dy_steps = _thread_pieces(grads, threads)[1].astype(opmath, copy=False)
    x_steps = x_steps.astype(opmath, copy=False)
    if values.dtype == np.float16:  # (exact products)
        ds_threads = _in_order(x_steps * dy_steps)
    else:
        ds_threads = _fused_in_order(x_steps, dy_steps)
    db_threads = _in_order(dy_steps)
    internal, sums = [], []
    for buffers in (ds_threads, db_threads):
        per_thread = _per_sample(buffers, pieces, samples, threads)  # (N, threads, C)
        internal.append(_in_order(np.moveaxis(per_thread, 1, 0)))
        weighted = (per_thread, np.broadcast_to(g, per_thread.shape))
        sums.append(_across_channels(weighted, groups, _fused_threads(threads, opmath, param)))
    return internal[0], internal[1], sums[0], sums[1]


def _fused_threads(threads, opmath, param):
    """Which threads' ``ds * gamma`` the loop adding them fuses (as measured): all with
    float16 parameters, none with float32 ones; of float64, GCC's loop over the threads
    takes them two at a time unfused and fuses the last of an odd number."""
    if param == np.float16:
        return np.ones(threads, bool)
    fused = np.zeros(threads, bool)
    if opmath == np.float64 and threads % 2:
        fused[-1] = True
    return fused


# ---------------------------------------------------------------- sums and layouts
def _thread_pieces(values, threads):
    """torch's parallel_for over the N * HxW positions: each thread a run of them, each run
    cut where a sample ends. Returns ``(pieces, steps)``: (thread, sample) of each piece and
    their positions side by side, (longest, pieces, C), padded with zeros at the end."""
    samples, positions, channels = values.shape
    total = samples * positions
    used = min(threads, total) if threads > 1 and total > 1 else 1
    run = -(-total // used)
    pieces, spans = [], []
    for thread in range(used):
        start, stop = thread * run, min(total, (thread + 1) * run)
        while start < stop:
            sample = start // positions
            end = min(stop, (sample + 1) * positions)
            pieces.append((thread, sample))
            spans.append((start, end))
            start = end
    if all(b - a == positions for a, b in spans):  # one piece per sample: no copy
        return pieces, np.moveaxis(values, 1, 0)
    flat = values.reshape(total, channels)
    longest = max(b - a for a, b in spans)
    steps = np.zeros((longest, len(spans), channels), values.dtype)
    for k, (a, b) in enumerate(spans):
        steps[:b - a, k] = flat[a:b]
    return pieces, steps


def _per_sample(buffers, pieces, samples, threads):
    """The threads' buffers (pieces, C) as (N, threads, C), zeros where a thread had none
    of a sample (torch's buffers start at 0; adding them changes no sum, which starts at
    +0 and is never -0)."""
    out = np.zeros((samples, threads, buffers.shape[-1]), buffers.dtype)
    for k, (thread, sample) in enumerate(pieces):
        out[sample, thread] = buffers[k]
    return out


def _across_channels(per_thread, groups, fused_threads=None):
    """Each group's sum of its channels' buffers, channel after channel and each channel's
    threads in order: (N, G). ``per_thread``: (N, threads, C), or a pair of such whose
    products are added (fused where ``fused_threads`` says so, for each thread)."""
    pair = isinstance(per_thread, tuple)
    first = per_thread[0] if pair else per_thread
    samples, threads, channels = first.shape

    def steps(a):  # (D * threads, N * G): channel by channel, threads inside
        return a.reshape(samples, threads, groups, -1).transpose(3, 1, 0, 2) \
            .reshape(-1, samples * groups)

    if not pair:
        return _in_order(steps(first)).reshape(samples, groups)
    a, b = (steps(np.ascontiguousarray(v)) for v in per_thread)
    fused = np.tile(fused_threads, channels // groups)
    return _products_in_order(a, b, fused).reshape(samples, groups)


def _in_order(terms):
    """Sums along axis 0, term after term from +0, as a loop's ``acc += term`` (a loop of
    numpy adds: np.add.accumulate is ten times slower, and np.add.reduce may add pairwise)."""
    acc = np.zeros(terms.shape[1:], terms.dtype)
    for term in terms:
        acc += term
    return acc


def _products_in_order(a, b, fused):
    """``acc += a[i] * b[i]`` along axis 0 from +0, rounded once where ``fused[i]``."""
    if not fused.any():
        return _in_order(a * b)
    if fused.all():
        return _fused_in_order(a, b)
    fma = fma64 if a.dtype == np.float64 else fma32
    acc = np.zeros(a.shape[1:], a.dtype)
    for i in range(len(a)):
        acc = fma(a[i], b[i], acc) if fused[i] else acc + a[i] * b[i]
    return acc


def _fused_in_order(a, b):
    """``acc = fma(a[i], b[i], acc)`` along axis 0 from +0."""
    if a.dtype == np.float64:
        acc = np.zeros(a.shape[1:], a.dtype)
        for i in range(len(a)):
            acc = fma64(a[i], b[i], acc)
        return acc
    fma = DeferredFma32()  # (rounding a float64 sum once more: checked at the end)
    acc = np.zeros(a.shape[1:], np.float32)
    for i in range(len(a)):
        acc = fma(a[i], b[i], acc)
    if fma.all_fused():
        return acc
    acc = np.zeros(a.shape[1:], np.float32)
    for i in range(len(a)):
        acc = fma32_flat(a[i], b[i], acc)
    return acc


def _in_blocks(fma, a, b, c, block=2**13):
    """``fma(a, b, c)`` of (N, HxW, C) arrays (``b`` and ``c`` may be (N, 1, C)), a few
    positions at a time (fma64's scratch then stays in the cache; fma32 has blocks of its
    own)."""
    if fma is fma32:
        return fma32(a, b, c)
    out = np.empty(a.shape, a.dtype)
    step = max(1, block // max(1, a.shape[0] * a.shape[2]))
    for start in range(0, a.shape[1], step):
        part = slice(start, start + step)
        shape = a[:, part].shape
        b_part, c_part = (np.broadcast_to(v if v.shape[1] == 1 else v[:, part], shape)
                          for v in (b, c))
        out[:, part] = fma(a[:, part], b_part, c_part)
    return out


def _positions_last(a):
    """(N, C, ...) as (N, HxW, C): a view of channels-last memory."""
    return np.moveaxis(a.reshape(a.shape[0], a.shape[1], -1), 1, 2)


def _positions_back(a, shape):
    """(N, HxW, C) back to (N, C, ...): a view with channels-last strides."""
    return np.moveaxis(a, 2, 1).reshape(shape)


def _opmath(dtype):
    return np.dtype(np.float32 if dtype == np.float16 else dtype)


def _lanes(dtype):
    return 32 // np.dtype(dtype).itemsize  # an AVX2 vector
