"""cumsum and cumprod values against torch 2.15: its CPU kernel's order and accumulator.

torch's cumulative kernel runs one accumulator along the dim, starting at 0 (cumsum) or 1
(cumprod), in the dtype's CPU "acc_type" (float32 for float16, double for float32), and
rounds each partial result back to the dtype. So a cumsum never gives -0.0 (0.0 + -0.0 is
0.0), while a cumprod keeps it (1 * -0.0 is -0.0). A 0-d input is copied and an empty one is
zero-filled without running the kernel, so neither checks the kernel's dtype (bool).
"""
import itertools

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

ZEROS = [0.0, -0.0]
ROWS = np.array([list(c) for c in itertools.product(ZEROS, repeat=3)]
                + [[-0.0, 1.0, -1.0], [2.0, -2.0, -0.0], [-0.5, 0.5, 0.0], [np.nan, -0.0, 1.0]])


def signed(dtype, rows=ROWS):
    return parity.to_engine(torch.tensor(rows, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", parity.FLOAT_DTYPES)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_signed_zeros(op, dim, dtype):
    x = signed(dtype)
    parity.run_both(lambda m, x: getattr(m, op)(x, dim), x)
    parity.run_both(lambda m, x: getattr(x.t(), op)(dim), x)  # strided
    parity.run_both(lambda m, x: getattr(x[:, :1], op)(dim), x)  # one element along a dim
    parity.run_both(lambda m, x: getattr(m, op)(x, dim, dtype=m.float64), x)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("value", [0.0, -0.0, 1.5])
def test_zero_dim_and_single_element_inputs(op, value):
    for shape in [(), (1,), (1, 1)]:
        x = parity.to_engine(torch.full(shape, value))
        parity.run_both(lambda m, x: getattr(x, op)(0), x)
        parity.run_both(lambda m, x: getattr(x, op)(-1, dtype=m.float16), x)


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0), (2, 3)])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_the_kernel_dtype_is_checked_only_when_the_kernel_runs(op, shape, dtype):
    x = parity.make_tensor(shape, dtype)
    parity.run_both(lambda m, x: getattr(x, op)(0, dtype=m.bool), x)
    parity.run_both(lambda m, x: getattr(m, op)(x, 0), x)


@pytest.mark.parametrize("dtype", parity.FLOAT_DTYPES)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_values_of_long_rows(op, seed, dtype):
    values = parity.make_values((5, 40), dtype, seed)
    if op == "cumprod":
        values = parity.make_values((5, 40), dtype, seed, low=-1.5, high=1.5)
    x = parity.to_engine(torch.from_numpy(values))
    parity.run_both(lambda m, x: getattr(x, op)(1), x)
    parity.run_both(lambda m, x: getattr(x, op)(0), x)


@pytest.mark.parametrize("line", ["y = x.std() * x.std()", "y = (x.var() * x).abs() * x.var()",
                                  "y = x.var(0) + x.std(0, keepdim=True) + x.var(0)",
                                  "y = torch.tensor([]).mean() + x.var() + x.var()"])
def test_a_warning_comes_once_from_one_line(line):
    """torch's "degrees of freedom" warning goes through Python's warnings, once per line: the
    engine must not reset what Python has shown (no warnings.catch_warnings inside)."""
    import warnings

    import engine

    def warned(module):
        namespace = {"torch": module}
        with warnings.catch_warnings(record=True) as caught:
            exec(compile("x = torch.tensor([-0.75], dtype=torch.float64, "
                         "requires_grad=True)\n" + line, "<program>", "exec"), namespace)
        return [str(w.message) for w in caught]
    assert warned(engine) == warned(torch)
