"""group_norm of a channels-last input against torch 2.15, bit for bit: the engine replays
torch's channels-last kernels (engine/fidelity/group_norm_channels_last.py: ColumnwiseMoments
below 1,024 positions, per-thread sums above; the backward's two algorithms either side of
2,048; the fused multiply-adds measured), where it took float64 statistics and its own
gradient formula. Before, over the shapes of ``_cases`` (60 per dtype), 19% of float32 and
float64 outputs, 16% of their means and 18% of their rstds, 15% of dx, 2-3% of dweight and
25% of dbias were torch's bits (float16: 99.2% of outputs, 97.3% of dx; float16 with float32
parameters: 35% of means, 4% of rstds); now all are, and the fuzzer's program 8009153 is
exact (a 0.0 the engine gave as -0.0)."""
import numpy as np
import pytest

import engine
import parity
from engine.fidelity.group_norm_channels_last import (group_norm_channels_last,
                                                      group_norm_channels_last_backward)

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

BITS = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}
NAMES = ("out", "mean", "rstd", "dx", "dweight", "dbias")


def _cases(dtype, count, seed):
    """(x, dy, groups, weight, bias): N up to 3, D = C / G from 1 to 40, H x W below 1,024,
    from 1,024 to 2,047 and from 2,048 on (each algorithm of both passes), 4-d and 5-d, a
    random dy or ones (the exact dx is 0: residues), with weight and bias, weight alone or
    neither; 'mixed': float16 values with float32 parameters."""
    rng = np.random.default_rng(seed)
    values = np.float16 if dtype == "mixed" else np.dtype(dtype).type
    params = np.float32 if dtype == "mixed" else values
    for i in range(count):
        groups, per_group = int(rng.integers(1, 4)), int(rng.integers(1, 41))
        channels, samples = groups * per_group, int(rng.integers(1, 4))
        low, high = ((1, 300), (1024, 1300), (2048, 2300))[i % 3]
        positions = int(rng.integers(low, high + 1))
        height = max(h for h in range(1, int(positions ** 0.5) + 1) if positions % h == 0)
        spatial = (height, positions // height) + ((1,) if i % 4 == 3 else ())
        shape = (samples, channels) + spatial
        if samples * per_group * positions < 2:
            continue
        x = (rng.standard_normal(shape) * rng.uniform(0.1, 3) + rng.uniform(-2, 2)) \
            .astype(values)
        dy = np.ones_like(x) if i % 5 == 1 else rng.standard_normal(shape).astype(values)
        affine = 1 if dtype == "mixed" else i // 2 % 3  # 0: none, 1: weight and bias, 2: weight
        weight = rng.standard_normal(channels).astype(params) if affine else None
        bias = rng.standard_normal(channels).astype(params) if affine == 1 else None
        yield x, dy, groups, weight, bias


def _run(m, x, dy, groups, weight, bias):
    """Outputs, saved statistics and gradients of a channels-last x, and their strides."""
    layout = m.channels_last if x.ndim == 4 else m.channels_last_3d
    xt = m.from_numpy(x.copy()).to(memory_format=layout).requires_grad_()
    params = [None if p is None else m.from_numpy(p.copy()).requires_grad_()
              for p in (weight, bias)]
    y = m.nn.functional.group_norm(xt, groups, *params)
    results = {"out": y, "mean": y.grad_fn._saved_result1, "rstd": y.grad_fn._saved_result2}
    wanted = [xt] + [p for p in params if p is not None]
    grads = m.autograd.grad(y, wanted, m.from_numpy(dy.copy()))
    results["dx"] = grads[0]
    results.update(zip([n for n, p in zip(("dweight", "dbias"), params) if p is not None],
                       grads[1:]))
    return ({k: v.detach().numpy() for k, v in results.items()},
            (y.stride(), grads[0].stride()))


def _count(dtype, count=30, seed=5):
    """Elements of each result whose bits differ from torch's, and how many there are."""
    differ, total = dict.fromkeys(NAMES, 0), dict.fromkeys(NAMES, 0)
    for case in _cases(dtype, count, seed):
        (ours, our_strides), (theirs, their_strides) = (_run(m, *case) for m in (engine, torch))
        assert our_strides == their_strides and ours.keys() == theirs.keys()
        for name, t in theirs.items():
            e = ours[name]
            assert e.dtype == t.dtype and e.shape == t.shape, name
            bits = BITS[t.dtype.name]
            differ[name] += int((np.ascontiguousarray(e).view(bits) !=
                                 np.ascontiguousarray(t).view(bits)).sum())
            total[name] += t.size
    return differ, total


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "mixed"])
def test_outputs_statistics_and_gradients_bit_for_bit(dtype):
    """Every output, saved mean and rstd, dx, dweight and dbias of 30 random channels-last
    shapes (below: the shares before, of 60)."""
    differ, total = _count(dtype)
    assert all(total[name] for name in ("out", "dx", "dbias")), total
    assert not any(differ.values()), (differ, total)


