"""layer_norm's and group_norm's statistics and outputs against torch 2.15, bit for bit: the
engine replays torch's RowwiseMoments (vectorised Welford sums in chunks, merged pairwise:
engine/fidelity/moments.py) where it took exact float64 sums rounded once, and group_norm's
last step as torch's kernel (1 / sqrt(var + eps) in double; scale * x + (-scale * mean +
bias), fused). Counted over many rows: a few statistics of long rows are still an ulp away
(the counts below say how few), which before the replay were a third of them."""
import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

LENGTHS = (1, 3, 8, 9, 16, 17, 33, 100, 129, 257, 768, 1000, 2049)


def _rows(dtype, seed):
    rng = np.random.default_rng(seed)
    for length in LENGTHS:
        for scale, offset in ((1, 0), (10, 3), (1000, 100)):
            yield (rng.standard_normal((3, length)) * scale + offset).astype(dtype)


def _statistics(m, values, call):
    x = m.from_numpy(values.copy()).requires_grad_()
    out = call(m, x)
    return out.detach().numpy(), out.grad_fn._saved_result1.detach().numpy(), \
        out.grad_fn._saved_result2.detach().numpy()


def _count(call, dtype, seed):
    """(outputs, means, rstds) that differ from torch's, and how many of each there are."""
    differ, sizes = np.zeros(3, int), np.zeros(3, int)
    for values in _rows(dtype, seed):
        if call is not LAYER_NORM and values.shape[1] % 2:
            values = values[:, :-1] if values.shape[1] > 1 else np.repeat(values, 2, 1)
        for i, (e, t) in enumerate(zip(_statistics(engine, values, call),
                                       _statistics(torch, values, call))):
            differ[i] += (e != t).sum()
            sizes[i] += t.size
    return differ, sizes


def LAYER_NORM(m, x):  # noqa: N802 - a constant of the tests
    return m.nn.functional.layer_norm(x, (x.shape[1],))


def GROUP_NORM(m, x):  # noqa: N802
    return m.nn.functional.group_norm(x.view(3, 2, -1), 2)


def GROUP_NORM_AFFINE(m, x):  # noqa: N802
    channels = 2
    return m.nn.functional.group_norm(
        x.view(3, channels, -1), 1, m.linspace(-2, 2, channels, dtype=x.dtype),
        m.linspace(0.5, 1, channels, dtype=x.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_statistics_and_outputs(dtype):
    differ, sizes = _count(LAYER_NORM, dtype, 1)
    assert differ[1] == 0, (differ, sizes)  # every mean
    assert differ[2] <= 0.02 * sizes[2], (differ, sizes)  # rstd: before, a third differed
    assert differ[0] <= 0.03 * sizes[0], (differ, sizes)  # (a row takes its rstd's ulp)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("call", [GROUP_NORM, GROUP_NORM_AFFINE], ids=["plain", "affine"])
def test_group_norm_statistics_and_outputs(call, dtype):
    differ, sizes = _count(call, dtype, 2)
    assert differ[1] == 0 and differ[2] <= 0.01 * sizes[2], (differ, sizes)
    # (an rstd an ulp away moves about half of its group's outputs: one group of 1,000
    # values, 500 outputs, in float32 here; before the replay 75 means and rstds differed)
    assert differ[0] <= 0.02 * sizes[0], (differ, sizes)


def test_a_group_of_one_value_keeps_torchs_residue():
    """fuzz 7021147: each group one value, so x - mean is 0; torch's fused scale * x + shift
    leaves the rounding of the product (-1.0000005 where the exact result is -1)."""
    def call(m):
        m.manual_seed(0)
        x = m.randn(2, 4)
        weight = m.linspace(-1, 1, 4)
        return m.nn.functional.group_norm(x, 4, weight, weight).numpy()
    np.testing.assert_array_equal(call(engine), call(torch))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_inf_and_nan_in_a_row_pass_silently(dtype):
    """fuzz 5044232: a float16 row with inf (6e4 * 6 rounded to float16): numpy warned
    "invalid value encountered in subtract" inside the replayed Welford sums."""
    import warnings
    values = np.array([[np.inf, 1.0, 2.0], [1.0, np.nan, 3.0], [-np.inf, np.inf, 0.0]], dtype)
    outs = []
    for m in (torch, engine):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            x = m.from_numpy(values.copy()).requires_grad_()
            y = m.nn.functional.layer_norm(x, (3,))
            z = m.nn.functional.group_norm(x.unsqueeze(-1), 3)
            g, = m.autograd.grad((y.sum(), z.sum()), x)
        outs.append([t.detach().numpy() for t in (y, z, g)])
    for got, expected in zip(outs[1], outs[0]):
        np.testing.assert_array_equal(got, expected)
