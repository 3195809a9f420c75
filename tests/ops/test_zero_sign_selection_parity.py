"""The sign of zero in forward ops that choose between equal values, against torch 2.15.

0.0 == -0.0, so which of two equal zeros an op returns is torch's kernel's choice:
maximum/minimum (and clamp with tensor bounds) keep their first operand on a tie, amax/amin
and max/min along a dim keep the first zero met, and gelu's vectorised float32 loop turns
-0.0 into 0.0 (its scalar loop, used for one element or a strided input, keeps -0.0).

The engine follows torch's scalar loops. torch's vectorised loops (blocks of 64 bytes on this
machine: 8 float64, 16 float32, 32 float16 elements) may pick the other zero, which depends
on the CPU: the cases here stay below those sizes.
"""
import itertools

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

ZEROS = [0.0, -0.0]
# every order of two signed zeros with ones around them, in rows of 4 (and ties with nan)
ROWS = np.array([list(c) for c in itertools.product(ZEROS, repeat=4)]
                + [[1.0, 0.0, -0.0, 1.0], [-1.0, -0.0, 0.0, -1.0], [np.nan, 0.0, -0.0, 1.0]])
SMALL_FLOATS = ["float16", "float32", "float64"]


def signed(dtype, rows=ROWS):
    return parity.to_engine(torch.tensor(rows, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", SMALL_FLOATS)
@pytest.mark.parametrize("op", ["maximum", "minimum", "max", "min"])
def test_elementwise_extremes_keep_the_first_operand_on_a_tie(op, dtype):
    a = signed(dtype, [[0.0, 0.0, np.nan], [-0.0, -0.0, 1.0]])
    b = signed(dtype, [[0.0, -0.0, 0.0], [0.0, -0.0, -0.0]])
    parity.run_both(lambda m, a, b: getattr(m, op)(a, b), a, b)
    parity.run_both(lambda m, a, b: getattr(m, op)(a, b[:1]), a, b)  # broadcast
    parity.run_both(lambda m, a: getattr(m, op)(a[:, 0], a[:, 1]), a)


@pytest.mark.parametrize("dtype", SMALL_FLOATS)
@pytest.mark.parametrize("bounds", ["min", "max", "both", "both reversed"])
def test_clamp_with_tensor_bounds_keeps_the_input_on_a_tie(bounds, dtype):
    x, low, high = (signed(dtype, [0.0, 0.0, -0.0, -0.0, np.nan, 1.0, -0.0]),
                    signed(dtype, [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -1.0]),
                    signed(dtype, [-0.0, 0.0, 0.0, -0.0, 0.0, 0.0, -0.0]))
    kwargs = {"min": {"min": low}, "max": {"max": high}, "both": {"min": low, "max": high},
              "both reversed": {"min": high, "max": low}}[bounds]
    parity.run_both(lambda m, x, **kw: m.clamp(x, **kw), x, **kwargs)
    parity.run_both(lambda m, x, **kw: x.clamp(**kw), x, **kwargs)


@pytest.mark.parametrize("dtype", SMALL_FLOATS)
@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("dim", [(), 0, 1, -1, (0, 1), (1, 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_keep_the_first_zero(op, dim, keepdim, dtype):
    x = signed(dtype)
    for rows in (x[:3], x[3:6], x[6:9], x[9:12], x[12:15], x[15:]):
        parity.run_both(lambda m, x: getattr(m, op)(x, dim, keepdim), rows)
        parity.run_both(lambda m, x: getattr(x, op)(dim=dim, keepdim=keepdim), rows[:, 1:])
        parity.run_both(lambda m, x: getattr(m, op)(x.t(), dim), rows)  # a strided input


@pytest.mark.parametrize("dtype", SMALL_FLOATS)
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_along_a_dim_return_the_value_at_the_index(op, dim, keepdim, dtype):
    x = signed(dtype)
    for rows in (x[:3], x[3:6], x[6:9], x[9:12], x[12:15], x[15:]):
        parity.run_both(lambda m, x: getattr(m, op)(x, dim, keepdim), rows)
        parity.run_both(lambda m, x: getattr(x.t(), op)(dim, keepdim=keepdim), rows)


@pytest.mark.parametrize("op", ["max", "min", "amax", "amin"])
def test_whole_tensor_extremes_of_two_or_three_zeros(op):
    for n in (1, 2, 3):
        for values in itertools.product(ZEROS, repeat=n):
            parity.run_both(lambda m, x: getattr(x, op)(), parity.to_engine(torch.tensor(values)))


@pytest.mark.parametrize("dtype", SMALL_FLOATS)
@pytest.mark.parametrize("shape", [(), (1,), (2,), (3,), (17,), (2, 3), (40,), (3, 40)])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_of_negative_zero(shape, approximate, dtype):
    x = parity.to_engine(torch.full(shape, -0.0, dtype=getattr(torch, dtype)))
    gelu = lambda m, x: m.nn.functional.gelu(x, approximate=approximate)  # noqa: E731
    parity.run_both(gelu, x)
    if len(shape) == 2:
        parity.run_both(lambda m, x: gelu(m, x.t()), x)  # the scalar loop
        parity.run_both(lambda m, x: gelu(m, x[:, :1]), x)


@pytest.mark.parametrize("dtype", SMALL_FLOATS)
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("n", [2, 4, 5, 8, 9, 12, 15, 16, 17, 24, 31, 33, 40, 64, 100, 257])
def test_whole_tensor_extremes_in_the_vectorised_order(n, op, dtype):
    """x.max()/x.min() of zeros of both signs (with larger or smaller values around): the zero
    torch's vectorised reduce_all meets last, in its lanes (engine/fidelity/reduce_all.py)."""
    rng = np.random.default_rng(n)
    other = 1.0 if op == "min" else -1.0
    for trial in range(8):
        values = rng.choice([0.0, -0.0] + [other] * (trial % 3), n)
        x = parity.to_engine(torch.tensor(values, dtype=getattr(torch, dtype)))
        parity.run_both(lambda m, x: getattr(x, op)(), x)
        parity.run_both(lambda m, x: getattr(m, op)(x.flip(0)), x)  # a copy first
        if n % 4 == 0:
            parity.run_both(lambda m, x: getattr(x.reshape(4, -1).t(), op)(), x)


@pytest.mark.parametrize("dtype", SMALL_FLOATS)
@pytest.mark.parametrize("op", ["max", "min", "amax", "amin"])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2,), (9,)])
@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_whole_tensor_extreme_of_zeros_owns_its_memory(zero, shape, op, dtype):
    """The zero found by replaying torch's order is a new tensor, never a view of the input
    (one element's replay read it in place; fuzz 1578)."""
    x = parity.to_engine(torch.full(shape, zero, dtype=getattr(torch, dtype)))
    parity.run_both(lambda m, x: getattr(x, op)(), x, check_sharing=True)