# ---------------------------------------------------------------- the fuzzer's program
def test_fuzz_8009153_a_zero_keeps_torchs_sign():
    """A (2, 2, 2, 2) channels-last tensor in 2 groups: torch's x * scale + bias, fused, is
    0.0 where x is the mean; the engine's float64 statistics gave -0.0, and ulps elsewhere."""
    def call(m):
        p = m.tensor([[[[0.25, -1.0], [-0.5, 0.5]], [[-1.0, 1.0], [-0.0, 0.0]]],
                      [[[0.5, -0.0], [3.0, -2.5]], [[1.5, 0.25], [2.0, -0.5]]]])
        return m.nn.functional.group_norm(p.to(memory_format=m.channels_last), 2)
    parity.run_both(call)


# ---------------------------------------------------------------- the measured details
@pytest.mark.parametrize("dtype", ["float32", "float64", "mixed"])
@pytest.mark.parametrize("positions, groups", [(12, 2), (1024, 1), (1024, 2)])
def test_the_bias_is_fused_where_the_compiler_vectorised_its_loop(dtype, positions, groups):
    """bias = -scale * mean + beta: fused in AVX2 vectors while D allows one, then one SSE
    vector, unfused after; the vector code runs only if the scale and bias buffers are a
    vector apart (D in the first algorithm, C in the second: with one group and D < 8 no
    channel is fused, with two the first 4). Every D from 1 to 40, with weight and bias."""
    values = np.float16 if dtype == "mixed" else np.dtype(dtype).type
    params = np.float32 if dtype == "mixed" else values
    rng = np.random.default_rng(positions + groups)
    for per_group in range(1, 41):
        channels = groups * per_group
        x = (rng.standard_normal((1, channels, positions, 1)) * 2 + 1).astype(values)
        weight, bias = (rng.standard_normal(channels).astype(params) for _ in range(2))
        ours = group_norm_channels_last(x, groups, weight, bias, 1e-5, threads=1)[0]
        theirs = torch.ops.aten.native_group_norm(
            torch.from_numpy(x).to(memory_format=torch.channels_last),
            torch.from_numpy(weight), torch.from_numpy(bias), 1, channels, positions, groups,
            1e-5)[0].numpy()
        assert np.array_equal(ours.view(BITS[ours.dtype.name]),
                              theirs.view(BITS[ours.dtype.name])), per_group


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "mixed"])
def test_the_backward_kernel_given_torchs_statistics_is_torchs(dtype):
    """engine.fidelity.group_norm_channels_last_backward on torch's own mean and rstd: every
    dx, dgamma and dbeta of both algorithms (H x W below and from 2,048), D past whole
    vectors (D % 8, D % 16), without weight, and float16 values with float32 parameters."""
    rng = np.random.default_rng(13)
    values = np.float16 if dtype == "mixed" else np.dtype(dtype).type
    params = np.float32 if dtype == "mixed" else values
    differ = 0
    for trial in range(12):
        groups, per_group, n = int(rng.integers(1, 4)), int(rng.integers(1, 40)), 2
        c, positions = groups * per_group, (30, 700, 2048, 2100)[trial % 4]
        x = (rng.standard_normal((n, c, positions, 1)) * 2 + 1).astype(values)
        dy = np.ones_like(x) if trial % 3 == 1 else rng.standard_normal(x.shape).astype(values)
        weight = None if trial % 3 == 2 and dtype != "mixed" else \
            rng.standard_normal(c).astype(params)
        tw = None if weight is None else torch.from_numpy(weight)
        xt = torch.from_numpy(x).to(memory_format=torch.channels_last)
        _, mean, rstd = torch.ops.aten.native_group_norm(
            xt, tw, torch.from_numpy(rng.standard_normal(c).astype(params)), n, c, positions,
            groups, 1e-5)
        mask = [True, weight is not None, True]
        expected = torch.ops.aten.native_group_norm_backward(
            torch.from_numpy(dy).to(memory_format=torch.channels_last), xt, mean, rstd, tw, n,
            c, positions, groups, mask)
        got = group_norm_channels_last_backward(dy, x, mean.numpy(), rstd.numpy(), weight,
                                                groups, mask, threads=1)
        for needed, e, t in zip(mask, got, expected):
            if needed:
                t = t.numpy()
                assert e.dtype == t.dtype and e.shape == t.shape
                differ += int((e.view(BITS[t.dtype.name]) != t.view(BITS[t.dtype.name])).sum())
    assert differ == 0


@pytest.mark.parametrize("threads", [2, 3])
def test_sums_split_between_threads_as_torchs(threads):
    """From 1,024 positions (forward) and 2,048 (backward) torch sums each thread's run of
    the N * H x W positions into a buffer of its own; the engine, told torch's thread count,
    splits them alike (float64's ds * gamma: pairs of threads unfused, an odd last one fused).
    One thread's replay differs from torch on several."""
    rng = np.random.default_rng(threads)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for dtype in (np.float32, np.float64, np.float16):
            # (runs of 1.5 samples with two threads, 2/3 with three: cut inside samples)
            n, groups, per_group, positions = 5 - threads, 2, 7, 2050
            c = groups * per_group
            x = (rng.standard_normal((n, c, positions, 1)) + 0.5).astype(dtype)
            dy = rng.standard_normal(x.shape).astype(dtype)
            weight, bias = (rng.standard_normal(c).astype(dtype) for _ in range(2))
            xt = torch.from_numpy(x).to(memory_format=torch.channels_last)
            expected = torch.ops.aten.native_group_norm(
                xt, torch.from_numpy(weight), torch.from_numpy(bias), n, c, positions, groups,
                1e-5)
            expected += torch.ops.aten.native_group_norm_backward(
                torch.from_numpy(dy).to(memory_format=torch.channels_last), xt, expected[1],
                expected[2], torch.from_numpy(weight), n, c, positions, groups,
                [True, True, True])
            got = group_norm_channels_last(x, groups, weight, bias, 1e-5, threads=threads)
            got += group_norm_channels_last_backward(dy, x, expected[1].numpy(),
                                                     expected[2].numpy(), weight, groups,
                                                     threads=threads)
            for e, t in zip(got, expected):
                t = t.numpy()
                assert np.array_equal(e.astype(t.dtype).view(BITS[t.dtype.name]),
                                      t.view(BITS[t.dtype.name])), dtype
            alone = group_norm_channels_last(x, groups, weight, bias, 1e-5, threads=1)[0]
            if dtype != np.float16:
                assert not np.array_equal(alone, expected[0].numpy())
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------- layouts
@pytest.mark.parametrize("shape", [(2, 6, 3, 5), (2, 6, 1, 3, 4), (3, 4, 1, 1)])
def test_results_and_gradients_stay_channels_last(shape):
    """torch's kernel writes the output and dx in the input's memory format (channels-last,
    channels-last-3d), and takes its channels-last loops for (3, 4, 1, 1) too, whose strides
    are also row-major ones (one position: each group's sums in one vector)."""
    def call(m):
        m.manual_seed(0)
        layout = m.channels_last if len(shape) == 4 else m.channels_last_3d
        x = m.randn(shape).to(memory_format=layout).requires_grad_()
        weight, bias = m.randn(shape[1], requires_grad=True), m.randn(shape[1],
                                                                     requires_grad=True)
        y = m.nn.functional.group_norm(x, 2, weight, bias)
        return (y,) + m.autograd.grad(y, (x, weight, bias), m.randn(shape))
    parity.run_both(call)
